"""The job as the console sees it: every rank's `mpipp context -json`
document turned into operations and counters that can be matched across
ranks (gdb-free).

* Communicators are identified across ranks by the world ranks of their
  members (libmpireg records them at creation) -- an intercommunicator's by
  its two groups, which each group sees the other way round -- and, among
  communicators with the same members, by creation order: communicator
  creation is collective, so every member creates them in the same order.
* Every MPI call a thread is in, and every pending request, becomes an Op:
  a send, a receive, a probe, a collective, a wait on requests, an RMA
  synchronisation, or a local call, with its peer translated to a world
  rank and its number (`seq`: the message's on its channel, the
  collective's on its communicator) when libmpireg gave one.
* Each thread is blocked (inside an MPI call of a rank that was
  interrupted, or of a core file), stopped (inside its call at a
  breakpoint, by a signal or stepping: it has not blocked yet), polling
  (its last call was an MPI_Test or MPI_Iprobe that found nothing) or
  outside MPI.
* libmpireg's channel counters (libmpireg/context/channels.h) say how many messages
  each rank started and matched per (communicator, peer, tag), how many
  collectives it issued per communicator and its RMA epochs: messages in
  flight from A to B are A's sent minus B's received.

What each thread needs to progress is waits/conditions.py's; check.py
pairs what is sent with what is received.
"""

from ...model import describe, typemap
from ...model.datatype_json import load_types
from ...readers.errors import MpippError
from ...text.labels import Communicators, predefined_comms
from ...text.ranks import format_ranks
from . import callkinds

# MPI_Finalize is collective over MPI_COMM_WORLD (libmpireg records it so,
# without numbering it).
FINALIZE = "finalize"
# What kind of operation a call is, by its base name (callkinds.py, from
# comm.spec): the first kind whose calls hold it; other calls are not
# modelled.
KINDS = (("send", callkinds.SENDS), ("recv", callkinds.RECEIVES), ("probe", callkinds.PROBES),
         ("sendrecv", callkinds.SENDRECVS),
         ("coll", callkinds.COLLECTIVES | callkinds.FILE_COLLECTIVES |
          callkinds.GROUP_COLLECTIVES | {FINALIZE}),
         ("wait", callkinds.WAIT_ALL | callkinds.WAIT_ANY), ("rma", callkinds.RMA_SYNC),
         ("local", callkinds.LOCAL))
KIND_OF = {base: kind for kind, bases in reversed(KINDS) for base in bases}

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
    nonblocking = name.startswith("i") and name[1:] in callkinds.NONBLOCKING_BASES
    if nonblocking:
        name = name[1:]
    return name, nonblocking, persistent


def kind_of(base):
    """'send', 'recv', 'probe', 'sendrecv', 'coll', 'wait', 'rma', 'local'
    or 'unmodelled'."""
    return KIND_OF.get(base, "unmodelled")


class Comm:
    """A communicator of one rank; `identity` is the same on every member."""

    __slots__ = ("handle", "name", "serial", "creator", "parent", "how_name", "how", "size",
                 "rank", "remote_size", "predefined", "members", "remote_members", "identity",
                 "communicators", "_described", "_label", "_ranks")

    def __init__(self, doc):
        self.handle, self.name = doc["handle"], doc["name"]
        self.serial, self.creator, self.parent = doc.get("serial"), doc.get("creator"), \
            doc.get("parent")
        self.how_name, self.how = doc.get("how_name"), doc.get("how")
        self.size, self.rank = doc.get("size"), doc.get("rank")
        self.remote_size, self.predefined = doc.get("remote_size"), doc.get("predefined")
        self.members = doc.get("members")
        self.remote_members = doc.get("remote_members")
        self.identity = None
        self.communicators = None    # its rank's, as text.labels names them
        # documents made by hand (tests, benchmarks) do not say how it was made
        self._described = "serial" in doc
        self._label = self._ranks = None

    @property
    def label(self):
        """How every report names the communicator, the same on every
        member, as the ranks' gdbs describe it ('comm#2 [split of
        MPI_COMM_WORLD (color 1), 2 ranks]', 'MPI_COMM_WORLD'), or by its
        name or handle when the document does not say how it was made."""
        if self._label is None:
            self._label = self.communicators.text(self.handle, local=False,
                                                  predefined_alone=True) \
                if self._described else self.name or "0x%x" % self.handle
        return self._label

    @property
    def peers(self):
        """The world ranks peer numbers name: the remote group of an
        intercommunicator, else the members."""
        return self.remote_members if self.remote_members else self.members

    @property
    def everyone(self):
        """The world ranks of both groups (collectives on an intercommunicator)."""
        return (self.members or []) + (self.remote_members or [])

    def world_rank(self, peer):
        """The world rank a peer number names, or None when unknown."""
        group = self.peers
        if group is not None and 0 <= peer < len(group) and group[peer] >= 0:
            return group[peer]
        return None

    def peer_of(self, world):
        """The peer number of a world rank (the inverse of world_rank)."""
        if self._ranks is None:
            self._ranks = {w: k for k, w in enumerate(self.peers or ())}
        return self._ranks.get(world)


