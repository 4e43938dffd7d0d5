"""Elements packed as MPI_Pack packs them: the bytes of every basic element
in typemap order, nothing between them (a pair's members back to back, a
long double's 16 bytes whole).  ``mpipp dump -raw`` writes exactly the bytes
MPI_Pack produces for the buffer; ``mpipp diff`` compares packed elements.
"""

import struct

from ..readers.errors import ReadError
from .elements import periodic_plan, periodic_runs
from .paths import shift_index
from .render import MAX_READ, MERGE_GAP, Piece, read_exact, read_pieces
from .runs import contiguous_runs


def packed_size(basic):
    """Bytes one element takes in packed form (MPI_Type_size of it)."""
    if basic.basic_kind == "pair":
        return sum(member.size for _offset, member in basic.members)
    return basic.size


def pack(basic, raw):
    """The packed bytes of one element from its bytes in memory."""
    if basic.basic_kind == "pair":
        return b"".join(bytes(raw[o:o + m.size]) for o, m in basic.members)
    return bytes(raw[:basic.size])


def unpack(basic, packed):
    """An element's bytes in memory layout from its packed bytes (a pair's
    padding is zero): what decode reads."""
    if basic.basic_kind != "pair":
        return packed
    raw = bytearray(max(basic.extent, _pair_span(basic)))
    at = 0
    for offset, member in basic.members:
        raw[offset:offset + member.size] = packed[at:at + member.size]
        at += member.size
    return bytes(raw)


def _pair_span(basic):
    return max(offset + member.size for offset, member in basic.members)


GATHER_FIELDS = 16384      # struct fields of one gathered block (its memory)
_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


