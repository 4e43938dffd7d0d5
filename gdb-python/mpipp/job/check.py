"""`check`: MUST-style type-signature checks across ranks, on demand
(gdb-free).  The comparisons themselves are model.match's.

* Collectives: ranks in a collective on the same communicator must be in
  the same collective (and agree on the root); then, per the standard's
  rules for it, what each rank sends must have the signature of what its
  peer receives -- every rank's count × datatype against the root's for
  Bcast and Reduce, each rank's send against the root's receive block for
  Gather (and the reverse for Scatter), every pair for Allgather and
  Alltoall, the per-peer counts and types of the v and w variants.
* Point to point: each posted send is paired with the first receive its
  destination posted that matches it (communicator, source, tag); the
  send's signature must be a prefix of the receive's.

A mismatch names the first differing element by its type-tree path on both
sides: `rank 0 [0][2][1] MPI_INT vs rank 1 [0][1][0] MPI_DOUBLE`.
"""

from ..model.errors import ModelError
from ..model.match import element_text, match_signatures
from ..model.typemap import n_elements
from .ranks import format_ranks
from .world import ANY

# How the data of each collective flows: "same" (every rank's buffer
# against the reference rank's), "gather"/"scatter" (per rank against the
# root's block), "all" (every rank's send block against every rank's
# receive block), None (nothing moves, or nothing to compare).
COLLECTIVE_FLOW = {
    "bcast": "same", "reduce": "same", "allreduce": "same", "scan": "same", "exscan": "same",
    "reduce_scatter_block": "same", "reduce_scatter": "same",
    "gather": "gather", "gatherv": "gather", "scatter": "scatter", "scatterv": "scatter",
    "allgather": "all", "allgatherv": "all", "alltoall": "all", "alltoallv": "all",
    "alltoallw": "all",
}
SEND_ROLES = ("sendbuf", "buffer", "buf")
RECV_ROLES = ("recvbuf",)


class Finding:
    __slots__ = ("kind", "ranks", "message", "detail")

    def __init__(self, kind, ranks, message, detail=None):
        self.kind, self.ranks, self.message, self.detail = kind, sorted(set(ranks)), message, \
            detail or {}

    def to_json(self):
        return dict(kind=self.kind, ranks=self.ranks, message=self.message, **self.detail)


class Piece:
    """What one rank sends to or receives from one peer: count × datatype."""

    __slots__ = ("rank", "datatype", "count")

    def __init__(self, rank, datatype, count):
        self.rank, self.datatype, self.count = rank, datatype, count


def compare(a, b, allow_prefix):
    """None when piece a (a send) fits piece b (a receive), else the message."""
    if a.datatype is None or b.datatype is None:
        return None
    try:
        m = match_signatures(a.datatype, a.count, b.datatype, b.count)
        if m.verdict in ("equal", "packed") or (m.verdict == "prefix" and allow_prefix):
            return None
        n_a, n_b = n_elements(a.datatype, a.count), n_elements(b.datatype, b.count)
    except ModelError as err:
        return "cannot compare rank %d and rank %d: %s" % (a.rank, b.rank, err)
    if m.verdict == "mismatch":
        return "rank %d %s vs rank %d %s" % (a.rank, element_text(m.first), b.rank,
                                              element_text(m.second))
    if m.verdict == "prefix":
        return ("rank %d has %d element%s, rank %d %d: rank %d %s has no counterpart on rank %d"
                % (a.rank, n_a, "" if n_a == 1 else "s", b.rank, n_b, b.rank,
                   element_text(m.second), a.rank))
    return ("rank %d has %d element%s, rank %d only %d: rank %d %s has no counterpart on rank %d"
            % (a.rank, n_a, "" if n_a == 1 else "s", b.rank, n_b, a.rank, element_text(m.first),
               b.rank))


# ---------------------------------------------------------------- collectives

def _buffer(op, roles):
    for b in op.bufs:
        if b["role"] in roles and not b.get("in_place"):
            return b
    return None


def _pieces(state, op, roles, nprocs):
    """{comm rank of the peer, or None for all: Piece} of a collective buffer."""
    b = _buffer(op, roles)
    if b is None:
        return None
    if b.get("peers") is not None:
        return {peer: Piece(state.rank, state.datatype(key), count)
                for peer, count, _displ, key in b["peers"]}
    count = b.get("count") or 0
    if (b.get("count_name") or "").endswith("*size") and nprocs:
        count //= nprocs        # one block per peer: recvcount*size was recorded
    return {None: Piece(state.rank, state.datatype(b.get("datatype")), count)}


def _piece(pieces, peer):
    if not pieces:
        return None
    return pieces.get(peer, pieces.get(None))


