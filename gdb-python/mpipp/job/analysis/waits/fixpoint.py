"""Which ranks are released when others are (gdb-free): a fixpoint over
the ranks' AND/OR conditions (conditions.py), linear in their size."""

from .conditions import FREE, NEVER, Need


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
        # a "never" group counts one more than its members: it never holds
        gpending = [1 if g.mode == "any" else len(g.members) + (g.mode == "never")
                    for g in self.groups]
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
            if not g.members and g.mode == "all":
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
