"""The job as the console sees it: every rank's `mpipp context -json`
document turned into operations that can be matched across ranks (gdb-free).

* Communicators are identified across ranks by the world ranks of their
  members (libmpireg records them at creation) -- an intercommunicator's by
  its two groups, which each group sees the other way round -- and, among
  communicators with the same members, by creation order: communicator
  creation is collective, so every member creates them in the same order.
* Every MPI call a thread is in, and every pending request, becomes an Op:
  a send, a receive, a probe, a collective, a wait on requests, or a local
  call, with its peer translated to a world rank.
* A thread in a Wait call carries the ops of the requests it waits for;
  what each thread needs to progress is waits.py's.
"""

from ..model import typemap
from ..model.datatype_json import load_types
from ..model.errors import ModelError

# Base names (lower case, without MPI_, _c, _init and the I of nonblocking
# variants) and what they do.
SENDS = {"send", "bsend", "ssend", "rsend", "psend"}
RECEIVES = {"recv", "precv"}
PROBES = {"probe", "mprobe"}
SENDRECVS = {"sendrecv", "sendrecv_replace"}
WAIT_ALL = {"wait", "waitall"}
WAIT_ANY = {"waitany", "waitsome"}
COLLECTIVES = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
               "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce",
               "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
               "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
               "neighbor_alltoallv", "neighbor_alltoallw"}
# Communicator constructors are collective over the communicator they derive
# from, MPI_File_open over its communicator; MPI_Finalize over MPI_COMM_WORLD
# (libmpireg records it so).
COMM_CONSTRUCTORS = {"finalize", "file_open", "comm_dup", "comm_dup_with_info", "comm_split",
                     "comm_split_type", "comm_create", "cart_create", "cart_sub", "graph_create",
                     "dist_graph_create", "dist_graph_create_adjacent", "intercomm_merge"}
# Collective MPI-IO calls, over the communicator the file was opened on
# (libmpireg records it); split collectives may synchronize at either end.
FILE_COLLECTIVES = {"file_close", "file_set_view", "file_seek_shared"} | {
    "file_%s%s" % (access, end)
    for access in ("read_all", "write_all", "read_at_all", "write_at_all", "read_ordered",
                   "write_ordered")
    for end in ("", "_begin", "_end")}
ROOTED = {"bcast", "gather", "gatherv", "scatter", "scatterv", "reduce"}
# Buffered sends complete locally: never blocked on the receiver.
LOCAL_SENDS = {"bsend"}
NONBLOCKING_BASES = SENDS | RECEIVES | PROBES | SENDRECVS | COLLECTIVES | {"mrecv"}

ANY = "any"


def split_name(function):
    """(base, nonblocking, persistent) of 'MPI_Isend', 'MPI_Bcast_init_c', ..."""
    name = function[4:] if function.startswith("MPI_") else function
    name = name.lower()
    if name.endswith("_c"):
        name = name[:-2]
    persistent = name.endswith("_init")
    if persistent:
        name = name[:-5]
    nonblocking = name.startswith("i") and name[1:] in NONBLOCKING_BASES
    if nonblocking:
        name = name[1:]
    return name, nonblocking, persistent


def kind_of(base):
    if base in SENDS:
        return "send"
    if base in RECEIVES:
        return "recv"
    if base in PROBES:
        return "probe"
    if base in SENDRECVS:
        return "sendrecv"
    if base in COLLECTIVES or base in COMM_CONSTRUCTORS or base in FILE_COLLECTIVES:
        return "coll"
    if base in WAIT_ALL or base in WAIT_ANY:
        return "wait"
    return "local"


class Comm:
    """A communicator of one rank; `identity` is the same on every member."""

    __slots__ = ("handle", "name", "text", "members", "remote_members", "identity")

    def __init__(self, doc):
        self.handle, self.name = doc["handle"], doc["name"]
        self.text = doc.get("text")
        self.members = doc.get("members")
        self.remote_members = doc.get("remote_members")
        self.identity = None

    @property
    def label(self):
        """How every report names the communicator: as the rank's gdb
        writes it, the same on every member ('comm#2 [split of
        MPI_COMM_WORLD (color 1), 2 ranks]', 'MPI_COMM_WORLD'), or by its
        name or handle for documents of older versions."""
        return self.text or self.name or "0x%x" % self.handle

    def world_rank(self, peer):
        """The world rank a peer number names (the remote group for an
        intercommunicator), or None when unknown."""
        group = self.remote_members if self.remote_members else self.members
        if group is not None and 0 <= peer < len(group) and group[peer] >= 0:
            return group[peer]
        return None