def check_collective(world, ops, notes):
    """Findings for {world rank: Op} of ranks in a collective on one
    communicator; what cannot be checked yet is added to notes."""
    first = ops[min(ops)]
    label = "%s on %s" % (first.function, first.comm.label)
    if len({op.base for op in ops.values()}) > 1:
        functions = {}
        for rank, op in ops.items():
            functions.setdefault(op.function, []).append(rank)
        return [Finding("collective", ops, "different collectives on %s: %s" % (
            first.comm.label, "; ".join("%s %s" % (format_ranks(r), f) for f, r in
                                        sorted(functions.items(), key=lambda kv: kv[1]))))]
    if first.comm.remote_members:
        # Data flows between the two groups, and the root's group passes
        # MPI_ROOT and MPI_PROC_NULL with buffers MPI ignores: the
        # comparisons below, made for one group, do not apply.
        notes.append("%s: collectives on an intercommunicator are not checked (ranks %s are "
                     "in it)" % (label, format_ranks(ops)))
        return []
    roots = {}
    for rank, op in ops.items():
        roots.setdefault(op.root, []).append(rank)
    if len(roots) > 1:
        return [Finding("collective", ops, "%s: ranks disagree on the root: %s" % (
            label, "; ".join("%s root %s" % (format_ranks(r), root)
                             for root, r in sorted(roots.items(), key=lambda kv: kv[1]))))]
    flow = COLLECTIVE_FLOW.get(first.base)
    if flow is None:
        return []
    members = first.comm.members or []
    index = {w: k for k, w in enumerate(members)}
    nprocs = len(members)
    root = first.root
    if root is not None and root not in ops:
        notes.append("%s (root %d): not checked until the root arrives (ranks %s are in it)"
                     % (label, root, format_ranks(ops)))
        return []
    sends = {r: _pieces(world.states[r], op, SEND_ROLES, nprocs) for r, op in ops.items()}
    recvs = {r: _pieces(world.states[r], op, RECV_ROLES, nprocs) for r, op in ops.items()}
    problems = []
    if flow == "same":
        ref = root if root is not None else min(ops)
        ref_piece = _piece(sends[ref], None) or _piece(recvs[ref], None)
        for rank in sorted(ops):
            piece = _piece(sends[rank], None) or _piece(recvs[rank], None)
            if rank != ref and piece is not None and ref_piece is not None:
                problems.append((rank, compare(piece, ref_piece, False)))
    elif flow in ("gather", "scatter"):
        for rank in sorted(ops):
            if flow == "gather":
                a, b = _piece(sends[rank], None), _piece(recvs[root], index.get(rank))
            else:
                a, b = _piece(sends[root], index.get(rank)), _piece(recvs[rank], None)
            if a is not None and b is not None:
                problems.append((rank, compare(a, b, False)))
    else:
        for sender in sorted(ops):
            for receiver in sorted(ops):
                a = _piece(sends[sender], index.get(receiver))
                b = _piece(recvs[receiver], index.get(sender))
                if a is not None and b is not None:
                    problems.append((sender, compare(a, b, False)))
    root_text = " (root %s)" % root if root is not None else ""
    return [Finding("collective", [rank], "%s%s: %s" % (label, root_text, message),
                    {"function": first.function, "comm": first.comm.label})
            for rank, message in problems if message]


def collectives(world):
    """{comm identity: {world rank: Op}}: each rank's first collective per
    communicator (pending nonblocking ones first, in posting order)."""
    out = {}
    for rank, state in world.states.items():
        if not state.ok:
            continue
        for op in state.posted():
            if op.kind == "coll" and op.comm is not None:
                out.setdefault(op.comm.identity, {}).setdefault(rank, op)
    return out


# ---------------------------------------------------------------- point to point

def _receives(state):
    """(op, source, tag, buffer) of every receive a rank posted, in order."""
    for op in state.posted():
        for direction, peer, tag, buf in op.parts():
            if direction == "recv":
                yield op, peer, tag, buf


def _buffer_piece(state, buf):
    if buf is None or buf.get("peers") is not None:
        return None
    return Piece(state.rank, state.datatype(buf.get("datatype")), buf.get("count") or 0)


def pairs(world):
    """(send op, send buffer, receive op, receive buffer) of matched pairs."""
    out = []
    for rank, state in sorted(world.states.items()):
        if not state.ok:
            continue
        for op in state.posted():
            for direction, dest, tag, buf in op.parts():
                target = world.states.get(dest) if dest not in (None, ANY) else None
                if direction != "send" or target is None or not target.ok:
                    continue
                for rop, source, rtag, rbuf in _receives(target):
                    if (rop.comm is not None and op.comm is not None and
                            rop.comm.identity == op.comm.identity and source in (rank, ANY)
                            and (rtag == ANY or rtag == tag)):
                        out.append((op, buf, rop, rbuf))
                        break
    return out


class Report:
    """errors: [Finding]; notes: what could not be checked yet; counts of
    collectives and send/receive pairs looked at."""

    def __init__(self, errors, notes, collectives_, pairs_):
        self.errors, self.notes = errors, notes
        self.collectives, self.pairs = collectives_, pairs_

    def lines(self):
        def plural(n, word):
            return "%d %s%s" % (n, word, "" if n == 1 else "s")
        yield "check: %s, %s: %s" % (
            plural(self.collectives, "collective"), plural(self.pairs, "send/receive pair"),
            plural(len(self.errors), "error") if self.errors else "no errors")
        for f in self.errors:
            yield "  " + f.message
        for note in self.notes:
            yield "  note: " + note

    def to_json(self):
        return {"errors": [f.to_json() for f in self.errors], "notes": self.notes,
                "checked": {"collectives": self.collectives, "pairs": self.pairs}}


def check(world):
    """The Report of every check on the job."""
    findings, notes = [], []
    colls = collectives(world)
    for ops in colls.values():
        findings.extend(check_collective(world, ops, notes))
    matched = pairs(world)
    for send, sbuf, recv, rbuf in matched:
        a = _buffer_piece(world.states[send.rank], sbuf)
        b = _buffer_piece(world.states[recv.rank], rbuf)
        message = compare(a, b, True) if a is not None and b is not None else None
        if message:
            tag = send.call.get("tag")
            comm = send.comm.label if send.comm else "?"
            findings.append(Finding("pair", [send.rank, recv.rank], "%s rank %d → %s rank %d "
                                    "(tag %s, %s): %s" % (send.function, send.rank,
                                                          recv.function, recv.rank, tag, comm,
                                                          message),
                                    {"send": send.function, "receive": recv.function,
                                     "comm": comm, "tag": tag}))
    return Report(findings, notes, len(colls), len(matched))
