"""Reading a record directory: DIR/rank.N, one file per rank, in the format
libmpireg/replay/record.h describes (the authority; the constants below mirror it
and tests/replay/test_record_reader.py checks them against it).

A record cut short (the job was killed, a rank crashed or hung) ends at the
first event word that is 0 or an event whose words run past the file; its
header still says "open", which is how the reader tells it from a rank that
reached MPI_Finalize ("closed")."""

import bisect
import os
import re
import struct
import sys
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
PEER_MAX = 0xFFFFE  # ranks are 0 .. PEER_MAX - 1
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


class Run:
    """A REPEAT, kept as written: the events of `group` (the one-word events
    just before it) happen again `count` more times, one after the other,
    from step `step` on.  Never expanded by the reader: `events()` gives
    them one by one to who needs them."""

    kind = "REPEAT"
    __slots__ = ("step", "at", "group", "count")

    def __init__(self, step, at, group, count):
        self.step, self.at, self.group, self.count = step, at, group, count

    @property
    def steps(self):
        return len(self.group) * self.count

    @property
    def site(self):
        return None

    def events(self):
        """Its events, as they happened (len(group) * count of them)."""
        step = self.step
        for _ in range(self.count):
            for e in self.group:
                yield e.again(step)
                step += 1

    def to_json(self):
        return {"step": self.step, "kind": self.kind, "count": self.count,
                "first": self.group[0].step, "events": len(self.group)}


class RankRecord:
    """One rank's file: header fields, events (Event, and Run for what a
    REPEAT repeats), communicators, sites; where it is damaged, if it is."""

    def __init__(self, path, header):
        (_, _, _, self.rank, self.size, state, _, self.job, _, self.steps_closed, _) = header
        self.path = path
        self.state = STATES[state]
        self.events, self.comms, self.sites = [], {}, {}
        self.damaged = None  # the word where the events stop making sense, if they do
        self.miscounted = None  # a closed record whose events do not make its header's steps
        self.words = 0
        self.steps = 0

    def expanded(self):
        """Every event in program order, REPEATs' turns one by one (a DONE
        linked to its post, and that post to it, as the reader links them)."""
        posts = {}
        for e in self.events:
            for one in e.events() if e.kind == "REPEAT" else (e,):
                if one.kind in ("IRECV", "START"):
                    posts[one.step] = one
                elif one.kind == "DONE":
                    posted = posts.pop(one.post, None)
                    if posted is not None:
                        posted.done = one.step
                yield one

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

    def damage_note(self):
        """The one line saying how the record is damaged (None: it is not);
        replay (libmpireg/replay/replay.c) stops with the same words."""
        if self.damaged is not None:
            return "the record is damaged at word %d: it ends there" % self.damaged
        if self.miscounted is not None:
            return ("the record is damaged: its events make %d steps where its header says %d"
                    % (self.miscounted, self.steps_closed))
        return None


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
    if not 0 < n <= GROUP_MAX:
        return None
    group = events[-n:]
    if len(group) != n or [e.at for e in group] != list(range(at - n, at)):
        return None
    if any(e.kind in ("REPEAT", "MISS", "TESTSOME", "WAITSOME") for e in group):
        return None
    return group


POLLING = ("IPROBE", "IMPROBE", "TEST", "TESTALL", "TESTANY", "TESTSOME")
TURNS_BACK = 64


class Damaged(Exception):
    """An event no record holds: the record is damaged at its word."""


def _peer_limit(record, ordinal):
    """How many ranks a peer of communicator `ordinal` may name (None: not known)."""
    if ordinal == 0:
        return record.size
    comm = record.comms.get(ordinal)
    if comm is None:
        return None
    return comm.remote_size or comm.size


