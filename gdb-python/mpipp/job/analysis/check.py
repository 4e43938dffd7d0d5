"""`check`: MUST-style type-signature checks across ranks, on demand
(gdb-free).  The comparisons themselves are model.match's.

* Collectives: ranks in the same collective -- the n-th on a communicator
  (libmpireg numbers them: blocking, nonblocking and persistent ones alike)
  -- must be in the same collective, agree on the root and, for reductions,
  on the op; then, per the standard's rules for it, what each rank sends
  must have the signature of what its peer receives -- every rank's count ×
  datatype against the root's for Bcast and Reduce, each rank's send against
  the root's receive block for Gather (and the reverse for Scatter), every
  pair for Allgather and Alltoall, the per-peer counts and types of the v
  and w variants.  Arguments significant only at the root are taken from
  the root alone.
* Point to point: the receives each rank posted are matched, in posting
  order, with the messages that will reach them -- in flight (the last one a
  sender started on a channel is known to libmpireg), pending sends, the
  sends ranks are in -- following MPI's order of messages on a channel;
  where which message a wildcard receive gets depends on arrival order,
  nothing is guessed.  The receive of a matched probe's message (MPI_Mrecv)
  gets that message.  A send's signature must be a prefix of its receive's.

A mismatch names the first differing element by its type-tree path on both
sides: `rank 0 [0][2][1] MPI_INT vs rank 1 [0][1][0] MPI_DOUBLE`.
"""

from ...model.match import element_text, match_signatures
from ...model.typemap import n_elements
from ...readers.errors import MpippError
from ...text.ranks import format_ranks
from .collectives import disagreement, instances
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
    except MpippError as err:
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
    """Findings for {world rank: Op} of ranks in one collective (the same
    one on a communicator); what cannot be checked yet is added to notes."""
    first = ops[min(ops)]
    label = "%s on %s" % (first.function, first.comm.label)
    disagree = disagreement(ops)
    if disagree is not None:
        return [Finding("collective", ops, disagree.message)]
    if first.comm.remote_members:
        # Data flows between the two groups, and the root's group passes
        # MPI_ROOT and MPI_PROC_NULL with buffers MPI ignores: the
        # comparisons below, made for one group, do not apply.
        notes.append("%s: collectives on an intercommunicator are not checked (ranks %s are "
                     "in it)" % (label, format_ranks(ops)))
        return []
    flow = COLLECTIVE_FLOW.get(first.base)
    if flow is None:
        if first.base.startswith("neighbor_"):
            notes.append("%s: neighbourhood collectives are not checked (the topology is not "
                         "recorded)" % label)
        return []
    members = first.comm.members or []
    index = {w: k for k, w in enumerate(members)}
    nprocs = len(members)
    root = first.root
    if root is not None and root not in ops:
        issued = world.collectives_issued(root, first.identity)
        left = first.seq is not None and issued is not None and issued >= first.seq
        notes.append("%s (root %d): not checked: %s (%s in it)" % (
            label, root, "the root completed it" if left else "the root is in MPI_Finalize"
            if world.finalizing(root) else "the root has not arrived",
            "ranks %s are" % format_ranks(ops) if len(ops) > 1 else "rank %d is" % min(ops)))
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


# ---------------------------------------------------------------- point to point

class Message:
    """A message on its way: its sender, channel, number on the channel, and
    what it carries (the Piece, or None when not known) with the call that
    sent it ("in flight": a send that returned)."""

    __slots__ = ("sender", "tag", "ordinal", "piece", "function", "op")

    def __init__(self, sender, tag, ordinal, piece, function, op=None):
        self.sender, self.tag, self.ordinal = sender, tag, ordinal
        self.piece, self.function, self.op = piece, function, op


def _buffer_piece(state, buf):
    if buf is None or buf.get("peers") is not None:
        return None
    return Piece(state.rank, state.datatype(buf.get("datatype")), buf.get("count") or 0)


