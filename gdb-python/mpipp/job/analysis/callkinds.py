"""MPI call kinds: generated from libmpireg/context/comm.spec by
libmpireg/genwrappers.py --call-kinds (`make callkinds`); do not edit.

What each wrapped MPI call does, as the job console's analysis classifies
calls (world.py): sets of base names -- a function's name without MPI_, in
lower case, without _c, _init and the I of a nonblocking variant
(MPI_Ibcast_init_c: bcast) -- but POLLS, of function names.  Each set is
defined by the words of the calls' rows (genwrappers.CALL_KINDS).
"""

# calls with a nonblocking variant, MPI_I<name>
NONBLOCKING_BASES = frozenset({
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "bsend", "exscan", "gather", "gatherv", "mprobe", "mrecv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
    "probe", "recv", "reduce", "reduce_scatter", "reduce_scatter_block", "rsend", "scan",
    "scatter", "scatterv", "send", "sendrecv", "sendrecv_replace", "ssend",
})

# start a message to their peer and receive none
SENDS = frozenset({"bsend", "rsend", "send", "ssend"})

# receive a message from their peer and send none
RECEIVES = frozenset({"recv"})

# send a message and receive one
SENDRECVS = frozenset({"sendrecv", "sendrecv_replace"})

# probe for a message
PROBES = frozenset({"mprobe", "probe"})

# sends that complete locally (buffered())
LOCAL_SENDS = frozenset({"bsend"})

# sends that complete before their receive is posted when the MPI sends them eagerly (neither
# synchronous() nor buffered())
EAGER_SENDS = frozenset({"rsend", "send", "sendrecv", "sendrecv_replace"})

# complete every request they name (complete() with ALL not 0)
WAIT_ALL = frozenset({"test", "testall", "wait", "waitall"})

# complete one or some of the requests they name (complete() with ALL 0)
WAIT_ANY = frozenset({"testany", "testsome", "waitany", "waitsome"})

# collectives libmpireg numbers on their communicator (collective())
NUMBERED = frozenset({
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "cart_create", "cart_sub", "comm_create", "comm_dup", "comm_dup_with_info",
    "comm_split", "comm_split_type", "dist_graph_create", "dist_graph_create_adjacent", "exscan",
    "file_open", "gather", "gatherv", "graph_create", "intercomm_create", "intercomm_merge",
    "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv",
    "neighbor_alltoallw", "reduce", "reduce_scatter", "reduce_scatter_block", "scan", "scatter",
    "scatterv",
})

# collectives over the members of their communicator (collective(), but MPI_Intercomm_create's:
# two groups meet through a remote leader, its peer)
COLLECTIVES = frozenset({
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "cart_create", "cart_sub", "comm_create", "comm_dup", "comm_dup_with_info",
    "comm_split", "comm_split_type", "dist_graph_create", "dist_graph_create_adjacent", "exscan",
    "file_open", "gather", "gatherv", "graph_create", "intercomm_merge", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
    "reduce", "reduce_scatter", "reduce_scatter_block", "scan", "scatter", "scatterv",
})

# collectives with a root (peer(root, ...))
ROOTED = frozenset({"bcast", "gather", "gatherv", "reduce", "scatter", "scatterv"})

# collectives that combine data with an op (extra(op, ...))
REDUCTIONS = frozenset({
    "allreduce", "exscan", "reduce", "reduce_scatter", "reduce_scatter_block", "scan",
})

# synchronise with the members of a group (group())
GROUP_COLLECTIVES = frozenset({"comm_create_group"})

# blocking collectives over the communicator their file was opened on (file_comm() without
# post())
FILE_COLLECTIVES = frozenset({
    "file_close", "file_read_all", "file_read_all_begin", "file_read_all_end", "file_read_at_all",
    "file_read_at_all_begin", "file_read_at_all_end", "file_read_ordered",
    "file_read_ordered_begin", "file_read_ordered_end", "file_seek_shared", "file_set_view",
    "file_write_all", "file_write_all_begin", "file_write_all_end", "file_write_at_all",
    "file_write_at_all_begin", "file_write_at_all_end", "file_write_ordered",
    "file_write_ordered_begin", "file_write_ordered_end",
})

# synchronise a window (win_sync())
RMA_SYNC = frozenset({
    "win_complete", "win_fence", "win_flush", "win_flush_all", "win_flush_local",
    "win_flush_local_all", "win_lock", "win_lock_all", "win_post", "win_start", "win_test",
    "win_unlock", "win_unlock_all", "win_wait",
})

# complete on their own, whatever the other processes do (local())
LOCAL = frozenset({
    "accumulate", "cancel", "comm_free", "comm_set_name", "compare_and_swap", "fetch_and_op",
    "file_get_view", "file_iread", "file_iread_all", "file_iread_at", "file_iread_at_all",
    "file_iread_shared", "file_iwrite", "file_iwrite_all", "file_iwrite_at", "file_iwrite_at_all",
    "file_iwrite_shared", "file_read", "file_read_at", "file_read_shared", "file_seek",
    "file_write", "file_write_at", "file_write_shared", "get", "get_accumulate", "mrecv",
    "op_create", "op_free", "pack", "pack_external", "put", "raccumulate", "reduce_local",
    "request_free", "rget", "rget_accumulate", "rput", "start", "startall", "unpack",
    "unpack_external",
})

# calls a program repeats until they find something (poll()): function names
POLLS = frozenset({
    "MPI_Improbe", "MPI_Iprobe", "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
    "MPI_Win_test",
})
