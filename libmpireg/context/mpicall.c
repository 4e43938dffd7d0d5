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
    /* The call's buffers under the names of the MPI standard's parameters,
     * which are comm.spec's and what `mpipp calls` shows (a call fills the
     * ones it has; tests/unit/test_mpi_call_fields.py checks every name
     * comm.spec gives a buffer is here).  MPI_Send: buf, count, datatype;
     * MPI_Allreduce: sendbuf, recvbuf, count, datatype; MPI_Sendrecv:
     * sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype. */
    void *buf;
    void *buffer;           /* MPI_Bcast's */
    MPI_Count count;
    MPI_Datatype datatype;
    void *sendbuf;
    MPI_Count sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    MPI_Count recvcount;
    MPI_Datatype recvtype;
    /* per-peer (v and w collectives): the arrays, int or MPI_Count (_c) */
    const void *sendcounts, *sdispls, *recvcounts, *rdispls, *displs;
    const MPI_Datatype *sendtypes, *recvtypes;
    void *origin_addr;      /* one-sided */
    MPI_Count origin_count;
    MPI_Datatype origin_datatype;
    void *result_addr;
    MPI_Count result_count;
    MPI_Datatype result_datatype;
    void *compare_addr;
    void *inbuf;            /* MPI_Pack, MPI_Unpack, MPI_Reduce_local */
    MPI_Count incount, insize;
    void *outbuf;
    MPI_Count outcount, outsize;
    void *inoutbuf;
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
