"""Elements packed as MPI_Pack packs them: the bytes of every basic element
in typemap order, nothing between them (a pair's members back to back, a
long double's 16 bytes whole).  ``mpipp dump -raw`` writes exactly the bytes
MPI_Pack produces for the buffer; ``mpipp diff`` compares packed elements.
"""

from .render import read_pieces


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


def packed_stream(dt, count, read, *, prefix=(), base_address=0):
    """The packed bytes of a buffer, piece by piece (bounded memory)."""
    for piece in read_pieces(dt, count, read, prefix=prefix, base_address=base_address):
        yield piece_bytes(piece)
