"""Synthetic gdb values: values that stand for a Python object.

gdb 13's Python cannot create new types, yet MI front ends need child values
that are neither program memory nor C strings: a text field that shows as
one line (not as a char array with one child per character), or a node of a
buffer's type tree that expands further.  A synthetic value is an
`unsigned long long` whose high 32 bits are a per-session random magic and
whose low 32 bits are an id into a table here; the pretty-printer lookup
recognizes the magic and hands the value to the printer of the object in
the table.  (A scalar, not an array over bytes: gdb copies an array that is
not in memory into the inferior, calling malloc there, as soon as anything
asks for its address.  A scalar never needs inferior memory.)

Ids are deterministic for a key (the same node of the same buffer gets the
same id and therefore the same value), so a varobj whose expression is
evaluated again at the next stop (`-var-update`) sees an unchanged value and
only its children, which are real program lvalues, report changes.
"""

import random

import gdb

from ..inferior import expressions, printing
from ..model.datatype import call_with_room

_MAGIC = (random.SystemRandom().getrandbits(31) | 1 << 31) << 32
MAX_ENTRIES = 1 << 20

# The objects synthetic values stand for, by id, and the ids by key: kept
# for the session (a value gdb holds -- a varobj's child, $1 -- must go on
# resolving after stops and writes), bounded by MAX_ENTRIES; not a cache of
# the inferior (listed in inferior/memory.py with the caches).
_by_id = {}
_by_key = {}
_next_id = [1]
# The integer type of synthetic values, until objfiles change.
_type = []


def value_type():
    if not _type:
        _type.append(expressions.integer_type(8, signed=False))
    return _type[0]


def forget_type():
    _type.clear()


def make(obj, key=None):
    """A gdb.Value standing for obj (same key -> same value)."""
    if key is not None and key in _by_key:
        ident = _by_key[key]
        _by_id[ident] = obj
    else:
        if len(_by_id) >= MAX_ENTRIES or _next_id[0] >= 1 << 32:
            _by_id.clear()
            _by_key.clear()
            _next_id[0] = 1
        ident = _next_id[0]
        _next_id[0] += 1
        _by_id[ident] = obj
        if key is not None:
            _by_key[key] = ident
    return gdb.Value(_MAGIC | ident).cast(value_type())


def text(string):
    """A value that prints as `string` (CLI and MI), with no children."""
    return make(Text(str(string)), key=("text", str(string)))


def resolve(value):
    """The object a synthetic value stands for, None for any other value,
    or EXPIRED when the table no longer holds it."""
    gdb_type = value.type
    if gdb_type.code != gdb.TYPE_CODE_INT or gdb_type.sizeof != 8:
        return None
    try:
        number = int(value)
    except (gdb.error, gdb.MemoryError, RuntimeError, ValueError, OverflowError):
        return None
    if number >> 32 << 32 != _MAGIC:
        return None
    return _by_id.get(number & 0xFFFFFFFF, EXPIRED)


def grouped(lo, hi, chunk, child, group):
    """The (name, value) children of an array-like value over indices
    [lo, hi): child(i) for each index or, when there are more than chunk of
    them (0: never), index ranges "[a..b]" valued group(a, b + 1), nested
    as deep as needed, so a front end that lists every child gets at most
    chunk of them."""
    if chunk and hi - lo > chunk:
        span = chunk
        while (hi - lo + span - 1) // span > chunk:
            span *= chunk
        for start in range(lo, hi, span):
            end = min(start + span, hi)
            yield "[%d..%d]" % (start, end - 1), group(start, end)
        return
    for i in range(lo, hi):
        yield child(i)


class Text:
    """Printer of a text value: one line, no children."""

    def __init__(self, string):
        self.string = string

    def to_string(self):
        return self.string


EXPIRED = Text("<mpipp: this value is no longer available; evaluate it again>")


def lookup(value, _handle):
    """The printer of the object a synthetic value stands for, or None."""
    try:
        obj = resolve(value)
    except Exception:  # noqa: BLE001 - a printer lookup must never raise
        return None
    if obj is None:
        return None
    printer = getattr(obj, "printer", None)
    if printer is None:
        return obj
    try:
        return call_with_room(printer)
    except Exception as err:  # noqa: BLE001 - e.g. a registry corrupted since
        return printing.RawPrinter(value, printing.error_reason(err))


# Values mpipp makes carry their marker, whatever their type says: first.
SUBPRINTERS = (printing.Subprinter("synthetic", lookup),)
