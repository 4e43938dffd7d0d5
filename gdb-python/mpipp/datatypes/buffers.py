"""Buffers as expandable values: the convenience function $mpipp(TYPE, ADDR [, COUNT]).

    (gdb) print $mpipp(s_type, items, 4)
    (gdb) display $mpipp(rowtype, matrix)
    -var-create - * "$mpipp(s_type, items, 4)"      (MI: Emacs gdb-mi, VS Code)

The value is a node of the buffer's expanded type tree (docs/design.md, "Type-tree paths").  Its
children are, level by level, the repetitions, then the stages of the type
tree, then the elements; each child is named by its path index ([2]).  An
element is a real lvalue of the basic C type at the element's address
(`*(double *)0x...`), so print/x, `-var-assign` and `-var-update` treat it
like a C variable.  Pair types (MPI_DOUBLE_INT...) are small structs
{value, index}; LB/UB markers are text.

Children are produced lazily: child i of a node is computed directly from
the model (combiners.stage_sizes / child_at), never by enumerating
elements, and memory is read only for the children gdb asks for.  A stage
with more than `set mpipp mi-chunk` (default 1000) children is split into
index ranges [0..999], [1000..1999], ... nested as deep as needed, so front
ends that list every child (Emacs, VS Code) stay fast on a 10**8-element
buffer; `set mpipp mi-chunk 0` gives flat children (use -var-list-children
FROM TO then).
"""

import gdb

from ..inferior import expressions, memory, output
from ..model import combiners, decode
from ..model.datatype import iterated_with_room_for_deep_trees, with_room_for_deep_trees
from ..model.paths import format_path
from ..readers.errors import MpippError
from ..text.args import ArgError
from . import synthetic
from .arguments import checked_count, require_datatype
from .settings import ChunkSetting


def chunk_size():
    value = ChunkSetting.current()
    return int(value) if value else 0


# ---------------------------------------------------------------- C types

_C_TYPES = {
    ("int", 1): ("signed char",), ("int", 2): ("short",), ("int", 4): ("int",),
    ("int", 8): ("long", "long long"),
    ("uint", 1): ("unsigned char",), ("uint", 2): ("unsigned short",),
    ("uint", 4): ("unsigned int",), ("uint", 8): ("unsigned long", "unsigned long long"),
    ("float", 4): ("float",), ("float", 8): ("double",),
    ("complex", 8): ("complex float", "(_Complex float *)0"),
    ("complex", 16): ("complex double", "(_Complex double *)0"),
    ("char", 1): ("char",), ("char", 2): ("unsigned short",), ("char", 4): ("wchar_t", "int"),
    ("bool", 1): ("_Bool", "(_Bool *)0", "unsigned char"), ("bool", 4): ("int",),
    ("byte", 1): ("unsigned char",), ("packed", 1): ("unsigned char",),
}
_UNSIGNED_CHAR_NAMES = ("MPI_UNSIGNED_CHAR", "MPI_UINT8_T", "MPI_CHARACTER")
# The gdb type of each C type name list, until objfiles change (the types
# come from the program's debug information, else the architecture's).
_type_cache = {}


def forget_c_types():
    _type_cache.clear()


def _lookup_c_type(candidates):
    for name in candidates:
        try:
            if name.startswith("("):
                return gdb.parse_and_eval(name).type.target()
            return gdb.lookup_type(name)
        except (gdb.error, RuntimeError):
            continue
    return None


def c_type_of(basic):
    """The gdb type of a basic MPI type, or None when C has none to match."""
    kind, size = basic.basic_kind, basic.size
    if kind == "float" and size == 16 and not decode.is_quad(basic):
        key = ("long double",)
    elif kind == "char" and size == 1 and (basic.name or "").upper() in _UNSIGNED_CHAR_NAMES:
        key = ("unsigned char",)
    else:
        key = _C_TYPES.get((kind, size))
    if key is None:
        return None
    if key not in _type_cache:
        found = _lookup_c_type(key)
        _type_cache[key] = found if found is not None and found.sizeof == size else None
    return _type_cache[key]


def _element_value(basic, address):
    """A real lvalue for an element, or a synthetic node/text."""
    if basic.is_marker:
        return synthetic.text("<%s marker: no data>" % (basic.name or basic.kind))
    if basic.basic_kind == "pair" and basic.members:
        return synthetic.make(PairNode(basic, address), key=("pair", basic.display_name, address))
    c_type = c_type_of(basic)
    if c_type is not None:
        return gdb.Value(address).cast(c_type.pointer()).dereference()
    return synthetic.make(DecodedElement(basic, address),
                          key=("decoded", basic.display_name, address))


