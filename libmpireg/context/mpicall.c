/*
 * mpicall.c: the type of gdb's convenience variable $mpi_call -- the MPI
 * call the selected thread is in, with its arguments as the MPI types the
 * program passed (MPI_Datatype, MPI_Comm, ...), so that `print
 * $mpi_call.datatype` and `mpipp $mpi_call.datatype $mpi_call.buf
 * $mpi_call.count` work inside a library without debug information, where
 * the wrapper's own arguments are optimized out.
 *
 * libmpireg never writes such a struct: mpipp fills a value of this type
 * from the thread's call record (calls.h) at every stop.  It exists for the
 * debug information only, which is why the pointer below is exported (a
 * type only a static object used would be dropped).  Fields that the call
 * does not have hold the MPI's null handles (MPI_COMM_NULL, ...) and 0.
 */
#include <mpi.h>

struct mpireg_mpi_call {
    const char *function;   /* "MPI_Recv" */
    /* the call's buffers, in the order `mpipp calls` lists them (buf:
     * sendbuf, origin_addr, ...; buf2: recvbuf, result_addr, ...) */
    void *buf;
    MPI_Count count;        /* -1: counts per peer (v/w collectives) */
    MPI_Datatype datatype;
    void *buf2;
    MPI_Count count2;
    MPI_Datatype datatype2;
    void *buf3;
    MPI_Count count3;
    MPI_Datatype datatype3;
    int peer;               /* source, dest, root or target_rank */
    int tag;
    MPI_Comm comm;
    MPI_Op op;
    MPI_Group group;
    MPI_Win win;
    MPI_Aint target_disp;   /* RMA: the target side */
    MPI_Count target_count;
    MPI_Datatype target_datatype;
    MPI_File fh;
    MPI_Offset offset;      /* in etypes: explicit, or the individual file pointer */
    MPI_Request *requests;  /* Wait/Test: the requests waited for */
    MPI_Count nrequests;
};

__attribute__((visibility("default"))) const struct mpireg_mpi_call *const mpireg_mpi_call_type = 0;
