"""The message races of a recorded run, as Netzer and Miller define them
(PDT's race detection, Clémençon et al. 1995: docs/design.md): a wildcard
receive or probe r races when another message m' could have been the one
it matched -- m' was sent by another sender r accepts, on r's communicator
to r's rank, was the first message of that sender r accepts (whatever its
tag: MPI_ANY_TAG) not yet taken by a receive posted before r (MPI's
non-overtaking rule, per communicator and sender), and its send does not
happen after r completed.  A receive from one sender with MPI_ANY_TAG never
races: that rule leaves it one message.

"Happens after" comes from vector clocks computed offline: the record has
every send, receive and collective in program order, and messages of one
(sender, communicator, tag) match receives in the order they were posted,
so the k-th receive of a channel took its k-th message -- no clock was
piggybacked on the messages.  Edges: a send to its receive's completion (a
request's at the Wait/Test that completed it) and to the probes that saw
it; a synchronous send's return from its receive's post; collectives by
shape (every member to every member; the root to all; all to the root;
lower ranks to higher).  A nonblocking collective counts where it was
posted, which orders more than MPI does: a race it hides is not reported
(the analysis never reports one that could not happen)."""

import bisect

from .reader import ANY_SOURCE, ANY_TAG, SYNCHRONOUS, RecordError

CONSUMING = ("RECV", "SENDRECV", "MPROBE", "IMPROBE")
PROBING = ("PROBE", "IPROBE")
POSTING = ("IRECV", "START")


def in_effect_order(events):
    """The events of a rank, an MPI_Sendrecv's send (recorded after what its
    receive matched, the same call's site) put before its receive: the
    message leaves while the call waits for the other."""
    out = list(events)
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        if a.kind == "SENDRECV" and b.kind == "SEND" and a.site and a.site == b.site:
            out[k], out[k + 1] = b, a
    return out


# The events the analysis follows at most beyond those the files hold: it
# follows every event of every rank, a REPEAT's turns one by one (a loop's
# clocks depend on its turn).
EVENTS_FOLLOWED = 200000


def _written(record):
    """The events as the files hold them (a REPEAT's group once)."""
    for rec in record.ranks.values():
        for e in rec.events:
            yield from e.group if e.kind == "REPEAT" else (e,)


def _wild(e):
    return e.kind in CONSUMING + PROBING + POSTING and bool(e.flags & (ANY_SOURCE | ANY_TAG))


def _bound(record):
    """A RecordError when the record's REPEATs make more events than the
    analysis follows (a MISS is one event, however many steps)."""
    events = sum(len(e.group) * e.count for rec in record.ranks.values() for e in rec.events
                 if e.kind == "REPEAT")
    if events > EVENTS_FOLLOWED:
        raise RecordError("%s: the recorded loops repeat their events %d times, more than the %d "
                          "the race analysis follows" % (record.directory, events,
                                                         EVENTS_FOLLOWED))


class Send:
    __slots__ = ("rank", "event", "index", "comm", "dest", "tag", "vc", "receive")

    def __init__(self, rank, event, index, comm, dest):
        self.rank, self.event, self.index, self.comm, self.dest = rank, event, index, comm, dest
        self.tag, self.vc, self.receive = event.tag, None, None

    @property
    def synchronous(self):
        return bool(self.event.flags & SYNCHRONOUS)


class Receive:
    """A receive (consuming) or probe: its post and completion indices in
    its rank's events, what it asked for, what it matched (world rank)."""

    __slots__ = ("rank", "event", "post", "done", "comm", "flags", "asked_source", "asked_tag",
                 "source", "tag", "send", "clock", "probe")

    def __init__(self, rank, event, index, comm, probe=False):
        self.rank, self.event, self.post, self.comm, self.probe = rank, event, index, comm, probe
        self.done = index if event.kind not in POSTING else None
        self.flags = event.flags
        self.asked_source = self.asked_tag = self.source = self.tag = None
        self.send = self.clock = None

    @property
    def wild(self):
        return bool(self.flags & (ANY_SOURCE | ANY_TAG))


