"""The wait-for graph of a job and its deadlocks (gdb-free).

Each rank's condition to make progress is built from what its threads are
doing in MPI (world.py):

* a send to B needs B to post a matching receive (same communicator,
  source this rank or MPI_ANY_SOURCE, same tag or MPI_ANY_TAG), unless B
  already has one posted; a receive or probe from A needs A to post a
  matching send -- from any member of the communicator for
  MPI_ANY_SOURCE, which is an OR over them;
* a collective needs every member of the communicator that has not
  reached a collective of the same kind on it (collectives are taken as
  synchronizing, which MPI allows);
* MPI_Wait/Waitall need all the requests they wait for, MPI_Waitany/
  Waitsome any of them; Sendrecv needs both halves;
* a rank with a thread outside MPI (or in a non-blocking call) is free, and
  a rank that exited never acts again.

A rank is released when its condition holds for the ranks released so far
(a fixpoint over AND/OR conditions), so an OR-wait with one live way out
is no deadlock.  The ranks never released are deadlocked; their unmet
needs are the edges of the wait-for graph, whose strongly connected
components give the cycles (`0 → 1 → 0`), each edge with its reason.
"""

from .ranks import format_ranks, header
from .world import ANY, LOCAL_SENDS, WAIT_ANY

FREE = True
NEVER = False


class Need:
    """A leaf of a condition: rank `target` must act for `op` of `rank` to
    complete.  `theirs` describes the target, `missing` what it lacks."""

    __slots__ = ("rank", "op", "target", "theirs", "missing")

    def __init__(self, rank, op, target, theirs, missing):
        self.rank, self.op, self.target = rank, op, target
        self.theirs, self.missing = theirs, missing

    @property
    def reason(self):
        """'rank 0 sends tag 9 to 1; rank 1 waits for tag 10 from 0: no matching receive'."""
        return "rank %d %s; %s: %s" % (self.rank, self.op.describe(), self.theirs, self.missing)


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


