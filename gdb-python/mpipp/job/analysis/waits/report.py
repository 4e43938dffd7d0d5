"""`waits`: a job's wait-for analysis (analysis.py) in words (gdb-free):
the lines the console prints, the verdict first, and its -json document."""

from ....text.ranks import format_ranks, header
from .analysis import WaitFor

MAX_LISTED = 20     # lines of messages in flight listed


class Edge:
    """An edge a -> b of the wait-for graph, as the report gives it."""

    __slots__ = ("reason", "function", "eager")

    def __init__(self, reason, function, eager):
        self.reason, self.function, self.eager = reason, function, eager


class Graph(WaitFor):
    """The wait-for graph of a job as `waits` reports it: the analysis of
    a World (WaitFor), worded: lines(), to_json(), and the reason of each
    edge (edge(a, b))."""

    def __init__(self, world):
        super().__init__(world)
        self._group_texts = {}      # group node -> its members' text

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

    def edge(self, a, b):
        """The Edge a -> b between deadlocked ranks (directly, or through a
        group a waits on and b is in), or None."""
        need = self.need_between(a, b)
        if need is None:
            return None
        return Edge(self._reason(a, need.op, self.state_text(b), need.missing),
                    need.op.function, need.eager)

    def targets(self, rank):
        """'0,1', 'any of 0-63': the ranks rank waits for (all of them, or
        any member of a group it waits on)."""
        ranks = [n for n in self.successors(rank) if not isinstance(n, tuple)]
        texts = [format_ranks(ranks)] if ranks else []
        for node in self.successors(rank):
            if isinstance(node, tuple):
                text = self.group_text(node)
                texts.append("any of " + text if self.group(node[1]).mode == "any"
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

    def _eager_texts(self):
        """'rank 0 MPI_Send of 8 bytes' of the standard-mode sends the
        verdict depends on."""
        return ["rank %d %s%s" % (send.rank, send.function,
                                  " of %d bytes" % send.size if send.size is not None else "")
                for send in self.eager_sends]

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
                if self._eager_texts() else ""
            return "would deadlock if every rank continued%s: %s" % (eager, counts)
        if self.ended:
            return "no deadlock: the job has ended (every rank exited)"
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
        eager = self._eager_texts()
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
        on = "the cycle" if len(self.cycles) == 1 else "the cycles" if self.cycles else \
            "ranks that exited" if self._on_gone(rest) else None
        out = ["blocked on %s:" % on if on else "blocked:"]
        by_text = {}
        for rank in rest:
            by_text.setdefault(self._blocked_text(rank), []).append(rank)
        for text, ranks in sorted(by_text.items(), key=lambda kv: kv[1][0]):
            out.append("  %s → %s" % (header(ranks), text))
        return out

    def _on_gone(self, ranks):
        """Do the ranks wait (directly or through a group) on ranks that are
        gone?"""
        for rank in ranks:
            for node in self.successors(rank):
                targets = self.successors(node) if isinstance(node, tuple) else [node]
                if any(t in self.world.gone for t in targets):
                    return True
        return False

    def _blocked_text(self, rank):
        mine, theirs = [], []
        for node in self.successors(rank):
            if isinstance(node, tuple):
                leaf = self.group_needs[(rank, node[1])]
                group = self.group(node[1])
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
        if not self.in_flight:
            return []
        out = ["messages in flight (sent, not yet received) that complete receives:"]
        items = sorted(self.in_flight.items())
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
        groups = {str(k): {"mode": self.group(k).mode,
                           "members": self.group_text(("g", k))}
                  for k in sorted({k for _a, k in self.group_needs})}
        return {
            "verdict": self.verdict,
            "ended": self.ended,
            "deadlock": self.verdict == "deadlock",
            "would_deadlock": self.verdict != "no deadlock",
            "eager": self._eager_texts(),
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
                          for (s, r, label, tag), (n, op) in sorted(self.in_flight.items())],
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
