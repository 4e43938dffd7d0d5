"""Exceptions of the datatype model.  Every message is one line, ready to be
wrapped into a ``gdb.GdbError`` by the gdb layer."""

from ..readers.errors import MpippError
from .offsets import format_offset


class PathError(MpippError):
    """A type-tree path is malformed, out of range or has a wrong kind."""


class TypeTreeError(MpippError):
    """The datatype tree is corrupt: cyclic, inconsistent arrays, absurd
    parameters (everything comes from untrusted inferior memory)."""


class TooDeepError(TypeTreeError):
    """A legal tree deeper than the model shows (datatype.max_depth())."""


class UnreadableElement(MpippError):
    """The first element (in typemap order) whose bytes cannot be read."""

    def __init__(self, path, offset, address=None):
        self.path = path
        self.offset = offset
        self.address = address
        where = "offset %s" % format_offset(offset, signed=True)
        if address is not None:
            where += " (0x%x)" % address
        super().__init__("cannot read element %s at %s" % (path, where))
