"""The MPI_Datatype pretty printer, and $mpipp_type(TYPE).

Wherever gdb prints a value whose type is MPI_Datatype (variables, struct
fields, array elements, arguments, MI varobjs) the printer shows what the
handle is: a one-line summary, then the constructor's parameters, the type's
state and extents, and its child datatypes as MPI_Datatype values, so a
front end expands them further.  Array parameters become real gdb arrays,
or, when one would be larger than a gdb value may safely be
(memory.value_from_bytes: 10**6 displacements, or 'set max-value-size 16'),
values whose elements come lazily, in ranges like a buffer's ('print
elements' and 'set mpipp mi-chunk' apply).  `print/r` bypasses the printer
and shows the handle.

Handles that are pointers to a struct (Open MPI: MPI_Datatype is a
`struct ompi_datatype_t *`, the struct opaque to gdb) get no varobj children
of their own: gdb 13 recomputes a child varobj that a front end updates by
itself (`-var-update VAR.CHILD`, what Emacs runs to expand a node) through
the C view of the parent -- field CHILD of that struct -- and fails an
internal assertion on a struct without fields.  Their printer hands gdb a
synthetic value (an integer: no C children) that carries the description
instead, so `print` shows the same text, an MI varobj shows it as its
value, and `$mpipp_type(TYPE)` is the tree to browse, on either MPI; their
child datatypes are synthetic values too.
"""

import struct

import gdb

from .. import views
from ..inferior import expressions, memory, output, printing, symbols
from ..model import describe
from ..model.combiners import MAX_NDIMS
from ..model.datatype import call_with_room, iterated_with_room_for_deep_trees
from ..readers.errors import MpippError
from . import buffers, synthetic
from .arguments import require_datatype

TYPE_NAME = "MPI_Datatype"


def _as_array(values, element_type):
    """A gdb array value holding Python ints (or handles) of element_type,
    or None when it would be too large for one gdb value."""
    size = element_type.sizeof
    signed = element_type.strip_typedefs().code != gdb.TYPE_CODE_PTR
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
    mask = (1 << (8 * size)) - 1
    raw = struct.pack("<%d%s" % (len(values), code if signed else code.upper()),
                      *(_wrap(v & mask, size) if signed else v & mask for v in values))
    return memory.value_from_bytes(raw, element_type.array(len(values) - 1))


def _fits_long(value):
    """Whether an int is a gdb long's value (gdb cannot make a value of
    one beyond 64 bits: an extent the standard's formula takes past 2**64)."""
    return -(1 << 63) <= value < 1 << 63


def _wrap(unsigned, size):
    return unsigned - (1 << (8 * size)) if unsigned >> (8 * size - 1) else unsigned


class ArrayNode:
    """A constructor's array parameter too large for one gdb value (a type
    may have 10**6 blocks): its elements are made as gdb asks for them, in
    ranges of 'set mpipp mi-chunk' like a buffer, so 'print elements' and
    front ends that list ranges bound the work.  element(item) gives an
    element's gdb value; key names the array for synthetic.make."""

    def __init__(self, key, items, element, lo=0, hi=None):
        self.key, self.items, self.element = key, items, element
        self.lo, self.hi = lo, hi

    def value(self):
        return synthetic.make(self, key=self.key + (self.lo, self.hi))

    def printer(self):
        return ArrayPrinter(self)


class ArrayPrinter:
    """An ArrayNode: elements as children, like a C array (a range group
    printed as a value, not as a varobj, shows "{...}", as buffer nodes do)."""

    def __init__(self, node):
        self.node = node
        self.printed = False

    def to_string(self):
        self.printed = True
        return "{...}" if self.node.hi is not None else None

    def display_hint(self):
        return "array"

    def children(self):
        node = self.node
        if self.printed and node.hi is not None:
            return
        hi = len(node.items) if node.hi is None else node.hi
        yield from synthetic.grouped(
            node.lo, hi, buffers.chunk_size(),
            lambda i: ("[%d]" % i, node.element(node.items[i])),
            lambda start, end: ArrayNode(node.key, node.items, node.element, start,
                                         end).value())


def _opaque(handle_type):
    """Whether handles of this type are pointers to a struct (see the top)."""
    target = handle_type.strip_typedefs()
    return target.code == gdb.TYPE_CODE_PTR and \
        target.target().strip_typedefs().code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION)


