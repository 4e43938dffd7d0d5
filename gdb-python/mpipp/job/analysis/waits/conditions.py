"""What each rank needs to progress (gdb-free): its condition, an AND/OR
tree built from what its threads are doing in MPI (world.py), whose
leaves are another rank acting (Need) or a group of ranks acting
(GroupNeed); what the conditions are is the package's doc."""

from ..callkinds import LOCAL_SENDS, WAIT_ANY
from ..collectives import disagreement, instances
from ..world import ANY, FINALIZE

FREE = True
NEVER = False
# How the console describes a rank that ended: one that exited normally
# went through MPI_Finalize.
EXITED_NORMALLY = ("exited normally", "exited with code 0")
# What a rank inside MPI_Finalize lacks (the standard forbids it any other
# MPI call, from any thread).
FINALIZING = "it will never call MPI again"


class Need:
    """A leaf of a condition: rank `target` must act for `op` of `rank` to
    complete; `missing` says what it lacks; `eager`: a standard-mode send,
    which completes without it when the MPI sends it eagerly."""

    __slots__ = ("rank", "op", "target", "missing", "eager")

    def __init__(self, rank, op, target, missing, eager=False):
        self.rank, self.op, self.target, self.missing, self.eager = \
            rank, op, target, missing, eager


class Group:
    """A node waited on by several ranks: `any` of `members` acting (a
    receive from MPI_ANY_SOURCE), `all` of them (the members that have not
    reached a collective), or `never`: what waits on it is blocked for good
    whatever its members do (ranks in one collective that disagree on it, a
    peer inside MPI_Finalize).  `missing(member)` says what a member lacks."""

    __slots__ = ("key", "mode", "members", "missing_of", "index")

    def __init__(self, key, mode, members, missing_of):
        self.key, self.mode, self.members = key, mode, members
        self.missing_of = missing_of
        self.index = None

    def missing(self, member):
        return self.missing_of(member) if callable(self.missing_of) else self.missing_of


class GroupNeed:
    """A leaf: `op` of `rank` waits on `group`."""

    __slots__ = ("rank", "op", "group")

    def __init__(self, rank, op, group):
        self.rank, self.op, self.group = rank, op, group


def _all(conds):
    conds = [c for c in conds if c is not FREE]
    if any(c is NEVER for c in conds):
        return NEVER
    return FREE if not conds else conds[0] if len(conds) == 1 else ("all", conds)


def _any(conds):
    conds = [c for c in conds if c is not NEVER]
    if any(c is FREE for c in conds):
        return FREE
    return NEVER if not conds else conds[0] if len(conds) == 1 else ("any", conds)


