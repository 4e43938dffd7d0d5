#!/usr/bin/env python3
"""Generate libmpireg's PMPI wrappers (build/$(MPI)/wrappers.c) from
registry/wrappers.spec and context/comm.spec, and the job console's MPI
call kinds from comm.spec.

Usage: genwrappers.py [--declared mpi.i] wrappers.spec [comm.spec ...] > wrappers.c
       genwrappers.py --call-kinds comm.spec > gdb-python/mpipp/job/analysis/callkinds.py

With --declared (the output of `mpicc -E` on `#include <mpi.h>`), a row gets
a wrapper only when that mpi.h declares its PMPI function: Open MPI 4.1, an
MPI-3.1 library, lacks the MPI-4 large-count (_c) and partitioned functions
and (unless built with MPI-1 compatibility) the removed MPI-1 ones.  Rows
left out are listed in a comment at the top of the output.

A spec row is one MPI function:

    NAME | PARAMETERS | RECIPE

PARAMETERS is the C parameter list exactly as in the MPI library's header (the
compiler checks it against mpi.h's prototype).  The wrapper calls PMPI_NAME
with the same arguments and returns its code unchanged; the recipe runs only
when that code is MPI_SUCCESS (except `before` parts, see HOOKS).

RECIPE is a sequence of hooks `hook(arg, ...)`.  Arguments are C expressions
over the parameters.  Hooks:

    create(OUT, COMBINER)  *OUT is a new datatype built with MPI_COMBINER_<COMBINER>;
                           its record's argument arrays are given by:
    I(items) A(items) L(items) D(items)
                           integers / addresses / large counts / datatypes, in
                           the order MPI_Type_get_contents_c returns them.  An
                           item is EXPR (one value) or EXPR[LEN] (LEN values
                           EXPR[0..LEN-1]).
    commit(PTR)            *PTR was committed
    free(PTR)              *PTR (read before the call) was freed
    set_name(H, NAME)      H was named NAME
    contents(H, OUT, MAX)  get_contents of H handed out the datatypes in OUT
    init()                 MPI is up

New kinds of calls add hooks to HOOKS below; a row stays one line.

Communication context hooks (rows of context/comm.spec; see
context/calls.h).  A row that uses any of them records the call in the
calling thread's slot before the PMPI call (no lock held across it) and
clears it afterwards:

    comm(C)                       the communicator
    peer(NAME, EXPR)              source/dest/root/target_rank, named NAME
    peer2(NAME, EXPR, TAG)        Sendrecv's second peer and its tag
    tag(EXPR)                     the tag
    extra(NAME, HANDLE)           an op or group handle shown as NAME
    buf(ROLE, ADDR, COUNT, TYPE)  a buffer of COUNT elements of TYPE
    vbuf(ROLE, ADDR, COUNTS, DISPLS, TYPE, NPEERS)
                                  per-peer counts (and displacements in
                                  extents) of one TYPE
    cbuf(ROLE, ADDR, COUNTS, TYPE, NPEERS)
                                  per-peer counts, consecutive (Reduce_scatter)
    wbuf(ROLE, ADDR, COUNTS, DISPLS, TYPES, NPEERS)
                                  per-peer counts, byte displacements, types
    reqs(PTR, N)                  the requests a Wait/Test/Start call names
    post(REQPTR)                  nonblocking: *REQPTR becomes pending
    persist(REQPTR)               persistent *_init: *REQPTR, inactive
    ppersist(REQPTR)              partitioned *_init
    complete(N, REQS, ALL, NDONE, DONE, STATUSES, LAYOUT)
                                  Wait*/Test*: REQS[0..N-1] read before the
                                  call; afterwards the ones now
                                  MPI_REQUEST_NULL are gone, and completed
                                  persistent ones (ALL, or the NDONE indices
                                  in DONE) become inactive; completed
                                  receives report their match from STATUSES
                                  (LAYOUT: EACH, DONE or ONE, see
                                  mpireg_req_statuses; MPI gets statuses of
                                  ours when the call ignores them and a
                                  wildcard receive may complete)
    forget(REQPTR)                Request_free
    start(N, REQS)                Start/Startall
    cancel(REQPTR)                Cancel
    comm_new(OUTPTR, PARENT)      a new communicator *OUTPTR
    comm_from(OUTPTR, PARENT, NAME, EXPR)
                                  a new communicator *OUTPTR, made by
                                  choosing EXPR (shown as NAME: the color
                                  of MPI_Comm_split)
    comm_free(PTR)                *PTR freed
    comm_name(C, NAME)            C named NAME
    op_new(FN, COMMUTE, OUTPTR)   a user-defined op
    op_free(PTR)                  *PTR freed

Channel hooks (context/channels.h: message, collective and RMA epoch
counters, and mpireg_matched, the hook every completed receive and probe
reports to):

    sends()                       the call starts a message to its peer
                                  (counted when a blocking send returns, a
                                  nonblocking one is posted, a persistent one
                                  started: a request gets its number on the
                                  channel in call.seq)
    receives()                    the call receives from its peer (peer2 when
                                  it also sends): a blocking call reports its
                                  match when it returns, a request when a
                                  Wait/Test completes it
    probes()                      the call probes (a matched probe with
                                  message())
    collective()                  a collective on the call's communicator
                                  (counted as sends(); numbered as they are)
    status(STATUS, SOURCE, TAG)   the call's status parameter; when it is
                                  MPI_STATUS_IGNORE and SOURCE or TAG is a
                                  wildcard, MPI gets a status of ours
    poll(FLAG)                    a Test/Iprobe call: it did something only
                                  when FLAG (after the call) is true
    message(MSGPTR)               a matched probe: *MSGPTR is its message
    mrecv(MSGPTR)                 receives the message of a matched probe
    group(GROUP)                  the call synchronises with GROUP's members
    win_sync(WIN, WHAT, LOCKTYPE, GROUP)
                                  an RMA synchronisation call on WIN
                                  (WHAT: FENCE, LOCK, UNLOCK, ...; see
                                  mpireg_chan_win_sync)

Record and replay words (replay/record.h: what a rank records with
MPIPP_RECORD and enforces with MPIPP_REPLAY).  Sends and collectives need
none: their rows' sends() and collective() record them (a collective's
shape -- which members reach which -- comes from the row's name, a send's
being synchronous from its synchronous() word).

    matches(KIND, SOURCE, TAG)    the receive side of a row that receives()
                                  or probes(): KIND its event (RECV,
                                  SENDRECV, IRECV, START, PROBE, MPROBE,
                                  IPROBE, IMPROBE); SOURCE and TAG its
                                  parameters, which replay sets to the
                                  recorded match of a wildcard (a poll()
                                  row's outcome is replayed too: a recorded
                                  miss returns false, a success probes for
                                  the recorded message)
    chooses(KIND, FLAG, INDEX, OUTCOUNT, INDICES)
                                  a complete() row where MPI chooses what
                                  completes (TEST, TESTALL, TESTANY,
                                  TESTSOME, WAITANY, WAITSOME): the choice is
                                  recorded, and replayed in place of the
                                  call; the outputs the call has (NULL for
                                  the others)
    shadowed(N, REQS)             requests a completion call names: replay's
                                  shadows of persistent wildcard receives
                                  stand in for them during the call
    restarts(N, REQS)             MPI_Start(all): replayed in place of the call
    unshadows(REQPTR)             MPI_Request_free: the request's shadow goes too
    record_up()                   MPI is up: record or replay as the
                                  environment says
    record_down()                 MPI_Finalize: the record is closed (or the
                                  replay checked to be complete)

MPI-IO hooks (context/files.h):

    file(FH)                      the file the call accesses
    file_comm(FH)                 the call is collective over the
                                  communicator FH was opened on
    offset(EXPR)                  an explicit offset (in etypes)
    position(FH)                  the access starts at FH's individual file
                                  pointer (recorded); afterwards it moved
    shared()                      the access uses the shared file pointer
    moved(FH)                     the call moved FH's individual pointer
    file_open(OUTPTR, COMM, NAME, AMODE)
                                  *OUTPTR was opened
    file_close(PTR)               *PTR (read before the call) was closed
    file_view(FH, DISP, ETYPE, FILETYPE, DATAREP)
                                  FH's view was set

RMA, groups and windows (context/objects.h):

    target(DISP, COUNT, TYPE)     the target side of an RMA call (the target
                                  rank is its peer())
    win(W)                        the window the call uses
    win_comm(W)                   the call is collective over the
                                  communicator W was created on
    win_new(OUTPTR, COMM, FLAVOR, BASE, SIZE, DISP_UNIT)
                                  *OUTPTR was created (FLAVOR: CREATE,
                                  ALLOCATE, SHARED or DYNAMIC)
    win_free(PTR)                 *PTR (read before the call) was freed (its
                                  channel records are retired too)
    win_name(W, NAME)             W was named NAME
    win_attach(W, BASE, SIZE), win_detach(W, BASE)
                                  a dynamic window's regions
    epoch(W, EVENT, A, B)         a synchronization call (objects.h,
                                  enum mpireg_epoch_event: FENCE, LOCK, ...)
    access_epoch(W, GROUP), exposure_epoch(W, GROUP)
                                  MPI_Win_start, MPI_Win_post
    group_new(OUTPTR, FROM, FROM2)
                                  a new group *OUTPTR made from the handle
                                  FROM (and the group FROM2)
    group_free(PTR)               *PTR freed

What a call does, for the job console's analysis (--call-kinds; no C
but synchronous(), which record and replay also read):

    synchronous()                 a send that completes only once its
                                  receive has started (MPI_Ssend)
    buffered()                    a send that completes locally, into the
                                  attached buffer (MPI_Bsend)
    local()                       the call completes on its own, whatever
                                  the other processes do

With --call-kinds, the output is a Python module of sets of base names
(MPI_Ibcast_init_c -> bcast), each defined by its rows' words (CALL_KINDS):
the job console classifies calls by them (job/analysis/world.py), so
comm.spec is the one place that says what an MPI call does.

Several spec files may be given; they are concatenated (a function may be
listed only once overall).  Rows marked fortran() also get a Fortran entry
point: see FORTRAN_PARAMS.  Standard library only.
"""
import re
import sys
import textwrap

