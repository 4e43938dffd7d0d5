"""Reading self-describing tables out of the inferior (gdb-free).

libmpireg publishes five roots: the datatype registry (registry/mpireg.h),
the communication context (context/calls.h), the channel counters
(context/channels.h), the MPI-IO state (context/files.h) and the groups and
windows (context/objects.h).  Their readers see the inferior only through
`memory.read(address, length)`, turn every failed read into one error line,
and take offsets and MPI constants from a (name, value) table, so none
needs debug information.  RemoteView holds what they share.
"""

import struct

from .errors import MpippError, ReadError

CONSTANT = struct.Struct("<48sq")
MAX_CONSTANTS = 4096
MAX_STRING = 256

# String literals live in libmpireg's read-only data: they outlive a stop.
# Kept per process (memory.cache_key) until the gdb layer calls
# forget_static() (objfiles changed, memory written).  (Constants tables are
# not: libmpireg adds the request handles it learns to its table at run time.)
_static = {}


# Control characters in a string read from the process (a name MPI was
# given, or corrupted memory) are shown escaped: an answer stays one line
# per line and never drives the terminal.
_ESCAPES = {c: "\\x%02x" % c for c in list(range(32)) + [127]}


def c_string(raw):
    """The text of a NUL-terminated string's bytes (None when empty)."""
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace").translate(_ESCAPES) or None


def forget_static(*_event):
    _static.clear()


# A constants table is read at every stop but rarely changes: parsed and
# validated tables are kept by their bytes (readers only read them), each
# with what readers derive from it alone (RemoteView.derived: checked
# layouts, record formats, masks, names of predefined handles), so that a
# stop costs one read of the table and one lookup of its bytes.
_tables = {}
MAX_TABLES = 16


class RemoteView:
    """Memory reads with one-line errors, cached strings, a constants table."""

    error = MpippError  # the subclass's error class
    subject = "registry"  # named in error messages

    def __init__(self, memory):
        self.memory = memory
        self._strings = {}
        self._derived = {}

    def read(self, address, length, what):
        try:
            return self.memory.read(address, length)
        except ReadError:
            raise self.error("cannot read %s at 0x%x (%s corrupted?)"
                             % (what, address, self.subject)) from None

    def u64(self, address, what):
        return struct.unpack("<Q", self.read(address, 8, what))[0]

    def _static_key(self, *what):
        key = getattr(self.memory, "cache_key", None)
        return None if key is None else (key,) + what

    def literal(self, address):
        """string() of a string literal of libmpireg (a function or parameter
        name): read once per process, not once per stop."""
        key = self._static_key("literal", address)
        if key is None:
            return self.string(address)
        if key not in _static:
            _static[key] = self.string(address)
        return _static[key]

    def string(self, address):
        """The NUL-terminated string at address (None for NULL), cached."""
        if not address:
            return None
        if address not in self._strings:
            raw = b""
            for length in (MAX_STRING, 64, 16):  # a short string may end a mapping
                try:
                    raw = self.memory.read(address, length)
                    break
                except ReadError:
                    continue
            self._strings[address] = c_string(raw)
        return self._strings[address]

    def read_constants(self, address, n, needed, layout=()):
        """The {name: value} table at address, validated once: every name in
        needed is there, and every field of `layout` lies inside its struct
        (see check_layout), so the reader never reads past a record."""
        if n > MAX_CONSTANTS:
            raise self.error("%s root is corrupted (%d constants)" % (self.subject, n))
        raw = self.read(address, CONSTANT.size * n, "%s constants" % self.subject)
        key = (raw, tuple(needed), id(layout))
        if key in _tables:
            table, self._derived = _tables[key]
            return table
        table = {}
        for name, value in CONSTANT.iter_unpack(raw):
            table[c_string(name) or ""] = value
        missing = [name for name in needed if name not in table]
        if missing:
            raise self.error("%s constants table lacks %s (corrupted?)"
                             % (self.subject, missing[0]))
        self.check_layout(table, layout)
        if len(_tables) >= MAX_TABLES:
            _tables.clear()
        _tables[key] = table, self._derived
        return table

    def derived(self, name, build):
        """build() once per constants table (the one read_constants gave):
        what it returns must follow from the table alone, for it is kept
        as long as the table's bytes stay the same, across stops.  A
        failure (the reader's error) is raised again at every read."""
        if name not in self._derived:
            self._derived[name] = build()
        return self._derived[name]

    def handle_mask_of(self, table, name, default=None):
        """All bits of a handle whose size in bytes (1 to 8) constant `name` gives."""
        size = table.get(name, default)
        if size is None or not 1 <= size <= 8:
            raise self.error("%s constant %s = %s is out of range (corrupted?)"
                             % (self.subject, name, size))
        return (1 << 8 * size) - 1

    def check_layout(self, table, layout):
        """layout: [(size, limit, [(offset, width)])] where size names a
        constant (or is a number of bytes), limit caps it, each offset is a
        constant name or a tuple of names that add up (a struct inside a
        struct) and each width a number of bytes or a constant name: every
        field [offset, offset + width) must lie in [0, size)."""
        def value(name):
            if isinstance(name, int):
                return name
            if isinstance(name, tuple):
                return sum(value(part) for part in name)
            if name not in table:
                raise self.error("%s constants table lacks %s (corrupted?)" % (self.subject, name))
            return table[name]

        for size_name, limit, fields in layout:
            size = value(size_name)
            if not 0 < size <= limit:
                raise self.error("%s constant %s = %d is out of range (corrupted?)"
                                 % (self.subject, size_name, size))
            for offset_name, width in fields:
                offset, width = value(offset_name), value(width)
                if not 0 <= width <= size or not 0 <= offset <= size - width:
                    raise self.error("%s constant %s = %d is out of range (corrupted?)"
                                     % (self.subject, "+".join(offset_name) if isinstance(
                                         offset_name, tuple) else offset_name, offset))


class RecordFormat:
    """One struct.unpack of a record's fields [(name, struct code)]: each at
    the offset constant PREFIX + name, inside the record's `size` bytes;
    fields that overlap are a corrupted table (the view's error).  Values
    come in the order of `names`.  Keeps nothing of the view: it is made
    once per table (RemoteView.derived)."""

    def __init__(self, view, table, prefix, fields, size):
        placed = sorted((table[prefix + name], name, code.lstrip("<")) for name, code in fields)
        fmt, end = "<", 0
        for offset, name, code in placed:
            width = struct.calcsize("<" + code)
            if offset < end or offset + width > size:
                raise view.error("%s constants table is corrupted (%s%s = %d)"
                                 % (view.subject, prefix, name, offset))
            fmt += "%dx%s" % (offset - end, code) if offset > end else code
            end = offset + width
        self.struct = struct.Struct(fmt)
        self.names = tuple(name for _offset, name, _code in placed)
        self.size = size

    def fill(self, obj, raw, base=0):
        """obj with the record's fields as attributes."""
        for name, value in zip(self.names, self.struct.unpack_from(raw, base)):
            setattr(obj, name, value)
        return obj