# ---------------------------------------------------------------- nodes

class Buffer:
    """COUNT repetitions of a datatype at a base address."""

    def __init__(self, dt, base, count, label):
        self.dt = dt
        self.base = base
        self.count = count
        self.label = label
        self.root = combiners.buffer_type(dt, count)

    @property
    def key(self):
        return (self.dt.serial, self.dt.handle, self.base, self.count)


class Node:
    """A node of the expanded type tree of a buffer.

    node_dt/node_off: the datatype at this point and its byte offset in the
    buffer; partial: stage indices already taken inside node_dt; path: the
    buffer path of this node; lo/hi: the range of next-stage indices shown
    (a group of a large stage), hi None = the whole stage."""

    def __init__(self, buf, node_dt, node_off, partial, path, lo=0, hi=None):
        self.buf = buf
        self.node_dt = node_dt
        self.node_off = node_off
        self.partial = partial
        self.path = path
        self.lo = lo
        self.hi = hi

    def key(self):
        return ("node",) + self.buf.key + (self.path, self.lo, self.hi)

    def value(self):
        return synthetic.make(self, key=self.key())

    def printer(self):
        return NodePrinter(self)

    def size(self):
        return combiners.stage_sizes(self.node_dt, self.partial)

    def describe(self):
        dt = self.node_dt
        if self.hi is not None:
            return "[%d..%d]" % (self.lo, self.hi - 1)
        if not self.path:
            return "%d × %s at 0x%x" % (self.buf.count, _summary(self.buf.dt), self.buf.base)
        if self.partial:
            return "%s %s of %d" % (dt.combiner.lower(), format_path(self.partial),
                                    self.size())
        return _summary(dt)

    def child(self, i):
        """Name and value of the child with next-stage index i."""
        idx = self.partial + (i,)
        path = self.path + (i,)
        name = "[%d]" % i
        dt = self.node_dt
        if len(idx) < combiners.n_stages(dt):
            return name, Node(self.buf, dt, self.node_off, idx, path).value()
        child, disp = combiners.child_at(dt, idx)
        off = self.node_off + disp
        if child.is_leaf:
            return name, _element_value(child, self.buf.base + off)
        if combiners.n_stages(child) == 0:
            return name, synthetic.text(_summary(child) + " (no elements)")
        return name, Node(self.buf, child, off, (), path).value()

    def children(self):
        n = self.size()
        hi = n if self.hi is None else min(self.hi, n)
        yield from synthetic.grouped(
            self.lo, hi, chunk_size(), self.child,
            lambda start, end: Node(self.buf, self.node_dt, self.node_off, self.partial,
                                    self.path, start, end).value())


def _summary(dt):
    from ..model import describe
    return describe.summary(dt)


class PairNode:
    """An element of a pair type (MPI_DOUBLE_INT, ...): {value, index}."""

    def __init__(self, basic, address):
        self.basic = basic
        self.address = address

    def printer(self):
        return PairPrinter(self)


class DecodedElement:
    """An element C cannot type (e.g. REAL*16): decoded by the model."""

    def __init__(self, basic, address):
        self.basic = basic
        self.address = address

    def printer(self):
        return DecodedPrinter(self)


# ---------------------------------------------------------------- printers

def _error_text(err):
    return "<mpipp: %s>" % err


class _PrintBudget:
    """The children one printing of a buffer value may still show.

    gdb applies 'print elements' to the children of each printer, not to
    the whole value, so printing a tree of 32 nested stages of 2 would show
    all of its 2**32 elements.  A printing (to_string, then children, with
    the children's own printing nested inside) draws from one budget of
    'print elements' children in all, set when a printing starts outside
    any other; past it the rest is "...".  Only the children of a node
    with more than one count (a type 900 levels deep holding one element
    prints it whole).  MI varobjs list children without printing (see
    NodePrinter) and have no budget: they ask for ranges."""

    def __init__(self):
        self.depth = 0
        self.left = None

    def start(self):
        if self.depth == 0:
            self.left = output.print_limit("print elements")

    def children(self, children, counted):
        self.depth += 1
        try:
            for child in children:
                if self.left is not None and counted:
                    if self.left <= 0:
                        yield "...", synthetic.text("...")
                        return
                    self.left -= 1
                yield child
        finally:
            self.depth -= 1


_budget = _PrintBudget()


