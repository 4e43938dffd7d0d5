"""The input of the model: one ``Datatype`` per registry record.

A Datatype holds exactly what ``MPI_Type_get_contents(_c)`` returns for the
type (``integers``, ``addresses``, ``large_counts``, ``children``) plus what
the registry recorded at creation (size, lb, extent: MPI's values, never
recomputed for display).  The true lb and true extent are recorded by older
registries; when they are not given they follow from the tree (the bytes
the data touches) and are computed on first use.  Predefined types
(combiner ``NAMED``) carry ``name``, ``kind`` and ``size`` instead; pair types
(kind ``'pair'``) also carry ``members = [(offset, value_type), (offset,
int_type)]``.  ``F90_REAL/F90_COMPLEX/F90_INTEGER`` types are leaves too.

Nothing here trusts the values: ``validate()`` checks a tree once (cycles,
array lengths, then its depth against max_depth()) and every public entry
point of the model calls it.
"""

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from .errors import TooDeepError, TypeTreeError

# How deep a tree the model shows (levels below the root): far above
# anything MPI programs build (a loop nesting a type in itself gave 70
# levels); a deeper tree is legal but "too deep to show" (TooDeepError).
# The gdb layer changes it with 'set mpipp max-depth', up to the ceiling:
# the recursive walks of the model take a few Python frames per level, so
# they need a recursion limit to match (Python 3.11 runs Python-to-Python
# calls without C recursion; nested generators do use the C stack, and the
# tests run every command on a tree MAX_DEPTH_CEILING deep inside gdb).
DEFAULT_MAX_DEPTH = 1000
MAX_DEPTH_CEILING = 2000
RECURSION_LIMIT = 8 * MAX_DEPTH_CEILING
_max_depth = [DEFAULT_MAX_DEPTH]


def max_depth():
    return _max_depth[0]


def set_max_depth(levels):
    """The depth validate() accepts from now on (1..MAX_DEPTH_CEILING)."""
    if not 1 <= levels <= MAX_DEPTH_CEILING:
        raise ValueError("max-depth must be 1..%d" % MAX_DEPTH_CEILING)
    _max_depth[0] = levels


class RoomForDeepTrees:
    """`with RoomForDeepTrees():` runs the model's walks with the recursion
    limit they need (RECURSION_LIMIT), then puts the previous limit back.
    The interpreter may be gdb's, shared with every other extension: its
    limit is raised only around the work of the model's callers (the gdb
    layer's entry points: commands, printers, the frame filter, event
    handlers), never for the whole session."""

    __slots__ = ("previous",)

    def __enter__(self):
        self.previous = _raise_recursion_limit()
        return self

    def __exit__(self, *_exc):
        _restore_recursion_limit(self.previous)
        return False


def _raise_recursion_limit():
    """The limit to put back after, or None when it is high enough already."""
    previous = sys.getrecursionlimit()
    if previous >= RECURSION_LIMIT:
        return None
    sys.setrecursionlimit(RECURSION_LIMIT)
    return previous


def _restore_recursion_limit(previous):
    # only the limit set here (code inside may have set its own)
    if previous is not None and sys.getrecursionlimit() == RECURSION_LIMIT:
        sys.setrecursionlimit(previous)


def call_with_room(func, *args):
    """func(*args) inside RoomForDeepTrees, at a fraction of the cost of a
    `with` (the printer lookup calls it for every value gdb prints)."""
    previous = sys.getrecursionlimit()
    if previous >= RECURSION_LIMIT:
        return func(*args)
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        return func(*args)
    finally:
        _restore_recursion_limit(previous)


def with_room_for_deep_trees(func):
    """func, run inside RoomForDeepTrees (a decorator for entry points)."""
    @functools.wraps(func)
    def run(*args):
        return call_with_room(func, *args)
    return run


def iterated_with_room_for_deep_trees(generator):
    """A generator function whose every step runs inside RoomForDeepTrees:
    for a printer's children, which gdb takes one at a time, running other
    code between them."""
    @functools.wraps(generator)
    def steps(*args):
        advance = iter(generator(*args)).__next__
        while True:
            try:
                item = call_with_room(advance)
            except StopIteration:
                return
            yield item
    return steps


LEAF_COMBINERS = frozenset(("NAMED", "F90_REAL", "F90_COMPLEX", "F90_INTEGER"))
_F90_KIND = {"F90_REAL": "float", "F90_COMPLEX": "complex", "F90_INTEGER": "int"}


class _TrueBound:
    """The fields true_lb and true_extent: the value given, or, when none was
    (registry layout 2 does not store them), the value computed from the
    type tree on first use."""

    def __set_name__(self, owner, name):
        self.attr = "_" + name

    def __get__(self, dt, owner=None):
        if dt is None:
            return None                     # the dataclass default: not given
        value = dt.__dict__.get(self.attr)
        if value is None:
            _fill_true_bounds(dt)
            value = dt.__dict__[self.attr]
        return value

    def __set__(self, dt, value):
        dt.__dict__[self.attr] = value


def has_true_bounds(dt):
    """Whether dt's true lb and true extent are known (given, or computed)."""
    return dt.__dict__.get("_true_lb") is not None