class _Parser:
    """Reads a rank's event words into record.events (in one pass, each
    word once: O(words)), stopping at the end, where a cut record ends, or
    where an event no record holds begins (record.damaged)."""

    def __init__(self, record, words):
        self.record, self.words, self.n_words = record, words, len(words)
        self.slots = {0: 0}
        self.posts = {}     # step -> IRECV/START event not completed yet
        self.runs = []      # the REPEATs, for DONEs of posts inside them
        self.starts = []    # their first steps
        self.ordinal = 0    # of the last COMM event
        self.step = 1

    def parse(self):
        at, words, record = 0, self.words, self.record
        while at < self.n_words and words[at]:
            try:
                length = self.event(at, words[at])
            except Damaged:
                record.damaged = at
                break
            if length is None:  # cut short
                break
            at += length
        record.words = at
        record.steps = self.step - 1

    def fits(self, at, length):
        return at + length <= self.n_words

    def comm_of(self, slot, at):
        ordinal = field(self.words[at + 1], 32, 32) if slot == COMM_ESCAPE else self.slots.get(slot)
        if ordinal is None:
            raise Damaged()
        return ordinal

    def event(self, at, w):
        """Reads the event at word `at`: its length in words (None: cut short)."""
        kind_code = w & 31
        kind = KINDS[kind_code] if kind_code < len(KINDS) else None
        words, record, step = self.words, self.record, self.step
        if kind in MESSAGES:
            slot, tag = field(w, 5, 5), field(w, 32, 20)
            length = 1 + (slot == COMM_ESCAPE or tag == TAG_ESCAPE)
            if not self.fits(at, length):
                return None
            ordinal = self.comm_of(slot, at)
            if tag == TAG_ESCAPE:
                tag = field(words[at + 1], 0, 32)
            peer, flags, site = field(w, 12, 20), field(w, 10, 2), field(w, 52, 12)
            limit = _peer_limit(record, ordinal)
            if (kind == "SEND" and (not peer or flags & ~SYNCHRONOUS)) or \
                    (peer and limit is not None and peer > limit) or \
                    (site and site not in record.sites):
                raise Damaged()
            self.add(Event(step, at, kind, comm=ordinal, flags=flags,
                           peer=peer - 1 if peer else None, tag=tag, site=record.sites.get(site)))
            return length
        if kind == "DONE":
            delta, tag = field(w, 5, 19), field(w, 44, 20)
            length = 1 + (delta == DELTA_ESCAPE or tag == TAG_ESCAPE)
            if not self.fits(at, length):
                return None
            if length == 2:
                tag, delta = field(words[at + 1], 0, 32), field(words[at + 1], 32, 32)
            peer = field(w, 24, 20)
            # the source is bounded by its post's communicator (add): an
            # intercommunicator's remote group may outnumber the world
            if not 0 < delta < step:
                raise Damaged()
            self.add(Event(step, at, kind, peer=peer - 1 if peer else None, tag=tag, delta=delta,
                           post=step - delta))
            return length
        if kind == "MISS":
            call, count = KINDS[field(w, 5, 5)] if field(w, 5, 5) < len(KINDS) else None, w >> 15
            if call not in POLLING or not count:
                raise Damaged()
            probe = call in ("IPROBE", "IMPROBE")
            self.add(Event(step, at, kind, call=call, count=count,
                           comm=self.slots.get(field(w, 10, 5)) if probe else None))
            return 1
        if kind in CHOICES:
            value = field(w, 32, 32)
            some = kind in ("TESTSOME", "WAITSOME")
            length = 1 + ((value + 1) // 2 if some and value != UNDEFINED else 0)
            if not self.fits(at, length):
                return None
            self.add(Event(step, at, kind, n=field(w, 5, 27),
                           value=None if value == UNDEFINED else value,
                           indices=_members(words, at + 1, value) if some and value != UNDEFINED
                           else None))
            return length
        if kind == "COLL":
            slot, shape, root = field(w, 5, 5), SHAPES.get(field(w, 10, 3)), field(w, 13, 20)
            length = 1 + (slot == COMM_ESCAPE)
            if not self.fits(at, length):
                return None
            ordinal = self.comm_of(slot, at)
            site = field(w, 52, 12)
            if shape is None or (site and site not in record.sites):
                raise Damaged()
            self.add(Event(step, at, kind, comm=ordinal, shape=shape,
                           root=root - 1 if root else None, site=record.sites.get(site)))
            return length
        if kind == "COMM":
            parsed = _comm_event(words, at, self.n_words)
            if parsed is None:
                return None
            comm, slot, length = parsed
            # ordinals count the communicators the rank created; a member is
            # a rank of MPI_COMM_WORLD, or not known (None: a spawned process)
            everyone = (comm.members or []) + (comm.remote_members or [])
            if comm.ordinal <= self.ordinal or comm.size < 1 or \
                    any(m is not None and m >= record.size for m in everyone):
                raise Damaged()
            self.ordinal = comm.ordinal
            record.comms[comm.ordinal] = comm
            if slot != COMM_ESCAPE:
                self.slots[slot] = comm.ordinal
            return length
        if kind == "SITE":
            if not field(w, 5, 12):
                raise Damaged()
            record.sites[field(w, 5, 12)] = field(w, 17, 47)
            return 1
        if kind == "REPEAT":
            group, count = _group(record.events, at, field(w, 5, 4)), w >> REPEAT_COUNT
            if group is None or not count:
                raise Damaged()
            run = Run(step, at, group, count)
            self.complete_posts(run)
            record.events.append(run)
            self.runs.append(run)
            self.starts.append(run.step)
            self.step += run.steps
            return 1
        raise Damaged()

    def add(self, event):
        """Appends event; links a DONE and its post (Damaged when it matched
        a source its post's communicator has not: replay would refuse it)."""
        if event.kind == "DONE":
            posted = self.posts.get(event.post)
            limit = posted and posted.wild and _peer_limit(self.record, posted.comm)
            if event.peer is not None and limit and event.peer >= limit:
                raise Damaged()
        self.record.events.append(event)
        if event.kind in ("IRECV", "START"):
            self.posts[event.step] = event
        elif event.kind == "DONE":
            posted = self.posts.pop(event.post, None)
            if posted is not None:
                posted.done = event.step
            elif not self.in_run(event.post):
                event.post = None
        self.step += event.steps

    def in_run(self, step):
        """Whether `step` is a receive post a REPEAT made."""
        k = bisect.bisect_right(self.starts, step) - 1
        if k < 0 or step >= self.runs[k].step + self.runs[k].steps:
            return False
        run = self.runs[k]
        return run.group[(step - run.step) % len(run.group)].kind in ("IRECV", "START")

    def complete_posts(self, run):
        """The posts made before `run` whose DONE one of its first turns
        repeats (TURNS_BACK at most: a loop's requests complete a few turns
        after their posts, a damaged record's could cost any number)."""
        n = len(run.group)
        for j, e in enumerate(run.group):
            if e.kind != "DONE":
                continue
            for turn in range(min(run.count, TURNS_BACK)):
                post = run.step + turn * n + j - e.delta
                if post >= run.step:
                    break
                if post in self.posts:
                    self.posts.pop(post).done = run.step + turn * n + j


def read_rank(path):
    """The RankRecord of one file (RecordError when it is not a record, or
    its header is damaged).  The file is trusted for nothing: sizes are
    checked against it, every word is read once."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise RecordError("cannot read %s: %s" % (path, err.strerror)) from None
    header = read_header(path, data)
    if header[2] > len(data):
        raise RecordError("%s: the record's header is damaged (header size %d in %d bytes)"
                          % (path, header[2], len(data)))
    words = array("Q")
    body = memoryview(data)[header[2]:]
    words.frombytes(body[:len(body) - len(body) % 8])
    if sys.byteorder != "little":
        words.byteswap()
    record = RankRecord(path, header)
    _Parser(record, words).parse()
    if record.state == "closed" and record.damaged is None and \
            record.steps != record.steps_closed:
        record.miscounted = record.steps
    return record


def check_replay(directory, size=None):
    """Whether a job of `size` ranks (None: not known) can replay the record
    in `directory`: a RecordError saying why not (a missing, unreadable or
    foreign directory), from the files' headers alone."""
    try:
        files = rank_files(directory)
    except OSError as err:
        raise RecordError("cannot replay %s: %s" % (directory, err.strerror)) from None
    if not files:
        raise RecordError("cannot replay %s: it holds no record (no rank.N files)" % directory)
    first = None
    for r in range(size) if size else sorted(files):
        if r not in files:
            raise RecordError("cannot replay %s: it has no record of rank %d" % (directory, r))
        name = "rank.%d" % r
        try:
            with open(files[r], "rb") as f:
                header = read_header(name, f.read(HEADER.size))
        except OSError as err:
            raise RecordError("cannot replay %s: %s: %s" % (directory, name, err.strerror)) \
                from None
        except RecordError as err:
            raise RecordError("cannot replay %s: %s" % (directory, err)) from None
        rank, ranks, job = header[3], header[4], header[7]
        if size and ranks != size:
            raise RecordError("cannot replay %s with %d rank%s: it is a record of %d" % (
                directory, size, "s" * (size != 1), ranks))
        if rank != r or (first is not None and (job, ranks) != first):
            raise RecordError("cannot replay %s: %s is from another run" % (directory, name))
        first = first or (job, ranks)


def read_header(path, data):
    """The header fields of a rank's file (its first bytes in data; path
    names it in errors)."""
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise RecordError("%s is not an mpipp record" % path)
    header = HEADER.unpack_from(data)
    version, header_size, rank, size, state = header[1:6]
    if version != VERSION:
        raise RecordError("%s is a record of another version (%d) of mpipp" % (path, version))
    if not HEADER.size <= header_size or header_size % 8 or \
            not 0 < size <= PEER_MAX or not 0 <= rank < size or state not in STATES:
        raise RecordError("%s: the record's header is damaged (header size %d, rank %d of %d, "
                          "state %d, in %d bytes)" % (path, header_size, rank, size, state,
                                                      len(data)))
    return header


class Record:
    """A record directory: `ranks` {rank: RankRecord}, the job's size,
    `missing` ranks (no file) as [(first, last)], notes on files from
    other runs."""

    def __init__(self, directory, ranks, size, missing, notes):
        self.directory, self.ranks, self.size = directory, ranks, size
        self.missing, self.notes = missing, notes


RANK_FILE = re.compile(r"^rank\.(\d+)$")


def rank_files(directory):
    """{rank: path} of the rank.N files in directory (OSError: unreadable)."""
    return {int(m.group(1)): os.path.join(directory, name)
            for name in os.listdir(directory) for m in [RANK_FILE.match(name)] if m}


def read_record(directory):
    """The Record of a directory (RecordError when it holds no record)."""
    try:
        files = rank_files(directory)
    except OSError as err:
        raise RecordError("cannot read %s: %s" % (directory, err.strerror)) from None
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
    return Record(directory, kept, first.size, _missing(kept, first.size), notes)


def _missing(kept, size):
    """[(first, last)] of the ranks below size without a record: as many
    ranges as files, however many ranks the header claims."""
    out, expected = [], 0
    for r in sorted(kept) + [size]:
        if r > expected:
            out.append((expected, r - 1))
        expected = r + 1
    return out


def ranges_text(ranges):
    """"1", "3-5,9" of [(first, last)]."""
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in ranges)
