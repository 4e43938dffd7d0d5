"""Reader of libmpireg's communication context (layout: libmpireg/context/calls.h).

What each thread is doing inside MPI, the pending nonblocking requests, the
communicators and the user-defined ops the program created.  Like
registry.py it sees the inferior only through `memory.read(address, n)` and
imports nothing from gdb; every offset comes from the root's constants
table, so libmpireg needs no debug information.  Everything read is
untrusted: lists are bounded, cycles detected, failures are ContextError.
"""

import struct

from ..text.labels import Communicators, predefined_comms
from .errors import MpippError
from .remote import RecordFormat, RemoteView, c_string

MAGIC = 0x314D4D4F43504D6D
LAYOUT_VERSION = 1
ROOT = struct.Struct("<QIIQIIQQQQQQQQ")
# Where the root keeps threads_used (the slots ever claimed): what a watcher
# reads, with the slots, while the process runs (job/progress.py).
THREADS_USED_OFFSET = struct.calcsize("<QIIQIIQQQQQQ")
MAX_THREADS = 4096
MAX_LIST = 1 << 20
MAX_PEERS = 1 << 16

PREDEFINED_OPS = ("MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
                  "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC",
                  "MPI_REPLACE", "MPI_NO_OP", "MPI_OP_NULL")
HANDLE_TYPES = ("MPI_Comm", "MPI_Request", "MPI_Op", "MPI_Datatype")


class ContextError(MpippError):
    """The context registry is absent, corrupted or caught mid-update."""


# Fields read from each kind of record: (name, struct format).
REQUEST_FIELDS = (("handle", "<Q"), ("serial", "<Q"), ("state", "<I"), ("tid", "<i"))
COMM_FIELDS = (("handle", "<Q"), ("parent", "<Q"), ("created_at", "<Q"), ("creator", "<Q"),
               ("size", "<i"), ("rank", "<i"), ("remote_size", "<i"), ("predefined", "<i"))
OP_FIELDS = (("handle", "<Q"), ("fn", "<Q"), ("created_at", "<Q"), ("commute", "<i"))
CALL_FIELDS = (("func", "<Q"), ("site", "<Q"), ("flags", "<I"), ("nbufs", "<I"), ("comm", "<Q"),
               ("peer_name", "<Q"), ("peer", "<i"), ("tag", "<i"), ("peer2_name", "<Q"),
               ("peer2", "<i"), ("tag2", "<i"), ("extra_name", "<Q"), ("extra", "<Q"),
               ("reqs", "<Q"), ("nreqs", "<q"), ("file", "<Q"), ("offset", "<q"))
CBUF_FIELDS = (("role", "<Q"), ("addr", "<Q"), ("count", "<q"), ("datatype", "<Q"),
               ("counts", "<Q"), ("displs", "<Q"), ("types", "<Q"), ("count_size", "<B"),
               ("displ_size", "<B"), ("displ_in_bytes", "<B"), ("npeers", "<i"))
THREAD_FIELDS = (("seq", "<Q"), ("active", "<i"), ("tid", "<i"), ("ncalls", "<Q"))
NEXT = ("next", "<Q")
MAX_RECORD = 1 << 16
MAX_BUFS = 16


def _fields(prefix, fields, *inner):
    return [("%s.%s" % (prefix, name), struct.calcsize(fmt)) for name, fmt in fields] + list(inner)