class NodePrinter:
    """A node of a buffer's type tree.

    gdb prints a value through to_string, then children (print, display,
    and, once, every new MI varobj: gdb 13 renders each new varobj with the
    plain value printer before it installs the varobj's own printer).  An
    MI varobj's own printer only ever gets children(), never to_string (its
    value is "{...}").  A range group printed the first way shows "{...}"
    and no children, so a varobj over a 10**7-element buffer costs the
    same to create as over 10 elements; MI expands groups through
    children().  A printed node shows at most 'print elements' children
    with all the nodes below it (_PrintBudget)."""

    def __init__(self, node):
        self.node = node
        self.printed = False

    @with_room_for_deep_trees
    def to_string(self):
        self.printed = True
        _budget.start()
        if self.node.hi is not None:
            return "{...}"
        # Only the root says what it is; inner nodes print as nested braces
        # (CLI) and MI shows "{...}" for any value with children anyway.
        if self.node.path:
            return None
        try:
            return self.node.describe()
        except (MpippError, gdb.error, ValueError) as err:
            return _error_text(err)

    def display_hint(self):
        return "array"

    @iterated_with_room_for_deep_trees
    def children(self):
        if self.printed and self.node.hi is not None:
            return
        try:
            children = self.node.children()
            if self.printed:
                children = _budget.children(children, self.node.hi is not None
                                            or self.node.size() > 1)
            yield from children
        except (MpippError, gdb.error, ValueError, OverflowError) as err:
            yield "<error>", synthetic.text(_error_text(err))


class PairPrinter:
    NAMES = ("value", "index")

    def __init__(self, pair):
        self.pair = pair

    def to_string(self):
        return None

    def children(self):
        for k, (off, member) in enumerate(self.pair.basic.members):
            name = self.NAMES[k] if k < len(self.NAMES) else "member%d" % k
            try:
                yield name, _element_value(member, self.pair.address + off)
            except (MpippError, gdb.error) as err:
                yield name, synthetic.text(_error_text(err))


class DecodedPrinter:
    def __init__(self, element):
        self.element = element

    def to_string(self):
        basic = self.element.basic
        try:  # the element's bytes: its size (a corrupted extent reads nothing more)
            raw = memory.GdbMemory(gdb.selected_inferior()).read(self.element.address,
                                                                   basic.size)
            return decode.format_one(basic, raw)
        except MpippError as err:
            return _error_text(err)


# ---------------------------------------------------------------- the function

class MpippFunction(gdb.Function):
    """$mpipp(TYPE, ADDR [, COUNT [, I0, I1, ...]]): a buffer decoded through an MPI datatype, as a value.

COUNT (default 1) repetitions of the datatype TYPE at ADDR, as a value whose
children are the repetitions, then the stages of the type tree, then the
elements, each named by its path index.  Elements are the program's own
memory, typed by their basic C type: print/x, display and MI variable
objects (-var-create - * "$mpipp(t, buf, n)") behave as for C variables.
Children are computed only when shown; large stages come in ranges of
'set mpipp mi-chunk' children.

Indices after COUNT walk down the type tree: $mpipp(t, buf, 2, 1, 0, 2) is
the node or element at path [1][0][2] (gdb 13 cannot subscript a value
made in Python, so $mpipp(t, buf, 2)[1][0][2] is written this way).  An
element is an lvalue: assign to it with set var.

Example:
  (gdb) print $mpipp(s_type, items, 4)
  (gdb) print $mpipp(s_type, items, 4, 2)
  (gdb) set var $mpipp(s_type, items, 4, 2, 1, 0) = 3.5"""

    def __init__(self):
        super().__init__("mpipp")

    @output.one_line_errors
    def invoke(self, *args):
        if len(args) < 2:
            raise ArgError("usage: $mpipp(TYPE, ADDR [, COUNT [, I0, I1, ...]])")
        dt = require_datatype(args[0], "$mpipp")
        base = expressions.value_int(args[1], "$mpipp: ADDR", arrays=True) % (1 << 64)
        count = checked_count(expressions.value_int(args[2], "$mpipp: COUNT") if len(args) >= 3
                              else 1, "$mpipp: COUNT")
        indices = [expressions.value_int(a, "$mpipp: index %d" % k) for k, a in enumerate(args[3:])]
        buf = Buffer(dt, base, count, None)
        return _descend(Node(buf, buf.root, 0, (), ()), indices)


def _descend(node, indices):
    """The value at path ``indices`` below a node (the node itself for ())."""
    value = node.value()
    for pos, i in enumerate(indices):
        if not isinstance(node, Node):
            raise MpippError("$mpipp: path %s continues past an element"
                             % format_path(indices[:pos + 1]))
        size = node.size()
        if not 0 <= i < size:
            raise MpippError("$mpipp: index %d out of range at %s: valid %s"
                             % (i, format_path(indices[:pos]) or "[]",
                                "0..%d" % (size - 1) if size else "none (empty)"))
        _name, value = node.child(i)
        node = synthetic.resolve(value)
    return value
