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
  (inferior.evaluate_int).
"""

import re

import gdb

from .. import inferior
from . import describe

# Beyond this many bytes of data (or repetitions) a decode needs -all: a
# typo'd COUNT of 10**12 must not start a walk that never ends.
MAX_SPAN = 1 << 30
MAX_COUNT = 1 << 62

_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)?#(\d+)\s*$")
_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _fail(message):
    raise gdb.GdbError("mpipp: " + message)


def _each_datatype(view):
    """Every datatype reachable from the map (children included, so types
    the program freed but others still use), each once."""
    seen = set()
    for address in view.live_records():
        stack = [view.datatype_at(address)]
        while stack:
            dt = stack.pop()
            if id(dt) in seen or dt.is_leaf:
                continue
            seen.add(id(dt))
            yield dt
            stack.extend(dt.children)


def _by_serial(view, combiner, serial, text):
    for dt in _each_datatype(view):
        if dt.serial == serial:
            if combiner and combiner.lower() != dt.combiner.lower():
                _fail("'%s': datatype #%d is %s, not a %s"
                      % (text.strip(), serial, describe.label(dt), combiner.lower()))
            return dt
    _fail("'%s': no live datatype has serial %d (see 'mpipp list')" % (text.strip(), serial))


def _by_given_name(view, name):
    """The datatype the program named `name` (MPI_Type_set_name), or None."""
    found = [dt for dt in _each_datatype(view) if dt.name == name]
    live = [dt for dt in found if not dt.freed] or found
    if len(live) > 1:
        _fail("several datatypes are named '%s' (%s): name one by its label"
              % (name, ", ".join(describe.serial_label(dt) for dt in live)))
    return live[0] if live else None


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
        handle = inferior.evaluate_int(expression, "datatype")
    except gdb.GdbError:
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
    return inferior.evaluate_int(expression, "address", arrays=True) % (1 << 64)


def count_from(expression):
    return checked_count(inferior.evaluate_int(expression, "COUNT"))


def checked_count(count, what="COUNT"):
    if count < 0:
        _fail("%s must not be negative (got %d)" % (what, count))
    if count > MAX_COUNT:
        _fail("%s %d is too large" % (what, count))
    return count


def check_span(dt, count, allow_all):
    """COUNT repetitions of dt must stay within MAX_SPAN bytes of data (the
    bytes a decode actually reads: with MPI_BOTTOM the displacements are
    addresses, and the range from 0 they span means nothing) unless -all."""
    data = max(dt.size, 0) * count
    if count and (data > MAX_SPAN or count > MAX_SPAN) and not allow_all:
        _fail("COUNT %d holds %d bytes of data; pass -all to decode that much" % (count, data))