# Where every field the reader reads lies, checked once per view against the
# constants table (remote.RemoteView.check_layout).
LAYOUT = (
    ("sizeof.cbuf", MAX_RECORD, _fields("cbuf", CBUF_FIELDS)),
    ("sizeof.call", MAX_RECORD, _fields("call", CALL_FIELDS, ("call.bufs", "sizeof.cbuf"))),
    ("sizeof.thread", MAX_RECORD, _fields("thread", THREAD_FIELDS,
                                          ("thread.call", "sizeof.call"))),
    ("sizeof.request", MAX_RECORD, _fields("request", REQUEST_FIELDS + (NEXT,),
                                           ("request.call", "sizeof.call"))),
    ("sizeof.comm", MAX_RECORD, _fields("comm", COMM_FIELDS + (NEXT,),
                                        ("comm.name", "comm.name_max"))),
    ("sizeof.op", MAX_RECORD, _fields("op", OP_FIELDS + (NEXT,))),
)
# Newer libraries also record the world ranks of a communicator's members,
# then its serial (the label comm#N) and what its creator chose (a split's
# color), and the RMA side of calls (window, target); each group of fields
# is read when the constants table has it (all of it: check_layout reports
# a table that names only some).
MEMBER_FIELDS = (("n_members", "<i"), ("members", "<Q"), ("n_remote_members", "<i"),
                 ("remote_members", "<Q"))
MEMBER_LAYOUT = (("sizeof.comm", MAX_RECORD, _fields("comm", MEMBER_FIELDS)),)
COMM_SERIAL_FIELDS = (("serial", "<Q"), ("how_name", "<Q"), ("how", "<q"))
COMM_SERIAL_LAYOUT = (("sizeof.comm", MAX_RECORD, _fields("comm", COMM_SERIAL_FIELDS)),)
RMA_FIELDS = (("win", "<Q"), ("target_disp", "<q"), ("target_count", "<q"),
              ("target_datatype", "<Q"))
RMA_LAYOUT = (("sizeof.call", MAX_RECORD, _fields("call", RMA_FIELDS)),)
# ... and, with their channel counters (libmpireg/context/channels.h), a call's number
# on its channel and the world ranks it synchronises with, and per thread the
# calls that completed and whether it polls.
CHANNEL_CALL_FIELDS = (("seq", "<q"), ("group", "<Q"), ("ngroup", "<i"))
PROGRESS_FIELDS = (("completed", "<Q"), ("polling", "<i"))
CHANNEL_LAYOUT = (("sizeof.call", MAX_RECORD, _fields("call", CHANNEL_CALL_FIELDS)),
                  ("sizeof.thread", MAX_RECORD, _fields("thread", PROGRESS_FIELDS)))
# call.flags bits of channel-counting libraries, by name (absent: 0)
CHANNEL_FLAGS = ("sends", "receives", "probes", "mrecv", "collective", "has_seq", "has_group",
                 "exclusive")
MAX_GROUP = 1 << 16

# Constants "request.done_at_once.N": the handles MPI hands to every request
# it completes when it is posted (libmpireg/context/calls.c learns them from MPI).
# Such a handle names no pending operation.
DONE_AT_ONCE = "request.done_at_once."

NEEDED = ("MPI_REQUEST_NULL", "call.bufs_max", "sizeof.MPI_Datatype", "sizeof.MPI_Comm",
          "sizeof.MPI_Request", "sizeof.MPI_Op", "state.active", "state.persistent",
          "state.cancelled", "state.partitioned")


class Buffer:
    """One buffer of a call: scalar (count, datatype) or per peer."""

    __slots__ = ("role", "count_name", "type_name", "displs_name", "addr", "count", "datatype",
                 "counts", "displs", "types", "count_size", "displ_size", "displ_in_bytes",
                 "npeers")

    @property
    def per_peer(self):
        return bool(self.counts)


class Call:
    __slots__ = ("func", "func_address", "site", "flags", "nbufs", "comm", "peer_name", "peer",
                 "tag", "peer2_name", "peer2", "tag2", "extra_name", "extra", "reqs", "nreqs", "bufs",
                 "has_peer", "has_tag", "has_comm", "has_extra", "has_reqs", "has_peer2",
                 "file", "offset", "has_file", "has_offset", "has_position", "shared_pointer",
                 "win", "has_win", "target_disp", "target_count", "target_datatype",
                 "has_target", "probe", "seq", "group", "ngroup") + CHANNEL_FLAGS


