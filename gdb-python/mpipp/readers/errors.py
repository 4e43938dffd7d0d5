"""The errors every gdb-free floor of mpipp raises: one line each, ready to
be wrapped into a gdb.GdbError by the gdb layer (or printed by the console).

A memory object -- what every reader and renderer is fed -- has
`read(address, length) -> bytes` and raises ReadError for bytes it cannot
read."""


class MpippError(Exception):
    """Base class of every one-line error of mpipp's readers and model."""


class ReadError(MpippError):
    """Raised by a memory object's or a caller-supplied ``read(offset,
    length)`` callback when the bytes cannot be read.  ``offset`` is relative
    to the buffer base (an address for a memory object)."""

    def __init__(self, offset, length=None, message=None):
        self.offset = offset
        self.length = length
        super().__init__(message or "cannot read %s bytes at offset %d"
                         % ("?" if length is None else length, offset))
