"""The target side of the job's one-sided operations (gdb-free).

A rank in MPI_Put, MPI_Get, MPI_Accumulate, ... (or with such a request
pending) names its target by rank in the window's group and by a
displacement in the target's disp_unit; the bytes it touches are in the
target's memory, described by the target datatype the origin passed.  This
module finds, from every rank's context document, which process that is
and where: windows are created collectively, so the target's window is the
one on the same communicator (by cross-rank identity, world.py) created in
the same order among that communicator's live windows.  The console reads
the bytes from the target rank's gdb and decodes them here.
"""

from collections import namedtuple

from ...model import render, runs
from ...readers.errors import MpippError
from ...text.labels import win_label

Target = namedtuple("Target", "origin op win target address datatype count error type_label")
Target.__doc__ = """One RMA operation's target region: origin rank and its
Op, the origin's window (context document entry), the target's world
rank, the address in the target's memory, the target datatype (model) and
count; error says why the region cannot be found (the rest may be None);
type_label names the target datatype as the origin's gdb does."""


def _window_order(state, win):
    """(comm identity, position among the rank's windows on that
    communicator, by creation order)."""
    comm = state.comms.get(win["comm"])
    identity = comm.identity if comm is not None else None
    peers = sorted((w["serial"] for w in state.wins.values() if w["comm"] == win["comm"]))
    return identity, peers.index(win["serial"])


def _matching_window(target_state, identity, position):
    by_comm = {}
    for w in target_state.wins.values():
        comm = target_state.comms.get(w["comm"])
        if comm is not None and comm.identity == identity:
            by_comm.setdefault(w["comm"], []).append(w)
    for wins in by_comm.values():
        wins.sort(key=lambda w: w["serial"])
        if position < len(wins):
            return wins[position]
    return None


def _target(world, state, op):
    t = op.call["target"]
    win = state.wins.get(op.call.get("win"))
    dt = state.datatype(t["datatype"])

    def target_region(target=None, address=None, error=None):
        return Target(state.rank, op, win, target, address, dt, t["count"], error,
                      state.datatype_label(t["datatype"]))
    if win is None:
        return target_region(error="its window is not recorded")
    members = win.get("members") or []
    if not 0 <= t["rank"] < len(members):
        return target_region(error="target rank %d is not in the window's group" % t["rank"])
    target = members[t["rank"]]
    target_state = world.states.get(target)
    if target_state is None or not target_state.ok:
        return target_region(target, error="rank %d did not answer" % target)
    identity, position = _window_order(state, win)
    twin = _matching_window(target_state, identity, position)
    if twin is None:
        return target_region(target, error="rank %d has no matching window" % target)
    address = t["disp"] if twin["flavor"] == "dynamic" else \
        twin["base"] + t["disp"] * twin["disp_unit"]
    return target_region(target, address,
                         None if dt is not None else "the target datatype is not recorded")


def targets(world, ranks):
    """Target of every RMA operation of the given ranks: current calls
    first, then pending requests, by rank."""
    out = []
    for rank in ranks:
        state = world.states.get(rank)
        if state is None or not state.ok:
            continue
        for op in state.current_ops() + state.requests:
            if op.call.get("target"):
                out.append(_target(world, state, op))
    return out


def span(dt, count):
    """[lo, hi): the bytes from a target region's start its elements touch."""
    lo = hi = None
    for offset, length in runs.contiguous_runs(dt, count):
        lo = offset if lo is None else min(lo, offset)
        hi = offset + length if hi is None else max(hi, offset + length)
    return (lo or 0), (hi or 0)


def decode_lines(target, data, lo, limit):
    """The target region decoded from the bytes data, read at target.address
    + lo."""
    read = lambda offset, length: data[offset - lo:offset - lo + length]  # noqa: E731
    try:
        yield from render.render_elements(target.datatype, target.count, read, limit=limit,
                                          base_address=target.address)
    except MpippError as err:
        yield "<%s>" % err


def heading(target):
    """'rank 0: MPI_Get, target rank 1 of grid_win, disp 2: vector#1 × 1 at 0x7ffd...'."""
    t = target.op.call["target"]
    win = win_label(target.win.get("name"), target.win["serial"]) if target.win else "?"
    text = "rank %d: %s, target rank %d%s of %s, disp %d: %s × %d" % (
        target.origin, target.op.function, t["rank"],
        " (world %d)" % target.target if target.target is not None and
        target.target != t["rank"] else "", win, t["disp"], target.type_label, t["count"])
    if target.address is not None:
        text += " at 0x%x on rank %d" % (target.address, target.target)
    return text