class Op:
    """One MPI operation of one rank: a current call or a pending request
    (`serial`: its posting order; `lwp`: the thread that posted it)."""

    __slots__ = ("rank", "call", "function", "base", "nonblocking", "persistent", "kind",
                 "comm", "any_source", "any_tag", "proc_null", "bufs", "seq", "group",
                 "serial", "lwp")

    def __init__(self, rank, call, state, serial=None, lwp=None):
        self.rank, self.call, self.serial, self.lwp = rank, call, serial, lwp
        self.function = call["function"]
        self.base, self.nonblocking, self.persistent = split_name(self.function)
        self.kind = kind_of(self.base)
        self.comm = state.comms.get(call.get("comm")) if call.get("comm") is not None else None
        c = state.constants
        self.any_source, self.any_tag = c.get("MPI_ANY_SOURCE"), c.get("MPI_ANY_TAG")
        self.proc_null = c.get("MPI_PROC_NULL")
        self.bufs = call.get("bufs") or []
        self.seq = call.get("seq")
        self.group = call.get("group")

    @property
    def identity(self):
        return self.comm.identity if self.comm is not None else None

    @property
    def polls(self):
        """A call a program repeats until it finds something."""
        return self.function in callkinds.POLLS

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
        Sendrecv is a send and a receive; the receive of a matched probe's
        message (Mrecv) a receive.  PROC_NULL peers are left out."""
        call = self.call
        if self.kind == "send":
            return self._part("send", call.get("peer"), call.get("tag"), 0)
        if self.kind in ("recv", "probe") or self.base == "mrecv":
            return self._part("probe" if self.kind == "probe" else "recv", call.get("peer"),
                              call.get("tag"), 0)
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

    @property
    def standard_mode(self):
        """A send whose completion depends on the MPI's eager threshold."""
        return self.base in callkinds.EAGER_SENDS

    def message_bytes(self, state):
        """Bytes of the message a send starts (None when not known)."""
        if not self.bufs:
            return None
        dt = state.datatype(self.bufs[0].get("datatype"))
        count = self.bufs[0].get("count")
        return dt.size * count if dt is not None and count is not None else None

    # -- collectives ------------------------------------------------------

    @property
    def root(self):
        """The root's world rank of a rooted collective, or None."""
        if self.base not in callkinds.ROOTED or self.call.get("peer") is None:
            return None
        return self._world(self.call["peer"])

    def members(self):
        """The world ranks a collective or RMA synchronisation involves."""
        if self.base in callkinds.GROUP_COLLECTIVES:
            return self.group
        if self.comm is None:
            return None
        return self.comm.everyone if self.comm.remote_members else self.comm.members

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
            elif direction == "probe":
                texts.append("probes for %s from %s%s" % (tag_text, peer_text, on))
            else:
                texts.append("waits for %s from %s%s" % (tag_text, peer_text, on))
        if texts:
            plain = self.function in ("MPI_Send", "MPI_Recv", "MPI_Send_c", "MPI_Recv_c")
            return " and ".join(texts) + ("" if plain else " (%s)" % self.function)
        if self.kind in ("coll", "rma"):
            if self.base in callkinds.GROUP_COLLECTIVES and self.group:
                return "is in %s with ranks %s" % (self.function, format_ranks(self.group))
            return "is in %s on %s" % (self.function,
                                       self.comm.label if self.comm else "an unknown comm")
        return "is in %s" % self.function


