"""Comparing elements: which elements of two buffers (or of a buffer and a
dump) differ.  Shared by `mpipp diff` and the job console's cross-rank diff.

Rules (``Tolerance(rtol, atol)``; ``EXACT`` is the default):
* integers, chars, bools, bytes: their bytes are compared;
* floats (and each part of a complex): equal when the numbers are equal
  (+0 equals -0; an x87 long double's padding bytes are ignored), or
  within |a - b| <= atol + rtol * |b| when a tolerance is given (b is the
  reference: the dump, or the second buffer); infinities equal only
  themselves; a NaN equals any NaN (a value that was NaN and still is NaN
  is not a change) and differs from every number;
* a pair compares its members by these rules.
Elements are compared in packed form (pack.py): n elements of one basic
type are one bytes object, and identical bytes are never decoded.
"""

import struct
from collections import namedtuple
from fractions import Fraction

from ..readers.errors import ReadError
from . import decode
from .basics import BINARY128, X87, float_format, part_size
from .pack import PackedBuffer, packed_size, piece_bytes
from .paths import shift_index
from .render import read_pieces

Tolerance = namedtuple("Tolerance", "rtol atol")
EXACT = Tolerance(0.0, 0.0)

Difference = namedtuple("Difference", "path basic left right")
Difference.__doc__ = """path: the element's buffer path; left, right: its
packed bytes in the buffer and in the reference."""

_IEEE = {2: "<e", 4: "<f", 8: "<d"}


def _number(fmt, raw):
    """(kind, value): ('nan', None), or ('num', value) with inf as a float;
    x87/binary128 values are exact Fractions (floats when they do not fit)."""
    if fmt is X87 or fmt is BINARY128:
        kind, neg, mant, e2 = (decode.x87_parts if fmt is X87 else decode.quad_parts)(raw)
        if kind in ("nan", "invalid"):
            return "nan", None
        if kind == "inf":
            return "num", float("-inf") if neg else float("inf")
        value = Fraction(mant) * Fraction(2) ** e2
        return "num", -value if neg else value
    value = struct.unpack(_IEEE[fmt.size], raw[:fmt.size])[0]
    return ("nan", None) if value != value else ("num", value)


def _close(a, b, tol):
    if a == b:
        return True
    if tol == EXACT:
        return False
    inf = float("inf")
    if a in (inf, -inf) or b in (inf, -inf):
        return False
    return abs(float(a) - float(b)) <= tol.atol + tol.rtol * abs(float(b))


def _floats_equal(fmt, a, b, tol):
    ka, va = _number(fmt, a)
    kb, vb = _number(fmt, b)
    if ka == "nan" or kb == "nan":
        return ka == kb
    return _close(va, vb, tol)


def scalars_equal(basic, a, b, tol=EXACT):
    """Equality of one (non-pair) element given its bytes a and b."""
    kind = basic.basic_kind
    if kind in ("float", "complex"):
        size = part_size(basic)
        fmt = float_format(basic, size)
        if fmt is not None:
            parts = (0,) if kind == "float" else (0, size)
            return all(a[p:p + fmt.used] == b[p:p + fmt.used]
                       or _floats_equal(fmt, a[p:p + size], b[p:p + size], tol) for p in parts)
    return a[:basic.size] == b[:basic.size]


def elements_equal(basic, a, b, tol=EXACT):
    """Equality of one element given its packed bytes a and b."""
    if basic.basic_kind != "pair":
        return scalars_equal(basic, a, b, tol)
    at = 0
    for _offset, member in basic.members:
        if not scalars_equal(member, a[at:at + member.size], b[at:at + member.size], tol):
            return False
        at += member.size
    return True


def run_differences(full, vpos, basic, n, left, right, tol=EXACT):
    """Differences among n elements of one basic type given as packed bytes
    (left, right); the path of element k is full with full[vpos] + k."""
    if left == right:
        return
    size = packed_size(basic)
    for k in range(n):
        a = left[k * size:(k + 1) * size]
        b = right[k * size:(k + 1) * size]
        if a != b and not elements_equal(basic, a, b, tol):
            yield Difference(shift_index(full, vpos, k), basic, a, b)


def read_both(read_a, read_b):
    """One read function over two buffers of the same layout: its bytes are
    A's then B's, so each render.Piece of it holds both (diff_pieces)."""
    return lambda offset, length: read_a(offset, length) + read_b(offset, length)


def diff_pieces(pieces, reference=None, tol=EXACT, finish=True):
    """Differences between a buffer's pieces (render.Piece) and a reference:
    a dump (dumpfile: take/finish), or, for reference None, the second half
    of each piece's bytes (two buffers read with read_both)."""
    for piece in pieces:
        left = piece_bytes(piece)
        if reference is None:
            right = piece_bytes(piece, len(piece.buf) // 2)
        else:
            right = reference.take(piece.full, piece.vpos, piece.basic, piece.n)
        yield from run_differences(piece.full, piece.vpos, piece.basic, piece.n, left, right,
                                   tol)
    if reference is not None and finish:
        reference.finish()


def diff_dump(dt, count, read, dump, tol=EXACT, base_address=0):
    """Differences between a buffer and a dump (dumpfile).  Against a raw
    dump whole blocks of repetitions are compared at once
    (pack.PackedBuffer) and only a block that differs is compared element by
    element."""
    packed = PackedBuffer(dt, count, read, base_address)
    if dump.format != "raw":
        yield from diff_pieces(packed.pieces(), dump, tol)
        return
    for kind, what, data in packed.blocks():
        if kind == "piece":
            yield from diff_pieces([what], dump, tol, finish=False)
            continue
        reference = dump.take_bytes(len(data))
        if reference == data:
            continue
        at = 0
        for k in what:
            for piece in packed.repetition_pieces(k):
                left = piece_bytes(piece)
                right = reference[at:at + len(left)]
                at += len(left)
                yield from run_differences(piece.full, piece.vpos, piece.basic, piece.n, left,
                                           right, tol)
    dump.finish()


def diff_buffers(dt, count, read_a, read_b, tol=EXACT, base_address=0):
    """Differences between two buffers of the same layout: block by block
    when the buffers are repetitions (pack.PackedBuffer), else, and from a
    block that cannot be read on, piece by piece (read_both)."""
    a = PackedBuffer(dt, count, read_a, base_address)
    both = read_both(read_a, read_b)
    if a.gather is None:
        yield from diff_pieces(read_pieces(dt, count, both, base_address=base_address), None,
                               tol)
        return
    b = PackedBuffer(dt, count, read_b, base_address)
    for reps in a.block_ranges():
        try:
            left, right = a.block(reps), b.block(reps)
        except ReadError:
            yield from diff_pieces(a.pieces_from(reps.start, both), None, tol)
            return
        if left == right:
            continue
        for k in reps:
            for pa, pb in zip(a.repetition_pieces(k), b.repetition_pieces(k)):
                yield from run_differences(pa.full, pa.vpos, pa.basic, pa.n, piece_bytes(pa),
                                           piece_bytes(pb), tol)
