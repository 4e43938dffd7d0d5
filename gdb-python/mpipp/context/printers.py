"""Pretty printers from the communication context.

- MPI_Request: the pending operation (or MPI_REQUEST_NULL / not pending).
- MPI_Comm: name, size and this process's rank (predefined names from the
  constants libmpireg publishes).
- MPI_Op: predefined name, or the user function's symbol.
- Buffers in context: a pointer or array that is a buffer of a thread's
  current MPI call or of a pending request prints as gdb prints it, then
  which call it belongs to, with the elements decoded (children, so 'set
  print elements' and MI varobjs apply).  A pointer into such a buffer names
  the element it points at (only when it points at an element's bytes, not
  into a gap; sub-arrays of a buffer are not annotated).  The buffers are indexed once per stop (sorted
  ranges); any other pointer costs one bisect.  'set mpipp context off'
  turns this off.
"""

import bisect

import gdb

from .. import views
from ..inferior import expressions, memory, output, printing
from ..model import render
from ..model.datatype import (call_with_room, iterated_with_room_for_deep_trees,
                              with_room_for_deep_trees)
from ..model.describe import extents_of
from ..model.where import describe_location, locate
from ..readers.errors import MpippError
from . import calls as cc
from .settings import ContextSetting

MAX_CHILDREN = 100000


def request_text(view, key):
    if key == view.c["MPI_REQUEST_NULL"]:
        return "MPI_REQUEST_NULL"
    if key in view.done_at_once:
        return "0x%x <%s>" % (key, cc.DONE_AT_ONCE)
    r = view.request(key)
    if r is None:
        return "0x%x <not pending: completed, freed, or posted without libmpireg>" % key
    return "0x%x <%s %s>" % (key, cc.call_text(view, r.call), r.status)


def comm_text(view, key):
    if key == view.c.get("MPI_COMM_NULL"):
        return "MPI_COMM_NULL"
    comm = view.comms().get(key)
    name = view.comm_names.get(key)
    if comm is None:
        if name:
            return name
        return "0x%x <communicator not created under libmpireg, or freed>" % key
    return view.comm_text(key)


def op_text(view, key):
    if key in view.op_names:
        return view.op_names[key]
    op = view.ops().get(key)
    if op is None:
        return "0x%x <op not created under libmpireg, or freed>" % key
    name = cc.symbol_at(op.fn) or "0x%x" % op.fn
    return "user op %s (%s)" % (name, "commutative" if op.commute else "non-commutative")


def _text_printer(kind, text_of):
    """The printer of a handle of type kind: text_of(view, key) once the
    context is read."""
    def printer(value):
        view = views.context.find()
        if view is None:
            return None
        return printing.TextPrinter(text_of(view, int(value) & view.handle_mask[kind]))
    return printer


HANDLE_SUBPRINTERS = tuple(printing.handle_subprinter(kind, _text_printer(kind, text_of))
                           for kind, text_of in (("MPI_Request", request_text),
                                                 ("MPI_Comm", comm_text),
                                                 ("MPI_Op", op_text)))


# -- buffers in context -------------------------------------------------------

class _Index:
    """The buffers of the current calls and pending requests: by start
    address (a pointer to a buffer) and by the bytes their elements occupy
    (a pointer into one), sorted.

    A buffer passed as MPI_BOTTOM (address 0) is not indexed by its start:
    its elements lie at absolute addresses, and a NULL pointer is not that
    buffer (a pointer to one of its elements still is)."""

    def __init__(self, view, dts):
        items = []
        lwps = cc.thread_map()
        for slot in view.threads():
            if slot.active and not slot.torn and slot.tid in lwps:
                owner = "%s in thread %d" % (slot.call.func, lwps[slot.tid])
                items.extend(self._pieces(view, slot.call, owner, dts))
        for r in view.requests():
            if r.active:
                owner = "pending %s request 0x%x" % (r.call.func, r.handle)
                items.extend(self._pieces(view, r.call, owner, dts))
        bottom = view.c.get("MPI_BOTTOM", 0) % (1 << 64)
        self.by_start = {}
        for item in items:
            if item[0] != bottom:
                self.by_start.setdefault(item[0], item)
        items.sort(key=lambda e: e[1])
        self.los = [item[1] for item in items]
        self.entries = items

    @staticmethod
    def _pieces(view, call, owner, dts):
        out = []
        for b in call.bufs:
            try:
                pieces = cc.buffer_pieces(view, b)
            except MpippError:
                continue
            for label, address, count, key in pieces:
                dt = dts(key)
                if dt is None or count <= 0:
                    continue
                ext = extents_of(dt, count)
                lo = address + ext["true_lb"]
                hi = lo + max(ext["true_extent"], 1)
                out.append((address, lo, hi, label, owner, dt, count, key))
        return out

    def find(self, address):
        """(entry, exact) for an address that starts or lies inside a buffer, or None."""
        if address in self.by_start:
            return self.by_start[address], True
        k = bisect.bisect_right(self.los, address) - 1
        for e in self.entries[max(0, k - 8):k + 1]:
            if e[1] <= address < e[2]:
                return e, False
        return None