class DatatypePrinter:
    """A registered datatype: summary, then parameters, state and children.
    Child datatypes are values of handle_type, or synthetic values when it
    is None."""

    def __init__(self, dt, handle_type, summary):
        self.dt = dt
        self.handle_type = handle_type
        self.summary = summary

    def to_string(self):
        return self.summary

    @iterated_with_room_for_deep_trees
    def children(self):
        try:
            yield from self._children()
        except Exception as err:  # noqa: BLE001 - a printer never raises
            yield "<error>", synthetic.text("<%s>" % printing.error_reason(err))

    def _children(self):
        if self.dt.combiner == "NAMED":
            return
        fields = describe.fields(self.dt, symbols.site_text)
        for name, value in fields:
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, int) and not _fits_long(value):
                value = str(value)  # a true extent beyond 2**64 is a fact to show
            # Text as a synthetic value: MI shows it as one line, not a char array.
            yield name, synthetic.text(value) if isinstance(value, str) else value
        shown = dict(fields)
        for name, value in describe.parameters(self.dt):
            if shown.get(name, object()) == value:
                continue  # resized's lb and extent are the type's own: shown above
            yield name, _parameter_value(self.dt, name, value, self.handle_type)


def _parameter_value(dt, name, value, handle_type):
    """A constructor parameter as a gdb value: child datatypes as MPI_Datatype
    values or synthetic ones (so they expand), integers as long, symbolic
    values (order=C) as text; a list becomes an array, or an ArrayNode when
    too large for one gdb value."""
    items = value if isinstance(value, list) else [value]
    # Only per-dimension arrays (MAX_NDIMS at most) mix symbols (BLOCK) with
    # numbers; a long one (counts, displacements, types) holds one kind of
    # item, so its first says which (a look at each would cost the type's
    # size at every print).
    sample = items if len(items) <= MAX_NDIMS else items[:1]
    if items and all(describe.is_datatype(v) for v in sample):
        element_type, element, number = _datatype_elements(handle_type)
    elif all(isinstance(v, int) for v in sample):
        element_type = expressions.integer_type(8)

        def element(v):
            return gdb.Value(v).cast(element_type)

        def number(v):
            return v
    else:
        text = ", ".join(str(v) for v in items)
        return synthetic.text(text if items is not value else "{%s}" % text)
    if items is not value:
        return element(value)
    if not items:
        return synthetic.text("{}")
    if len(items) * element_type.sizeof <= memory.value_size_limit():
        array = _as_array([number(v) for v in items], element_type)
        if array is not None:
            return array
    return ArrayNode(("parameter", dt.handle, dt.serial, name), items, element).value()


def _datatype_elements(handle_type):
    """(element type, gdb value of a child datatype, its number in an array)
    for child datatypes: handles of handle_type, or synthetic values when
    handle_type is None."""
    if handle_type is None:
        return synthetic.value_type(), type_value, lambda dt: int(type_value(dt))
    mask = (1 << (8 * handle_type.sizeof)) - 1
    return (handle_type, lambda dt: gdb.Value(dt.handle & mask).cast(handle_type),
            lambda dt: dt.handle)


def _described(dt, handle_type, summary):
    """The printer of a registered datatype whose describe.summary is
    summary: the text alone for a leaf (no children method: MI then shows
    the name as the value, not "{...}"), else a DatatypePrinter."""
    if dt.is_leaf:
        return printing.TextPrinter(summary)
    return DatatypePrinter(dt, handle_type, summary)


class _TypeNode:
    """What a synthetic datatype value stands for (summary: its
    describe.summary when already known)."""

    def __init__(self, dt, summary=None):
        self.dt = dt
        self.summary = summary

    def printer(self):
        summary = describe.summary(self.dt) if self.summary is None else self.summary
        return _described(self.dt, None, summary)


def type_value(dt, summary=None):
    """A synthetic value that prints as dt, children included (same type,
    same value: an MI varobj over it stays unchanged across stops)."""
    return synthetic.make(_TypeNode(dt, summary), key=("datatype", dt.handle, dt.serial))


