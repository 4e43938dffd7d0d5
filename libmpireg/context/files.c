/*
 * files.c: the MPI-IO state (see files.h): open files, their views and
 * individual file pointers, and the self-describing root `mpireg_io_root`.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "files.h"

#include <pthread.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

#define K(n, v) {n, (int64_t)(v)},
#define FILEF(f) K("file." #f, offsetof(struct mpireg_file, f))
#define MODE(m) K(#m, m)

static const struct mpireg_constant constants_table[] = {
    K("sizeof.file", sizeof(struct mpireg_file))
    K("sizeof.MPI_File", sizeof(MPI_File))
    K("sizeof.MPI_Offset", sizeof(MPI_Offset))
    K("file.name_max", MPIREG_FILE_NAME_MAX)
    K("file.datarep_max", MPIREG_FILE_DATAREP_MAX)
    FILEF(handle) FILEF(next) FILEF(prev) FILEF(comm) FILEF(created_at) FILEF(disp)
    FILEF(etype) FILEF(filetype) FILEF(position) FILEF(amode) FILEF(position_known)
    FILEF(name) FILEF(datarep) FILEF(serial)
    MODE(MPI_MODE_RDONLY) MODE(MPI_MODE_RDWR) MODE(MPI_MODE_WRONLY) MODE(MPI_MODE_CREATE)
    MODE(MPI_MODE_EXCL) MODE(MPI_MODE_DELETE_ON_CLOSE) MODE(MPI_MODE_UNIQUE_OPEN)
    MODE(MPI_MODE_SEQUENTIAL) MODE(MPI_MODE_APPEND)
    K("MPI_FILE_NULL", MPIREG_STATIC_KEY(MPI_FILE_NULL))
};
#undef K
#undef FILEF
#undef MODE

EXPORT struct mpireg_io_root mpireg_io_root = {
    .magic = MPIREG_IO_MAGIC,
    .layout_version = MPIREG_IO_LAYOUT_VERSION,
    .root_size = sizeof(struct mpireg_io_root),
    .n_constants = sizeof constants_table / sizeof constants_table[0],
    .constants = constants_table,
};

static void io_begin(void)
{
    mpireg_seq_enter(&io_lock, &mpireg_io_root.seq);
}

static void io_end(void)
{
    mpireg_seq_leave(&io_lock, &mpireg_io_root.seq);
}

/* Caller holds io_lock. */
static struct mpireg_file *find(uint64_t key)
{
    for (struct mpireg_file *f = mpireg_io_root.files; f; f = f->next)
        if (f->handle == key)
            return f;
    return NULL;
}

/* Takes f out of the list.  Caller is inside io_begin/io_end. */
static void unlink_file(struct mpireg_file *f)
{
    MPIREG_LIST_UNLINK(mpireg_io_root.files, f);
    mpireg_io_root.open_files--;
}

/* Frees a file taken out of the list, giving its view's types back. */
static void drop_file(struct mpireg_file *f)
{
    mpireg_release(f->etype);
    mpireg_release(f->filetype);
    free(f);
}

static void copy_string(char *dst, size_t size, const char *src)
{
    size_t n = src ? strnlen(src, size - 1) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

/* Where MPI says the individual file pointer of a file opened with amode
 * is: a local query, made outside io_lock; -1 for MPI_MODE_SEQUENTIAL files
 * (which have none: asking would be an error) or when MPI refuses. */
static int64_t ask_position(MPI_File fh, int amode)
{
    MPI_Offset pos = 0;
    if ((amode & MPI_MODE_SEQUENTIAL) || PMPI_File_get_position(fh, &pos) != MPI_SUCCESS)
        return -1;
    return (int64_t)pos;
}

static void set_position(struct mpireg_file *f, int64_t pos)
{
    f->position = pos;
    f->position_known = pos >= 0;
}

/* The access mode of a file we know, -1 otherwise. */
static int amode_of(MPI_File fh)
{
    pthread_mutex_lock(&io_lock);
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    int amode = f ? f->amode : -1;
    pthread_mutex_unlock(&io_lock);
    return amode;
}

static uint64_t file_serial;

void mpireg_file_open(MPI_File fh, MPI_Comm comm, const char *name, int amode, void *site)
{
    if (fh == MPI_FILE_NULL)
        return;
    struct mpireg_file *f = calloc(1, sizeof *f);
    if (!f)
        return;
    f->handle = MPIREG_HKEY(fh);
    f->comm = MPIREG_HKEY(comm);
    f->amode = amode;
    f->created_at = (uint64_t)(uintptr_t)site;
    copy_string(f->name, sizeof f->name, name);
    /* the default view: displacement 0, etype and filetype MPI_BYTE, "native" */
    f->etype = f->filetype = mpireg_hold(MPI_BYTE);
    copy_string(f->datarep, sizeof f->datarep, "native");
    set_position(f, ask_position(fh, amode));
    io_begin();
    f->serial = ++file_serial;
    struct mpireg_file *old = find(f->handle); /* closed behind our back */
    if (old)
        unlink_file(old);
    MPIREG_LIST_PUSH(mpireg_io_root.files, f);
    mpireg_io_root.open_files++;
    io_end();
    if (old)
        drop_file(old);
}

void mpireg_file_close(MPI_File fh)
{
    io_begin();
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    if (f)
        unlink_file(f);
    io_end();
    if (f)
        drop_file(f);
}

void mpireg_file_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep)
{
    const struct mpireg_record *e = mpireg_hold(etype), *t = mpireg_hold(filetype);
    const struct mpireg_record *old_e = NULL, *old_t = NULL;
    int amode = amode_of(fh);
    int64_t pos = amode < 0 ? -1 : ask_position(fh, amode);
    io_begin();
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    if (f) {
        old_e = f->etype;
        old_t = f->filetype;
        f->disp = disp;
        f->etype = e;
        f->filetype = t;
        copy_string(f->datarep, sizeof f->datarep, datarep);
        set_position(f, pos);
    }
    io_end();
    /* the old view's types (a file we do not know: the new ones) */
    mpireg_release(f ? old_e : e);
    mpireg_release(f ? old_t : t);
}

void mpireg_file_moved(MPI_File fh)
{
    int amode = amode_of(fh);
    if (amode < 0)
        return;
    int64_t pos = ask_position(fh, amode);
    io_begin();
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    if (f)
        set_position(f, pos);
    io_end();
}

int64_t mpireg_file_position(MPI_File fh)
{
    pthread_mutex_lock(&io_lock);
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    int64_t pos = f && f->position_known ? f->position : -1;
    pthread_mutex_unlock(&io_lock);
    return pos;
}

int mpireg_file_comm(MPI_File fh, uint64_t *comm)
{
    pthread_mutex_lock(&io_lock);
    struct mpireg_file *f = find(MPIREG_HKEY(fh));
    if (f)
        *comm = f->comm;
    pthread_mutex_unlock(&io_lock);
    return f != NULL;
}
