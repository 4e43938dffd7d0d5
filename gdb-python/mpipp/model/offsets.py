"""Byte offsets as text.

A displacement as large as a user-space address is an absolute address (a
type used with MPI_BOTTOM, built from MPI_Get_address): it is shown in hex,
as gdb shows addresses; ordinary offsets stay decimal, and so do negative
ones and those beyond any address (an lb of -2**40, a stride of 2**62 are
counts of bytes).
"""

ABSOLUTE_OFFSET = 1 << 32
USER_ADDRESS_LIMIT = 1 << 57    # x86-64 with 5-level page tables
ADDRESS_MASK = 0xFFFFFFFFFFFFFFFF


def address_of(base, offset):
    """The address of byte offset of a buffer at base, wrapped to 64 bits as
    the machine does (an absolute displacement below a nonzero base)."""
    return (base + offset) & ADDRESS_MASK


def offset_run(first, n, step):
    """first, first + step, ... (n offsets; step may be 0)."""
    return range(first, first + n * step, step) if step else [first] * n


def address_run(base, first, n, step):
    """address_of the n offsets of offset_run(first, n, step)."""
    start, last = base + first, base + first + (n - 1) * step
    if 0 <= min(start, last) and max(start, last) <= ADDRESS_MASK:
        return offset_run(start, n, step)
    return [a & ADDRESS_MASK for a in offset_run(start, n, step)]


def format_offset(offset, signed=False):
    """'8', '-16' ('+8' when signed), or '0x7ffd2a10' for an absolute address."""
    if ABSOLUTE_OFFSET <= offset < USER_ADDRESS_LIMIT:
        return ("+0x%x" if signed else "0x%x") % offset
    return ("%+d" if signed else "%d") % offset