_index = {}


def invalidate(*_event):
    _index.clear()


def _current_index():
    inf = gdb.selected_inferior()
    key = (inf.num, inf.pid)
    if key not in _index:
        _index[key] = None
        view = views.context.find()
        if view is not None:
            try:
                _index[key] = _Index(view, cc.datatype)
            except (MpippError, gdb.error):
                _index[key] = None
    return _index[key]


class PointsIntoPrinter:
    """gdb's own value and the call the buffer belongs to (for a pointer into
    a buffer: the element it points at).  No children."""

    def __init__(self, value, entry, exact, address, where=None):
        self.value = value
        self.entry = entry
        self.exact = exact
        self.address = address
        self.where = where

    @with_room_for_deep_trees
    def to_string(self):
        start, _lo, _hi, label, owner, dt, count, key = self.entry
        try:
            raw = self.value.format_string(raw=True)
        except gdb.error:
            raw = "0x%x" % self.address
        name = cc.datatype_label(key)
        if self.exact:
            return "%s <%s of %s: %s × %d>" % (raw, label, owner, name, count)
        what = describe_location(self.where)
        return "%s <points at %s of %s of %s>" % (raw, what, label, owner)



class BufferPrinter(PointsIntoPrinter):
    """gdb's own value, the call the buffer belongs to, decoded elements."""

    @iterated_with_room_for_deep_trees
    def children(self):
        start, _lo, _hi, _label, _owner, dt, count, _key = self.entry
        read = memory.memory_reader(start)
        limit = output.print_limit("print elements")
        try:
            for k, item in enumerate(render.iter_json_elements(dt, count, read, limit=limit,
                                                               base_address=start)):
                if item is render.TRUNCATED or k >= MAX_CHILDREN:
                    return
                yield item["path"], _child_value(item)
        except Exception as err:  # noqa: BLE001 - a printer never raises
            yield "error", printing.error_reason(err)


def _child_value(item):
    value = item.get("value")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    return str(value)


def buffer_lookup(value, _handle):
    code = value.type.strip_typedefs().code
    if code not in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ARRAY):
        return None
    if not ContextSetting.current():
        return None
    try:
        return call_with_room(_buffer_printer, value, code)
    except Exception:  # noqa: BLE001 - any pointer: never an error, just no annotation
        return None


def _buffer_printer(value, code):
    index = _current_index()
    if index is None or not index.entries:
        return None
    if code == gdb.TYPE_CODE_PTR:
        address = int(value)
    else:
        address = expressions.memory_address(value)
        if address is None:
            return None
    found = index.find(address)
    if found is None:
        return None
    if found[1]:
        return BufferPrinter(value, found[0], True, address)
    if code != gdb.TYPE_CODE_PTR:  # sub-arrays of a buffer: not annotated
        return None
    entry = found[0]
    try:
        where = locate(entry[5], entry[6], address - entry[0])
    except MpippError:
        return None
    if where.where != "inside":  # gaps between elements are not the buffer's data
        return None
    return PointsIntoPrinter(value, entry, False, address, where)


# Any pointer or array may point into a buffer: asked after every typed printer.
BUFFER_SUBPRINTERS = (printing.Subprinter("call-buffers", buffer_lookup),)