class ThreadCall:
    __slots__ = ("index", "seq", "tid", "active", "torn", "ncalls", "completed", "polling", "call")


class Request:
    __slots__ = ("address", "next", "handle", "serial", "state", "tid", "call", "active",
                 "persistent", "cancelled", "partitioned")

    @property
    def status(self):
        if self.partitioned:
            kind = "partitioned"
        elif self.persistent:
            kind = "persistent"
        else:
            kind = None
        text = "pending" if self.active else "inactive"
        if kind:
            text = "%s, %s" % (kind, text)
        if self.cancelled:
            text += ", cancel requested"
        return text


class Comm:
    __slots__ = ("address", "next", "handle", "parent", "created_at", "creator", "size", "rank",
                 "remote_size", "predefined", "name", "members", "remote_members", "serial",
                 "how_name", "how", "n_members", "n_remote_members")


class Op:
    __slots__ = ("address", "next", "handle", "fn", "created_at", "commute")


class TableFacts:
    """What one constants table alone tells the reader, checked once and
    kept with the table (RemoteView.derived): which optional groups of
    fields the library records (their places checked), one RecordFormat
    per kind of record, the flag bits of a call, handle masks and the names
    of predefined handles."""

    def __init__(self, view, c):
        # All of a group's fields or none (an older library): check_layout
        # reports a table that names only some of them.
        self.has_members = any("comm." + name in c for name, _ in MEMBER_FIELDS)
        self.has_comm_serials = any("comm." + name in c for name, _ in COMM_SERIAL_FIELDS)
        self.has_rma = any("call." + name in c for name, _ in RMA_FIELDS)
        self.has_channels = "call.seq" in c
        for present, layout in ((self.has_members, MEMBER_LAYOUT),
                                (self.has_comm_serials, COMM_SERIAL_LAYOUT),
                                (self.has_rma, RMA_LAYOUT), (self.has_channels, CHANNEL_LAYOUT)):
            if present:
                view.check_layout(c, layout)
        if not 0 <= c["call.bufs_max"] <= MAX_BUFS or \
                c["call.bufs"] + c["call.bufs_max"] * c["sizeof.cbuf"] > c["sizeof.call"]:
            raise ContextError("context constant call.bufs_max = %d is out of range (corrupted?)"
                               % c["call.bufs_max"])
        self.call = self._format(view, c, "call", CALL_FIELDS + self._if(self.has_rma, RMA_FIELDS)
                                 + self._if(self.has_channels, CHANNEL_CALL_FIELDS))
        self.cbuf = self._format(view, c, "cbuf", CBUF_FIELDS)
        self.thread = self._format(view, c, "thread", THREAD_FIELDS +
                                   self._if(self.has_channels, PROGRESS_FIELDS))
        self.request = self._format(view, c, "request", REQUEST_FIELDS + (NEXT,))
        self.comm = self._format(view, c, "comm", COMM_FIELDS + (NEXT,) +
                                 self._if(self.has_members, MEMBER_FIELDS) +
                                 self._if(self.has_comm_serials, COMM_SERIAL_FIELDS))
        self.op = self._format(view, c, "op", OP_FIELDS + (NEXT,))
        self.call_flags = tuple(
            ("has_" + name, c.get("flag.has_" + name, 0))
            for name in ("peer", "tag", "comm", "extra", "reqs", "peer2", "file", "offset",
                         "position", "win", "target")) + tuple(
            (name, c.get("flag." + name, 0))
            for name in ("shared_pointer", "probe") + CHANNEL_FLAGS)
        self.handle_mask = {name: view.handle_mask_of(c, "sizeof." + name)
                            for name in HANDLE_TYPES}
        self.comm_names = predefined_comms(c)
        self.op_names = {c[n]: n for n in PREDEFINED_OPS if n in c}
        self.done_at_once = frozenset(
            value & self.handle_mask["MPI_Request"] for name, value in c.items()
            if name.startswith(DONE_AT_ONCE) and value)

    @staticmethod
    def _if(present, fields):
        return fields if present else ()

    @staticmethod
    def _format(view, c, prefix, fields):
        return RecordFormat(view, c, prefix + ".", fields, c["sizeof." + prefix])