class Stop:
    """How a rank came to be stopped, from its gdb's last stop: interrupted
    (the console or the user stopped it wherever it was: a thread inside
    MPI waits there), stopped (a breakpoint, a signal, stepping: the thread
    that stopped has not necessarily blocked) or a core file."""

    __slots__ = ("kind", "thread", "reason", "function", "breakpoint", "signal")

    def __init__(self, kind, thread=None, reason=None, function=None, breakpoint=None,
                 signal=None):
        self.kind, self.thread, self.reason = kind, thread, reason
        self.function, self.breakpoint, self.signal = function, breakpoint, signal

    @classmethod
    def from_mi(cls, results, core=False):
        """The Stop of a gdb's *stopped record (results: its dict)."""
        if core:
            return cls("core")
        reason = results.get("reason")
        signal = results.get("signal-name")
        thread = results.get("thread-id")
        function = (results.get("frame") or {}).get("func")
        kind = "interrupted" if reason is None or (reason == "signal-received" and
                                                   signal in ("SIGINT", "SIGSTOP")) \
            else "stopped"
        return cls(kind, int(thread) if str(thread or "").isdigit() else None, reason,
                   function, results.get("bkptno"), signal)

    def stopped(self, gdb_thread):
        """Did this thread stop by itself (not with the others, all-stop)?"""
        return self.kind == "stopped" and (self.thread is None or self.thread == gdb_thread)

    def text(self, call_function=None):
        """'stopped at breakpoint 1, entry of MPI_Recv', 'stopped by signal SIGSEGV in f'."""
        function = self.function or "?"
        if function.startswith("PMPI_"):
            function = function[1:]
        at = "entry of %s" % function if call_function == function and \
            self.reason == "breakpoint-hit" else "in %s" % function
        if self.reason == "breakpoint-hit":
            return "stopped at breakpoint %s, %s" % (self.breakpoint or "?", at)
        if self.reason == "signal-received":
            return "stopped by signal %s %s" % (self.signal or "?", at)
        if self.reason in ("end-stepping-range", "function-finished", "location-reached"):
            return "stepping, %s" % at
        return "stopped (%s) %s" % (self.reason or "?", at)


INTERRUPTED = Stop("interrupted")


class Thread:
    """A thread of a rank that makes MPI calls (the document lists no other:
    the MPI library's own progress threads cannot release anybody): its
    current call (or, when polling, its last Test/Iprobe; None outside MPI),
    the ops of the requests a Wait/Test call names, its LWP and gdb thread
    number, and `state`: "blocked", "stopped", "polling" or "outside"."""

    __slots__ = ("op", "waits", "lwp", "gdb_thread", "state")

    def __init__(self, op, waits, lwp=None, gdb_thread=None, state="blocked"):
        self.op, self.waits, self.lwp, self.gdb_thread, self.state = \
            op, waits, lwp, gdb_thread, state


class Channel:
    """One channel record of a rank (libmpireg/context/channels.h)."""

    __slots__ = ("sent", "received", "last_datatype", "last_count", "scope")

    def __init__(self, sent, received, last_datatype=None, last_count=None, scope=None):
        self.sent, self.received = sent, received
        self.last_datatype, self.last_count, self.scope = last_datatype, last_count, scope


# Channel kinds below 0 (libmpireg/context/channels.h); tags are >= 0.
KINDS = ("collectives", "fences", "locks_shared", "locks_exclusive", "starts", "posts")