class Conditions:
    """The condition of every rank of a world (`of`: {rank: condition}) and
    which ranks are free to act (`free_now`: as they stand now, a thread
    stopped before its call blocked or polling between calls can still do
    anything; `free_if_continued`: as if every rank continued into its
    call).  On the way: `groups` ({key: Group}, in the order they were
    made), `unmodelled` ({rank: [function]} of calls the model does not
    know) and `in_flight` ({(sender, receiver, comm label, tag): [messages,
    op]} of messages in flight that complete a receive)."""

    def __init__(self, world):
        self.world = world
        self.groups = {}            # key -> Group
        self.unmodelled = {}        # rank -> [function]
        self.in_flight = {}         # (sender, receiver, comm label, tag) -> [messages, op]
        self._posted = {}           # (identity, rank) -> {source: set of tags}
        self._receives = {}         # rank -> [(serial, lwp, identity, source, tag)]
        self._current_sends = {}    # (identity, receiver) -> {sender: {tag: count}}
        self._uncounted_comms = {}  # identity -> bool
        self._any = {}              # ("any", identity) -> Group or FREE
        self._collectives = instances(world)    # (identity, number) -> {rank: Op}
        self._disagreements = {}                  # ("disagree", identity, number) -> group
        self._index_ops()
        self.of, self.free_now, self.free_if_continued = {}, set(), set()
        for rank in world.ranks:
            cond, waiting_now = self._rank_condition(rank)
            self.of[rank] = cond
            if cond is FREE:
                self.free_if_continued.add(rank)
            if cond is FREE or not waiting_now:
                self.free_now.add(rank)

    # -- indexes of what every rank posted -------------------------------

    def _index_ops(self):
        for rank, state in self.world.states.items():
            if not state.ok:
                continue
            current = [t.op for t in state.threads if t.op is not None and
                       t.state in ("blocked", "stopped")]
            for op in state.requests + current:
                for direction, peer, tag, _buf in op.parts():
                    if op.identity is None:
                        continue
                    if direction == "recv" and op.base != "mrecv" or \
                            direction == "probe" and op.base == "mprobe":
                        self._posted.setdefault((op.identity, rank), {}).setdefault(
                            peer, set()).add(tag)
                    if direction == "send" and op in current and peer not in (None, ANY):
                        counts = self._current_sends.setdefault((op.identity, peer), {}) \
                            .setdefault(rank, {})
                        counts[tag] = counts.get(tag, 0) + 1
            for op in state.requests:
                for direction, peer, tag, _buf in op.parts():
                    if direction == "recv" and op.base != "mrecv" and op.identity is not None:
                        self._receives.setdefault(rank, []).append(
                            (op.serial or 0, op.lwp, op.identity, peer, tag))

    # -- what each rank waits for ----------------------------------------

    def _rank_condition(self, rank):
        """(condition, waiting now: no thread can do anything else now)."""
        if rank in self.world.gone:
            return NEVER, True
        state = self.world.states.get(rank)
        if state is None or not state.ok or not state.threads:
            return FREE, False
        conds = [self._thread_condition(state, t) for t in state.threads]
        return _any(conds), all(t.state == "blocked" for t in state.threads)

    def _thread_condition(self, state, thread):
        op = thread.op
        if op is None or thread.state == "outside":
            return FREE
        if op.polls and thread.state != "polling":
            return FREE                 # one Test or Iprobe returns at once
        if op.kind == "wait":
            conds = [self._op_condition(state, w, thread) for w in thread.waits]
            return _any(conds) if op.base in WAIT_ANY else _all(conds)
        if (op.nonblocking or op.persistent) and thread.state != "polling":
            return FREE                 # posting returns at once
        return self._op_condition(state, op, thread)

    def _op_condition(self, state, op, thread):
        if op.kind in ("send", "recv", "probe", "sendrecv"):
            return _all(self._part_condition(state, op, thread, part) for part in op.parts())
        if op.kind == "coll":
            return self._collective_condition(state, op)
        if op.kind == "rma":
            return self._rma_condition(state, op)
        if op.kind == "unmodelled":
            self.unmodelled.setdefault(state.rank, []).append(op.function)
        return FREE

    # -- point to point -----------------------------------------------------

    def _part_condition(self, state, op, thread, part):
        direction, peer, tag, _buf = part
        if peer is None or op.identity is None:
            return FREE                      # PROC_NULL, or a peer that cannot be told
        if direction == "send":
            return self._send_condition(state, op, peer, tag)
        if self._in_flight(state, op, thread, peer, tag):
            return FREE
        if peer == ANY:
            group = self._any_group(op.comm)
            return GroupNeed(state.rank, op, group) if group is not FREE else FREE
        return self._need(state.rank, op, peer, self._send_missing(peer))

    def _any_group(self, comm):
        """The group node of the receives from any rank of a communicator
        (made once for it), or FREE when a member is not in the job."""
        key = ("any", comm.identity)
        if key not in self._any:
            members = [m for m in (comm.peers or ()) if m >= 0]
            known = self.world.states.keys() | self.world.gone.keys()
            self._any[key] = FREE if not members or any(m not in known for m in members) \
                else self._group(key, "any", members, self._send_missing)
        return self._any[key]

    def _send_missing(self, member):
        return "it will never send" if member in self.world.gone else "no matching send"

    def _send_condition(self, state, op, dest, tag):
        if op.base in LOCAL_SENDS:
            return FREE
        target = self.world.states.get(dest)
        if dest not in self.world.gone and (target is None or not target.ok):
            return FREE                      # unknown: do not claim a deadlock
        if op.seq is not None:
            matched = self.world.received_by(op.identity, dest).get(state.rank, {})
            if matched.get(tag, 0) >= op.seq:
                return FREE                  # the receiver has it: the call is returning
        posted = self._posted.get((op.identity, dest), {})
        for source in (state.rank, ANY):
            tags = posted.get(source, ())
            if tag in tags or ANY in tags:
                return FREE
        missing = "it will never receive" if dest in self.world.gone else "no matching receive"
        return self._need(state.rank, op, dest, missing, eager=op.standard_mode)

    def _in_flight(self, state, op, thread, peer, tag):
        """Will a message in flight complete this receive or probe?  Those
        on matching channels outnumber the receives posted before it that
        could take them (conservative: an unknown count releases)."""
        world, rank, identity = self.world, state.rank, op.identity
        sent = world.sent_to(identity, rank)
        current = self._current_sends.get((identity, rank), {})
        received = world.received_by(identity, rank)
        senders = set(sent) | set(current) if peer == ANY else {peer}
        if self._uncounted(op.comm, peer):
            return True
        channels = []
        for sender in senders:
            mine = received.get(sender, {})
            theirs = dict(sent.get(sender, {}))
            for t, n in current.get(sender, {}).items():
                theirs[t] = theirs.get(t, 0) + n
            for t, n in theirs.items():
                if (tag == ANY or t == tag) and n > mine.get(t, 0):
                    channels.append((sender, t, n - mine.get(t, 0)))
        if not channels:
            return False
        earlier = 0
        for serial, lwp, ident, source, t in self._receives.get(rank, ()):
            before = serial < op.serial if op.serial is not None else lwp == thread.lwp
            if before and ident == identity and any(
                    source in (s, ANY) and t in (c, ANY) for s, c, _n in channels):
                earlier += 1
        messages = sum(n for _s, _t, n in channels)
        if messages <= earlier:
            return False
        label = op.comm.label
        for sender, t, n in channels:
            self.in_flight.setdefault((sender, rank, label, t), [n, op])
        return True

    def _uncounted(self, comm, peer):
        """Could a message from peer (ANY: any member) be in flight without
        libmpireg's counts showing it?  When the sender freed the
        communicator, or its table of channels was full."""
        if peer != ANY:
            return self.world.state(peer) is not None and \
                not self.world.counts_known(peer, comm.identity)
        if comm.identity not in self._uncounted_comms:
            self._uncounted_comms[comm.identity] = any(
                self._uncounted(comm, m) for m in comm.peers or ())
        return self._uncounted_comms[comm.identity]

    def _need(self, rank, op, target, missing, eager=False):
        if self.world.finalizing(target):
            # it makes no MPI call again: blocked for good, even while it is
            # stopped at MPI_Finalize's entry -- but a standard-mode send,
            # which completes on its own when the MPI sends it eagerly
            if eager:
                return Need(rank, op, target, FINALIZING, eager)
            return GroupNeed(rank, op, self._group(("finalizing", target), "never", [target],
                                                   FINALIZING))
        if target in self.world.gone or (self.world.states.get(target) is not None):
            return Need(rank, op, target, missing, eager)
        return FREE                          # not a rank of this job: cannot be told

    def _group(self, key, mode, members, missing):
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = Group(key, mode, members, missing)
        return group

    # -- collectives ------------------------------------------------------

    def _collective_condition(self, state, op):
        members = op.members()
        if not members or op.identity is None:
            return FREE
        if op.seq is not None:
            never = self._never_group(op.identity, op.seq)
            if never is not None:
                return GroupNeed(state.rank, op, never)
            key = ("coll", op.identity, op.seq, op.base)
        else:
            key = ("coll", op.identity, op.base, tuple(members) if op.group else None)
        group = self.groups.get(key)
        if group is None:
            late = [m for m in members if m >= 0 and not self._arrived(m, op)]
            finalizing = [m for m in late if op.base != FINALIZE and self.world.finalizing(m)]
            group = self._group(key, "never", finalizing, FINALIZING) if finalizing else \
                self._group(key, "all", late, self._not_arrived)
        return GroupNeed(state.rank, op, group) if group.members else FREE

    def _never_group(self, identity, seq):
        """The group, blocked for good, of a collective whose ranks disagree
        so that MPI never completes it, else None: judged once per
        collective, not once per member."""
        key = ("disagree", identity, seq)
        if key not in self._disagreements:
            ops = self._collectives.get((identity, seq), {})
            disagree = disagreement(ops) if len(ops) > 1 else None
            self._disagreements[key] = self._group(key, "never", sorted(ops), disagree.reason) \
                if disagree is not None and self._never_completes(disagree, ops) else None
        return self._disagreements[key]

    def _never_completes(self, disagree, ops):
        """Does MPI leave ranks that disagree so in their collective for
        good?  Collectives of different kinds never match (both MPIs).  With
        different roots some hang (MPI_Reduce: each root waits for the
        other's data), others return (an MPI_Bcast sent eagerly both ways):
        only ranks found blocked inside it, not stopped at its entry, are.
        With different ops both MPIs complete it, with wrong data: check's
        error, no hang."""
        if disagree.what == "collective":
            return True
        return disagree.what == "root" and all(self._blocked_in(rank, op)
                                                for rank, op in ops.items())

    def _blocked_in(self, rank, op):
        """Is a thread of rank blocked in op (its call, or a Wait on it)?"""
        return any(t.state == "blocked" and (t.op is op or op in t.waits)
                   for t in self.world.states[rank].threads)

    def _arrived(self, member, op):
        if member in self.world.gone:
            return op.base == FINALIZE and self.world.gone[member] in EXITED_NORMALLY
        target = self.world.state(member)
        if target is None:
            return True                      # unknown: do not claim a deadlock
        if op.seq is not None:
            issued = self.world.collectives_issued(member, op.identity)
            if issued is None or issued >= op.seq:
                return True
            return any(p.kind == "coll" and p.identity == op.identity and p.seq == op.seq and
                       p.base == op.base for p in target.posted())
        return any(p.kind == "coll" and p.base == op.base and p.identity == op.identity
                   for p in target.posted())

    def _not_arrived(self, member):
        return "it will never arrive" if member in self.world.gone else "has not arrived"

    # -- RMA synchronisation ----------------------------------------------

    def _rma_condition(self, state, op):
        base, world, identity = op.base, self.world, op.identity
        win = op.call.get("win")
        if identity is None or win is None:
            self.unmodelled.setdefault(state.rank, []).append(
                op.function + " (its window's group is no recorded communicator)")
            return FREE
        if base == "win_fence":
            return self._fence_condition(state, op, win)
        if base == "win_post":
            return FREE
        if base in ("win_start", "win_complete"):
            return _all(self._epoch_need(state, op, win, target) for target in op.group or ())
        if base in ("win_wait", "win_test"):
            return _all(self._exposure_need(state, op, win, origin) for origin in op.group or ())
        target = (op.group or [None])[0]
        exclusive = op.call.get("exclusive") or target is not None and \
            self._open(state, win, target, "locks_exclusive")
        needs = []
        for other in world.ranks:
            if other == state.rank or world.state(other) is None:
                continue
            theirs = world.windows(other, identity)
            if len(theirs) != 1:
                continue                     # no locks, or which window is ambiguous
            theirs = theirs[0]
            other_state = world.state(other)
            holds_exclusive = any(self._open(other_state, theirs, t, "locks_exclusive")
                                  for t in ([target] if target is not None else
                                            self._targets(other_state, theirs)))
            holds_shared = self._open(other_state, theirs, None, "locks_shared") or any(
                self._open(other_state, theirs, t, "locks_shared")
                for t in ([target] if target is not None else []))
            if holds_exclusive or (exclusive and holds_shared):
                needs.append(self._need(state.rank, op, other, "holds a%s lock on %s" % (
                    "n exclusive" if holds_exclusive else " shared",
                    "rank %d's window" % target if target is not None else "the window")))
        return _all(needs)

    @staticmethod
    def _open(state, win, peer, kind):
        record = state.counter(win, peer, kind)
        return record is not None and record.sent > record.received

    @staticmethod
    def _targets(state, win):
        return {peer for (h, peer, kind) in state.counters
                if h == win and kind == "locks_exclusive" and peer is not None}

    def _fence_condition(self, state, op, win):
        members = op.members()
        if not members or op.seq is None:
            return FREE
        key = ("fence", op.identity, op.seq)
        group = self.groups.get(key)
        if group is None:
            late = []
            for m in members:
                theirs = self.world.windows(m, op.identity)
                target = self.world.state(m)
                if m in self.world.gone:
                    late.append(m)
                    continue
                if target is None or len(theirs) > 1:
                    continue                 # unknown, or which window is ambiguous
                record = target.counter(theirs[0], None, "fences") if theirs else None
                if (record.sent if record else 0) >= op.seq or any(
                        p.base == "win_fence" and p.identity == op.identity and p.seq == op.seq
                        for p in target.posted()):
                    continue
                late.append(m)
            group = self._group(key, "all", late, "has not reached the fence")
        return GroupNeed(state.rank, op, group) if group.members else FREE

    def _epoch_need(self, state, op, win, target):
        """Win_start/complete towards target: its exposure epoch for us."""
        mine = state.counter(win, target, "starts")
        epoch = (mine.sent if mine else 0) + (1 if op.base == "win_start" else 0)
        theirs = self.world.windows(target, op.identity)
        other = self.world.state(target)
        if target == state.rank or other is None or len(theirs) > 1:
            return FREE
        posted = other.counter(theirs[0], state.rank, "posts") if theirs else None
        if (posted.sent if posted else 0) >= epoch:
            return FREE
        return self._need(state.rank, op, target, "has not posted this epoch (MPI_Win_post)")

    def _exposure_need(self, state, op, win, origin):
        """Win_wait/test for origin's access epoch to complete."""
        mine = state.counter(win, origin, "posts")
        epoch = mine.sent if mine else 0
        theirs = self.world.windows(origin, op.identity)
        other = self.world.state(origin)
        if origin == state.rank or other is None or len(theirs) > 1:
            return FREE
        done = other.counter(theirs[0], state.rank, "starts") if theirs else None
        if (done.received if done else 0) >= epoch:
            return FREE
        return self._need(state.rank, op, origin,
                          "has not completed its access epoch (MPI_Win_complete)")