def pack_run(basic, buf, off, n, stride):
    """Packed bytes of n elements at buf[off + k*stride]."""
    size = basic.size
    if basic.basic_kind == "pair":
        span = _pair_span(basic)
        return b"".join(pack(basic, buf[off + k * stride:off + k * stride + span])
                        for k in range(n))
    if stride == size or n == 1:
        return bytes(buf[off:off + n * size])
    code = _CODES.get(size)
    if code and stride > 0 and stride % size == 0:
        end = off + (n - 1) * stride + size
        return memoryview(buf)[off:end].cast(code)[::stride // size].tobytes()
    return b"".join(bytes(buf[off + k * stride:off + k * stride + size]) for k in range(n))


def piece_bytes(piece, half=0):
    """Packed bytes of a render.Piece (half: see compare.read_both)."""
    return pack_run(piece.basic, piece.buf, piece.offset - piece.base + half, piece.n,
                    piece.stride)


def _gather_plan(dt, count):
    """How to pack a buffer that is identical repetitions of contiguous runs
    in ascending offsets (an array of structs, a vector): (plan, struct
    format of one repetition, its first byte, its length), else None."""
    plan = periodic_plan(dt, count)
    if plan is None or plan[1] <= 0:
        return None
    fields, first, end = [], None, None
    for _full, _vpos, off, basic, n, stride in plan[5]:
        if basic.basic_kind == "pair" or (n > 1 and stride != basic.size) \
                or (end is not None and off < end):
            return None
        if first is None:
            first = end = off
        if off > end:
            fields.append("%dx" % (off - end))
        fields.append("%ds" % (n * basic.size))
        end = off + n * basic.size
    if end - first > plan[1]:
        return None
    return plan, "".join(fields), first, end - first


class PackedBuffer:
    """A buffer's packed bytes, read in blocks (bounded memory)."""

    def __init__(self, dt, count, read, base_address=0):
        self.dt, self.count, self.read, self.base_address = dt, count, read, base_address
        self.gather = _gather_plan(dt, count)
        self._formats = {}

    def pieces(self):
        return read_pieces(self.dt, self.count, self.read, base_address=self.base_address)

    def repetition_pieces(self, k):
        """The pieces of repetition k of the gather plan (one memory read;
        the repetition was readable as part of its block)."""
        (_reps, period, ipos, _ibase, istep, template), _unit, first, span = self.gather
        base = first + k * period
        buf = read_exact(self.read, base, span)
        for full, vpos, off, basic, n, stride in template:
            yield Piece(shift_index(full, ipos, k * istep), vpos,
                        off + k * period, basic, n, stride, buf, base)

    def block_ranges(self):
        """The repetitions of each block: at most MAX_READ bytes and
        GATHER_FIELDS struct fields."""
        (reps, period, _i, _b, _s, _t), unit, _first, span = self.gather
        per_block = max(1, min(reps, (MAX_READ - span) // period + 1,
                               GATHER_FIELDS // unit.count("s")))
        return [range(r0, min(reps, r0 + per_block)) for r0 in range(0, reps, per_block)]

    def block(self, reps):
        """The packed bytes of a range of repetitions: one memory read and
        one struct call.  Raises ReadError."""
        (_r, period, _i, _b, _s, _t), unit, first, span = self.gather
        nb = len(reps)
        length = (nb - 1) * period + span
        data = read_exact(self.read, first + reps.start * period, length)
        layout = self._formats.get(nb)
        if layout is None:
            gap = "%dx" % (period - span) if period > span else ""
            layout = self._formats[nb] = struct.Struct("<" + (unit + gap) * (nb - 1) + unit)
        return b"".join(layout.unpack_from(data))

    def pieces_from(self, rep, read=None):
        """Pieces of every repetition from rep on (read: another buffer's)."""
        return read_pieces(self.dt, self.count, read or self.read,
                           base_address=self.base_address,
                           runs=periodic_runs(self.gather[0], rep))

    def blocks(self):
        """('reps', range of repetitions, bytes) blocks when the buffer is
        repetitions of contiguous runs; else, and from a block that cannot
        be read on, ('piece', render.Piece, None) (these raise
        UnreadableElement at the first element that cannot be read)."""
        if self.gather is None:
            for piece in self.pieces():
                yield "piece", piece, None
            return
        for reps in self.block_ranges():
            try:
                data = self.block(reps)
            except ReadError:
                for piece in self.pieces_from(reps.start):
                    yield "piece", piece, None
                return
            yield "reps", reps, data

    def stream(self):
        """The packed bytes, block by block: the gather plan's blocks, else
        the buffer's contiguous runs of bytes read in batches (their bytes
        in typemap order are the packed bytes: a pair's members are runs of
        their own), so that a byte-built type costs its runs, not its
        bytes.  From a read that fails on, element by element, to name the
        first element that cannot be read."""
        if self.gather is not None:
            for kind, what, data in self.blocks():
                yield data if kind == "reps" else piece_bytes(what)
            return
        done = 0
        try:
            for data in run_batches(contiguous_runs(self.dt, self.count), self.read):
                yield data
                done += len(data)
        except ReadError:
            yield from _skip(done, (piece_bytes(p) for p in self.pieces()))


# Bytes of one read of run_batches: reads of a few MiB cost several times
# what reads of 256 KiB of the same bytes cost (each fresh multi-MiB buffer
# is new memory from the kernel; 256 KiB ones are reused heap).
RUN_READ = 1 << 18


def run_batches(runs, read):
    """The bytes of (offset, length) runs, in order, in few reads (runs that
    follow each other in memory with gaps under MERGE_GAP, about RUN_READ
    bytes a read; a longer run is one read of its own).  Raises ReadError."""
    batch, start, end = [], None, None
    for offset, length in _pieces_of(runs):
        if batch and (offset < end or offset - end >= MERGE_GAP or
                      offset + length - start > RUN_READ):
            yield _batch_bytes(batch, start, end, read)
            batch = []
        if not batch:
            start = offset
        batch.append((offset, length))
        end = offset + length
    if batch:
        yield _batch_bytes(batch, start, end, read)


def _pieces_of(runs):
    """The runs, each cut into pieces of at most RUN_READ bytes."""
    for offset, length in runs:
        while length > RUN_READ:
            yield offset, RUN_READ
            offset += RUN_READ
            length -= RUN_READ
        yield offset, length


def _batch_bytes(batch, start, end, read):
    data = read_exact(read, start, end - start)
    if len(batch) == 1:
        return data
    view = memoryview(data)
    return b"".join(view[o - start:o - start + n] for o, n in batch)


def _skip(n, chunks):
    """chunks without their first n bytes."""
    for chunk in chunks:
        if n >= len(chunk):
            n -= len(chunk)
            continue
        yield chunk[n:] if n else chunk
        n = 0