def _messages(world, identity, receiver):
    """{(sender, tag): {ordinal: Message}} of the messages towards receiver
    on a communicator that have been started: in flight or being sent."""
    out = {}
    for sender, tags in world.sent_to(identity, receiver).items():
        state = world.state(sender)
        comm = world.comm_of.get((sender, identity))
        if state is None or comm is None:
            continue
        for tag, sent in tags.items():
            record = state.channels.get((comm.handle, comm.peer_of(receiver), tag))
            piece = Piece(sender, state.datatype(record.last_datatype), record.last_count) \
                if record is not None and record.last_datatype is not None else None
            out.setdefault((sender, tag), {})[sent] = Message(sender, tag, sent, piece,
                                                              "message in flight")
    for sender, state in world.states.items():
        if not state.ok:
            continue
        unnumbered = {}
        for op in state.posted():
            for direction, dest, tag, buf in op.parts():
                if direction != "send" or dest != receiver or op.identity != identity:
                    continue
                channel = out.setdefault((sender, tag), {})
                if op.seq is None:          # no counters: in posting order, after the counted
                    unnumbered[tag] = unnumbered.get(tag, 0) + 1
                    ordinal = world.sent_to(identity, receiver).get(sender, {}).get(tag, 0) + \
                        unnumbered[tag]
                else:
                    ordinal = op.seq
                channel[ordinal] = Message(sender, tag, ordinal, _buffer_piece(state, buf),
                                           op.function, op)
    return out


def _receives(state):
    """(op, identity, source, tag, buffer) of every receive a rank posted, in
    posting order (requests by their serial, then the calls its threads are
    in); probes receive nothing."""
    for op in state.posted():
        for direction, peer, tag, buf in op.parts():
            if direction == "recv" and op.identity is not None:
                yield op, op.identity, peer, tag, buf


def pairs(world, notes):
    """[(Message, receive op, receive buffer)] of the messages each posted
    receive will get, in order; notes say where that depends on arrival."""
    out = []
    for receiver, state in sorted(world.states.items()):
        if not state.ok:
            continue
        by_comm = {}
        for item in _receives(state):
            by_comm.setdefault(item[1], []).append(item)
        for identity, receives in by_comm.items():
            messages = _messages(world, identity, receiver)
            received = world.received_by(identity, receiver)
            taken = {}
            for op, _identity, source, tag, buf in receives:
                if op.base == "mrecv":          # its matched probe chose the message
                    message = messages.get((source, tag), {}).get(op.seq)
                    if message is not None:
                        out.append((message, op, buf))
                    continue
                candidates = []
                for (sender, t), channel in messages.items():
                    if source not in (sender, ANY) or tag not in (t, ANY):
                        continue
                    ordinal = received.get(sender, {}).get(t, 0) + taken.get((sender, t), 0) + 1
                    if ordinal in channel or ordinal <= max(channel):
                        candidates.append((sender, t, ordinal))
                if not candidates:
                    continue
                senders = {c[0] for c in candidates}
                if len(candidates) > 1:
                    notes.append("rank %d's %s (%s): which message it gets depends on the order "
                                 "they arrive (from %s); later receives on %s not checked"
                                 % (receiver, op.function, op.describe(), format_ranks(senders),
                                    op.comm.label))
                    break
                sender, t, ordinal = candidates[0]
                taken[(sender, t)] = taken.get((sender, t), 0) + 1
                message = messages[(sender, t)].get(ordinal)
                if message is not None:
                    out.append((message, op, buf))
    return out


class Report:
    """errors: [Finding]; notes: what could not be checked; counts of
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
    colls = instances(world)
    for ops in colls.values():
        findings.extend(check_collective(world, ops, notes))
    matched = pairs(world, notes)
    for message, recv, rbuf in matched:
        b = _buffer_piece(world.states[recv.rank], rbuf)
        a = message.piece
        text = compare(a, b, True) if a is not None and b is not None else None
        if text:
            comm = recv.comm.label
            findings.append(Finding("pair", [message.sender, recv.rank], "%s rank %d → %s rank "
                                    "%d (tag %s, %s): %s" % (message.function, message.sender,
                                                             recv.function, recv.rank,
                                                             message.tag, comm, text),
                                    {"send": message.function, "receive": recv.function,
                                     "comm": comm, "tag": message.tag}))
    return Report(findings, notes, len(colls), len(matched))