class Context(RemoteView):
    """One view of the context registry, valid while the inferior is stopped."""

    error = ContextError
    subject = "context registry"

    def __init__(self, memory, root_address):
        super().__init__(memory)
        self.root_address = root_address
        raw = self.read(root_address, ROOT.size, "context root")
        (magic, version, _size, self.seq, n_constants, self.max_threads, constants,
         self.threads_address, self.requests_head, self.comms_head, self.ops_head,
         self.live_requests, self.threads_used, self.threads_untracked) = ROOT.unpack(raw)
        if magic != MAGIC:
            raise ContextError("context root at 0x%x has a bad magic number" % root_address)
        if version != LAYOUT_VERSION:
            raise ContextError("context layout version %d is not supported (expected %d)"
                               % (version, LAYOUT_VERSION))
        if self.max_threads > MAX_THREADS:
            raise ContextError("context root is corrupted (absurd table sizes)")
        self.c = self.read_constants(constants, n_constants, NEEDED, LAYOUT)
        self.facts = facts = self.derived("facts", lambda: TableFacts(self, self.c))
        self.has_members, self.has_comm_serials = facts.has_members, facts.has_comm_serials
        self.has_rma, self.has_channels = facts.has_rma, facts.has_channels
        self.handle_mask, self.done_at_once = facts.handle_mask, facts.done_at_once
        self.comm_names, self.op_names = facts.comm_names, facts.op_names
        self._comms = None
        self._communicators = None
        self._ops = None
        self._threads = None
        self._requests = None
        self._requests_by_handle = None

    @property
    def updating(self):
        """True when the process stopped in the middle of a list update."""
        return bool(self.seq & 1)

    # -- calls ------------------------------------------------------------

    def parse_call(self, raw, base):
        facts = self.facts
        call = facts.call.fill(Call(), raw, base)
        flags = call.flags
        for name, bit in facts.call_flags:
            setattr(call, name, bool(flags & bit))
        call.func_address = call.func
        call.func = self.literal(call.func) or "MPI_?"
        if not self.has_rma:
            call.win = call.target_disp = call.target_count = call.target_datatype = 0
        if not self.has_channels:
            call.seq, call.group, call.ngroup = None, 0, 0
        elif not call.has_seq:
            call.seq = None
        if not call.has_group:
            call.group = call.ngroup = 0
        call.peer_name = self.literal(call.peer_name) if call.has_peer else None
        call.peer2_name = self.literal(call.peer2_name) if call.has_peer2 else None
        call.extra_name = self.literal(call.extra_name) if call.has_extra else None
        c = self.c
        first, stride = base + c["call.bufs"], c["sizeof.cbuf"]
        call.bufs = [self._buffer(raw, first + k * stride)
                     for k in range(min(call.nbufs, c["call.bufs_max"]))]
        return call

    def _buffer(self, raw, base):
        b = self.facts.cbuf.fill(Buffer(), raw, base)
        # "recvbuf/recvcount/recvtype", "recvbuf/recvcounts/displs/recvtype":
        # the buffer's parameter name, then the names (comm.spec's parameters')
        # its count(s), displacements and type(s) are shown under; a buffer
        # whose count is an expression has its name alone ("recvbuf")
        parts = (self.literal(b.role) or "buf").split("/")
        b.role = parts[0]
        names = parts[1:] if len(parts) in (3, 4) else [None, None]
        b.count_name, b.type_name = names[0], names[-1]
        b.displs_name = names[1] if len(names) == 3 else None
        b.displ_in_bytes = bool(b.displ_in_bytes)
        b.npeers = max(0, min(b.npeers, MAX_PEERS))
        return b

    def threads(self):
        """[ThreadCall] for every claimed slot (active or not), read once per view."""
        if self._threads is None:
            self._threads = self._read_threads()
        return self._threads

    def _read_threads(self):
        c = self.c
        size = c["sizeof.thread"]
        n = min(self.threads_used, self.max_threads)
        if not n:
            return []
        raw = self.read(self.threads_address, size * n, "thread slots")
        out = []
        for k in range(n):
            base = k * size
            t = self.facts.thread.fill(ThreadCall(), raw, base)
            if not t.tid:
                continue
            t.index = k
            t.torn = bool(t.seq & 1)
            t.active = bool(t.active)
            if self.has_channels:
                t.polling = bool(t.polling)
            else:
                t.completed, t.polling = None, False
            t.call = None if t.torn else self.parse_call(raw, base + c["thread.call"])
            out.append(t)
        return out

    # -- lists ------------------------------------------------------------

    def _walk(self, cls, head, prefix, what):
        """(a cls with the record's fields, the record's raw bytes) of every
        record of a list, each read once (its next pointer comes from the
        bytes read); cycles are caught."""
        record_format = getattr(self.facts, prefix)
        seen = set()
        address = head
        while address:
            if address in seen or len(seen) > MAX_LIST:
                raise ContextError("%s list is corrupted (cycle)" % what)
            seen.add(address)
            raw = self.read(address, record_format.size, "a %s record" % prefix)
            obj = record_format.fill(cls(), raw)
            obj.address = address
            yield obj, raw
            address = obj.next

    def requests(self):
        """[Request], most recently posted first."""
        if self._requests is None:
            c = self.c
            out = []
            for r, raw in self._walk(Request, self.requests_head, "request", "request"):
                if r.handle in self.done_at_once:
                    continue  # posted before libmpireg knew the handle
                state = r.state
                r.active = bool(state & c["state.active"])
                r.persistent = bool(state & c["state.persistent"])
                r.cancelled = bool(state & c["state.cancelled"])
                r.partitioned = bool(state & c["state.partitioned"])
                r.call = self.parse_call(raw, c["request.call"])
                out.append(r)
            self._requests = out
        return self._requests

    def request(self, handle):
        """The most recent live record for a request handle, or None (O(1):
        printers call this for every MPI_Request value).  None for a handle
        MPI gives to requests it completed at once (see done_at_once)."""
        if self._requests_by_handle is None:
            self._requests_by_handle = {}
            for r in self.requests():
                self._requests_by_handle.setdefault(r.handle, r)
        return self._requests_by_handle.get(int(handle) & self.handle_mask["MPI_Request"])

    def comms(self):
        """{handle key: Comm}."""
        if self._comms is None:
            c = self.c
            out = {}
            for m, raw in self._walk(Comm, self.comms_head, "comm", "communicator"):
                m.creator = self.literal(m.creator)
                m.predefined = bool(m.predefined)
                off = c["comm.name"]
                m.name = c_string(raw[off:off + c["comm.name_max"]])
                if self.has_comm_serials:
                    m.how_name = self.literal(m.how_name)
                else:
                    m.serial, m.how_name, m.how = 0, None, 0
                if self.has_members:
                    m.members = self._world_ranks(m.n_members, m.members)
                    m.remote_members = self._world_ranks(m.n_remote_members, m.remote_members)
                else:
                    m.members = m.remote_members = None
                if m.members is None and m.handle == c.get("MPI_COMM_WORLD") and m.size > 0:
                    m.members = list(range(m.size))
                out.setdefault(m.handle, m)
            self._comms = out
        return self._comms

    def _world_ranks(self, n, address):
        """The world ranks libmpireg recorded for a communicator's group (n
        of them at address), by rank in the group; None when not recorded
        (too large)."""
        if not address or not 0 < n <= self.c.get("comm.members_max", MAX_PEERS):
            return None
        return list(struct.unpack("<%di" % n, self.read(address, 4 * n, "communicator members")))

    def group_ranks(self, call):
        """The world ranks a call synchronises with (its group), or None."""
        if not call.has_group or not call.group or not 0 < call.ngroup <= MAX_GROUP:
            return None
        n = call.ngroup
        return list(struct.unpack("<%di" % n, self.read(call.group, 4 * n, "a call's group")))

    def world(self):
        """The Comm record of MPI_COMM_WORLD (this process's rank and the job's
        size), or None before MPI_Init."""
        return self.comms().get(self.c.get("MPI_COMM_WORLD"))

    def ops(self):
        """{handle key: Op} of user-defined ops."""
        if self._ops is None:
            out = {}
            for o, _raw in self._walk(Op, self.ops_head, "op", "op"):
                o.commute = bool(o.commute)
                out.setdefault(o.handle, o)
            self._ops = out
        return self._ops

    # -- names ------------------------------------------------------------

    def comm_key(self, handle):
        return int(handle) & self.handle_mask["MPI_Comm"]

    def communicators(self):
        """The communicators as mpipp names them (text.labels.Communicators)."""
        if self._communicators is None:
            self._communicators = Communicators(self.comms(), self.comm_names,
                                                self.c.get("MPI_COMM_TYPE_SHARED"))
        return self._communicators

    def comm_label(self, key):
        """'MPI_COMM_WORLD', 'row_comm', 'comm#3' or '0x84000001'
        (Communicators.label)."""
        return self.communicators().label(key)

    def comm_by_label(self, text):
        """The handle key of a communicator by comm_label, or None."""
        return self.communicators().by_label(text)

    def comm_about(self, key):
        """'dup of MPI_COMM_WORLD', 'split of comm#2 (color 1)', or None
        (Communicators.about)."""
        return self.communicators().about(key)

    def comm_text(self, key, local=True, predefined_alone=False):
        """'comm#3 [split of MPI_COMM_WORLD (color 1), rank 0 of 2]'
        (Communicators.text)."""
        return self.communicators().text(key, local, predefined_alone)

    def op_label(self, key, symbol=None):
        if key in self.op_names:
            return self.op_names[key]
        op = self.ops().get(key)
        if op is not None and symbol is not None:
            name = symbol(op.fn)
            if name:
                return "user op %s" % name
        return "0x%x" % key

    def peer_text(self, value):
        c = self.c
        for name in ("MPI_ANY_SOURCE", "MPI_PROC_NULL", "MPI_ROOT"):
            if c.get(name) == value:
                return name
        return str(value)

    def tag_text(self, value):
        return "MPI_ANY_TAG" if self.c.get("MPI_ANY_TAG") == value else str(value)

    def is_in_place(self, address):
        return address == (self.c.get("MPI_IN_PLACE", -1) & ((1 << 64) - 1))

    # -- per-peer arrays --------------------------------------------------

    def peer_entries(self, buf):
        """[(peer, count, displacement or None, datatype key)] of a per-peer buffer."""
        n = buf.npeers
        if not n:
            return []
        fmt_of = {4: "i", 8: "q"}

        def array(address, size, what, signed=True):
            if not address or size not in fmt_of:
                return None
            raw = self.read(address, size * n, what)
            code = fmt_of[size] if signed else fmt_of[size].upper()
            return list(struct.unpack("<%d%s" % (n, code), raw))

        counts = array(buf.counts, buf.count_size, "per-peer counts") or [0] * n
        displs = array(buf.displs, buf.displ_size, "per-peer displacements")
        dsize = self.c["sizeof.MPI_Datatype"]
        types = array(buf.types, dsize, "per-peer datatypes", signed=False) if buf.types else None
        out = []
        running = 0
        for k in range(n):
            dt = types[k] if types else buf.datatype
            displ = displs[k] if displs else None
            if displs is None and not buf.types:  # consecutive (Reduce_scatter)
                displ = running
                running += counts[k]
            out.append((k, counts[k], displ, dt))
        return out