class RankState:
    """One rank's context document, decoded.  `error` is set (and the rest
    empty) when the rank could not answer."""

    def __init__(self, rank, doc=None, error=None):
        self.rank, self.doc, self.error = rank, doc, error
        self.constants, self.comms, self.wins = {}, {}, {}
        self.threads, self.requests = [], []
        self.comm_list = []
        self.stop = INTERRUPTED
        # {(comm handle, peer, tag): Channel} of messages; {(handle, peer or
        # None, kind name): Channel} of the other kinds
        self.channels, self.counters = {}, {}
        self.windows = {}            # window handle -> its communicator's handle
        self.unrecorded = False      # messages were sent on channels libmpireg could not count
        # a thread stopped while libmpireg rewrote its slot: its call unread
        self.torn = False
        self._types = None
        if doc is None:
            return
        self.constants = doc.get("constants", {})
        self.comm_list = [Comm(c) for c in doc.get("comms", [])]
        self.comms = {c.handle: c for c in self.comm_list}
        communicators = Communicators(self.comms, predefined_comms(self.constants),
                                      self.constants.get("MPI_COMM_TYPE_SHARED"))
        for comm in self.comm_list:
            comm.communicators = communicators
        self.wins = {w["handle"]: w for w in doc.get("wins", [])}
        by_id = {}
        for r in doc.get("requests", []):
            op = Op(rank, r["call"], self, serial=r.get("serial"), lwp=r.get("lwp"))
            by_id[(r["request"], r["serial"])] = op
            self.requests.append(op)
        self.torn = any(t.get("torn") for t in doc.get("threads", []))
        for t in doc.get("threads", []):
            op = Op(rank, t["call"], self, lwp=t.get("lwp")) if t.get("call") else None
            waits = [by_id[(w["request"], w["serial"])] for w in t.get("waits_for", [])
                     if (w["request"], w["serial"]) in by_id]
            self.threads.append(Thread(op, waits, t.get("lwp"), t.get("gdb_thread"),
                                       "polling" if t.get("polling") and op is not None and
                                       (not t.get("in_mpi") or op.polls)
                                       else "blocked" if t.get("in_mpi") and op is not None
                                       else "outside"))
        self._read_channels(doc.get("channels"))
        if doc.get("channels"):
            for t in self.threads:
                if t.op is not None and t.state == "blocked" and t.op.seq is None:
                    t.op.seq = self._next_number(t.op)

    def _next_number(self, op):
        """The number of the message or collective a blocking call starts:
        libmpireg counts it once it has left MPI, so while the thread is in
        it, it is the one after those counted."""
        call = op.call
        if op.kind in ("send", "sendrecv") and call.get("peer") is not None and \
                call["peer"] >= 0:
            record = self.channels.get((call.get("comm"), call["peer"], call.get("tag")))
        elif op.kind == "coll" and op.base in callkinds.NUMBERED:
            record = self.counters.get((call.get("comm"), None, "collectives"))
        else:
            return None
        return (record.sent if record is not None else 0) + 1

    def _read_channels(self, doc):
        if not doc:
            return
        kinds = {doc["kinds"].get(name): name for name in KINDS}
        for handle, peer, kind, sent, received, last_datatype, last_count, scope in \
                doc["records"]:
            if kind >= 0:
                self.channels[(handle, peer, kind)] = Channel(sent, received, last_datatype,
                                                              last_count)
            elif kind in kinds:
                peer = None if peer == doc["no_peer"] else peer
                self.counters[(handle, peer, kinds[kind])] = Channel(sent, received,
                                                                    scope=scope)
                if kinds[kind] != "collectives":
                    self.windows[handle] = scope
        self.unrecorded = bool(doc.get("unrecorded_sent"))

    def set_stop(self, stop):
        """The rank's stop: threads inside MPI are blocked, but the one that
        stopped by itself at a breakpoint, a signal or a step."""
        self.stop = stop
        for t in self.threads:
            if t.state in ("blocked", "stopped"):
                t.state = "stopped" if stop.stopped(t.gdb_thread) else "blocked"

    @property
    def ok(self):
        return self.doc is not None and self.error is None

    @property
    def types(self):
        """{handle key: Datatype} of the datatypes the document describes."""
        if self._types is None:
            self._types = {}
            if self.doc is not None:
                try:
                    self._types = {int(k): dt for k, dt in load_types(self.doc["types"]).items()}
                except MpippError as err:
                    self.error = "datatypes unreadable: %s" % err
        return self._types

    def current_ops(self):
        return [t.op for t in self.threads if t.op is not None and t.state != "outside"]

    def posted(self):
        """Every operation this rank has posted and not completed: pending
        requests and the calls its threads are in."""
        return self.requests + [t.op for t in self.threads
                                if t.op is not None and t.state in ("blocked", "stopped")
                                and t.op.kind != "wait"]

    def datatype(self, key):
        return self.types.get(key)

    def datatype_label(self, key):
        """A datatype handle as the rank's gdb names it ('MPI_INT', 'row_t',
        'vector#3', MPI_DATATYPE_NULL or the handle in hex)."""
        return describe.handle_label(self.datatype(key), key,
                                     self.constants.get("MPI_DATATYPE_NULL"))

    def counter(self, handle, peer, kind):
        return self.counters.get((handle, peer, kind))


