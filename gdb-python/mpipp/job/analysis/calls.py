"""`calls`: what every rank is doing in MPI, one table row per rank group
(gdb-free).  A row is a thread's current call -- or a request a Wait call
waits for -- with its peer or root, tag, communicator, datatypes by name
and the signature of the data it moves; ranks whose rows are identical
share one row."""

from ...text.ranks import format_ranks
from ...text.tables import format_table
from .world import buffer_signature

COLUMNS = ("ranks", "call", "peer", "tag", "comm", "datatype", "signature")
PEER_CONSTANTS = ("MPI_ANY_SOURCE", "MPI_PROC_NULL", "MPI_ROOT")


def _peer_text(state, name, value):
    for constant in PEER_CONSTANTS:
        if state.constants.get(constant) == value:
            return "%s=%s" % (name, constant)
    return "%s=%d" % (name, value)


def _tag_text(state, value):
    return "MPI_ANY_TAG" if state.constants.get("MPI_ANY_TAG") == value else str(value)


def _type_text(state, buf):
    """A buffer's datatype by name, or 'per peer' (MPI_Alltoallw's)."""
    key = buf.get("datatype")
    return state.datatype_label(key) if key is not None else "per peer"


def op_cells(state, op, prefix=""):
    """(call, peer, tag, comm, datatype, signature) of one operation."""
    call = op.call
    peers, tags = [], []
    if call.get("peer") is not None:
        peers.append(_peer_text(state, call.get("peer_name") or "peer", call["peer"]))
    if call.get("peer2") is not None:
        peers.append(_peer_text(state, call.get("peer2_name") or "peer", call["peer2"]))
    for tag in (call.get("tag"), call.get("tag2")):
        if tag is not None:
            tags.append(_tag_text(state, tag))
    bufs = [b for b in op.bufs if not b.get("in_place")]
    several = len(bufs) > 1
    types = ", ".join(("%s: " % b["role"] if several else "") + _type_text(state, b)
                      for b in bufs)
    signatures = "; ".join(("%s: " % b["role"] if several else "") +
                           buffer_signature(state, b) for b in bufs)
    comm = op.comm.label if op.comm is not None else "-"
    return (prefix + op.function, ", ".join(peers) or "-", "/".join(tags) or "-", comm,
            types or "-", signatures or "-")


def rank_rows(state, gone=None):
    """The rows of one rank (without the ranks column)."""
    if gone is not None:
        return [("(%s)" % gone, "", "", "", "", "")]
    if not state.ok:
        return [("(no context: %s)" % state.error, "", "", "", "", "")]
    rows = []
    for thread in state.threads:
        if thread.op is None:
            continue
        rows.append(op_cells(state, thread.op))
        rows.extend(op_cells(state, waited, "  waits for ") for waited in thread.waits)
    return rows or [("(not in an MPI call)", "", "", "", "", "")]


def groups(world):
    """[(ranks, rows)]: ranks with identical rows together, by lowest rank."""
    by_rows = {}
    for rank in world.ranks:
        rows = tuple(rank_rows(world.states.get(rank), world.gone.get(rank)))
        by_rows.setdefault(rows, []).append(rank)
    return sorted(((ranks, rows) for rows, ranks in by_rows.items()), key=lambda g: g[0][0])


def render(world):
    table = [COLUMNS]
    for ranks, rows in groups(world):
        table.extend((format_ranks(ranks) if k == 0 else "",) + cells
                     for k, cells in enumerate(rows))
    return format_table(table)


def to_json(world):
    return {"groups": [{"ranks": format_ranks(ranks),
                        "calls": [dict(zip(COLUMNS[1:], cells)) for cells in rows]}
                       for ranks, rows in groups(world)]}