class _ReturnedDatatype:
    """The MPI_Datatype a `finish` prints: gdb prints the value a function
    returned with the typedef stripped (an int under MPICH, a struct
    pointer under Open MPI), so the printer cannot know it by its type.

    When the program resumes (gdb.events.cont: `finish`, CLI or MI's
    -exec-finish, as any other resumption) from a selected frame whose
    function returns an MPI_Datatype, its caller and the return type are
    noted; until gdb has told the next stop (gdb.events.stop, which gdb
    emits after the CLI and MI have printed the stop and the returned
    value), the first value of that stripped type that is no lvalue, the
    newest in gdb's value history (where `finish` puts the returned value
    before printing it) and a registered handle, printed while the caller
    is the selected frame, is the handle the function returned.  gdb's
    events only: no user command (a hook-finish) is defined."""

    def __init__(self):
        self.caller = self.handle_type = None
        self.noted = False

    def connect(self):
        gdb.events.cont.connect(self.resumed)
        gdb.events.stop.connect(self.forget)
        gdb.events.exited.connect(self.forget)

    def resumed(self, _event):
        """Notes the selected frame's caller when its function returns an
        MPI_Datatype (the program resumes from the frame it finishes).
        Only the first resumption after a stop: gdb resumes the program at
        every instruction a `next` or `step` single-steps, and the frame it
        started from is the one that counts."""
        if self.noted:
            return
        self.noted = True
        self.caller = None
        try:
            self._note(gdb.selected_frame())
        except Exception:  # noqa: BLE001 - an event handler never raises
            self.caller = None

    def _note(self, frame):
        function = frame.function()
        returns = function.type.target() if function is not None else None
        if returns is not None and expressions.handle_type_name(returns, (TYPE_NAME,)):
            self.caller, self.handle_type = frame.older(), returns

    def forget(self, _event):
        """The stop is told: a value printed from now on is not the one returned."""
        self.caller = None
        self.noted = False

    def returned(self, value):
        """The handle a function returned, as an MPI_Datatype value, or None."""
        if self.caller is None:
            return None
        try:
            if value.address is not None or \
                    value.type.strip_typedefs() != self.handle_type.strip_typedefs() or \
                    gdb.selected_frame() != self.caller or not _newest_in_history(value):
                return None
            view = views.registry.get()
            if view is None or view.find_record(int(value)) is None:
                return None
        except (gdb.error, RuntimeError, MpippError):
            return None
        self.caller = None
        return value.cast(self.handle_type)


def _newest_in_history(value):
    newest = gdb.history(0)
    return newest.type.strip_typedefs() == value.type.strip_typedefs() and \
        int(newest) == int(value)


RETURNED = _ReturnedDatatype()


def lookup(value, handle):
    """The printer of an MPI_Datatype (handle: the collection found it is
    one), or of the handle a `finish` returned; None for any other value."""
    if handle != TYPE_NAME:
        value = RETURNED.returned(value)
        if value is None:
            return None
    try:
        return call_with_room(_printer, value)
    except Exception as err:  # noqa: BLE001 - a printer lookup never raises
        return printing.RawPrinter(value, printing.error_reason(err))


_noticed = set()


def _registry_or_notice():
    """The registry of the selected inferior; None, after a one-time notice
    per process, when libmpireg is not loaded.  Raises the registry's error
    when it exists but cannot be trusted."""
    view = views.registry.get()
    inf = gdb.selected_inferior()
    key = (inf.num, inf.pid)
    if view is None and key not in _noticed:
        _noticed.add(key)
        gdb.write(views.REGISTRY_NOT_LOADED + "\n", gdb.STDERR)
    return view


def _printer(value):
    view = _registry_or_notice()
    if view is None:
        return None
    try:
        handle = int(value)
    except gdb.error:
        return None
    key = view.key(handle)
    if view.datatype_null is not None and key == view.datatype_null:
        return printing.TextPrinter("MPI_DATATYPE_NULL")
    dt = view.lookup(handle)
    if dt is None:
        return printing.RawPrinter(value, "unregistered MPI_Datatype: never created under "
                                   "libmpireg, or freed and destroyed")
    summary = describe.summary(dt)  # raises now, while lookup() can still fall back
    if _opaque(value.type) and not dt.is_leaf:
        # shown through a synthetic value that carries the description
        return printing.TextPrinter(type_value(dt, summary))
    return _described(dt, value.type, summary)


class MpippTypeFunction(gdb.Function):
    """$mpipp_type(TYPE): an MPI datatype as a value to browse.

The description 'print TYPE' shows, as a value whose children are the
type's fields, parameters and child datatypes (which expand further): for
MI front ends, on any MPI (an Open MPI MPI_Datatype variable shows its
description as its value, without children).

Example:
  (gdb) print $mpipp_type(row_t)
  -var-create - * "$mpipp_type(row_t)"     (MI)"""

    def __init__(self):
        super().__init__("mpipp_type")

    @output.one_line_errors
    def invoke(self, *args):
        if len(args) != 1:
            raise gdb.GdbError("mpipp: usage: $mpipp_type(TYPE)")
        return type_value(require_datatype(args[0], "$mpipp_type"))


SUBPRINTERS = (printing.Subprinter(TYPE_NAME, lookup, TYPE_NAME),)
