/*
 * table.c: the registry's open-addressing hash tables (root.types,
 * root.names; layout in mpireg.h).
 *
 * A slot holds a pointer to an object whose first 8 bytes are its key.
 * Linear probing from slot mpireg_hash(key) & (capacity - 1); a removal
 * shifts the rest of its cluster back (no tombstones), so every probe ends
 * at an empty slot and max_probe only has to be recomputed when the table
 * is rebuilt.  The table doubles when it would be more than 3/4 full and
 * halves when less than 1/8 full, never below MIN_CAPACITY once allocated:
 * a program whose live types come and go in a loop never resizes.
 *
 * Callers hold the registry lock and bracket every change with the
 * sequence counter, so a reader never trusts a table caught mid-resize.
 */
#include "mpireg_internal.h"

#include <stdlib.h>

#define MIN_CAPACITY 64u
#define MAX_CAPACITY (1u << 31)

static inline uint64_t key_of(const void *object)
{
    return *(const uint64_t *)object;
}

static inline uint32_t home_slot(const struct mpireg_table *t, uint64_t key)
{
    return mpireg_hash(key) & (t->capacity - 1);
}

void *mpireg_table_find(const struct mpireg_table *t, uint64_t key)
{
    if (!t->capacity)
        return NULL;
    uint32_t mask = t->capacity - 1;
    for (uint32_t i = home_slot(t, key), n = 0; n < t->max_probe; i = (i + 1) & mask, n++) {
        void *object = t->slots[i];
        if (!object)
            return NULL;
        if (key_of(object) == key)
            return object;
    }
    return NULL;
}

/* Places object in its probe sequence (there is room); keeps max_probe. */
static void place(struct mpireg_table *t, void *object)
{
    uint32_t mask = t->capacity - 1, i = home_slot(t, key_of(object)), distance = 0;
    while (t->slots[i]) {
        i = (i + 1) & mask;
        distance++;
    }
    t->slots[i] = object;
    if (distance + 1 > t->max_probe)
        t->max_probe = distance + 1;
}

/* Rebuilds the table with `capacity` slots; 0 when out of memory (the
 * table is unchanged). */
static int rebuild(struct mpireg_table *t, uint32_t capacity)
{
    void **slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return 0;
    void **old = t->slots;
    uint32_t old_capacity = t->capacity;
    t->slots = slots;
    t->capacity = capacity;
    t->max_probe = 0;
    for (uint32_t i = 0; i < old_capacity; i++)
        if (old[i])
            place(t, old[i]);
    free(old);
    return 1;
}

int mpireg_table_insert(struct mpireg_table *t, void *object)
{
    if ((uint64_t)(t->count + 1) * 4 > (uint64_t)t->capacity * 3) {
        uint32_t capacity = t->capacity ? t->capacity * 2 : MIN_CAPACITY;
        if (t->capacity >= MAX_CAPACITY || !rebuild(t, capacity))
            return 0;
    }
    place(t, object);
    t->count++;
    return 1;
}

void mpireg_table_remove(struct mpireg_table *t, const void *object)
{
    if (!t->capacity)
        return;
    uint32_t mask = t->capacity - 1, i = home_slot(t, key_of(object));
    for (uint32_t n = 0; t->slots[i] != object; i = (i + 1) & mask, n++)
        if (!t->slots[i] || n >= t->max_probe)
            return; /* not in the table */
    /* Backward shift: move later members of the cluster into the hole when
     * the hole lies on their probe sequence (between their home and them). */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
        uint32_t home = home_slot(t, key_of(t->slots[j]));
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    t->slots[hole] = NULL;
    t->count--;
    if (t->capacity > MIN_CAPACITY && (uint64_t)t->count * 8 < t->capacity)
        rebuild(t, t->capacity / 2); /* out of memory: stay bigger */
}
