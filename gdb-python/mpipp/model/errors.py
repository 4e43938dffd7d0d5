"""Exceptions of the datatype model.  Every message is one line, ready to be
wrapped into a ``gdb.GdbError`` by the gdb layer."""

from .offsets import format_offset


class ModelError(Exception):
    """Base class of every error the model raises."""


class PathError(ModelError):
    """A type-tree path is malformed, out of range or has a wrong kind."""


class TypeTreeError(ModelError):
    """The datatype tree is corrupt: cyclic, inconsistent arrays, absurd
    parameters (everything comes from untrusted inferior memory)."""


class TooDeepError(TypeTreeError):
    """A legal tree deeper than the model shows (datatype.max_depth())."""


class ReadError(ModelError):
    """Raised by a caller-supplied ``read(offset, length)`` callback when the
    bytes cannot be read.  ``offset`` is relative to the buffer base."""

    def __init__(self, offset, length=None, message=None):
        self.offset = offset
        self.length = length
        super().__init__(message or "cannot read %s bytes at offset %d"
                         % ("?" if length is None else length, offset))


class UnreadableElement(ModelError):
    """The first element (in typemap order) whose bytes cannot be read."""

    def __init__(self, path, offset, address=None):
        self.path = path
        self.offset = offset
        self.address = address
        where = "offset %s" % format_offset(offset, signed=True)
        if address is not None:
            where += " (0x%x)" % address
        super().__init__("cannot read element %s at %s" % (path, where))
