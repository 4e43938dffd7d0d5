/*
 * files.h: libmpireg's MPI-IO state -- the files the program opened, the
 * view set on each, and each file's individual file pointer -- kept in the
 * application's memory and read from outside with plain memory reads, like
 * the datatype registry (mpireg.h) and the communication context (calls.h).
 *
 * Root: the exported symbol `mpireg_io_root`: magic MPIREG_IO_MAGIC,
 * layout version, root size, `seq` (odd while the list or a record is
 * changed), `constants` ((name, value) pairs: the offset of every field
 * "file.*", "sizeof.file", "file.name_max", "file.datarep_max", the MPI
 * constants MPI_MODE_* and MPI_FILE_NULL), the head of the doubly linked
 * list `files` and the number of `open_files`.
 *
 * A file record: `handle` (the MPI_File widened to 64 bits like every
 * handle of libmpireg), the communicator it was opened on, its access mode,
 * its name (copied, cut at name_max - 1 bytes), the creation site of the
 * MPI_File_open call, and its view: `disp` (bytes), `etype` and `filetype`
 * (pointers to registry records -- the registry keeps them alive while a
 * view holds them, even after the program freed its handles, as MPI does)
 * and `datarep`.  `position` is the individual file pointer in etypes,
 * asked of MPI (MPI_File_get_position) after every wrapped call that moves
 * it; `position_known` is 0 before that, for MPI_MODE_SEQUENTIAL files
 * (which have none) or when MPI refused to say.  The shared file pointer is
 * not tracked (reading it is collective work in some MPIs).  `serial`
 * numbers the files in the order this process opened them (file#serial).
 */
#ifndef MPIREG_FILES_H
#define MPIREG_FILES_H

#include <stdint.h>
#include <mpi.h>
#include "mpireg.h"

#define MPIREG_IO_MAGIC UINT64_C(0x31304f4950504d6d) /* "mMPPIO01" little-endian */
#define MPIREG_IO_LAYOUT_VERSION 1u
#define MPIREG_FILE_NAME_MAX 256
#define MPIREG_FILE_DATAREP_MAX 64

struct mpireg_file {
    uint64_t handle; /* widened MPI_File */
    struct mpireg_file *next, *prev;
    uint64_t comm;   /* widened MPI_Comm it was opened on */
    uint64_t created_at;
    int64_t disp;                           /* the view's displacement, bytes */
    const struct mpireg_record *etype;      /* the view's etype (a registry record) */
    const struct mpireg_record *filetype;   /* the view's filetype */
    int64_t position;                       /* individual file pointer, in etypes */
    int32_t amode;
    int32_t position_known;
    char name[MPIREG_FILE_NAME_MAX];
    char datarep[MPIREG_FILE_DATAREP_MAX];
    uint64_t serial; /* opening order in this process: label file#serial */
};

struct mpireg_io_root {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t root_size;
    volatile uint64_t seq; /* odd while the list or a record is being changed */
    uint32_t n_constants;
    uint32_t open_files;
    const struct mpireg_constant *constants;
    struct mpireg_file *files;
};

extern struct mpireg_io_root mpireg_io_root;

/* Used by the generated wrappers (rows of comm.spec). */
#define MPIREG_IO_HIDDEN __attribute__((visibility("hidden")))
MPIREG_IO_HIDDEN void mpireg_file_open(MPI_File fh, MPI_Comm comm, const char *name, int amode,
                                       void *site);
MPIREG_IO_HIDDEN void mpireg_file_close(MPI_File fh);
MPIREG_IO_HIDDEN void mpireg_file_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                       MPI_Datatype filetype, const char *datarep);
/* The call moved the individual file pointer: ask MPI where it is now. */
MPIREG_IO_HIDDEN void mpireg_file_moved(MPI_File fh);
/* *comm = the communicator fh was opened on, widened; 0 (and *comm
 * untouched) for a file we do not know. */
MPIREG_IO_HIDDEN int mpireg_file_comm(MPI_File fh, uint64_t *comm);
/* The individual file pointer recorded for fh (-1 when unknown). */
MPIREG_IO_HIDDEN int64_t mpireg_file_position(MPI_File fh);

#endif