ARRAYS = {  # section -> (C element type, writer accessor, count index)
    "I": ("int", "mpireg_w_integers", 0),
    "A": ("MPI_Aint", "mpireg_w_addresses", 1),
    "L": ("MPI_Count", "mpireg_w_large_counts", 2),
    "D": ("uint64_t", "mpireg_w_datatype_keys", 3),
}

# hook -> (number of arguments, code before the PMPI call, code after success,
#          serialize).  A serialized call runs the PMPI call and the registry
# update under the registry lock as one step: MPI may destroy a handle in one
# thread and give it to a new type in another, and the registry must see the
# two events in MPI's order.
HOOKS = {
    "commit": (1, "", "mpireg_on_commit(*({0}));", False),
    "free": (1, "MPI_Datatype mpireg_freed = ({0}) ? *({0}) : MPI_DATATYPE_NULL;",
             "mpireg_on_free(mpireg_freed);", True),
    "set_name": (2, "", "mpireg_on_set_name({0}, {1});", False),
    "contents": (3, "", "mpireg_on_contents({0}, {1}, (MPI_Count)({2}), mpireg_site);", True),
    "init": (0, "struct mpireg_thread_slot *mpireg_init_slot = mpireg_init_begin();",
             "mpireg_mpi_up(); mpireg_req_probe(); mpireg_ctx_up(); mpireg_check_up(); "
             "mpireg_init_end(mpireg_init_slot);", False),
    "record_up": (0, "", "mpireg_rr_up();", False),
}

# A new communicator (how it was made: comm_from's name and value, as
# MPI_Comm_split's color), registered with record/replay too.
COMM_NEW = ("mpireg_comm_new(*({0}), ({1}), mpireg_c->func, mpireg_site, %s); "
            "if (mpireg_rr_mode) mpireg_rr_comm_new(*({0}));")