class Op:
    """One MPI operation of one rank: a current call or a pending request."""

    def __init__(self, rank, call, state):
        self.rank, self.call = rank, call
        self.function = call["function"]
        self.base, self.nonblocking, self.persistent = split_name(self.function)
        self.kind = kind_of(self.base)
        self.comm = state.comms.get(call.get("comm")) if call.get("comm") is not None else None
        c = state.constants
        self.any_source, self.any_tag = c.get("MPI_ANY_SOURCE"), c.get("MPI_ANY_TAG")
        self.proc_null = c.get("MPI_PROC_NULL")
        self.bufs = call.get("bufs") or []

    # -- point to point ---------------------------------------------------

    def _world(self, peer):
        if peer is None:
            return None
        if peer == self.any_source:
            return ANY
        if peer == self.proc_null or self.comm is None:
            return None
        return self.comm.world_rank(peer)

    def parts(self):
        """[(direction, world peer, tag, buffer)] of a point-to-point op:
        Sendrecv is a send and a receive.  PROC_NULL peers are left out."""
        call = self.call
        if self.kind == "send":
            return self._part("send", call.get("peer"), call.get("tag"), 0)
        if self.kind in ("recv", "probe"):
            return self._part(self.kind, call.get("peer"), call.get("tag"), 0)
        if self.kind == "sendrecv":
            recv_buf = 1 if len(self.bufs) > 1 else 0
            return (self._part("send", call.get("peer"), call.get("tag"), 0) +
                    self._part("recv", call.get("peer2"), call.get("tag2"), recv_buf))
        return []

    def _part(self, direction, peer, tag, buf):
        if peer is None or peer == self.proc_null:
            return []
        return [(direction, self._world(peer), ANY if tag == self.any_tag else tag,
                 self.bufs[buf] if buf < len(self.bufs) else None)]

    # -- collectives ------------------------------------------------------

    @property
    def root(self):
        """The root's world rank of a rooted collective, or None."""
        if self.base not in ROOTED or self.call.get("peer") is None:
            return None
        return self._world(self.call["peer"])

    # -- text ---------------------------------------------------------------

    def describe(self):
        """'sends tag 9 to 1', 'waits for tag 10 from 0', 'is in MPI_Barrier on MPI_COMM_WORLD'."""
        on = "" if self.comm is None or self.comm.label == "MPI_COMM_WORLD" else \
            " on " + self.comm.label
        texts = []
        for direction, peer, tag, _buf in self.parts():
            peer_text = "any rank" if peer == ANY else "?" if peer is None else str(peer)
            tag_text = "any tag" if tag == ANY else "tag %s" % tag
            if direction == "send":
                texts.append("sends %s to %s%s" % (tag_text, peer_text, on))
            else:
                texts.append("waits for %s from %s%s" % (tag_text, peer_text, on))
        if texts:
            return " and ".join(texts) + (" (%s)" % self.function if self.kind == "sendrecv"
                                          else "")
        if self.kind == "coll":
            return "is in %s on %s" % (self.function,
                                       self.comm.label if self.comm else "an unknown comm")
        return "is in %s" % self.function


class Thread:
    """A thread of a rank that makes MPI calls (the document lists no other:
    the MPI library's own progress threads cannot release anybody): its
    current call (an Op, or None outside MPI) and, for a Wait call, the ops
    of the requests it waits for."""

    __slots__ = ("op", "waits")

    def __init__(self, op, waits):
        self.op, self.waits = op, waits


class RankState:
    """One rank's context document, decoded.  `error` is set (and the rest
    empty) when the rank could not answer."""

    def __init__(self, rank, doc=None, error=None):
        self.rank, self.doc, self.error = rank, doc, error
        self.constants, self.comms, self.types, self.wins = {}, {}, {}, {}
        self.threads, self.requests = [], []
        self.comm_list = []
        if doc is None:
            return
        self.constants = doc.get("constants", {})
        self.comm_list = [Comm(c) for c in doc.get("comms", [])]
        self.comms = {c.handle: c for c in self.comm_list}
        self.wins = {w["handle"]: w for w in doc.get("wins", [])}
        try:
            self.types = {int(k): dt for k, dt in load_types(doc["types"]).items()}
        except ModelError as err:
            self.error = "datatypes unreadable: %s" % err
        by_id = {}
        for r in doc.get("requests", []):
            op = Op(rank, r["call"], self)
            by_id[(r["request"], r["serial"])] = op
            self.requests.append(op)
        for t in doc.get("threads", []):
            op = Op(rank, t["call"], self) if t.get("call") else None
            waits = [by_id[(w["request"], w["serial"])] for w in t.get("waits_for", [])
                     if (w["request"], w["serial"]) in by_id]
            self.threads.append(Thread(op, waits))

    @property
    def ok(self):
        return self.doc is not None and self.error is None

    def current_ops(self):
        return [t.op for t in self.threads if t.op is not None]

    def posted(self):
        """Every operation this rank has posted and not completed: pending
        requests and the calls its threads are in."""
        return self.requests + [op for op in self.current_ops() if op.kind != "wait"]

    def datatype(self, key):
        return self.types.get(key)


def assign_identities(states):
    """Give every communicator its cross-rank identity (see module doc)."""
    for state in states:
        seen = {}
        for comm in state.comm_list:
            members = tuple(comm.members) if comm.members is not None else ("?", comm.handle)
            remote = tuple(comm.remote_members or ())
            groups = frozenset((members, remote)) if remote else members
            k = seen.get(groups, 0)
            seen[groups] = k + 1
            comm.identity = (groups, k)


class World:
    """Every rank's state: {rank: RankState}, plus the ranks that are gone."""

    def __init__(self, states, gone=None):
        self.states = states
        self.gone = gone or {}      # rank -> "exited with code 1", "gdb died", ...
        assign_identities(s for s in states.values() if s.ok)

    @property
    def ranks(self):
        return sorted(set(self.states) | set(self.gone))


def signature_text(dt, count):
    """'MPI_INT×4' of count × dt, or why it cannot be told."""
    if dt is None:
        return "?"
    try:
        return typemap.format_signature(typemap.signature(dt, count)) or "(empty)"
    except ModelError as err:
        return "<%s>" % err


def buffer_signature(state, buf):
    """The signature of one buffer of a call, per peer for v/w buffers."""
    if buf.get("in_place"):
        return "MPI_IN_PLACE"
    if buf.get("peers") is not None:
        return "; ".join("peer %d: %s" % (peer, signature_text(state.datatype(key), count))
                         for peer, count, _displ, key in buf["peers"])
    return signature_text(state.datatype(buf.get("datatype")), buf.get("count") or 0)