def assign_identities(states):
    """Give every communicator its cross-rank identity (see module doc): a
    small number, the same on every member (its groups are hashed once)."""
    numbers = {}
    for state in states:
        seen = {}
        for comm in state.comm_list:
            members = tuple(comm.members) if comm.members is not None else ("?", comm.handle)
            remote = tuple(comm.remote_members or ())
            groups = frozenset((members, remote)) if remote else members
            k = seen.get(groups, 0)
            seen[groups] = k + 1
            comm.identity = numbers.setdefault((groups, k), len(numbers))


class World:
    """Every rank's state: {rank: RankState}, the ranks that are gone, and
    how each stopped ({rank: Stop}; interrupted when not given)."""

    def __init__(self, states, gone=None, stops=None):
        self.states = states
        self.gone = gone or {}      # rank -> "exited with code 1", "gdb died", ...
        ok = [s for s in states.values() if s.ok]
        assign_identities(ok)
        for rank, stop in (stops or {}).items():
            if rank in states:
                states[rank].set_stop(stop)
        self.comm_of = {}           # (rank, identity) -> Comm
        for s in ok:
            for comm in s.comm_list:
                self.comm_of[(s.rank, comm.identity)] = comm
        self._sent = self._received = None

    @property
    def ranks(self):
        return sorted(set(self.states) | set(self.gone))

    def state(self, rank):
        """The RankState of a rank that answered, else None."""
        s = self.states.get(rank)
        return s if s is not None and s.ok else None

    # -- messages in flight (libmpireg's channel counters) ----------------

    def _index(self):
        """{(identity, receiver): {sender: {tag: sent}}} and the same of
        received, keyed (identity, receiver): {sender: {tag: received}}."""
        sent, received = {}, {}
        for s in self.states.values():
            if not s.ok:
                continue
            for (handle, peer, tag), ch in s.channels.items():
                comm = s.comms.get(handle)
                other = comm.world_rank(peer) if comm is not None else None
                if other is None:
                    continue
                if ch.sent:
                    sent.setdefault((comm.identity, other), {}).setdefault(s.rank, {})[tag] = \
                        ch.sent
                if ch.received:
                    received.setdefault((comm.identity, s.rank), {}).setdefault(other, {})[tag] = \
                        ch.received
        self._sent, self._received = sent, received

    def sent_to(self, identity, receiver):
        """{sender: {tag: messages started}} towards receiver on a communicator."""
        if self._sent is None:
            self._index()
        return self._sent.get((identity, receiver), {})

    def received_by(self, identity, receiver):
        """{sender: {tag: messages matched}} by receiver on a communicator."""
        if self._received is None:
            self._index()
        return self._received.get((identity, receiver), {})

    def counts_known(self, sender, identity):
        """Are sender's messages on the communicator all counted?  Not when
        it has no such communicator any more (freed: its records are gone)
        or libmpireg's table was full."""
        s = self.state(sender)
        return s is not None and not s.unrecorded and (sender, identity) in self.comm_of

    def finalizing(self, rank):
        """Is the rank inside MPI_Finalize (a thread in it, blocked or
        stopped at its entry)?  It makes no other MPI call, ever."""
        s = self.state(rank)
        return s is not None and any(op.base == FINALIZE for op in s.posted())

    def collectives_issued(self, rank, identity):
        """How many collectives rank issued on a communicator (None: unknown)."""
        comm = self.comm_of.get((rank, identity))
        s = self.state(rank)
        if comm is None or s is None:
            return None
        record = s.counter(comm.handle, None, "collectives")
        return record.sent if record is not None else 0

    def windows(self, rank, identity):
        """[handle] of rank's windows over a communicator (whose records
        libmpireg has: a window gets them at its first synchronisation)."""
        s = self.state(rank)
        comm = self.comm_of.get((rank, identity))
        if s is None or comm is None:
            return []
        return [h for h, scope in s.windows.items() if scope == comm.handle]


def signature_text(dt, count):
    """'MPI_INT×4' of count × dt, or why it cannot be told."""
    if dt is None:
        return "?"
    try:
        return typemap.format_signature(typemap.signature(dt, count)) or "(empty)"
    except MpippError as err:
        return "<%s>" % err


def buffer_signature(state, buf):
    """The signature of one buffer of a call, per peer for v/w buffers."""
    if buf.get("in_place"):
        return "MPI_IN_PLACE"
    if buf.get("peers") is not None:
        return "; ".join("peer %d: %s" % (peer, signature_text(state.datatype(key), count))
                         for peer, count, _displ, key in buf["peers"])
    return signature_text(state.datatype(buf.get("datatype")), buf.get("count") or 0)
