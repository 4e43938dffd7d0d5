"""Reading a record directory: DIR/rank.N, one file per rank, in the format
libmpireg/replay/record.h describes (the authority; the constants below mirror it
and tests/replay/test_record_reader.py checks them against it).

A record cut short (the job was killed, a rank crashed or hung) ends at the
first event word that is 0 or an event whose words run past the file; its
header still says "open", which is how the reader tells it from a rank that
reached MPI_Finalize ("closed")."""

import os
import re
import struct
from array import array

MAGIC = b"mpippRR1"
VERSION = 1
HEADER = struct.Struct("<8sIIiiIiQQQ8s")

KINDS = ("", "SEND", "RECV", "SENDRECV", "IRECV", "START", "PROBE", "MPROBE", "IPROBE",
         "IMPROBE", "DONE", "MISS", "TEST", "TESTALL", "TESTANY", "TESTSOME", "WAITANY",
         "WAITSOME", "COLL", "COMM", "SITE", "REPEAT")
MESSAGES = ("SEND", "RECV", "SENDRECV", "IRECV", "START", "PROBE", "MPROBE", "IPROBE", "IMPROBE")
CHOICES = ("TEST", "TESTALL", "TESTANY", "TESTSOME", "WAITANY", "WAITSOME")
STATES = {1: "open", 2: "closed", 3: "threads", 4: "uncovered"}
SHAPES = {1: "all", 2: "from_root", 3: "to_root", 4: "prefix"}
ANY_SOURCE, ANY_TAG, SYNCHRONOUS = 1, 2, 1
COMM_ESCAPE, TAG_ESCAPE, DELTA_ESCAPE = 31, 0xFFFFF, 0x7FFFF
UNDEFINED = 0xFFFFFFFF
MEMBERS_MAX = 65536
GROUP_MAX, REPEAT_COUNT = 8, 9

# What a user reads for each kind of event.
CALLS = {"SEND": "send", "RECV": "MPI_Recv", "SENDRECV": "MPI_Sendrecv",
         "IRECV": "receive request", "START": "persistent receive", "PROBE": "MPI_Probe",
         "MPROBE": "MPI_Mprobe", "IPROBE": "MPI_Iprobe", "IMPROBE": "MPI_Improbe",
         "DONE": "completion", "MISS": "unsuccessful", "TEST": "MPI_Test",
         "TESTALL": "MPI_Testall", "TESTANY": "MPI_Testany", "TESTSOME": "MPI_Testsome",
         "WAITANY": "MPI_Waitany", "WAITSOME": "MPI_Waitsome", "COLL": "collective"}


class RecordError(Exception):
    """A directory or file that is not a readable record (one-line message)."""


def field(word, shift, bits):
    return (word >> shift) & ((1 << bits) - 1)


class Event:
    """One event: its first step, position (word), kind, and the fields its
    kind has (others None).  `comm` is the communicator's ordinal on its
    rank (0: MPI_COMM_WORLD); `peer` a rank in it (None: not known).  A
    DONE's `post` is the step of the receive request it completed, and that
    IRECV/START event's `done` the DONE's step."""

    __slots__ = ("step", "at", "kind", "comm", "flags", "peer", "tag", "site", "count", "call",
                 "n", "value", "indices", "delta", "post", "done", "shape", "root")

    def __init__(self, step, at, kind, **fields):
        self.step, self.at, self.kind = step, at, kind
        for name in self.__slots__[3:]:
            setattr(self, name, fields.get(name))

    @property
    def steps(self):
        """How many steps the event is (a MISS of count k is k)."""
        return self.count if self.kind == "MISS" else 1

    @property
    def wild(self):
        return bool(self.kind != "SEND" and self.flags)

    def again(self, step):
        """The same event happening again at `step` (a REPEAT)."""
        other = Event(step, self.at, self.kind)
        for name in self.__slots__[3:]:
            setattr(other, name, getattr(self, name))
        other.post = step - self.delta if self.kind == "DONE" else None
        other.done = None
        return other

    def to_json(self):
        doc = {"step": self.step, "kind": self.kind}
        for name in self.__slots__[3:]:
            value = getattr(self, name)
            if value is not None:
                doc[name] = value
        return doc


