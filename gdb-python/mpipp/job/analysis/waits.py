"""The wait-for graph of a job, its deadlocks, and how sure the verdict is
(gdb-free).

Each rank's condition to make progress is built from what its threads are
doing in MPI (world.py):

* a receive or probe from A completes with a message A sent that this rank
  did not receive yet -- in flight: libmpireg counts both ends (A's
  messages started minus the ones this rank matched, less those that
  receives it posted earlier will take) -- or when A posts a matching send;
  from MPI_ANY_SOURCE, when any member of the communicator does;
* a send to B needs B to post a matching receive, unless B matched it
  already; a buffered send needs nothing, and a standard one nothing when
  the MPI sends it eagerly (small messages: it depends on the MPI's eager
  threshold, and the verdict says so);
* a collective needs every member of the communicator at the same
  collective (the n-th on that communicator: libmpireg numbers them); an RMA
  fence the window's group at the same fence; PSCW epochs their peers'
  matching epochs; locks their holders' unlocks;
* Wait/Test calls need all (Waitall, Testall) or any (Waitany, Waitsome,
  Testany, Testsome) of their requests; a thread polling with Test or
  Iprobe waits for what it polls;
* a thread outside MPI can still do anything; a rank that exited never acts
  again; a call the model does not know is named, and taken as able to
  complete.

A rank is released when its condition holds for the ranks released so far:
a fixpoint over AND/OR conditions, linear in their size.  A receive from
any rank and a collective wait on a group (one node shared by every rank
that waits on it), so the size grows with the edges, not with ranks².  The
fixpoint runs twice: as the ranks stand now (a thread stopped at a
breakpoint before its call blocked, or polling between calls, can still do
anything) and as if every rank continued into the call it stopped in.
Ranks never released are deadlocked -- blocked for good in the first case,
would deadlock in the second -- and their unmet needs are the edges of the
wait-for graph, whose strongly connected components give the cycles.
"""

from ...text.ranks import format_ranks, header
from .callkinds import LOCAL_SENDS, WAIT_ANY
from .world import ANY, FINALIZE