# Communication context hooks -> (number of arguments, code filling the call
# record `mpireg_c` before the PMPI call, code after the call whatever its
# result, code after success).  {rc} is the PMPI return code.
CTX_HOOKS = {
    "comm": (1, "mpireg_c->comm = MPIREG_HKEY({0});", "", ""),
    "peer": (2, 'mpireg_c->peer_name = "{0}"; mpireg_c->peer = ({1});', "", ""),
    "peer2": (3, 'mpireg_c->peer2_name = "{0}"; mpireg_c->peer2 = ({1}); mpireg_c->tag2 = ({2});',
              "", ""),
    "tag": (1, "mpireg_c->tag = ({0});", "", ""),
    "extra": (2, 'mpireg_c->extra_name = "{0}"; mpireg_c->extra = MPIREG_HKEY({1});', "", ""),
    "buf": (4, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_set(mpireg_c, {k}, "{0}", {1}); '
               "mpireg_b->count = (int64_t)({2}); mpireg_b->datatype = MPIREG_HKEY({3}); }}",
            "", ""),
    "vbuf": (6, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_set(mpireg_c, {k}, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = MPIREG_HKEY({4}); "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->displs = (uint64_t)(uintptr_t)({3}); mpireg_b->displ_size = sizeof *({3}); "
                "mpireg_b->npeers = ({5}); }}", "", ""),
    "cbuf": (5, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_set(mpireg_c, {k}, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = MPIREG_HKEY({3}); "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->npeers = ({4}); }}", "", ""),
    "wbuf": (6, '{{ struct mpireg_cbuf *mpireg_b = mpireg_cbuf_set(mpireg_c, {k}, "{0}", {1}); '
                "mpireg_b->count = -1; mpireg_b->datatype = 0; "
                "mpireg_b->counts = (uint64_t)(uintptr_t)({2}); mpireg_b->count_size = sizeof *({2}); "
                "mpireg_b->displs = (uint64_t)(uintptr_t)({3}); mpireg_b->displ_size = sizeof *({3}); "
                "mpireg_b->displ_in_bytes = 1; mpireg_b->types = (uint64_t)(uintptr_t)({4}); "
                "mpireg_b->npeers = ({5}); }}", "", ""),
    "reqs": (2, "mpireg_c->reqs = (uint64_t)(uintptr_t)({0}); mpireg_c->nreqs = ({1});", "", ""),
    "post": (1, "", "", "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_ACTIVE);"),
    "persist": (1, "", "", "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_PERSISTENT);"),
    "ppersist": (1, "", "",
                 "mpireg_req_post(*({0}), mpireg_c, MPIREG_REQ_PERSISTENT | MPIREG_REQ_PARTITIONED);"),
    "complete": (7, "struct mpireg_reqsave mpireg_s; mpireg_req_save(&mpireg_s, ({0}), ({1})); "
                    "MPI_Status mpireg_sts[8]; "
                    "{5} = mpireg_req_statuses(&mpireg_s, {5}, MPIREG_STATUS_{6}, mpireg_sts, 8);",
                 "mpireg_req_after(&mpireg_s, ({1}), {rc} == MPI_SUCCESS && ({2}), "
                 "{rc} == MPI_SUCCESS ? ({3}) : 0, ({4}), {rc} == MPI_SUCCESS, {5}, "
                 "MPIREG_STATUS_{6}); mpireg_req_release(&mpireg_s);", ""),
    "forget": (1, "struct mpireg_reqsave mpireg_s; mpireg_req_save(&mpireg_s, 1, ({0}));",
               "if ({rc} == MPI_SUCCESS) {{ mpireg_req_forget(&mpireg_s); }} mpireg_req_release(&mpireg_s);",
               ""),
    "start": (2, "", "", "mpireg_req_start(({0}), ({1}));"),
    "cancel": (1, "", "", "mpireg_req_cancel(*({0}));"),
    # channels (channels.h); the counting itself: channel_code()
    "sends": (0, "", "", ""),
    "receives": (0, "", "", ""),
    "probes": (0, "", "", ""),
    "collective": (0, "", "", ""),
    "mrecv": (1, "uint64_t mpireg_msg = ({0}) ? MPIREG_HKEY(*({0})) : 0; "
                 "mpireg_chan_mrecv(mpireg_c, ({0}));", "", "mpireg_chan_message_taken(mpireg_msg);"),
    "group": (1, "mpireg_chan_group(mpireg_c, ({0}));", "", ""),
    "win_sync": (4, "mpireg_chan_win_sync(mpireg_c, ({0}), MPIREG_SYNC_{1}, ({2}), ({3}));", "",
                 ""),
    "comm_new": (2, "", "", COMM_NEW % "NULL, 0"),
    "comm_from": (4, "", "", COMM_NEW % '"{2}", (int64_t)({3})'),
    "comm_free": (1, "MPI_Comm mpireg_cf = ({0}) ? *({0}) : MPI_COMM_NULL;", "",
                  "mpireg_comm_gone(mpireg_cf); if (mpireg_rr_mode) mpireg_rr_comm_gone(mpireg_cf);"),
    "comm_name": (2, "", "", "mpireg_comm_named(({0}), ({1}));"),
    "op_new": (3, "", "", "mpireg_op_new(*({2}), (void (*)(void))({0}), ({1}), mpireg_site);"),
    "op_free": (1, "MPI_Op mpireg_of = ({0}) ? *({0}) : MPI_OP_NULL;", "", "mpireg_op_gone(mpireg_of);"),
    # MPI-IO (files.h)
    "file": (1, "mpireg_c->file = MPIREG_HKEY({0});", "", ""),
    "file_comm": (1, "if (mpireg_file_comm(({0}), &mpireg_c->comm)) "
                     "mpireg_c->flags |= MPIREG_CALL_HAS_COMM;", "", ""),
    "offset": (1, "mpireg_c->offset = (int64_t)({0});", "", ""),
    "position": (1, "mpireg_c->offset = mpireg_file_position({0}); "
                    "if (mpireg_c->offset >= 0) mpireg_c->flags |= MPIREG_CALL_HAS_POSITION;",
                 "", "mpireg_file_moved({0});"),
    "shared": (0, "", "", ""),
    "moved": (1, "", "", "mpireg_file_moved({0});"),
    "file_open": (4, "", "", "mpireg_file_open(*({0}), ({1}), ({2}), ({3}), mpireg_site);"),
    "file_close": (1, "MPI_File mpireg_fclosed = ({0}) ? *({0}) : MPI_FILE_NULL;", "",
                   "mpireg_file_close(mpireg_fclosed);"),
    "file_view": (5, "", "", "mpireg_file_view(({0}), ({1}), ({2}), ({3}), ({4}));"),
    # groups and RMA windows (objects.h)
    "group_new": (3, "", "", "mpireg_group_new(*({0}), MPIREG_HKEY({1}), MPIREG_HKEY({2}), "
                             "mpireg_c->func, mpireg_site);"),
    "group_free": (1, "MPI_Group mpireg_gf = ({0}) ? *({0}) : MPI_GROUP_NULL;", "",
                   "mpireg_group_gone(mpireg_gf);"),
    "win": (1, "mpireg_c->win = MPIREG_HKEY({0});", "", ""),
    "win_comm": (1, "if (mpireg_win_comm(({0}), &mpireg_c->comm)) "
                    "mpireg_c->flags |= MPIREG_CALL_HAS_COMM;", "", ""),
    "target": (3, "mpireg_c->target_disp = (int64_t)({0}); mpireg_c->target_count = (int64_t)({1}); "
                  "mpireg_c->target_datatype = MPIREG_HKEY({2});", "", ""),
    "win_new": (6, "", "", "mpireg_win_new(*({0}), ({1}), MPIREG_WIN_{2}, ({3}), ({4}), (int)({5}), "
                           "mpireg_c->func, mpireg_site);"),
    "win_free": (1, "MPI_Win mpireg_wf = ({0}) ? *({0}) : MPI_WIN_NULL;", "",
                 "mpireg_win_gone(mpireg_wf); mpireg_chan_win_gone(MPIREG_HKEY(mpireg_wf));"),
    "win_name": (2, "", "", "mpireg_win_named(({0}), ({1}));"),
    "win_attach": (3, "", "", "mpireg_win_attach(({0}), ({1}), ({2}));"),
    "win_detach": (2, "", "", "mpireg_win_detach(({0}), ({1}));"),
    "epoch": (4, "", "", "mpireg_win_epoch(({0}), MPIREG_EV_{1}, (int64_t)({2}), (int64_t)({3}));"),
    "access_epoch": (2, "", "", "mpireg_win_pscw(({0}), 1, ({1}));"),
    "exposure_epoch": (2, "", "", "mpireg_win_pscw(({0}), 0, ({1}));"),
}
# The call.flags bit each of these hooks sets: all of a row's are stored at
# once (MPIREG_CALL_ omitted).
CTX_FLAGS = {"comm": "HAS_COMM", "peer": "HAS_PEER", "peer2": "HAS_PEER2", "tag": "HAS_TAG",
             "extra": "HAS_EXTRA", "reqs": "HAS_REQS", "sends": "SENDS", "receives": "RECEIVES",
             "probes": "PROBES", "collective": "COLLECTIVE", "file": "HAS_FILE",
             "offset": "HAS_OFFSET", "shared": "SHARED_POINTER", "win": "HAS_WIN",
             "target": "HAS_TARGET"}
# Hooks that fill one of the call's buffers ({k}: its index), and which of
# their arguments hold the buffer's count(s), displacements and type(s).
BUFFER_HOOKS = {"buf": (2, 3), "vbuf": (2, 3, 4), "cbuf": (2, 3), "wbuf": (2, 3, 4)}


def buffer_label(hook, args, params):
    """The text a buffer is recorded under: its ROLE (the parameter's name)
    and the names of the parameters its count(s), displacements and type(s)
    come from, 'sendbuf/count/datatype' (MPI_Allreduce's): the spec's
    parameter names, which are the MPI standard's, are the names `mpipp
    calls` and $mpi_call show.  A ROLE that names them itself
    ('sendbuf/sendcount*size/sendtype') is kept; where an argument is an
    expression, not a parameter, the ROLE alone."""
    if "/" in args[0]:
        return args[0]
    names = [args[k] for k in BUFFER_HOOKS[hook]]
    if all(n in {p for _, p in params} for n in names):
        return "/".join([args[0]] + names)
    return args[0]
# Pre-call code of these hooks declares variables, so it goes before the call
# record is filled (hooks above are otherwise emitted in row order).
CTX_DECLARES = ("complete", "forget", "comm_free", "op_free", "file_close", "group_free",
                "win_free")
# Words that qualify others of the row (channel_code) and emit nothing themselves.
MODIFIERS = {"status": 3, "poll": 1, "message": 1}
# Rows whose request is started later (by MPI_Start: mpireg_req_start counts it).
PERSISTENT = ("persist", "ppersist")
# Words about what a call does, for the job console's analysis (call_kinds):
# they emit no C of their own.
ANALYSIS_WORDS = ("synchronous", "buffered", "local")


def channel_code(words, modifiers, fortran):
    """(fill, counting once the call has left MPI and succeeded, the call's
    `found` expression or None) of a row's channel words.  A request's
    receives are counted when a Wait/Test completes them, a persistent
    request's messages when MPI_Start starts them."""
    fill, counting = [], []
    status = modifiers.get("status")
    if status and not fortran:
        # the Fortran entry's status is a C view made after the call
        fill.append("MPI_Status mpireg_sbuf; if (({0}) == MPI_STATUS_IGNORE && "
                    "mpireg_chan_wild(({1}), ({2}))) {0} = &mpireg_sbuf;".format(*status))
    found = modifiers.get("poll", [None])[0]
    blocking = not words & ({"post"} | set(PERSISTENT))
    if words & {"sends", "collective"} and not words & set(PERSISTENT):
        counting.append("mpireg_chan_started(mpireg_c);")
    if words & {"receives", "probes"} and blocking:
        message = modifiers.get("message", ["NULL"])[0]
        counting.append("mpireg_chan_received(mpireg_c, %s, %s, %s);"
                        % (status[0] if status else "MPI_STATUS_IGNORE", found or "1", message))
    return fill, counting, found


# Record and replay words -> number of arguments (replay_code).
RR_WORDS = {"matches": 3, "chooses": 5, "shadowed": 2, "restarts": 2, "unshadows": 1,
            "record_down": 0}
# Collectives whose contributions go one way (record.h's shapes); the others
# reach every member from every member.  Keyed by the name without MPI_, the
# nonblocking I, _init and _c.
COLLECTIVE_SHAPES = {"bcast": "FROM_ROOT", "scatter": "FROM_ROOT", "scatterv": "FROM_ROOT",
                     "gather": "TO_ROOT", "gatherv": "TO_ROOT", "reduce": "TO_ROOT",
                     "scan": "PREFIX", "exscan": "PREFIX"}
RECORDING = "__builtin_expect(mpireg_rr_mode == MPIREG_RR_RECORDING, 0)"
REPLAYING = "mpireg_rr_mode == MPIREG_RR_REPLAYING"


def base_name(name):
    """'MPI_Ibcast_init_c' -> 'ibcast'."""
    return re.sub(r"(_init)?(_c)?$", "", name[len("MPI_"):]).lower()


def synchronous(args):
    """A send's flags (record.h): whether its row says it is synchronous."""
    return "MPIREG_RR_SYNCHRONOUS" if "synchronous" in args else "0"


def collective_shape(name):
    base = base_name(name)
    if base not in COLLECTIVE_SHAPES and base.startswith("i"):
        base = base[1:]
    return COLLECTIVE_SHAPES.get(base, "ALL")


class ReplayCode:
    """What record and replay put around a row's call: `declare` before the
    call record is ready, `block` once it is (only while the rank records
    or replays), `replay` inside it when replaying, `settle` after it;
    `replace` = (condition, expression): the call replay makes instead;
    `returned` right after the call; `posted` first and `after` last once
    the call succeeded (before a completion call's requests complete:
    its choice is recorded before their receives); `started` with the
    channel's counting, after it (a call's send is recorded after its
    receive)."""

    def __init__(self):
        self.declare, self.block, self.replay, self.settle = [], [], [], []
        self.replace = None
        self.returned, self.posted, self.after, self.started = [], [], [], []

    @property
    def empty(self):
        return not (self.declare or self.block or self.replace or self.returned or self.posted
                    or self.after or self.started)

    @property
    def needed(self):
        """Whether record or replay does anything for the call."""
        return bool(self.replay) or not self.empty


def replay_code(name, args, modifiers, lineno, fortran):
    """The ReplayCode of a row whose words (hook -> arguments) are `args`."""
    rr = ReplayCode()
    words = set(args)
    persistent = bool(words & set(PERSISTENT))
    matches, chooses = args.get("matches"), args.get("chooses")
    if words & {"receives", "probes"} and not matches:
        raise SpecError("line %d: a row that receives or probes needs matches(KIND, SOURCE, TAG)"
                        % lineno)
    if "collective" in words:
        rr.block.append("mpireg_c->rr_flags = MPIREG_RR_SHAPE_%s;" % collective_shape(name))
    elif "sends" in words:
        rr.block.append("mpireg_c->rr_flags = %s;" % synchronous(args))
    if words & {"sends", "collective"} and not matches:
        rr.block.append("mpireg_c->rr_kind = 0;")
    if "collective" in words and not persistent:
        rr.started.append("if (%s) mpireg_rec_started(mpireg_c);" % RECORDING)
    elif "sends" in words and not persistent:
        rr.started.append("if (%s) mpireg_rec_sent(mpireg_c, %s);"
                          % (RECORDING, synchronous(args)))
    polls = "poll" in modifiers and matches
    if matches:
        kind, source, tag = matches
        rr.block.append("mpireg_c->rr_kind = MPIREG_RR_%s; mpireg_c->rr_at = -1;" % kind)
        if "post" in words:
            rr.posted.append("if (%s) mpireg_rec_posted(mpireg_c);" % RECORDING)
        if fortran:  # the Fortran call gets the C views, which replay may set
            rr.declare.append("MPI_Fint mpireg_f_%s, mpireg_f_%s;" % (source, tag))
            rr.settle.append("mpireg_f_%s = (MPI_Fint)%s; mpireg_f_%s = (MPI_Fint)%s;"
                             % (source, source, tag, tag))
    if (words & {"sends", "collective"} or matches) and not persistent:
        pointers = "&(%s), &(%s)" % tuple(matches[1:]) if matches else "NULL, NULL"
        if polls:
            rr.declare.append("int mpireg_rr = MPIREG_REPLAY_FREE;")
            rr.replay.append("mpireg_rr = mpireg_replay_enter(mpireg_c, %s);" % pointers)
        elif matches:
            rr.replay.append("mpireg_replay_received(mpireg_c, %s);" % pointers)
        elif "sends" in words:
            rr.replay.append("mpireg_replay_sent(mpireg_c, %s);" % synchronous(args))
        else:
            rr.replay.append("mpireg_replay_enter(mpireg_c, NULL, NULL);")
    if polls:
        flag = modifiers["poll"][0]
        rr.after.append("if (%s && !(%s)) mpireg_rec_missed(mpireg_c);" % (RECORDING, flag))
        rr.replace = ("mpireg_rr != MPIREG_REPLAY_FREE",
                      "mpireg_replay_poll(mpireg_rr, %s, %s, %s, %s, %s, %s)"
                      % (matches[1], matches[2], args["comm"][0], flag.lstrip("*"),
                         modifiers.get("message", ["NULL"])[0], modifiers["status"][0]))
    if chooses:
        if "complete" not in args:
            raise SpecError("line %d: chooses() goes with complete()" % lineno)
        n, reqs, all_done, ndone, done, statuses = args["complete"][:6]
        rr.block.append("mpireg_c->rr_kind = MPIREG_RR_%s;" % chooses[0])
        rr.after.append("if (%s) mpireg_rec_chose(mpireg_c, %s, %s, %s, %s);"
                        % (RECORDING, n, all_done, ndone, done))
        rr.replace = (REPLAYING, "mpireg_replay_choose(mpireg_c, %s, %s, %s, %s)"
                      % (n, reqs, statuses, ", ".join(chooses[1:])))
    if "shadowed" in words:
        n, reqs = args["shadowed"]
        rr.replay.append("if (mpireg_replay_shadows) mpireg_replay_swap(%s, %s, 1);" % (n, reqs))
        rr.returned.append("if (__builtin_expect(mpireg_replay_shadows, 0)) "
                           "mpireg_replay_swap(%s, %s, 0);" % (n, reqs))
    if "restarts" in words:
        rr.replace = (REPLAYING, "mpireg_replay_start(%s, %s)" % tuple(args["restarts"]))
    if "unshadows" in words:
        rr.replay.append("if (mpireg_replay_shadows) mpireg_replay_unshadow(%s);"
                         % args["unshadows"][0])
    if "record_down" in words:
        rr.block.append("mpireg_rr_down();")
    return rr


class SpecError(Exception):
    pass


def split_top(text, sep=","):
    """Split on sep outside parentheses and brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last:
        parts.append(last)
    return parts


def parse_params(text):
    """[(declaration, name)] from a C parameter list."""
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    out = []
    for p in split_top(text):
        m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*((?:\[\s*\d*\s*\])*)$", p)
        if not m or not m.group(1).strip():
            raise SpecError("cannot parse parameter %r" % p)
        out.append((p, m.group(2)))
    return out


def parse_recipe(text):
    """[(hook, [args])] from `hook(a, b) other(c)`."""
    hooks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = re.compile(r"\s*([A-Za-z_]\w*)\s*\(").match(text, pos)
        if not m:
            raise SpecError("bad recipe near %r" % text[pos:])
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth:
            raise SpecError("unbalanced parentheses in %r" % text)
        hooks.append((m.group(1), split_top(text[m.end():i - 1])))
        pos = i
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return hooks


def parse_item(item):
    m = re.match(r"^(.*)\[(.+)\]$", item)
    if m:
        return m.group(1).strip(), m.group(2).strip()
    return item, None


# Rows whose stored combiner is asked from MPI (PMPI_Type_get_envelope_c)
# instead of taken from the recipe: the MPI-1 constructors, for which an MPI
# may report the *_INTEGER combiners (MPICH 4.0.2 does not: tests/c/oracle.c),
# and the f90 types (cached by MPICH).  Every other row's combiner is the
# recipe's, which tests/c/oracle.c checks against MPI; asking costs a PMPI
# call per new type.
CHECK_COMBINER_ROWS = ("MPI_Type_hvector", "MPI_Type_hindexed", "MPI_Type_struct")


def check_combiner(name, combiner):
    return name in CHECK_COMBINER_ROWS or combiner.startswith("F90_")


def element_types(params):
    """{parameter name: element type} of the array parameters
    ('const int array_of_blocklengths[]' -> 'int')."""
    out = {}
    for decl, name in params:
        m = re.match(r"^(?:const\s+)?(\w+)\s*\*?\s*" + name + r"\s*(\[\s*\])?$", decl)
        if m and (m.group(2) or "*" in decl):
            out[name] = m.group(1)
    return out


def gen_create(out, combiner, sections, ind, check=True, elem_types=None):
    lines = ["size_t mpireg_n[4] = {0, 0, 0, 0};"]
    for sec, items in sections:
        idx = ARRAYS[sec][2]
        for expr, length in items:
            lines.append("mpireg_n[%d] += %s;" % (idx, "1" if length is None else "MPIREG_LEN(%s)" % length))
    lines.append("struct mpireg_record *mpireg_r = mpireg_record_alloc(mpireg_n[0], mpireg_n[1], mpireg_n[2], mpireg_n[3]);")
    lines.append("if (mpireg_r) {")
    for sec, items in sections:
        ctype, acc, _ = ARRAYS[sec]
        conv = "mpireg_key(%s)" if sec == "D" else "(" + ctype + ")(%s)"
        lines.append("    {")
        lines.append("        %s *mpireg_p = %s(mpireg_r);" % (ctype, acc))
        for expr, length in items:
            if length is None:
                lines.append("        *mpireg_p++ = %s;" % (conv % expr))
            elif sec != "D" and (elem_types or {}).get(expr) == ctype:
                # the same element type: one copy (the hot path of big structs;
                # an empty array may be NULL)
                lines.append("        if (MPIREG_LEN(%s)) {" % length)
                lines.append("            memcpy(mpireg_p, %s, MPIREG_LEN(%s) * sizeof *mpireg_p);"
                             % (expr, length))
                lines.append("            mpireg_p += MPIREG_LEN(%s);" % length)
                lines.append("        }")
            else:
                lines.append("        for (size_t mpireg_j = 0; mpireg_j < MPIREG_LEN(%s); mpireg_j++)" % length)
                lines.append("            *mpireg_p++ = %s;" % (conv % ("(%s)[mpireg_j]" % expr)))
        lines.append("    }")
    lines.append("    mpireg_publish(mpireg_r, *(%s), MPI_COMBINER_%s, %d, mpireg_site);"
                 % (out, combiner, 1 if check else 0))
    lines.append("}")
    return [ind + l for l in lines]


class RowCode:
    """The C code a row's recipe puts around its PMPI call; `rc` is the C
    expression of the call's return code."""

    def __init__(self, name, params, recipe, lineno, rc="mpireg_rc", fortran_entry=False):
        self.pre, self.post = [], []
        self.ctx_decl, self.ctx_fill, self.ctx_always, self.ctx_post = [], [], [], []
        self.uses_site = self.serialize = self.fortran = False
        self.rc = rc
        self.row = lineno  # the checks' id of the row (checks.h): the same on every rank
        create, sections, modifiers = None, [], {}
        flags, buffers = [], 0
        for hook, args in recipe:
            if hook in MODIFIERS:
                if len(args) != MODIFIERS[hook]:
                    raise SpecError("line %d: %s takes %d arguments" % (lineno, hook,
                                                                       MODIFIERS[hook]))
                modifiers[hook] = args
            elif hook == "fortran" or hook in ANALYSIS_WORDS:
                if args:
                    raise SpecError("line %d: %s takes no arguments" % (lineno, hook))
                self.fortran = self.fortran or hook == "fortran"
            elif hook in RR_WORDS:
                if len(args) != RR_WORDS[hook]:
                    raise SpecError("line %d: %s takes %d arguments" % (lineno, hook,
                                                                       RR_WORDS[hook]))
            elif hook in CTX_HOOKS:
                nargs, fill, always, after = CTX_HOOKS[hook]
                if len(args) != nargs:
                    raise SpecError("line %d: %s takes %d arguments" % (lineno, hook, nargs))
                self.uses_site = True
                if hook in CTX_FLAGS:
                    flags.append("MPIREG_CALL_" + CTX_FLAGS[hook])
                filled = args
                if hook in BUFFER_HOOKS:
                    filled = [buffer_label(hook, args, params)] + args[1:]
                if fill:
                    (self.ctx_decl if hook in CTX_DECLARES else self.ctx_fill).append(
                        "    " + fill.format(*filled, rc=rc, k=buffers))
                buffers += hook in BUFFER_HOOKS
                if always:
                    self.ctx_always.append("    " + always.format(*args, rc=rc))
                if after:
                    self.ctx_post.append("        " + after.format(*args, rc=rc))
            elif hook == "create":
                if len(args) != 2:
                    raise SpecError("line %d: create(OUT, COMBINER)" % lineno)
                create = args
                self.uses_site = self.serialize = True
            elif hook in ARRAYS:
                sections.append((hook, [parse_item(a) for a in args]))
            elif hook in HOOKS:
                nargs, before, after, ser = HOOKS[hook]
                self.serialize = self.serialize or ser
                if len(args) != nargs:
                    raise SpecError("line %d: %s takes %d arguments" % (lineno, hook, nargs))
                if before:
                    self.pre.append("    " + before.format(*args))
                if after:
                    self.post.append("        " + after.format(*args))
                self.uses_site = self.uses_site or "mpireg_site" in after
            else:
                raise SpecError("line %d: unknown hook %r" % (lineno, hook))
        words = {hook for hook, _ in recipe}
        fill, counting, self.found = channel_code(words, modifiers, fortran_entry)
        if words & set(CTX_HOOKS):  # one store each for the constant flags and the buffers
            self.ctx_fill = ["    mpireg_c->flags = %s;" % (" | ".join(flags) or "0"),
                             "    mpireg_c->nbufs = %d;" % buffers] + self.ctx_fill
        self.ctx_fill += ["    " + line for line in fill]
        self.rr = replay_code(name, dict(recipe), modifiers, lineno, fortran_entry)
        self.ctx_post = (["        " + line for line in self.rr.posted] + self.ctx_post
                         + ["        " + line for line in self.rr.after])
        self.counting = counting + self.rr.started
        if "win_sync" in words:
            win, what = next(args for hook, args in recipe if hook == "win_sync")[:2]
            self.ctx_post.append("        if (%s) mpireg_chan_win_synced(mpireg_c, (%s), "
                                 "MPIREG_SYNC_%s);" % (self.found or "1", win, what))
        if sections and not create:
            raise SpecError("line %d: I/A/L/D without create()" % lineno)
        if create:
            self.post.extend(gen_create(create[0], create[1], sections, "        ",
                                        check_combiner(name, create[1]), element_types(params)))

    @property
    def context(self):
        return bool(self.ctx_decl or self.ctx_fill or self.ctx_always or self.ctx_post or
                    not self.rr.empty)

    def call(self, plain):
        """The C expression of the call: `plain` (the PMPI call), or what
        replay calls instead when its condition holds."""
        if not self.rr.replace:
            return plain
        return "%s ? %s : %s" % (self.rr.replace[0], self.rr.replace[1], plain)

    @property
    def datatype(self):
        """A datatype row (create, commit, free, set_name, get_contents)."""
        return bool(self.serialize or self.post or self.pre) and not self.context


def gen_body(name, code, call, nested, success, before=(), after=(), cleanup=()):
    """The body every entry point shares: the return address, the depth
    guard (a nested call goes straight to MPI: `nested`), the C views of the
    arguments (`before` the call, `after` it on success, freed by `cleanup`),
    the recipe's code and the communication context around `call`."""
    out = []
    if code.uses_site:
        out.append("    void *mpireg_site = __builtin_return_address(0);")
    if code.datatype:
        # a datatype MPI builds inside a wrapped communication or I/O call
        # is recorded as MPI's own; inside a datatype call (a Fortran entry)
        # it is that same call
        out.append("    if (mpireg_depth++ > 0 && !mpireg_inside_mpi) { /* called by MPI inside "
                   "a wrapped call */")
    else:
        out.append("    if (mpireg_depth++ > 0) { /* called by MPI inside a wrapped call */")
    out += ["        " + line for line in nested]
    out.append("    }")
    out.append("    mpireg_prologue();")
    out += ["    " + line for line in before]
    out.extend(code.pre)
    post = code.post
    if code.context:
        out.extend(code.ctx_decl)
        out.append("    struct mpireg_thread_slot *mpireg_slot;")
        out.append("    struct mpireg_call mpireg_cl;")
        out.append('    struct mpireg_call *mpireg_c = mpireg_call_begin(&mpireg_slot, &mpireg_cl, "%s", '
                   "mpireg_site);" % name)
        out.extend(code.ctx_fill)
        out.append("    (void)mpireg_c;")
        out.append("    mpireg_call_ready(mpireg_slot);")
        out.extend(replay_block(code.rr))
        out.append("    if (__builtin_expect(mpireg_check_on, 0)) mpireg_check_before(mpireg_c, %d);"
                   % code.row)
        post = code.ctx_post + post
    if code.serialize:
        out.append("    mpireg_lock();")
    if code.context:
        out.append("    int mpireg_was_inside = mpireg_inside_mpi;")
        out.append("    mpireg_inside_mpi = 1;")
    out.append("    " + call)
    if code.context:
        out.append("    mpireg_inside_mpi = mpireg_was_inside;")
        out += ["    " + line for line in code.rr.returned]
    if post or after:
        out.append("    if (%s) {" % success)
        out += ["        " + line for line in after]
        out.extend(post)
        out += ["        " + line for line in cleanup]
        out.append("    }")
    if code.serialize:
        out.append("    mpireg_unlock();")
    if code.context:
        out.extend(code.ctx_always)
        found = "%s != MPI_SUCCESS || (%s)" % (code.rc, code.found) if code.found else "1"
        out.append("    mpireg_call_end(mpireg_slot, %s);" % found)
        if code.counting:
            out.append("    if (%s) {" % success)
            out += ["        " + line for line in code.counting]
            out.append("    }")
    out.append("    mpireg_depth--;")
    return out


def replay_block(rr):
    """The lines record and replay add once the call record is ready (the
    call is counted as seen: mpireg_rr_seen)."""
    out = ["    " + line for line in rr.declare]
    if rr.needed:
        out.append("    if (__builtin_expect(mpireg_rr_mode != 0, 0)) {")
        out.append("        mpireg_rr_seen++;")
        out += ["        " + line for line in rr.block]
        if rr.replay:
            out.append("        if (%s) {" % REPLAYING)
            out += ["            " + line for line in rr.replay]
            out.append("        }")
        out.append("    }")
    return out + ["    " + line for line in rr.settle]


def kept_param(decl, name):
    """The definition's declaration of a parameter: volatile where that
    keeps the prototype (a top-level qualifier; array parameters stay as
    they are).  A volatile parameter lives in its stack slot for the whole
    call, so while MPI runs gdb's `frame`, `info frame` and `info args`
    show it instead of <optimized out> (an optimised wrapper's debug
    information can only say "the value on entry", which the caller, a
    library without debug information, cannot give back)."""
    if not decl.endswith(name) or decl.endswith("]"):
        return decl
    return decl[:-len(name)].rstrip() + " volatile " + name


def gen_function(name, params, recipe, lineno):
    call = "P%s(%s)" % (name, ", ".join(n for _, n in params))
    code = RowCode(name, params, recipe, lineno)
    return (["/* %s: wrappers.spec line %d */" % (name, lineno),
             "MPIREG_EXPORT int %s(%s)" % (name, ", ".join(kept_param(d, n) for d, n in params)),
             "{",
             "    int mpireg_rc;"]
            + gen_body(name, code, "mpireg_rc = %s;" % code.call(call),
                       ["mpireg_rc = %s;" % call, "mpireg_depth--;", "return mpireg_rc;"],
                       "mpireg_rc == MPI_SUCCESS")
            + ["    return mpireg_rc;", "}", ""])


# Fortran entry points (mpif.h, `use mpi` and Open MPI's `use mpi_f08`).
# Some MPIs' Fortran bindings call the C MPI_ functions (MPICH), others call
# PMPI_ directly (Open MPI), where a C wrapper never sees them.  So a row
# marked fortran() also gets a Fortran wrapper: it passes its arguments
# unchanged to the MPI's own pmpi_NAME_, and runs the row's recipe on C views
# of them (handles through PMPI_*_f2c, Fortran sentinels such as MPI_IN_PLACE
# through mpireg_fbuf_f2c).  Under an MPI whose binding calls the C
# functions, that C wrapper sees a nested call and passes it through, so
# nothing is recorded twice.  The wrapper is exported under every name a
# Fortran compiler may call (FORTRAN_NAMES), and as Open MPI's ompi_NAME_f,
# which its `use mpi_f08` binding calls (mpi_send_f08_ -> ompi_send_f).
# Rows are marked where every argument converts one to one; a request a
# Fortran call posts would need its Wait/Test seen too, so the nonblocking
# rows are not marked (their entries only tell a recording rank that they
# went unseen: gen_fortran_unseen).
#
# C parameter type (const dropped) -> (Fortran argument type, C view before
# the call; None: the recipe never reads it).  A view with {len} is an array
# of handles converted after the call, {len} elements (the length its recipe
# gives the array).  A third item converts a handle the call may set: run
# after the call, or before it instead when the recipe reads handles before
# the call (free: afterwards the handle is gone).
FORTRAN_PARAMS = {
    "int": ("MPI_Fint *", "int {c} = (int)*{f};"),
    "int*": ("MPI_Fint *", "int *{c} = (int *){f};"),
    "MPI_Aint": ("MPI_Aint *", "MPI_Aint {c} = *{f};"),
    "MPI_Datatype": ("MPI_Fint *", "MPI_Datatype {c} = PMPI_Type_f2c(*{f});"),
    "MPI_Comm": ("MPI_Fint *", "MPI_Comm {c} = PMPI_Comm_f2c(*{f});"),
    "MPI_Op": ("MPI_Fint *", "MPI_Op {c} = PMPI_Op_f2c(*{f});"),
    "MPI_Group": ("MPI_Fint *", "MPI_Group {c} = PMPI_Group_f2c(*{f});"),
    "MPI_Info": ("MPI_Fint *", "MPI_Info {c} = PMPI_Info_f2c(*{f});"),
    "void*": ("void *", "void *{c} = mpireg_fbuf_f2c({f});"),
    "MPI_Status*": ("MPI_Fint *", "MPI_Status {c}_c, *{c} = MPI_STATUS_IGNORE;",
                    "if (!mpireg_fstatus_ignored({f}) && PMPI_Status_f2c({f}, &{c}_c) == MPI_SUCCESS) "
                    "{c} = &{c}_c;"),
    "int[]": ("MPI_Fint *", "int *{c} = (int *){f};"),
    "MPI_Aint[]": ("MPI_Aint *", "MPI_Aint *{c} = {f};"),
    "MPI_Datatype[]": ("MPI_Fint *", "MPI_Datatype {c}_small[16], *{c} = "
                       "mpireg_types_f2c({f}, {len}, {c}_small, 16);"),
    "MPI_Datatype*": ("MPI_Fint *", "MPI_Datatype {c}_h = MPI_DATATYPE_NULL, *{c} = &{c}_h;",
                      "{c}_h = PMPI_Type_f2c(*{f});"),
    "MPI_Comm*": ("MPI_Fint *", "MPI_Comm {c}_h = MPI_COMM_NULL, *{c} = &{c}_h;",
                  "{c}_h = PMPI_Comm_f2c(*{f});"),
    "MPI_Group*": ("MPI_Fint *", "MPI_Group {c}_h = MPI_GROUP_NULL, *{c} = &{c}_h;",
                   "{c}_h = PMPI_Group_f2c(*{f});"),
    "char*": ("char *", "char {c}_buf[MPI_MAX_OBJECT_NAME + 1]; "
              "const char *{c} = mpireg_string_f2c({f}, {f}_len, {c}_buf, sizeof {c}_buf);"),
}

# C parameters the Fortran binding has not (MPI_Init's command line): their
# C views.
FORTRAN_ABSENT = {"argc": "int *{c} = NULL;", "argv": "char ***{c} = NULL;"}

# The names a Fortran compiler calls a function by ({} is its name in lower
# case, without MPI_): gfortran's and most compilers' mpi_send_, g77's (and
# -fsecond-underscore's) mpi_send__, no underscore (xlf, -fno-underscoring),
# upper case (Cray, old Intel), and Open MPI's ompi_send_f, which its
# `use mpi_f08` binding calls.  MPI's Fortran libraries export them all as
# one function; so does libmpireg (aliases of the first).
FORTRAN_NAMES = ("mpi_{}_", "mpi_{}__", "mpi_{}", "MPI_{U}", "ompi_{}_f")


# MPICH's `use mpi_f08` entry and its PMPI (only in MPICH's build: under
# Open MPI, use mpi_f08 calls ompi_NAME_f, one of FORTRAN_NAMES).
MPICH_F08_NAME, MPICH_F08_REAL = "mpi_{}_f08_", "pmpir_{}_f08_"


def fortran_names(name):
    """Every exported name of a row's Fortran entry, the first the one defined."""
    base = name[len("MPI_"):]
    return [n.format(base.lower(), U=base.upper()) for n in FORTRAN_NAMES]


# What a Fortran entry adds to a hook: keeping root.fortran (Fortran handle
# -> C handle, where the two differ: Open MPI's Fortran handles are table
# indices) up to date: (before the call, after it on success).
FORTRAN_HOOKS = {
    "create": ("", "mpireg_on_fortran(*({0}), *f_{0});"),
    "free": ("MPI_Fint mpireg_ffreed = f_{0} ? *f_{0} : 0;", "mpireg_fortran_gone(mpireg_ffreed);"),
    "contents": ("", "mpireg_on_fortran_contents({0}, {1}, f_{1}, (MPI_Count)({2}));"),
}


def fortran_type(decl, name):
    """The FORTRAN_PARAMS key of a C parameter declaration."""
    base = decl.replace("const ", "")
    base = base[:base.rindex(name)] + base[base.rindex(name) + len(name):]
    return "".join(base.split())


def array_length(name, recipe):
    """The length the recipe gives array parameter `name` (NAME[LEN] items,
    or contents(H, NAME, LEN))."""
    for hook, args in recipe:
        for i, arg in enumerate(args):
            expr, length = parse_item(arg)
            if expr == name and length:
                return length
            if hook == "contents" and i == 1 and arg == name:
                return args[2]
    return None


def gen_fortran(name, params, recipe, lineno, f08=False):
    """A row's Fortran entry (and its aliases); with f08, MPICH's `use
    mpi_f08` entry instead."""
    code = RowCode(name, params, recipe, lineno, rc="(int)*ierr", fortran_entry=True)
    names = fortran_names(name)
    fname, real = names[0], "p" + names[0]
    if f08:
        names = [MPICH_F08_NAME.format(name[len("MPI_"):].lower())]
        fname, real = names[0], MPICH_F08_REAL.format(name[len("MPI_"):].lower())
    fparams, args, hidden = [], [], []
    before, after, arrays = [], [], []
    # handles the recipe reads before the call are converted before it
    reads_before = bool(code.pre or code.ctx_decl)
    for decl, pname in params:
        if pname in FORTRAN_ABSENT:
            before += [FORTRAN_ABSENT[pname].format(c=pname), "(void)%s;" % pname]
            continue
        kind = fortran_type(decl, pname)
        if kind not in FORTRAN_PARAMS:
            raise SpecError("line %d: %s: no Fortran counterpart for %r" % (lineno, name, decl))
        ftype, view, *fix = FORTRAN_PARAMS[kind]
        fparams.append("%sf_%s" % (ftype, pname))
        args.append("f_" + pname)
        if ftype == "char *":
            hidden.append("f_%s_len" % pname)
        if view and "{len}" in view:
            length = array_length(pname, recipe)
            if not length:
                raise SpecError("line %d: no length for array %s" % (lineno, pname))
            after.append(view.format(c=pname, f="f_" + pname, len=length))
            arrays.append(pname)
        elif view:
            before += [view.format(c=pname, f="f_" + pname), "(void)%s;" % pname]
        if fix:
            (before if reads_before else after).append(fix[0].format(c=pname, f="f_" + pname))
    status = dict(recipe).get("status")
    if status:  # as the C wrapper (channel_code), with a Fortran status of ours
        before.append("MPI_Fint mpireg_fsbuf[sizeof(MPI_Status) / sizeof(MPI_Fint) + 1]; "
                      "if (mpireg_fstatus_ignored(f_{0}) && mpireg_chan_wild(({1}), ({2}))) "
                      "f_{0} = mpireg_fsbuf;".format(*status))
    for hook, hargs in recipe:
        pre, post = FORTRAN_HOOKS.get(hook, ("", ""))
        if pre:
            before.append(pre.format(*hargs))
        if post:
            code.post.append("        " + post.format(*hargs))
    if arrays:  # the recipe runs only when every array could be converted
        code.post = (["        if (%s) {" % " && ".join(arrays)] + ["    " + l for l in code.post]
                     + ["        }"])
    fparams.append("MPI_Fint *ierr")
    args.append("ierr")
    fparams += ["size_t %s" % h for h in hidden]
    args += hidden
    call = "%s(%s);" % (real, ", ".join(args))
    # replay may set the receive side's C views: the Fortran call gets copies
    matches = dict(recipe).get("matches")
    replayed = "%s(%s);" % (real, ", ".join("&mpireg_f_" + a[2:] if matches and a[2:] in matches[1:]
                                           else a for a in args))
    proto = ", ".join(fparams)
    wrapper = (["/* %s: the Fortran entry of %s (line %d) */" % (fname, name, lineno),
             "extern void %s(%s) __attribute__((weak));" % (real, proto),
             "MPIREG_EXPORT void %s(%s)" % (fname, proto),
             "{",
             "    MPI_Fint mpireg_ierr = MPI_SUCCESS;",
             "    if (!ierr) /* to tell success; MPI sees no difference */",
             "        ierr = &mpireg_ierr;",
             "    if (!%s) { /* no Fortran binding loaded: nothing could call this */" % real,
             "        *ierr = MPI_ERR_OTHER;",
             "        return;",
             "    }"]
            + gen_body(name, code, replayed, [call, "mpireg_depth--;", "return;"],
                       "*ierr == MPI_SUCCESS", before, after,
                       ["mpireg_types_release(%s, %s_small);" % (a, a) for a in arrays])
            + ["}"]
            + ["MPIREG_EXPORT void %s(%s) __attribute__((alias(\"%s\")));" % (alias, proto, fname)
               for alias in names[1:]]
            + [""])
    if f08:
        return ["#ifdef MPICH_VERSION"] + wrapper + ["#endif", ""]
    return wrapper


def gen_fortran_unseen(name, params, lineno, f08=False):
    """The Fortran entry of a row record and replay need but without
    fortran(): its arguments go through unchanged (every Fortran argument is
    an address, a character one adds a hidden length after ierr); while the
    rank records or replays, a call no C wrapper saw (mpireg_rr_seen did
    not move: MPI's binding called PMPI_) ends the record or the replay
    with one line, instead of leaving it silently incomplete."""
    names = fortran_names(name)
    real = "p" + names[0]
    if f08:
        names = [MPICH_F08_NAME.format(name[len("MPI_"):].lower())]
        real = MPICH_F08_REAL.format(name[len("MPI_"):].lower())
    args = ["a%d" % k for k in range(len(params))] + ["ierr"]
    hidden = ["a%d_len" % k for k, (decl, pname) in enumerate(params)
              if fortran_type(decl, pname) == "char*"]
    proto = ", ".join(["void *%s" % a for a in args[:-1]] + ["MPI_Fint *ierr"]
                      + ["size_t %s" % h for h in hidden])
    call = "%s(%s);" % (real, ", ".join(args + hidden))
    wrapper = (["/* %s: %s from Fortran, unseen by record and replay (line %d) */"
                % (names[0], name, lineno),
                "extern void %s(%s) __attribute__((weak));" % (real, proto),
                "MPIREG_EXPORT void %s(%s)" % (names[0], proto),
                "{",
                "    if (!%s) { /* no Fortran binding loaded: nothing could call this */" % real,
                "        if (ierr)",
                "            *ierr = MPI_ERR_OTHER;",
                "        return;",
                "    }",
                "    if (__builtin_expect(mpireg_rr_mode == 0, 1) || mpireg_depth > 0) {",
                "        " + call,
                "        return;",
                "    }",
                "    unsigned mpireg_seen = mpireg_rr_seen;",
                "    " + call,
                "    if (mpireg_rr_seen == mpireg_seen)",
                '        mpireg_rr_unseen("%s");' % name,
                "}"]
               + ["MPIREG_EXPORT void %s(%s) __attribute__((alias(\"%s\")));" % (a, proto, names[0])
                  for a in names[1:]]
               + [""])
    if f08:
        return ["#ifdef MPICH_VERSION"] + wrapper + ["#endif", ""]
    return wrapper


def fortran_entries(name, params, hooks, lineno):
    """A row's Fortran entries: with fortran(), wrappers running its recipe;
    else, for the rows record and replay need, ones that tell when they go
    unseen (none for the MPI-4 _c functions, which Fortran calls by the
    names without _c)."""
    if any(hook == "fortran" for hook, _ in hooks):
        out = gen_fortran(name, params, hooks, lineno)
        if has_mpich_f08_entry(params):
            out += gen_fortran(name, params, hooks, lineno, f08=True)
        return out
    if name.endswith("_c") or not RowCode(name, params, hooks, lineno).rr.needed:
        return []
    out = gen_fortran_unseen(name, params, lineno)
    if has_mpich_f08_entry(params):
        out += gen_fortran_unseen(name, params, lineno, f08=True)
    return out


def has_mpich_f08_entry(params):
    """MPICH's `use mpi_f08` functions without a choice buffer take their
    arguments as mpif.h's do (a TYPE(MPI_Comm) is its INTEGER) and call
    PMPI_ directly; those with one take C descriptors and call the C MPI_
    functions, whose wrappers see them."""
    return not any(fortran_type(decl, name) == "void*" for decl, name in params)


def declared_functions(preprocessed):
    """Names of the functions a preprocessed mpi.h declares (MPI_X and PMPI_X)."""
    return set(re.findall(r"\b(P?MPI_\w+)\s*\(", preprocessed))


def generate(spec_paths, declared=None):
    """wrappers.c for the rows of spec_paths; with `declared` (the names
    declared_functions() found in the mpi.h compiled against), only for the
    functions that mpi.h declares (an MPI-3 library lacks the MPI-4 ones)."""
    out = [
        "/* Generated by libmpireg/genwrappers.py from %s: do not edit. */" % " ".join(spec_paths),
        '#include "mpireg_internal.h"',
        "",
        "#define MPIREG_EXPORT __attribute__((visibility(\"default\")))",
        "#define MPIREG_LEN(n) ((n) > 0 ? (size_t)(n) : (size_t)0)",
        "",
    ]
    seen, hooks_used, body = set(), set(), []
    for path in spec_paths:
        for row in read_rows(path, seen):
            name, params, hooks, lineno = row
            hooks_used.update(h for h, _ in hooks)
            if declared is not None and "P" + name not in declared:
                out.append("/* %s %s */" % (NOT_DECLARED, name))
                continue
            try:
                body.extend(gen_function(name, params, hooks, lineno))
                body.extend(fortran_entries(name, params, hooks, lineno))
            except SpecError as e:
                raise SpecError("%s: %s" % (path, e)) from None
    if hooks_used & set(CTX_HOOKS):
        out[2:2] = ['#include "calls.h"', '#include "channels.h"', '#include "files.h"',
                    '#include "objects.h"', '#include "checks.h"']
    if hooks_used & (set(RR_WORDS) | {"record_up", "sends", "collective", "comm_new", "comm_from"}):
        out[2:2] = ['#include "record.h"']
    out.append("")
    out.extend(body)
    return "\n".join(out) + "\n"


# Marks the rows left out in the generated file (read by the tests).
NOT_DECLARED = "not declared by mpi.h, no wrapper:"


def read_rows(spec_path, seen):
    """(name, [(declaration, parameter)], [(hook, args)], line) per row."""
    rows = []
    with open(spec_path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                cols = [c.strip() for c in line.split("|")]
                if len(cols) != 3:
                    raise SpecError("line %d: expected NAME | PARAMETERS | RECIPE" % lineno)
                name, params, recipe = cols
                if not re.match(r"^MPI_\w+$", name):
                    raise SpecError("line %d: bad function name %r" % (lineno, name))
                if name in seen:
                    raise SpecError("line %d: %s listed twice" % (lineno, name))
                seen.add(name)
                rows.append((name, parse_params(params), parse_recipe(recipe), lineno))
            except SpecError as e:
                raise SpecError("%s: %s" % (spec_path, e)) from None
    return rows


# --- the job console's call kinds (--call-kinds) ---------------------------

def _peer_is_root(words):
    return words.get("peer", [None])[0] == "root"


def _joins_two_groups(words):
    """A collective that also talks to a peer that is not its root:
    MPI_Intercomm_create's remote leader, through which two groups meet."""
    return "peer" in words and not _peer_is_root(words)


# The sets of base names the console classifies calls by: (name, what their
# calls do, whether a row's words -- {word: arguments} -- put it in the set).
CALL_KINDS = (
    ("SENDS", "start a message to their peer and receive none",
     lambda w: "sends" in w and "receives" not in w),
    ("RECEIVES", "receive a message from their peer and send none",
     lambda w: "receives" in w and "sends" not in w),
    ("SENDRECVS", "send a message and receive one", lambda w: "sends" in w and "receives" in w),
    ("PROBES", "probe for a message", lambda w: "probes" in w),
    ("LOCAL_SENDS", "sends that complete locally (buffered())",
     lambda w: "sends" in w and "buffered" in w),
    ("EAGER_SENDS", "sends that complete before their receive is posted when the MPI sends "
     "them eagerly (neither synchronous() nor buffered())",
     lambda w: "sends" in w and not w.keys() & {"synchronous", "buffered"}),
    ("WAIT_ALL", "complete every request they name (complete() with ALL not 0)",
     lambda w: "complete" in w and w["complete"][2] != "0"),
    ("WAIT_ANY", "complete one or some of the requests they name (complete() with ALL 0)",
     lambda w: "complete" in w and w["complete"][2] == "0"),
    ("NUMBERED", "collectives libmpireg numbers on their communicator (collective())",
     lambda w: "collective" in w),
    ("COLLECTIVES", "collectives over the members of their communicator (collective(), but "
     "MPI_Intercomm_create's: two groups meet through a remote leader, its peer)",
     lambda w: "collective" in w and not _joins_two_groups(w)),
    ("ROOTED", "collectives with a root (peer(root, ...))",
     lambda w: "collective" in w and _peer_is_root(w)),
    ("REDUCTIONS", "collectives that combine data with an op (extra(op, ...))",
     lambda w: "collective" in w and w.get("extra", [None])[0] == "op"),
    ("GROUP_COLLECTIVES", "synchronise with the members of a group (group())",
     lambda w: "group" in w),
    ("FILE_COLLECTIVES", "blocking collectives over the communicator their file was opened "
     "on (file_comm() without post())", lambda w: "file_comm" in w and "post" not in w),
    ("RMA_SYNC", "synchronise a window (win_sync())", lambda w: "win_sync" in w),
    ("LOCAL", "complete on their own, whatever the other processes do (local())",
     lambda w: "local" in w),
)
CALL_KINDS_DOC = '''"""MPI call kinds: generated from libmpireg/context/comm.spec by
libmpireg/genwrappers.py --call-kinds (`make callkinds`); do not edit.

What each wrapped MPI call does, as the job console's analysis classifies
calls (world.py): sets of base names -- a function's name without MPI_, in
lower case, without _c, _init and the I of a nonblocking variant
(MPI_Ibcast_init_c: bcast) -- but POLLS, of function names.  Each set is
defined by the words of the calls' rows (genwrappers.CALL_KINDS).
"""
'''


def python_set(name, comment, members):
    """A frozenset assignment with its comment above it, wrapped at 99 columns."""
    lines = textwrap.wrap(comment, 97, initial_indent="# ", subsequent_indent="# ")
    items = ", ".join('"%s"' % m for m in sorted(members))
    one_line = "%s = frozenset({%s})" % (name, items) if items else "%s = frozenset()" % name
    if len(one_line) <= 99:
        return ["", *lines, one_line]
    return (["", *lines, "%s = frozenset({" % name] +
            ["    " + i for i in textwrap.wrap(items + ",", 95, break_on_hyphens=False)] + ["})"])


def call_kinds(spec_paths):
    """callkinds.py for the rows of spec_paths."""
    seen = set()
    rows = [row for path in spec_paths for row in read_rows(path, seen)]
    names = {base_name(name) for name, _params, _recipe, _line in rows}
    nonblocking = {base for base in names if "i" + base in names}

    def call_base(name):
        base = base_name(name)
        return base[1:] if base.startswith("i") and base[1:] in nonblocking else base

    out = [CALL_KINDS_DOC.rstrip("\n")]
    out += python_set("NONBLOCKING_BASES", "calls with a nonblocking variant, MPI_I<name>",
                      nonblocking)
    for set_name, what, holds in CALL_KINDS:
        verdicts = {}     # base name -> {verdict: first function}
        for name, _params, recipe, _line in rows:
            verdicts.setdefault(call_base(name), {}).setdefault(holds(dict(recipe)), name)
        for base, functions in verdicts.items():
            if len(functions) > 1:   # MPI_Bcast, MPI_Ibcast, MPI_Bcast_init_c are one call
                raise SpecError("%s and %s disagree on %s" % (functions[True], functions[False],
                                                            set_name))
        out += python_set(set_name, what, [b for b, v in verdicts.items() if True in v])
    out += python_set("POLLS", "calls a program repeats until they find something (poll()): "
                      "function names", [name for name, _params, recipe, _line in rows
                                         if "poll" in dict(recipe)])
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    if args[:1] == ["--call-kinds"] and len(args) > 1:
        try:
            sys.stdout.write(call_kinds(args[1:]))
        except (SpecError, OSError) as e:
            sys.stderr.write("genwrappers: %s: %s\n" % (" ".join(args[1:]), e))
            return 1
        return 0
    declared = None
    if args[:1] == ["--declared"] and len(args) > 1:
        with open(args[1]) as f:
            declared = declared_functions(f.read())
        args = args[2:]
    if not args:
        sys.stderr.write("usage: genwrappers.py [--declared mpi.i] wrappers.spec [more.spec ...]"
                         " > wrappers.c\n       genwrappers.py --call-kinds comm.spec"
                         " > callkinds.py\n")
        return 2
    try:
        sys.stdout.write(generate(args, declared))
    except (SpecError, OSError) as e:
        sys.stderr.write("genwrappers: %s: %s\n" % (" ".join(args), e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