class Comm:
    """A communicator's definition: its ordinal, group sizes and members
    (ranks in MPI_COMM_WORLD; None when too many to list)."""

    __slots__ = ("ordinal", "size", "remote_size", "members", "remote_members")

    def __init__(self, ordinal, size, remote_size, members, remote_members):
        self.ordinal, self.size, self.remote_size = ordinal, size, remote_size
        self.members, self.remote_members = members, remote_members


class RankRecord:
    """One rank's file: header fields, events, communicators, sites."""

    def __init__(self, path, header):
        (_, _, _, self.rank, self.size, state, self.thread_level, self.job, self.words_closed,
         self.steps_closed, mpi) = header
        self.path = path
        self.state = STATES.get(state, "state %d" % state)
        self.mpi = mpi.rstrip(b"\0").decode("ascii", "replace")
        self.events, self.comms, self.sites = [], {}, {}
        self.damaged = None  # where an unknown word was met, if it was
        self.words = 0

    @property
    def steps(self):
        return sum(e.steps for e in self.events)

    def cut_note(self):
        """What the reader says about where the record ends."""
        if self.state == "closed":
            return "closed at MPI_Finalize"
        if self.state == "threads":
            return "ended where a second thread called MPI (a rank is recorded from one thread)"
        if self.state == "uncovered":
            return ("ended after step %d, at a Fortran call libmpireg does not see (MPI's "
                    "Fortran binding calls PMPI_ directly)" % self.steps)
        return ("not closed: the rank was killed, crashed or hung (or still runs); the record "
                "ends after step %d" % self.steps)


