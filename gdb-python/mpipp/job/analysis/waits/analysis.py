"""The wait-for analysis of a job (gdb-free): which ranks the others can
release, as the ranks stand now and as if every rank continued into its
call; the verdict; the graph of the deadlocked ranks' unmet needs and its
cycles.  Plain data: report.py words it."""

from collections import namedtuple

from .conditions import Conditions, Need
from .cycles import shortest_cycle, strongly_connected
from .fixpoint import Released

EagerSend = namedtuple("EagerSend", "rank function size")
EagerSend.__doc__ = """A standard-mode send a deadlocked rank is in, which
would complete if the MPI sent it eagerly: the rank, the function and the
bytes of its message (None when not known)."""


class WaitFor:
    """The wait-for analysis of a World:

    verdict       "deadlock" (blocked for good), "would deadlock" (if every
                  rank continued) or "no deadlock"
    ended         every rank of the job exited (the verdict is then "no
                  deadlock")
    deadlocked    the ranks never released (by the verdict's fixpoint)
    also          with a deadlock now, the ranks that would also deadlock
                  if every rank continued
    free, free_continued
                  the ranks released as they stand now, and as if every
                  rank continued
    eager_saved   the deadlocked ranks that standard-mode sends would free
                  if the MPI sent them eagerly; eager_sends: those sends
    needs, group_needs
                  the deadlocked ranks' unmet needs, the edges of the graph:
                  {(rank, target): Need}, {(rank, group index): GroupNeed}
                  (successors(node): a node is a rank or ("g", group index))
    cycles        [[rank, ...]]: one shortest cycle per strongly connected
                  component of the graph, last rank → first
    groups        {key: Group} the conditions wait on (group(index))
    unmodelled    {rank: [function]} of calls the model does not know
    in_flight     {(sender, receiver, comm label, tag): [messages, op]} of
                  the messages in flight that complete a receive
    """

    def __init__(self, world):
        self.world = world
        conditions = Conditions(world)
        self.groups = conditions.groups
        self.unmodelled, self.in_flight = conditions.unmodelled, conditions.in_flight
        fixpoint = self._fixpoint = Released(conditions.of, list(self.groups.values()))
        self.free, holds = fixpoint.run(conditions.free_now)
        self.free_continued, holds_continued = fixpoint.run(conditions.free_if_continued)
        alive = [r for r in world.ranks if r not in world.gone]
        self.ended = bool(world.gone) and not alive     # every rank exited
        blocked = [r for r in alive if r not in self.free]
        if blocked:
            self.verdict, self.deadlocked = "deadlock", blocked
            self.also = [r for r in alive if r not in self.free_continued and r in self.free]
            initially = conditions.free_now
        else:
            self.deadlocked = [r for r in alive if r not in self.free_continued]
            self.verdict = "would deadlock" if self.deadlocked else "no deadlock"
            self.also, holds, initially = [], holds_continued, conditions.free_if_continued
        # the deadlocked ranks that standard-mode sends sent eagerly would free
        free_if_eager = fixpoint.run(initially, eager=True)[0] if self.deadlocked else set()
        self.eager_saved = [r for r in self.deadlocked if r in free_if_eager]
        self._graph(holds)
        self.eager_sends = self._eager_sends()

    # -- the graph of the deadlocked ranks ----------------------------------

    def _graph(self, holds):
        """Edges of the deadlocked ranks' unmet needs (the leaves that do
        not hold): rank -> rank for a Need, rank -> group -> members for a
        group; then the cycles."""
        dead = set(self.deadlocked)
        free = self.free if self.verdict == "deadlock" else self.free_continued
        self.needs = {}             # (from, to) -> Need
        self.group_needs = {}       # (rank, group index) -> GroupNeed
        self.succ = {}              # node -> [nodes]; a node is a rank or ("g", index)
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
            if node not in self.succ:       # a "never" group: every member it names
                group = self.group(k)
                self.succ[node] = sorted(m for m in group.members
                                         if m not in free or group.mode == "never")
        self.cycles = self._cycles()

    def successors(self, node):
        return self.succ.get(node, [])

    def group(self, index):
        """The Group of a group node ("g", index)."""
        return self._fixpoint.groups[index]

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

    def need_between(self, a, b):
        """The Need of deadlocked rank a on b: directly, or through a group
        a waits on and b is in (what b lacks is then the group's); None when
        a does not wait for b."""
        need = self.needs.get((a, b))
        if need is not None:
            return need
        for node in self.successors(a):
            if isinstance(node, tuple) and b in self.successors(node):
                leaf = self.group_needs[(a, node[1])]
                return Need(a, leaf.op, b, self.group(node[1]).missing(b))
        return None

    def _eager_sends(self):
        """The standard-mode sends the verdict depends on: those of the
        deadlocked ranks that would be free if the MPI sent them eagerly."""
        saved = set(self.eager_saved)
        if not saved:
            return []
        out = []
        for (a, _b), need in sorted(self.needs.items()):
            if a in saved and need.eager:
                send = EagerSend(a, need.op.function, need.op.message_bytes(self.world.states[a]))
                if send not in out:
                    out.append(send)
        return out
