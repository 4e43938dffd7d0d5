"""Collectives across ranks (gdb-free): which operations of the ranks are
one collective, and whether the ranks in it disagree on what it is.

The n-th collective a rank issues on a communicator meets the n-th of
every other member: libmpireg numbers them per communicator in issue
order, blocking, nonblocking and persistent ones alike, so a rank waiting
in MPI_Wait on an MPI_Iallreduce and another on an MPI_Ibcast are in the
same collective.  Ranks in one collective that name different ones, or
give different roots or ops, are in an erroneous program that MPI never
completes: check.py reports it, waits/conditions.py blocks the collective
for good with the same words -- one analysis, said the same way by both.
"""

from ...text.ranks import format_ranks
from .callkinds import REDUCTIONS


def instances(world):
    """{(comm identity, number): {world rank: Op}}: the collectives ranks are
    in or have pending, grouped by their number on the communicator (when
    libmpireg numbered them; otherwise each rank's first on it: "first")."""
    out = {}
    for rank, state in world.states.items():
        if not state.ok:
            continue
        for op in state.posted():
            if op.kind == "coll" and op.comm is not None:
                key = (op.identity, op.seq if op.seq is not None else "first")
                out.setdefault(key, {}).setdefault(rank, op)
    return out


class Disagreement:
    """What the ranks of one collective disagree on ("collective", "root" or
    "op"); `reason`: 'ranks disagree on the root: 0 root 0; 1 root 1',
    'different collectives at that point: 0 MPI_Ibarrier; 1 MPI_Scatter';
    `message`: the same with the collective or communicator first, as
    `check` gives it ('MPI_Reduce on MPI_COMM_WORLD: ranks disagree on the
    root: ...', 'different collectives on MPI_COMM_WORLD: 0 MPI_Ibarrier;
    1 MPI_Scatter')."""

    __slots__ = ("what", "reason", "message")

    def __init__(self, what, reason, message):
        self.what, self.reason, self.message = what, reason, message


def _values_text(values, what):
    """'0 root 0; 1 root 1' of {value: [ranks]}, lowest ranks first."""
    return "; ".join("%s %s%s" % (format_ranks(ranks), what, value)
                     for value, ranks in sorted(values.items(), key=lambda kv: kv[1]))


def _differ(ops, value):
    """{value: [ranks]} when the ranks give more than one value, else None
    (ranks whose value cannot be told are left out)."""
    values = {}
    for rank, op in sorted(ops.items()):
        v = value(op)
        if v is not None:
            values.setdefault(v, []).append(rank)
    return values if len(values) > 1 else None


def op_label(op):
    """A reduction's op as every rank names it (None: cannot be compared --
    a user op gdb has no symbol for)."""
    label = op.call.get("op")
    return None if label is None or label.startswith("0x") else label


def disagreement(ops):
    """The Disagreement of {world rank: Op} of ranks in one collective, or
    None.  Roots are compared as world ranks; on an intercommunicator only
    the collective itself (its root's group passes MPI_ROOT and
    MPI_PROC_NULL)."""
    first = ops[min(ops)]
    functions = _differ(ops, lambda op: op.base)
    if functions:
        named = {}
        for rank, op in sorted(ops.items()):
            named.setdefault(op.function, []).append(rank)
        text = _values_text(named, "")
        return Disagreement("collective", "different collectives at that point: " + text,
                            "different collectives on %s: %s" % (first.comm.label, text))
    if first.comm.remote_members:
        return None
    for what, value, applies in (("root", lambda op: op.root, True),
                                 ("op", op_label, first.base in REDUCTIONS)):
        values = _differ(ops, value) if applies else None
        if values:
            reason = "ranks disagree on the %s: %s" % (what, _values_text(values, what + " "))
            return Disagreement(what, reason, "%s on %s: %s" % (first.function,
                                                                first.comm.label, reason))
    return None