FREE = True
NEVER = False
MAX_LISTED = 20     # lines of messages in flight listed
# How the console describes a rank that ended: one that exited normally
# went through MPI_Finalize.
EXITED_NORMALLY = ("exited normally", "exited with code 0")


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
    receive from MPI_ANY_SOURCE), or `all` of them (the members that have
    not reached a collective).  `missing(member)` says what a member lacks."""

    __slots__ = ("key", "mode", "members", "missing_of", "index")

    def __init__(self, key, mode, members, missing_of):
        self.key, self.mode, self.members = key, mode, members
        self.missing_of = missing_of
        self.index = None

    def missing(self, member):
        return self.missing_of(member) if callable(self.missing_of) else self.missing_of


class Edge:
    """An edge a -> b of the wait-for graph, as the report gives it."""

    __slots__ = ("reason", "function", "eager")

    def __init__(self, reason, function, eager):
        self.reason, self.function, self.eager = reason, function, eager


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


class Released:
    """The fixpoint: which ranks are released when the ranks in `initially`
    are.  Conditions are flattened once into arrays (a node's parent, how
    many of its children must hold); each run copies the counts."""

    def __init__(self, conditions, groups):
        self.parent, self.pending, self.root_of = [], [], {}
        self.watchers = {}          # rank -> [leaf node] of Needs on it
        self.group_watchers = {}    # group index -> [leaf node]
        self.member_of = {}         # rank -> [group index]
        self.leaves = []            # (node, leaf)
        self.groups = groups
        for rank, cond in conditions.items():
            if cond is not FREE and cond is not NEVER:
                self.root_of[self._add(cond, -1)] = rank
        for k, g in enumerate(groups):
            g.index = k
            for m in g.members:
                self.member_of.setdefault(m, []).append(k)

    def _add(self, cond, parent):
        node = len(self.parent)
        self.parent.append(parent)
        if isinstance(cond, tuple):
            kind, parts = cond
            self.pending.append(len(parts) if kind == "all" else 1)
            for part in parts:
                self._add(part, node)
        else:
            self.pending.append(1)
            self.leaves.append((node, cond))
            if isinstance(cond, Need):
                self.watchers.setdefault(cond.target, []).append(node)
            else:
                self.group_watchers.setdefault(id(cond.group), []).append(node)
        return node

    def run(self, initially, eager=False):
        """(set of released ranks, per-node 'holds' flags); eager: as if
        every standard-mode send completed on its own (sent eagerly)."""
        pending = list(self.pending)
        holds = [False] * len(pending)
        gpending = [1 if g.mode == "any" else len(g.members) for g in self.groups]
        free, queue = set(), []

        def satisfy(node):
            while node >= 0 and not holds[node]:
                pending[node] -= 1
                if pending[node] > 0:
                    return
                holds[node] = True
                parent = self.parent[node]
                if parent < 0:
                    rank = self.root_of[node]
                    if rank not in free:
                        free.add(rank)
                        queue.append(rank)
                    return
                node = parent

        for rank in initially:
            if rank not in free:
                free.add(rank)
                queue.append(rank)
        for g in self.groups:          # an "all" group of nobody holds at once
            if not g.members:
                for leaf in self.group_watchers.get(id(g), ()):
                    satisfy(leaf)
        if eager:
            for node, leaf in self.leaves:
                if isinstance(leaf, Need) and leaf.eager:
                    satisfy(node)
        while queue:
            rank = queue.pop()
            for leaf in self.watchers.get(rank, ()):
                satisfy(leaf)
            for k in self.member_of.get(rank, ()):
                gpending[k] -= 1
                if gpending[k] == 0:
                    for leaf in self.group_watchers.get(id(self.groups[k]), ()):
                        satisfy(leaf)
        return free, holds


class Graph:
    """Conditions of every rank, the deadlock analysis over them and its
    verdict: "deadlock" (blocked for good), "would deadlock" (if every rank
    continued) or "no deadlock"."""

    def __init__(self, world):
        self.world = world
        self.groups = {}            # key -> Group
        self.unmodelled = {}        # rank -> [function]
        self.released_by = {}       # (sender, receiver, comm label, tag) -> [messages, op]
        self._posted = {}           # (identity, rank) -> {source: set of tags}
        self._receives = {}         # rank -> [(serial, lwp, identity, source, tag)]
        self._current_sends = {}    # (identity, receiver) -> {sender: {tag: count}}
        self._uncounted_comms = {}  # identity -> bool
        self._any = {}              # ("any", identity) -> Group or FREE
        self._index_ops()
        conditions, now_free, continued_free = {}, set(), set()
        for rank in world.ranks:
            cond, waiting_now = self._rank_condition(rank)
            conditions[rank] = cond
            if cond is FREE:
                continued_free.add(rank)
            if cond is FREE or not waiting_now:
                now_free.add(rank)
        group_list = list(self.groups.values())
        fixpoint = Released(conditions, group_list)
        self.free, holds = fixpoint.run(now_free)
        self.free_continued, holds_continued = fixpoint.run(continued_free)
        alive = [r for r in world.ranks if r not in world.gone]
        blocked = [r for r in alive if r not in self.free]
        if blocked:
            self.verdict, self.deadlocked, self._holds = "deadlock", blocked, holds
            self.also = [r for r in alive if r not in self.free_continued and r in self.free]
            initially = now_free
        else:
            self.deadlocked = [r for r in alive if r not in self.free_continued]
            self.verdict = "would deadlock" if self.deadlocked else "no deadlock"
            self._holds, self.also = holds_continued, []
            initially = continued_free
        # the deadlocked ranks that standard-mode sends sent eagerly would free
        free_if_eager = fixpoint.run(initially, eager=True)[0] if self.deadlocked else set()
        self.eager_saved = [r for r in self.deadlocked if r in free_if_eager]
        self._fixpoint = fixpoint
        self._graph()

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

    def state_text(self, rank):
        """'rank 1 waits for tag 10 from 0', 'rank 3 exited with code 1', ..."""
        if rank in self.world.gone:
            return "rank %d %s" % (rank, self.world.gone[rank])
        state = self.world.states.get(rank)
        if state is None or not state.ok:
            return "rank %d: state unknown" % rank
        texts = []
        for thread in state.threads:
            op = thread.op
            if op is None or thread.state == "outside":
                return "rank %d is not in an MPI call" % rank
            if op.kind == "wait" and thread.waits:
                texts.extend("%s (%s)" % (w.describe(), op.function) for w in thread.waits)
            else:
                texts.append(op.describe())
        return "rank %d %s" % (rank, " and ".join(texts) or "is not in an MPI call")

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
            self.released_by.setdefault((sender, rank, label, t), [n, op])
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
            key = ("coll", op.identity, op.seq, op.base)
        else:
            key = ("coll", op.identity, op.base, tuple(members) if op.group else None)
        group = self.groups.get(key)
        if group is None:
            late = [m for m in members if m >= 0 and not self._arrived(m, op)]
            group = self._group(key, "all", late, lambda m, op=op: self._not_arrived(m, op))
        return GroupNeed(state.rank, op, group) if group.members else FREE

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

    def _not_arrived(self, member, op):
        if member in self.world.gone:
            return "it will never arrive"
        target = self.world.state(member)
        for p in target.posted() if target else ():
            if p.kind == "coll" and p.identity == op.identity and op.seq is not None and \
                    p.seq == op.seq and p.base != op.base:
                return "is in %s at that point: a different collective" % p.function
        return "has not arrived"

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

    # -- the graph of the deadlocked ranks ----------------------------------

    def _graph(self):
        """Edges of the deadlocked ranks' unmet needs: rank -> rank for a
        Need, rank -> group -> members for a group; then the cycles."""
        dead = set(self.deadlocked)
        free = self.free if self.verdict == "deadlock" else self.free_continued
        self.needs = {}             # (from, to) -> Need
        self.group_needs = {}       # (rank, group index) -> GroupNeed
        self.succ = {}              # node -> [nodes]; a node is a rank or ("g", index)
        self._group_texts = {}
        holds = self._holds
        for node, leaf in self._fixpoint.leaves:
            if holds[node] or leaf.rank not in dead:
                continue
            if isinstance(leaf, Need):
                if leaf.target not in free:
                    self.needs.setdefault((leaf.rank, leaf.target), leaf)
            elif (leaf.rank, leaf.group.index) not in self.group_needs:
                self.group_needs[(leaf.rank, leaf.group.index)] = leaf
        for (a, b) in sorted(self.needs):
            self.succ.setdefault(a, []).append(b)
        for (a, k) in sorted(self.group_needs):
            self.succ.setdefault(a, []).append(("g", k))
            node = ("g", k)
            if node not in self.succ:
                group = self._fixpoint.groups[k]
                self.succ[node] = sorted(m for m in group.members if m not in free)
        self.cycles = self._cycles()

    def successors(self, node):
        return self.succ.get(node, [])

    def _cycles(self):
        """One shortest cycle through the lowest rank of every strongly
        connected component that has one (through groups, a member other
        than the one that entered it)."""
        nodes = list(self.deadlocked) + [n for n in self.succ if isinstance(n, tuple)]
        cycles = []
        for component in strongly_connected(nodes, self.successors):
            ranks = [n for n in component if not isinstance(n, tuple)]
            if not ranks:
                continue
            cycle = shortest_cycle(min(ranks), set(component), self.successors)
            if cycle:
                cycles.append(cycle)
        return sorted(cycles)

    def edge(self, a, b):
        """The Edge a -> b between deadlocked ranks (directly, or through a
        group a waits on and b is in), or None."""
        need = self.needs.get((a, b))
        if need is not None:
            return Edge(self._reason(need.rank, need.op, self.state_text(b), need.missing),
                        need.op.function, need.eager)
        for node in self.successors(a):
            if isinstance(node, tuple) and b in self.successors(node):
                leaf = self.group_needs[(a, node[1])]
                group = self._fixpoint.groups[node[1]]
                return Edge(self._reason(a, leaf.op, self.state_text(b), group.missing(b)),
                            leaf.op.function, False)
        return None

    def targets(self, rank):
        """'0,1', 'any of 0-63': the ranks rank waits for (all of them, or
        any member of a group it waits on)."""
        ranks = [n for n in self.successors(rank) if not isinstance(n, tuple)]
        texts = [format_ranks(ranks)] if ranks else []
        for node in self.successors(rank):
            if isinstance(node, tuple):
                text = self.group_text(node)
                texts.append("any of " + text if self._fixpoint.groups[node[1]].mode == "any"
                             else text)
        return ", ".join(texts)

    def group_text(self, node):
        """'0-511': the members a group node of the graph waits for (cached)."""
        if node not in self._group_texts:
            self._group_texts[node] = format_ranks(self.successors(node))
        return self._group_texts[node]

    @staticmethod
    def _reason(rank, op, theirs, missing):
        return "rank %d %s; %s: %s" % (rank, op.describe(), theirs, missing)

    # -- output -----------------------------------------------------------

    def _eager_sends(self):
        """'rank 0 MPI_Send of 8 bytes' of the standard-mode sends the
        verdict depends on: some deadlocked ranks would be free if the MPI
        sent them eagerly."""
        saved = set(self.eager_saved)
        if not saved:
            return []
        out = []
        for (a, _b), need in sorted(self.needs.items()):
            if a in saved and need.eager:
                size = need.op.message_bytes(self.world.states[a])
                text = "rank %d %s%s" % (a, need.op.function,
                                         " of %d bytes" % size if size is not None else "")
                if text not in out:
                    out.append(text)
        return out

    def _thread_states(self, kind):
        """{rank: text} of the ranks with a thread in state kind (inside an
        MPI call or polling)."""
        out = {}
        for rank, state in sorted(self.world.states.items()):
            if not state.ok:
                continue
            for t in state.threads:
                if t.state != kind or t.op is None:
                    continue
                if kind == "stopped":
                    out[rank] = state.stop.text(t.op.function)
                else:
                    out[rank] = "polls with %s (its last call, which found nothing)" % \
                        t.op.function
        return out

    def _stopped(self):
        """{rank: text} of every rank stopped by itself (a breakpoint, a
        signal, a step), inside MPI or not."""
        out = {}
        for rank, state in sorted(self.world.states.items()):
            if state.ok and state.stop.kind == "stopped":
                out[rank] = state.stop.text()
        out.update(self._thread_states("stopped"))
        return out

    def headline(self):
        n, cycles = len(self.deadlocked), len(self.cycles)
        counts = "%d rank%s, %d cycle%s" % (n, "" if n == 1 else "s", cycles,
                                           "" if cycles == 1 else "s")
        if self.verdict == "deadlock":
            return "deadlock: %d rank%s blocked for good, %d cycle%s" % (
                n, "" if n == 1 else "s", cycles, "" if cycles == 1 else "s")
        if self.verdict == "would deadlock":
            eager = ", unless the MPI sends standard-mode messages eagerly" \
                if self._eager_sends() else ""
            return "would deadlock if every rank continued%s: %s" % (eager, counts)
        free = sorted(self.free)
        return "no deadlock yet: every rank can progress (%s)" % (
            "ranks %s" % format_ranks(free) if free else "none")

    def lines(self):
        """The text report: the verdict on the first line."""
        out = [self.headline()]
        if self.verdict != "no deadlock":
            out += self._why_not_for_good() + self._cycle_lines() + self._blocked_lines()
        if self.also:
            out.append("would also deadlock if every rank continued: ranks %s"
                       % format_ranks(self.also))
        out += self._in_flight_lines() + self._state_lines() + self._gone_lines()
        return out

    def _why_not_for_good(self):
        eager = self._eager_sends()
        if self.verdict == "deadlock":
            return ["  (the standard-mode sends on it did not complete eagerly: %s)"
                    % ", ".join(eager)] if eager else []
        dead = set(self.deadlocked)
        out = []
        stopped = {r: t for r, t in self._thread_states("stopped").items() if r in dead}
        polling = {r: t for r, t in self._thread_states("polling").items() if r in dead}
        reasons = []
        if stopped:
            reasons.append("%s stopped before %s call%s blocked" % (
                _ranks_are(stopped), "their" if len(stopped) > 1 else "its",
                "s" if len(stopped) > 1 else ""))
        if polling:
            reasons.append("%s polling" % _ranks_are(polling))
        if reasons:
            out.append("  (%s)" % "; ".join(reasons))
        if eager:
            out.append("  depends on the MPI's eager threshold: %s would complete without "
                       "their receives if sent eagerly" % ", ".join(eager))
        return out

    def _cycle_lines(self):
        out = []
        for cycle in self.cycles:
            out.append("cycle " + " → ".join(str(r) for r in cycle + [cycle[0]]))
            for k, a in enumerate(cycle):
                b = cycle[(k + 1) % len(cycle)]
                out.append("  %d → %d: %s" % (a, b, self.edge(a, b).reason))
        return out

    def _blocked_lines(self):
        on_cycle = {r for c in self.cycles for r in c}
        rest = [r for r in self.deadlocked if r not in on_cycle]
        if not rest:
            return []
        out = ["blocked on %s:" % ("the cycle" if len(self.cycles) == 1 else
                                   "the cycles" if self.cycles else "ranks that exited")]
        by_text = {}
        for rank in rest:
            by_text.setdefault(self._blocked_text(rank), []).append(rank)
        for text, ranks in sorted(by_text.items(), key=lambda kv: kv[1][0]):
            out.append("  %s → %s" % (header(ranks), text))
        return out

    def _blocked_text(self, rank):
        mine, theirs = [], []
        for node in self.successors(rank):
            if isinstance(node, tuple):
                leaf = self.group_needs[(rank, node[1])]
                group = self._fixpoint.groups[node[1]]
                text = leaf.op.describe()
                members = self.successors(node)
                if len(members) <= 4:
                    theirs += ["%s: %s" % (self.state_text(m), group.missing(m))
                               for m in members if m != rank]
                else:
                    theirs.append("ranks %s: %s" % (self.group_text(node),
                                                     group.missing(members[0])))
            else:
                need = self.needs[(rank, node)]
                text = need.op.describe()
                theirs.append("%s: %s" % (self.state_text(node), need.missing))
            if text not in mine:
                mine.append(text)
        return "%s: %s; %s" % (self.targets(rank), " and ".join(mine), "; ".join(theirs))

    def _in_flight_lines(self):
        if not self.released_by:
            return []
        out = ["messages in flight (sent, not yet received) that complete receives:"]
        items = sorted(self.released_by.items())
        for (sender, receiver, label, tag), (n, op) in items[:MAX_LISTED]:
            out.append("  %d → %d tag %s on %s: %d message%s, for rank %d's %s" % (
                sender, receiver, tag, label, n, "" if n == 1 else "s", receiver, op.function))
        if len(items) > MAX_LISTED:
            out.append("  ... and %d more channels" % (len(items) - MAX_LISTED))
        return out

    def _state_lines(self):
        out = []
        for title, states in (("stopped", self._stopped()),
                              ("polling", self._thread_states("polling"))):
            if states:
                out.append("%s:" % title)
                by_text = {}
                for rank, text in states.items():
                    by_text.setdefault(text, []).append(rank)
                for text, ranks in sorted(by_text.items(), key=lambda kv: kv[1][0]):
                    out.append("  %s %s" % (header(ranks), text))
        for rank, functions in sorted(self.unmodelled.items()):
            out.append("not modelled: rank %d is in %s (taken as able to complete)"
                       % (rank, ", ".join(dict.fromkeys(functions))))
        return out

    def _gone_lines(self):
        unknown = [(r, "state unknown: %s" % s.error) for r, s in self.world.states.items()
                   if not s.ok]
        return ["%s %s" % (header([r]), why)
                for r, why in sorted(list(self.world.gone.items()) + unknown)]

    def to_json(self):
        on_cycle = {r for c in self.cycles for r in c}
        cycle_edges = {(c[k], c[(k + 1) % len(c)]) for c in self.cycles for k in range(len(c))}
        edges = []
        for (a, b) in sorted(set(self.needs) | cycle_edges):
            edge = self.edge(a, b)
            edges.append({"from": a, "to": b, "reason": edge.reason, "function": edge.function,
                          "in_cycle": (a, b) in cycle_edges, "eager": edge.eager})
        group_waits = [{"from": a, "group": k, "what": leaf.op.describe(),
                        "function": leaf.op.function}
                       for (a, k), leaf in sorted(self.group_needs.items())]
        groups = {str(k): {"mode": self._fixpoint.groups[k].mode,
                           "members": self.group_text(("g", k))}
                  for k in sorted({k for _a, k in self.group_needs})}
        return {
            "verdict": self.verdict,
            "deadlock": self.verdict == "deadlock",
            "would_deadlock": self.verdict != "no deadlock",
            "eager": self._eager_sends(),
            "cycles": self.cycles,
            "edges": edges,
            "group_waits": group_waits,
            "groups": groups,
            "deadlocked": self.deadlocked,
            "also_if_continued": self.also,
            "blocked": [{"rank": r, "waits_for": self.targets(r)} for r in self.deadlocked
                        if r not in on_cycle],
            "in_flight": [{"from": s, "to": r, "comm": label, "tag": tag, "messages": n,
                           "releases": op.function}
                          for (s, r, label, tag), (n, op) in sorted(self.released_by.items())],
            "stopped": {str(r): t for r, t in self._stopped().items()},
            "polling": {str(r): t for r, t in self._thread_states("polling").items()},
            "unmodelled": {str(r): f for r, f in sorted(self.unmodelled.items())},
            "gone": {str(r): why for r, why in sorted(self.world.gone.items())},
            "unknown": {str(r): s.error for r, s in sorted(self.world.states.items())
                        if not s.ok},
            "free": sorted(self.free),
        }


def _ranks_are(ranks):
    ranks = sorted(ranks)
    return ("ranks %s are" if len(ranks) > 1 else "rank %s is") % format_ranks(ranks)


def strongly_connected(nodes, successors):
    """Tarjan's components (iterative) that contain a cycle."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for succ in it:
                if succ not in index:
                    index[succ] = low[succ] = counter[0]
                    counter[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(successors(succ))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in successors(node):
                    out.append(component)
    return out


def shortest_cycle(start, component, successors):
    """[start, ..., last] ranks with last → start, inside component (BFS).
    A group node (a tuple) leads to its members but the rank that entered
    it; each is expanded once (later, only the way back to start counts)."""
    parent, queue, expanded, members = {}, [start], set(), {}
    for rank in queue:
        for succ in successors(rank):
            if not isinstance(succ, tuple):
                found = [succ]
            elif succ not in component:
                continue
            elif succ in expanded:
                if succ not in members:
                    members[succ] = set(successors(succ))
                found = [start] if start in members[succ] else []
            else:
                expanded.add(succ)
                found = successors(succ)
            for member in found:
                if member == rank or member not in component:
                    continue
                if member == start:
                    path = [rank]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return list(reversed(path))
                if member not in parent:
                    parent[member] = rank
                    queue.append(member)
    return None