def _members(words, at, count):
    out = []
    for k in range(count):
        value = field(words[at + k // 2], 32 * (k % 2), 32)
        out.append(None if value == UNDEFINED else value)
    return out


def _comm_event(words, at, n_words):
    """(Comm, slot, words) of the COMM event at `at`, or None when cut short."""
    if at + 1 >= n_words:
        return None
    w, sizes = words[at], words[at + 1]
    size, remote = field(sizes, 0, 32), field(sizes, 32, 32)
    listed = size + remote <= MEMBERS_MAX
    length = 2 + ((size + remote + 1) // 2 if listed else 0)
    if at + length > n_words:
        return None
    members = remote_members = None
    if listed:
        everyone = _members(words, at + 2, size + remote)
        members, remote_members = everyone[:size], everyone[size:]
    return Comm(field(w, 32, 32), size, remote, members, remote_members), field(w, 5, 5), length


def _group(events, at, n):
    """The n events a REPEAT at word `at` repeats: the one-word events in
    the n words before it (None when they are not)."""
    group = events[-n:] if 0 < n <= GROUP_MAX else []
    if len(group) != n or [e.at for e in group] != list(range(at - n, at)):
        return None
    if any(e.kind in ("MISS", "TESTSOME", "WAITSOME") for e in group):
        return None
    return group


def _add(record, event, posts):
    """Appends event; links a DONE and its post.  The next step."""
    record.events.append(event)
    if event.kind in ("IRECV", "START"):
        posts[event.step] = event
    elif event.kind == "DONE":
        posted = posts.pop(event.post, None)
        if posted is not None:
            posted.done = event.step
        else:
            event.post = None
    return event.step + event.steps


def _parse(record, words):
    """Fills record.events, comms, sites from the event words."""
    n_words, at, step = len(words), 0, 1
    slots = {0: 0}
    posts = {}  # step -> IRECV/START event not completed yet
    while at < n_words and words[at]:
        w = words[at]
        kind_code = w & 31
        kind = KINDS[kind_code] if kind_code < len(KINDS) else None
        length, event = 1, None
        if kind in MESSAGES:
            slot, tag = field(w, 5, 5), field(w, 32, 20)
            escaped = slot == COMM_ESCAPE or tag == TAG_ESCAPE
            length += escaped
            if at + length > n_words:
                break
            ordinal = field(words[at + 1], 32, 32) if slot == COMM_ESCAPE else slots.get(slot)
            if tag == TAG_ESCAPE:
                tag = field(words[at + 1], 0, 32)
            peer = field(w, 12, 20)
            event = Event(step, at, kind, comm=ordinal, flags=field(w, 10, 2),
                          peer=peer - 1 if peer else None, tag=tag,
                          site=record.sites.get(field(w, 52, 12)))
        elif kind == "DONE":
            delta, tag = field(w, 5, 19), field(w, 44, 20)
            length += delta == DELTA_ESCAPE or tag == TAG_ESCAPE
            if at + length > n_words:
                break
            if length == 2:
                tag, delta = field(words[at + 1], 0, 32), field(words[at + 1], 32, 32)
            peer = field(w, 24, 20)
            event = Event(step, at, kind, peer=peer - 1 if peer else None, tag=tag,
                          delta=delta, post=step - delta)
        elif kind == "MISS":
            call = KINDS[field(w, 5, 5)] if field(w, 5, 5) < len(KINDS) else None
            event = Event(step, at, kind, call=call, count=w >> 15,
                          comm=slots.get(field(w, 10, 5)) if call in ("IPROBE", "IMPROBE")
                          else None)
        elif kind in CHOICES:
            value = field(w, 32, 32)
            some = kind in ("TESTSOME", "WAITSOME")
            if some and value != UNDEFINED:
                length += (value + 1) // 2
            if at + length > n_words:
                break
            event = Event(step, at, kind, n=field(w, 5, 27),
                          value=None if value == UNDEFINED else value,
                          indices=_members(words, at + 1, value) if some and value != UNDEFINED
                          else None)
        elif kind == "COLL":
            slot = field(w, 5, 5)
            length += slot == COMM_ESCAPE
            if at + length > n_words:
                break
            root = field(w, 13, 20)
            event = Event(step, at, kind, comm=field(words[at + 1], 32, 32)
                          if slot == COMM_ESCAPE else slots.get(slot),
                          shape=SHAPES.get(field(w, 10, 3)), root=root - 1 if root else None,
                          site=record.sites.get(field(w, 52, 12)))
        elif kind == "COMM":
            parsed = _comm_event(words, at, n_words)
            if parsed is None:
                break
            comm, slot, length = parsed
            record.comms[comm.ordinal] = comm
            if slot != COMM_ESCAPE:
                slots[slot] = comm.ordinal
        elif kind == "SITE":
            record.sites[field(w, 5, 12)] = field(w, 17, 47)
        elif kind == "REPEAT":
            group = _group(record.events, at, field(w, 5, 4))
            if group is None:
                record.damaged = at
                break
            for _ in range(w >> REPEAT_COUNT):
                for e in group:
                    step = _add(record, e.again(step), posts)
        else:
            record.damaged = at
            break
        if event is not None:
            step = _add(record, event, posts)
        at += length
    record.words = at


def read_rank(path):
    """The RankRecord of one file (RecordError when it is not a record)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise RecordError("cannot read %s: %s" % (path, err.strerror)) from None
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise RecordError("%s is not an mpipp record" % path)
    header = HEADER.unpack_from(data)
    version, header_size = header[1], header[2]
    if version != VERSION or header_size < HEADER.size or header_size > len(data):
        raise RecordError("%s is a record of another version (%d) of mpipp" % (path, version))
    words = array("Q")
    body = data[header_size:]
    words.frombytes(body[:len(body) - len(body) % 8])
    record = RankRecord(path, header)
    _parse(record, words)
    return record


class Record:
    """A record directory: `ranks` {rank: RankRecord}, the job's size,
    `missing` ranks (no file), notes on files from other runs."""

    def __init__(self, directory, ranks, size, missing, notes):
        self.directory, self.ranks, self.size = directory, ranks, size
        self.missing, self.notes = missing, notes


RANK_FILE = re.compile(r"^rank\.(\d+)$")


def read_record(directory):
    """The Record of a directory (RecordError when it holds no record)."""
    try:
        names = os.listdir(directory)
    except OSError as err:
        raise RecordError("cannot read %s: %s" % (directory, err.strerror)) from None
    files = {int(m.group(1)): os.path.join(directory, name)
             for name in names for m in [RANK_FILE.match(name)] if m}
    if not files:
        raise RecordError("%s holds no record (no rank.N files)" % directory)
    ranks = {r: read_rank(path) for r, path in sorted(files.items())}
    first = ranks[min(ranks)]
    notes, kept = [], {}
    for r, rec in ranks.items():
        if rec.job != first.job or rec.size != first.size or rec.rank != r:
            notes.append("%s is from another run: left out" % rec.path)
        else:
            kept[r] = rec
    missing = [r for r in range(first.size) if r not in kept]
    return Record(directory, kept, first.size, missing, notes)