class Graph:
    """Conditions of every rank and the deadlock analysis over them."""

    def __init__(self, world):
        self.world = world
        self.conditions = {}
        for rank in world.ranks:
            self.conditions[rank] = self._rank_condition(rank)
        self.free = self._fixpoint()
        self.deadlocked = sorted(r for r in world.ranks
                                 if r not in self.free and r not in world.gone)
        self.edges = self._edges()
        self.targets = {}           # rank -> the ranks it waits for, ascending
        for a, b in sorted(self.edges):
            self.targets.setdefault(a, []).append(b)
        self.cycles = self._cycles()

    # -- what each rank waits for ------------------------------------------

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
            if op is None:
                return "rank %d is not in an MPI call" % rank
            if op.kind == "wait" and thread.waits:
                texts.extend("%s (%s)" % (w.describe(), op.function) for w in thread.waits)
            else:
                texts.append(op.describe())
        return "rank %d %s" % (rank, " and ".join(texts) or "is not in an MPI call")

    def _rank_condition(self, rank):
        if rank in self.world.gone:
            return NEVER
        state = self.world.states.get(rank)
        if state is None or not state.ok or not state.threads:
            return FREE
        return _any(self._thread_condition(state, t) for t in state.threads)

    def _thread_condition(self, state, thread):
        op = thread.op
        if op is None or op.nonblocking or op.persistent:
            return FREE
        if op.kind == "wait":
            conds = [self._op_condition(state, w) for w in thread.waits]
            return _any(conds) if op.base in WAIT_ANY else _all(conds)
        return self._op_condition(state, op)

    def _op_condition(self, state, op):
        if op.kind == "coll":
            return self._collective_condition(state, op)
        return _all(self._part_condition(state, op, part) for part in op.parts())

    def _part_condition(self, state, op, part):
        direction, peer, tag, _buf = part
        if direction == "send" and op.base in LOCAL_SENDS:
            return FREE
        if peer is None:
            return FREE                      # PROC_NULL, or a peer that cannot be told
        if peer == ANY:
            members = op.comm.remote_members or op.comm.members if op.comm else None
            if members is None:
                return FREE
            candidates = [m for m in members if m >= 0 and m != state.rank]
        else:
            candidates = [peer]
        needs = []
        for other in candidates:
            if self._matched(state.rank, op, direction, tag, other):
                return FREE
            needs.append(self._need(state.rank, op, direction, tag, other))
        return _any(needs)

    def _matched(self, rank, op, direction, tag, other):
        """Has `other` posted the operation that completes this part?"""
        target = self.world.states.get(other)
        if other in self.world.gone:
            return False
        if target is None or not target.ok:
            return True                      # unknown: do not claim a deadlock
        want = "send" if direction in ("recv", "probe") else "recv"
        identity = op.comm.identity if op.comm else None
        for posted in target.posted():
            if posted.comm is None or posted.comm.identity != identity:
                continue
            for their_direction, their_peer, their_tag, _buf in posted.parts():
                if their_direction == "probe":
                    their_direction = "recv"
                if their_direction != want or their_peer not in (rank, ANY):
                    continue
                if ANY in (tag, their_tag) or tag == their_tag:
                    return True
        return False

    def _need(self, rank, op, direction, tag, other):
        missing = "no matching receive" if direction == "send" else "no matching send"
        if other in self.world.gone:
            missing = "it will never send" if direction != "send" else "it will never receive"
        return Need(rank, op, other, self.state_text(other), missing)

    def _collective_condition(self, state, op):
        members = op.comm.members if op.comm else None
        if members is None:
            return FREE
        needs = []
        for other in members:
            if other == state.rank or other < 0:
                continue
            if other not in self.world.gone:
                target = self.world.states.get(other)
                if target is None or not target.ok or self._arrived(target, op):
                    continue
            needs.append(Need(state.rank, op, other, self.state_text(other), "has not arrived"))
        return _all(needs)

    @staticmethod
    def _arrived(target, op):
        identity = op.comm.identity
        return any(p.kind == "coll" and p.base == op.base and p.comm is not None and
                   p.comm.identity == identity for p in target.posted())

    # -- analysis ---------------------------------------------------------

    def _holds(self, cond, free):
        if cond is FREE or cond is NEVER:
            return cond
        if isinstance(cond, Need):
            return cond.target in free
        kind, parts = cond
        test = all if kind == "all" else any
        return test(self._holds(c, free) for c in parts)

    def _fixpoint(self):
        free = set()
        changed = True
        while changed:
            changed = False
            for rank, cond in self.conditions.items():
                if rank not in free and self._holds(cond, free):
                    free.add(rank)
                    changed = True
        return free

    def _leaves(self, cond):
        if isinstance(cond, Need):
            yield cond
        elif isinstance(cond, tuple):
            for c in cond[1]:
                yield from self._leaves(c)

    def _edges(self):
        """{(from, to): Need} of deadlocked ranks' unmet needs."""
        edges = {}
        for rank in self.deadlocked:
            for need in self._leaves(self.conditions[rank]):
                if need.target not in self.free:
                    edges.setdefault((rank, need.target), need)
        return edges

    def successors(self, rank):
        return self.targets.get(rank, [])

    def _cycles(self):
        """One shortest cycle through the lowest rank of every strongly
        connected component of the graph that has a cycle."""
        cycles = []
        for component in strongly_connected(self.deadlocked, self.successors):
            start = min(component)
            cycle = shortest_cycle(start, component, self.successors)
            if cycle:
                cycles.append(cycle)
        return sorted(cycles)

    # -- output -----------------------------------------------------------

    def to_json(self):
        on_cycle = {r for c in self.cycles for r in c}
        cycle_edges = {(c[k], c[(k + 1) % len(c)]) for c in self.cycles for k in range(len(c))}
        blocked = []
        for rank in self.deadlocked:
            if rank in on_cycle:
                continue
            targets = self.successors(rank)
            blocked.append({"rank": rank, "waits_for": targets,
                            "reasons": [self.edges[(rank, t)].reason for t in targets]})
        return {
            "deadlock": bool(self.deadlocked),
            "cycles": self.cycles,
            "edges": [{"from": a, "to": b, "reason": need.reason, "function": need.op.function,
                       "in_cycle": (a, b) in cycle_edges}
                      for (a, b), need in sorted(self.edges.items())],
            "deadlocked": self.deadlocked,
            "blocked": blocked,
            "gone": {str(r): why for r, why in sorted(self.world.gone.items())},
            "unknown": {str(r): s.error for r, s in sorted(self.world.states.items())
                        if not s.ok},
            "free": sorted(self.free),
        }

    def lines(self):
        """The text report."""
        if not self.deadlocked:
            out = ["no deadlock: every rank can progress (%s)" % self._free_text()]
            return out + self._gone_lines()
        out = ["deadlock: %d rank%s blocked for good, %d cycle%s" % (
            len(self.deadlocked), "" if len(self.deadlocked) == 1 else "s",
            len(self.cycles), "" if len(self.cycles) == 1 else "s")]
        for cycle in self.cycles:
            out.append("cycle " + " → ".join(str(r) for r in cycle + [cycle[0]]))
            for k, a in enumerate(cycle):
                b = cycle[(k + 1) % len(cycle)]
                out.append("  %d → %d: %s" % (a, b, self.edges[(a, b)].reason))
        on_cycle = {r for c in self.cycles for r in c}
        rest = [r for r in self.deadlocked if r not in on_cycle]
        if rest:
            out.append("blocked on %s:" % ("the cycle" if len(self.cycles) == 1 else
                                           "the cycles" if self.cycles else "ranks that exited"))
            by_text = {}
            for rank in rest:
                needs = [self.edges[(rank, t)] for t in self.successors(rank)]
                mine = []
                for need in needs:
                    if need.op.describe() not in mine:
                        mine.append(need.op.describe())
                text = "%s: %s; %s" % (format_ranks(n.target for n in needs), " and ".join(mine),
                                       "; ".join("%s: %s" % (n.theirs, n.missing)
                                                 for n in needs))
                by_text.setdefault(text, []).append(rank)
            for text, ranks in sorted(by_text.items(), key=lambda kv: kv[1][0]):
                out.append("  %s → %s" % (header(ranks), text))
        return out + self._gone_lines()

    def _free_text(self):
        free = sorted(self.free)
        return "ranks %s" % format_ranks(free) if free else "none"

    def _gone_lines(self):
        unknown = [(r, "state unknown: %s" % s.error) for r, s in self.world.states.items()
                   if not s.ok]
        return ["%s %s" % (header([r]), why)
                for r, why in sorted(list(self.world.gone.items()) + unknown)]


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
                    out.append(sorted(component))
    return out


def shortest_cycle(start, component, successors):
    """[start, ..., last] with last → start, inside component (BFS)."""
    inside = set(component)
    parent = {start: None}
    queue = [start]
    for node in queue:
        for succ in successors(node):
            if succ == start:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return list(reversed(path))
            if succ in inside and succ not in parent:
                parent[succ] = node
                queue.append(succ)
    return None
