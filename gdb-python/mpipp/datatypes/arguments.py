"""The arguments every datatype command takes: TYPE, ADDR, COUNT.

Shared by all commands (mpipp, info, typemap, ..., and the commands of
other packages), so that every one of them gets the same checks:

- TYPE is a gdb expression giving a handle (in the selected frame's
  language: a Fortran INTEGER or TYPE(MPI_Datatype) works), or a name mpipp
  shows: a predefined type (`MPI_DOUBLE`, resolved from the registry, so no
  -g3 is needed), a derived type's label (`subarray#7`, `#7`), or the name
  the program gave it with MPI_Type_set_name.
- ADDR is an address or an array; COUNT a non-negative integer (2.5 or
  1e20 are errors, not 2 and 0xffffffff).
- No expression may call into the program or change it
  (expressions.evaluate_int).
"""

import re

import gdb

from .. import views
from ..inferior import expressions
from ..model import describe, typemap
from ..readers.errors import MpippError
from ..text.args import ArgError

# Beyond this many bytes of data (or repetitions) a decode needs -all: a
# typo'd COUNT of 10**12 must not start a walk that never ends.
MAX_SPAN = 1 << 30
MAX_COUNT = 1 << 62
# Beyond this many elements an output that shows every one (typemap -json,
# dumps, diffs, a decode with 'print elements unlimited') needs -all: 2**30
# bytes of chars are 2**30 elements, hours of output.
MAX_ELEMENTS = 1 << 24

# What datatype_from raises for a word that names no datatype: ArgError, or
# gdb.GdbError when the word names $mpi_call and it cannot be built
# (context/current.py).
NOT_A_DATATYPE = (ArgError, gdb.GdbError)

_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)?#(\d+)\s*$")
_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _fail(message):
    raise ArgError(message)


def _matching(view, match):
    """[(address, record summary)] of the types whose summary matches: those
    in the registry's table, read from their records alone (so finding a
    type by serial or name never builds the others, nor stops at one that
    cannot be built); only when none matches, the types the program freed
    that others still use."""
    for addresses in (view.live_records(), view.freed_in_use()):
        found = []
        for address in addresses:
            try:
                summary = view.summary_at(address)
            except MpippError:
                continue
            if match(summary):
                found.append((address, summary))
        if found:
            return found
    return []


def _by_serial(view, combiner, serial, text):
    found = _matching(view, lambda summary: summary.serial == serial)
    if not found:
        _fail("'%s': no live datatype has serial %d (see 'mpipp list')" % (text.strip(), serial))
    dt = view.datatype_at(found[0][0])
    if combiner and combiner.lower() != dt.combiner.lower():
        _fail("'%s': datatype #%d is %s, not a %s"
              % (text.strip(), serial, describe.label(dt), combiner.lower()))
    return dt


def _by_given_name(view, name):
    """The datatype the program named `name` (MPI_Type_set_name), or None."""
    found = _matching(view, lambda summary: summary.name == name)
    live = [entry for entry in found if not entry[1].freed] or found
    if len(live) > 1:
        _fail("several datatypes are named '%s' (%s): name one by its label"
              % (name, ", ".join(describe.serial_label(s) for _a, s in live)))
    return view.datatype_at(live[0][0]) if live else None


def datatype_from(expression, view):
    """The registered Datatype that TYPE (see the module doc) denotes."""
    label = _LABEL.match(expression)
    if label:
        return _by_serial(view, label.group(1), int(label.group(2)), expression)
    name = _NAME.match(expression)
    if name:
        address = view.predefined_names().get(name.group(1))
        if address is not None:
            return view.datatype_at(address)
    try:
        handle = expressions.evaluate_int(expression, "datatype")
    except NOT_A_DATATYPE:
        named = _by_given_name(view, name.group(1)) if name else None
        if named is None:
            raise
        return named
    if view.datatype_null is not None and view.key(handle) == view.datatype_null:
        _fail("'%s' is MPI_DATATYPE_NULL" % expression)
    dt = view.lookup(handle)
    if dt is None:
        _fail("'%s' (handle 0x%x) is not a registered datatype: never created with "
              "libmpireg loaded, or already destroyed by MPI" % (expression, view.key(handle)))
    return dt


def address_from(expression):
    return expressions.evaluate_int(expression, "address", arrays=True) % (1 << 64)


def count_from(expression):
    return checked_count(expressions.evaluate_int(expression, "COUNT"))


def count_at(words, k):
    """COUNT, the k-th of a command's words when it is given, else 1."""
    return count_from(words[k]) if len(words) > k else 1


def checked_count(count, what="COUNT"):
    if count < 0:
        _fail("%s must not be negative (got %d)" % (what, count))
    if count > MAX_COUNT:
        _fail("%s %d is too large" % (what, count))
    return count


def check_span(dt, count, allow_all, shown=None):
    """Unless -all, COUNT repetitions of dt must stay within MAX_SPAN bytes
    of data (the bytes a decode actually reads: with MPI_BOTTOM the
    displacements are addresses, and the range from 0 they span means
    nothing; the standard's bytes, not MPI's size, which wraps past 2**64),
    and the elements shown (all of them, or at most `shown`) within
    MAX_ELEMENTS."""
    if allow_all or not count:
        return
    check_data(dt, count, "pass -all to decode that much")
    elements = typemap.n_elements(dt, count)
    if elements > MAX_ELEMENTS and (shown is None or shown > MAX_ELEMENTS):
        _fail("COUNT %d holds %d elements, more than %d; pass -all to show them all"
              % (count, elements, MAX_ELEMENTS))


def check_data(dt, count, lift):
    """COUNT repetitions of dt must stay within MAX_SPAN bytes of data
    (`lift` says what lifts the limit: "pass -all to ...")."""
    data = typemap.data_bytes(dt, count)
    if data > MAX_SPAN or count > MAX_SPAN:
        _fail("COUNT %d holds %d bytes of data, more than %d; %s" % (count, data, MAX_SPAN, lift))


def text_of(value):
    """The text of a string value (a literal such as "vector#1", or a char
    array), or None for any other value."""
    gdb_type = value.type.strip_typedefs()
    if gdb_type.code == gdb.TYPE_CODE_STRING or gdb_type.code == gdb.TYPE_CODE_ARRAY and \
            gdb_type.target().strip_typedefs().code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR) \
            and gdb_type.target().sizeof == 1:
        try:
            return value.string(length=min(gdb_type.sizeof, 256)).rstrip("\0 ")
        except (gdb.error, UnicodeDecodeError):
            pass
        try:  # a Fortran CHARACTER literal: gdb prints it quoted, 'fvec'
            shown = value.format_string(raw=True)
        except gdb.error:
            return None
        if len(shown) >= 2 and shown[0] == shown[-1] and shown[0] in "'\"":
            return shown[1:-1].rstrip()
    return None


def require_datatype(value, what):
    """The registered Datatype a gdb value names -- a handle, or a string
    holding any TYPE the commands take ("vector#1", "halo_t", "MPI_INT":
    gdb's parser refuses a bare vector#1) -- or a one-line error (`what`
    names the caller: "$mpipp")."""
    view = views.registry.require()
    text = text_of(value)
    if text is not None:
        return datatype_from(text, view)
    handle = expressions.value_int(value, "%s: TYPE" % what)
    if view.datatype_null is not None and view.key(handle) == view.datatype_null:
        _fail("%s: TYPE is MPI_DATATYPE_NULL" % what)
    dt = view.lookup(handle)
    if dt is None:
        _fail("%s: handle 0x%x is not a registered datatype" % (what, view.key(handle)))
    return dt