def _fill_true_bounds(dt):
    """Computes the true bounds of dt and of every descendant lacking them,
    children first, without recursion (a tree may be max_depth() deep, and each
    level reached through this descriptor would be a C stack frame)."""
    from .typemap import true_bounds  # late: typemap imports us
    validate(dt)                      # cycles and depth are errors, before walking
    stack = [(dt, False)]
    while stack:
        node, children_done = stack.pop()
        if node.__dict__.get("_true_lb") is not None:
            continue
        if not children_done and not node.is_leaf:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children
                         if c.__dict__.get("_true_lb") is None)
            continue
        node.__dict__["_true_lb"], node.__dict__["_true_extent"] = true_bounds(node)


@dataclass
class Constants:
    """Values of the MPI constants that appear inside constructor arguments
    (MPICH defaults; the reader supplies the real ones)."""
    order_c: int = 56
    order_fortran: int = 57
    distribute_block: int = 121
    distribute_cyclic: int = 122
    distribute_none: int = 123
    distribute_dflt_darg: int = -49767


DEFAULT_CONSTANTS = Constants()


@dataclass(eq=False)
class Datatype:
    combiner: str
    integers: Sequence[int] = ()
    addresses: Sequence[int] = ()
    large_counts: Sequence[int] = ()
    children: Sequence["Datatype"] = ()
    size: int = 0
    lb: int = 0
    extent: int = 0
    true_lb: Optional[int] = _TrueBound()
    true_extent: Optional[int] = _TrueBound()
    name: Optional[str] = None
    handle: Optional[int] = None
    committed: bool = False
    freed: bool = False
    serial: int = 0
    created_at: Optional[int] = None
    kind: Optional[str] = None
    members: Optional[Sequence[Any]] = None
    constants: Any = field(default_factory=lambda: DEFAULT_CONSTANTS)
    # size/extents MPI reports that differ from the standard's formula in
    # a way MPI itself defines (typemap.extents_check), or None
    bounds_note: Optional[str] = None
    # model caches (never part of the input)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- classification ---------------------------------------------------
    @property
    def is_leaf(self):
        """Predefined (NAMED) and F90_* types: leaves of the type tree."""
        return self.combiner in LEAF_COMBINERS

    @property
    def is_marker(self):
        """MPI_LB / MPI_UB: no data, no elements."""
        return self.combiner == "NAMED" and self.kind in ("lb", "ub")

    @property
    def basic_kind(self):
        """Kind of a leaf: 'int','uint','float','complex','char','bool',
        'byte','packed','pair','lb','ub' (None for derived types)."""
        if self.combiner == "NAMED":
            return self.kind
        return _F90_KIND.get(self.combiner)

    @property
    def ub(self):
        return self.lb + self.extent

    @property
    def true_ub(self):
        return self.true_lb + self.true_extent

    @property
    def display_name(self):
        """Name for typemaps and signatures: the MPI name when known,
        else e.g. 'MPI_Type_create_f90_real(15,307)' or the combiner."""
        if self.name:
            return self.name
        if self.combiner in _F90_KIND:
            fn = {"F90_REAL": "real", "F90_COMPLEX": "complex",
                  "F90_INTEGER": "integer"}[self.combiner]
            args = ",".join(str(v) for v in self.integers)
            return "MPI_Type_create_f90_%s(%s)" % (fn, args)
        if self.handle is not None:
            return "%s@0x%x" % (self.combiner, self.handle)
        return self.combiner

    @property
    def kind_label(self):
        """The (KIND) shown in long paths: 'DOUBLE' for MPI_DOUBLE, the
        combiner ('STRUCT', 'VECTOR', ...) for derived types."""
        if self.is_leaf:
            if self.name:
                return self.name[4:] if self.name.startswith("MPI_") else self.name
            return self.combiner
        return self.combiner

    def __repr__(self):  # short: trees can be huge
        return "<Datatype %s %s size=%d extent=%d>" % (
            self.combiner, self.name or "", self.size, self.extent)


def validate(dt):
    """Check a whole tree (cycles, constructor arrays) once, caching its
    height, then its depth against max_depth() (which may change: the check
    is against the cached height, so it never depends on what was validated
    before).  Raises TypeTreeError, TooDeepError for a legal tree deeper
    than the limit."""
    if not isinstance(dt, Datatype):
        raise TypeTreeError("not a datatype: %r" % (dt,))
    height = dt._cache.get("height")
    if height is None:
        height = _check_tree(dt)
    if height > _max_depth[0]:
        raise TooDeepError("datatype too deep to show: more than %d levels (set mpipp "
                           "max-depth, up to %d)" % (_max_depth[0], MAX_DEPTH_CEILING))
    return dt


def _check_tree(dt):
    """The height of dt's tree, each node checked once (its height cached);
    a tree deeper than MAX_DEPTH_CEILING is refused before the walk goes
    deeper."""
    from .combiners import get_combiner  # late: combiners imports us

    on_stack = set()

    def visit(node, depth):
        height = node._cache.get("height")
        if height is not None:
            return height
        if depth > MAX_DEPTH_CEILING:
            raise TooDeepError("datatype too deep to show: more than %d levels (the most "
                               "set mpipp max-depth allows)" % MAX_DEPTH_CEILING)
        if id(node) in on_stack:
            raise TypeTreeError("datatype tree is cyclic at %s" % node.display_name)
        if not isinstance(node, Datatype):
            raise TypeTreeError("datatype child is not a datatype: %r" % (node,))
        on_stack.add(id(node))
        get_combiner(node.combiner).parse(node)   # raises TypeTreeError on inconsistent arrays
        height = 0
        for child in node.children if not node.is_leaf else ():
            height = max(height, 1 + visit(child, depth + 1))
        on_stack.discard(id(node))
        node._cache["height"] = height
        return height

    return visit(dt, 0)
