"""Byte offsets as text.

A displacement this large is an absolute address (a type used with
MPI_BOTTOM, built from MPI_Get_address): it is shown in hex, as gdb shows
addresses; ordinary offsets stay decimal.
"""

ABSOLUTE_OFFSET = 1 << 32
ADDRESS_MASK = 0xFFFFFFFFFFFFFFFF


def address_of(base, offset):
    """The address of byte offset of a buffer at base, wrapped to 64 bits as
    the machine does (an absolute displacement below a nonzero base)."""
    return (base + offset) & ADDRESS_MASK


def format_offset(offset, signed=False):
    """'8', '-16' ('+8' when signed), or '0x7ffd2a10' for an absolute address."""
    if abs(offset) >= ABSOLUTE_OFFSET:
        return ("-0x%x" if offset < 0 else "+0x%x" if signed else "0x%x") % abs(offset)
    return ("%+d" if signed else "%d") % offset
