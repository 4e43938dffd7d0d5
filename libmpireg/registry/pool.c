/*
 * pool.c: memory for records.
 *
 * A record is its 72-byte header plus its argument arrays, so sizes vary
 * in steps of 4 bytes.  Records up to MPIREG_POOL_MAX bytes are carved out
 * of SLAB_BYTES slabs at their exact size (rounded to 8: no per-block
 * header, as malloc would add) and, when freed, kept on a free list per
 * size, for the next record of that size: a program that creates and frees
 * types in a loop allocates nothing after the first iteration.  The pool
 * never gives memory back (like MPI's own datatype objects, it keeps what
 * the program's peak needed).  Bigger records (indexed types with hundreds
 * of blocks) are plain malloc blocks.  Under the registry lock.
 */
#include "mpireg_internal.h"

#include <stdlib.h>

#define MPIREG_POOL_MAX 4096u
#define SLAB_BYTES 65536u
#define GRAIN 8u

static void *free_lists[MPIREG_POOL_MAX / GRAIN + 1];
static char *bump, *bump_end;

static inline size_t round_up(size_t n)
{
    return (n + GRAIN - 1) & ~(size_t)(GRAIN - 1);
}

static void push(void *p, size_t n)
{
    *(void **)p = free_lists[n / GRAIN];
    free_lists[n / GRAIN] = p;
}

void *mpireg_pool_alloc(size_t n)
{
    n = round_up(n);
    if (n > MPIREG_POOL_MAX)
        return malloc(n);
    void *p = free_lists[n / GRAIN];
    if (p) {
        free_lists[n / GRAIN] = *(void **)p;
        return p;
    }
    if ((size_t)(bump_end - bump) < n) {
        char *slab = malloc(SLAB_BYTES);
        if (!slab)
            return NULL;
        if ((size_t)(bump_end - bump) >= sizeof(struct mpireg_record))
            push(bump, (size_t)(bump_end - bump)); /* the old slab's tail */
        bump = slab;
        bump_end = slab + SLAB_BYTES;
    }
    p = bump;
    bump += n;
    return p;
}

void mpireg_pool_free(void *p, size_t n)
{
    if (!p)
        return;
    n = round_up(n);
    if (n > MPIREG_POOL_MAX)
        free(p);
    else
        push(p, n);
}