class Race:
    """Receive `receive` matched `received` (a Send, or None when its
    sender's record is cut) and could have matched each of `others`."""

    def __init__(self, receive, others):
        self.receive, self.received, self.others = receive, receive.send, others


class Analysis:
    """The races of a Record; `wildcards` wildcard receives and probes were
    examined; `notes` say what the analysis could not see."""

    def __init__(self, record):
        self.record = record
        self.size = record.size
        self.notes = list(record.notes)
        self.events = {}
        if any(map(_wild, _written(record))):
            _bound(record)
            self.events = {r: in_effect_order(rec.expanded()) for r, rec in record.ranks.items()}
        self.keys = {r: self._comm_keys(rec) for r, rec in record.ranks.items()}
        self.sends, self.receives, self.collectives = [], [], {}
        self.send_at = {}       # (rank, event index) -> Send
        self.channels = {}      # (source, dest, comm key, tag) -> [Send] in send order
        self.taken = {}         # the same -> sorted post indices of consuming receives
        self.streams = {}       # (source, dest, comm key) -> {tag: [Send] in send order}
        for r in sorted(self.events):
            self._gather(r)
        self._pair()
        self._clocks()
        self.wildcards = [rv for rv in self.receives if rv.wild and rv.clock is not None]
        self.races = [race for race in map(self._race, self.wildcards) if race]

    # -- communicators ---------------------------------------------------
    def _comm_keys(self, rec):
        """{ordinal: (key, members, remote members)}: the key is the same on
        every rank for one communicator (its members, and how many with the
        same members this rank created before it)."""
        world = range(self.size)
        out = {0: (("world",), world, None)}
        seen = {}
        for ordinal in sorted(rec.comms):
            comm = rec.comms[ordinal]
            if comm.members is None:
                out[ordinal] = (("unknown", rec.rank, ordinal), None, None)
                continue
            groups = (tuple(comm.members), tuple(comm.remote_members or ()))
            # an intercommunicator's two groups, in the same order on both
            # sides (a member not known, None, sorts first)
            base = tuple(sorted(groups, key=lambda g: [-1 if m is None else m for m in g])) \
                if comm.remote_size else groups
            k = seen.get(base, 0)
            seen[base] = k + 1
            out[ordinal] = ((base, k), comm.members, comm.remote_members or None)
        return out

    def _comm(self, rank, ordinal):
        return self.keys[rank].get(ordinal, (("unknown", rank, ordinal), None, None))

    def _world(self, rank, ordinal, peer):
        """The MPI_COMM_WORLD rank of `peer` of communicator `ordinal` on `rank`."""
        _, members, remote = self._comm(rank, ordinal)
        group = remote if remote is not None else members
        if peer is None or group is None or not 0 <= peer < len(group):
            return None
        return group[peer]

    def members(self, rank, ordinal):
        """The members of a communicator that have a record (None: not known)."""
        _, members, remote = self._comm(rank, ordinal)
        if members is None:
            return None
        if isinstance(members, range):  # MPI_COMM_WORLD, however large
            return sorted(self.events)
        return [m for m in list(members) + list(remote or ()) if m in self.events]

    # -- events ------------------------------------------------------------
    def _gather(self, r):
        posted = {}
        coll_count = {}
        for i, e in enumerate(self.events[r]):
            if e.kind == "SEND":
                dest = self._world(r, e.comm, e.peer)
                if dest is not None:
                    s = Send(r, e, i, self._comm(r, e.comm)[0], dest)
                    self.sends.append(s)
                    self.send_at[(r, i)] = s
                    self.channels.setdefault((r, dest, s.comm, s.tag), []).append(s)
                    self.streams.setdefault((r, dest, s.comm), {}).setdefault(s.tag, []).append(s)
            elif e.kind in CONSUMING or e.kind in PROBING or e.kind in POSTING:
                rv = Receive(r, e, i, self._comm(r, e.comm)[0], probe=e.kind in PROBING)
                if e.kind in POSTING:
                    posted[e.step] = rv
                else:
                    self._matched(rv, e.peer, e.tag)
                rv.asked_source = None if rv.flags & ANY_SOURCE else e.peer
                rv.asked_tag = None if rv.flags & ANY_TAG else e.tag
                self.receives.append(rv)
            elif e.kind == "DONE" and e.post in posted:
                rv = posted.pop(e.post)
                rv.done = i
                self._matched(rv, e.peer, e.tag)
            elif e.kind == "COLL":
                key = self._comm(r, e.comm)[0]
                k = coll_count.get(key, 0)
                coll_count[key] = k + 1
                self.collectives.setdefault((key, k), {})[r] = e

    def _matched(self, rv, peer, tag):
        rv.source = self._world(rv.rank, rv.event.comm, peer)
        rv.tag = tag

    def _pair(self):
        """The k-th consuming receive of a channel (in post order) took its
        k-th message; a probe saw the first one not taken before it."""
        by_channel = {}
        for rv in self.receives:
            if rv.source is not None and not rv.probe:
                by_channel.setdefault((rv.source, rv.rank, rv.comm, rv.tag), []).append(rv)
        unpaired = 0
        for channel, takers in by_channel.items():
            takers.sort(key=lambda rv: rv.post)
            self.taken[channel] = [rv.post for rv in takers]
            sends = self.channels.get(channel, [])
            for k, rv in enumerate(takers):
                if k < len(sends):
                    rv.send, sends[k].receive = sends[k], rv
                else:
                    unpaired += 1
        for rv in self.receives:
            if rv.probe and rv.source is not None:
                channel = (rv.source, rv.rank, rv.comm, rv.tag)
                k = bisect.bisect_left(self.taken.get(channel, []), rv.post)
                sends = self.channels.get(channel, [])
                rv.send = sends[k] if k < len(sends) else None
        if unpaired:
            self.notes.append("%d receives matched messages whose sends are not in the record "
                              "(their senders' records are cut)" % unpaired)

    # -- vector clocks -------------------------------------------------------
    def _clocks(self):
        ranks = sorted(self.events)
        # a clock has an entry per rank with a record (self.column), not per
        # rank of the job: a header's size costs nothing
        self.column = {r: k for k, r in enumerate(ranks)}
        self.width = len(ranks)
        self.clock = {r: [0] * self.width for r in ranks}
        self.at = {r: 0 for r in ranks}
        self.post_clock = {}   # id(Receive) of a request -> clock at its post
        self.arrived = {}      # (coll key) -> {rank: clock before}
        self.released = {}     # (coll key) -> {rank: clock after}
        self.syncing = {}      # rank -> the Send whose receive's post it waits for
        self.posted = {r: {} for r in ranks}   # event index -> Receive
        self.done_of = {r: {} for r in ranks}  # completion index -> Receive
        for rv in self.receives:
            self.posted[rv.rank][rv.post] = rv
            if rv.done is not None:
                self.done_of[rv.rank][rv.done] = rv
        self.coll_index = {r: {} for r in ranks}
        for key, members in self.collectives.items():
            for r, e in members.items():
                self.coll_index[r][id(e)] = key
        forced = 0
        while True:
            moved = False
            for r in ranks:
                while self._advance(r, False):
                    moved = True
            if all(self.at[r] >= len(self.events[r]) for r in ranks):
                break
            if not moved:
                forced += 1
                blocked = [r for r in ranks if self.at[r] < len(self.events[r])]
                self._advance(blocked[0], True)
        if forced:
            self.notes.append("%d events were ordered without what they wait for (a cut "
                              "record, or a collective a member never called)" % forced)

    def _matched_clock(self, rv):
        """Where a synchronous send learns its receive matched: a blocking
        receive's completion, a request's post (the match lies between it
        and the completion: the earlier point claims no more order)."""
        if rv.event.kind in POSTING:
            return self.post_clock.get(id(rv))
        return rv.clock

    def _tick(self, r):
        self.clock[r][self.column[r]] += 1

    def _merge(self, r, other):
        mine = self.clock[r]
        for k, v in enumerate(other):
            if v > mine[k]:
                mine[k] = v

    def _advance(self, r, force):
        """Processes rank r's next event if it can (or `force`d); whether it did."""
        events = self.events[r]
        i = self.at[r]
        if i >= len(events):
            return False
        e = events[i]
        if r in self.syncing:
            matched = self._matched_clock(self.syncing[r].receive)
            if matched is None and not force:
                return False
            if matched is not None:
                self._merge(r, matched)
            del self.syncing[r]
            self.at[r] = i + 1
            return True
        if e.kind == "SEND":
            self._tick(r)
            send = self.send_at.get((r, i))
            if send is not None:
                send.vc = list(self.clock[r])
                if send.synchronous and send.receive is not None:
                    self.syncing[r] = send
                    return True
        elif e.kind == "COLL":
            return self._collective(r, e, force)
        elif e.kind in POSTING:
            self._tick(r)
            self.post_clock[id(self.posted[r][i])] = list(self.clock[r])
        else:
            done = self.done_of[r].get(i)
            if done is not None:
                message = done.send
                if message is not None and message.vc is None and not force:
                    return False
                if message is not None and message.vc is not None:
                    self._merge(r, message.vc)
                self._tick(r)
                done.clock = list(self.clock[r])
        self.at[r] = i + 1
        return True

    def _collective(self, r, e, force):
        key = self.coll_index[r][id(e)]
        arrived = self.arrived.setdefault(key, {})
        if r not in arrived:
            arrived[r] = list(self.clock[r])
        if key not in self.released:
            members = self.members(r, e.comm) or ()
            if not force and any(m not in arrived for m in members):
                return False
            self.released[key] = self._shape(r, e, arrived)
        after = self.released[key].get(r)
        if after is None:  # released without r (forced), r arrives late
            after = list(self.clock[r])
        self.clock[r] = after
        self._tick(r)
        self.at[r] += 1
        return True

    def _shape(self, r, e, arrived):
        """{member: clock after} of a collective, by its shape."""
        members = [m for m in self.members(r, e.comm) or sorted(arrived) if m in arrived]
        root = None
        if e.shape in ("from_root", "to_root") and e.root is not None:
            root = self._world(r, e.comm, e.root) if not self._comm(r, e.comm)[2] else None
        joined = [max(arrived[m][k] for m in members) for k in range(self.width)]
        out = {}
        for position, m in enumerate(members):
            if e.shape == "from_root" and root in arrived:
                out[m] = [max(a, b) for a, b in zip(arrived[m], arrived[root])]
            elif e.shape == "to_root" and root in arrived:
                out[m] = joined if m == root else list(arrived[m])
            elif e.shape == "prefix":
                before = members[:position + 1]
                out[m] = [max(arrived[x][k] for x in before) for k in range(self.width)]
            else:
                out[m] = list(joined)
        return out

    # -- races ---------------------------------------------------------------
    def _first_pending(self, stream, rv):
        """The first message of `stream` ({tag: [Send]} of one sender to rv's
        rank on rv's communicator) that rv accepts and no receive posted
        before rv took: MPI's non-overtaking rule lets rv match no other
        message of that sender.  None when there is none."""
        tags = stream if rv.asked_tag is None else {rv.asked_tag: stream.get(rv.asked_tag, ())}
        first = None
        for tag, sends in tags.items():
            channel = (sends[0].rank, rv.rank, rv.comm, tag) if sends else None
            k = bisect.bisect_left(self.taken.get(channel, []), rv.post) if sends else 0
            if k < len(sends) and (first is None or sends[k].index < first.index):
                first = sends[k]
        return first

    def _race(self, rv):
        """The Race of wildcard receive or probe rv, or None.  A sender's
        messages reach rv in the order they were sent (whatever their tags:
        MPI_ANY_TAG): from the sender of the message rv matched, that message
        was the only one it could take; from another sender, the first one
        it accepts, unless that was sent after rv completed."""
        if rv.source is None or rv.asked_source is not None:
            return None     # a receive from one sender takes its messages in order
        r, completed = rv.rank, rv.clock[self.column[rv.rank]]
        others = []
        for (source, dest, comm), stream in self.streams.items():
            if dest != r or comm != rv.comm or source == rv.source:
                continue
            first = self._first_pending(stream, rv)
            if first is not None and first.vc is not None and first.vc[self.column[r]] < completed:
                others.append(first)
        return Race(rv, sorted(others, key=lambda s: (s.rank, s.index))) if others else None
