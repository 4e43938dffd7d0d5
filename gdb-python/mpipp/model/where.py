"""Which elements of a buffer hold a byte, by arithmetic on the type tree.

``locate(dt, count, offset)`` walks the layout program of the buffer (see
combiners) from the root.  At a loop (contiguous, vector, the blocks of a
vector, subarray and darray dimensions, resized, dup) the iterations whose
data can hold the byte are found by division: with the data of one
iteration spanning [lo, hi) and iteration v shifted by v*stride bytes, they
are those with lo + v*stride <= x < hi + v*stride.  At an indexed or struct
node the blocks are bisected in their displacements, sorted once per type.
So a lookup costs O(depth) for types whose iterations or blocks do not
overlap, whatever their counts.  Types may map several elements onto the
same byte (vector(n, 1, 0, t), hvector with a stride shorter than the
child): every element holding the byte is counted, arithmetically when the
iterations are identical (stride 0), and the first ``limit`` of them, in
typemap order, are listed.  The iterations just before and after the byte
give the nearest elements when it falls in a gap.

Result: ``Location`` (see its doc).  The number of overlapping iterations
examined at one loop is capped (MAX_OVERLAP): beyond it ``holders_total`` is
None (more holders than were counted).
"""

import bisect
import itertools
from collections import namedtuple

from . import combiners
from .basics import element_span
from .combiners import buffer_type, layout
from .datatype import validate
from .paths import format_path
from .typemap import data_bytes

DEFAULT_LIMIT = 10
MAX_OVERLAP = 4096

Holder = namedtuple("Holder", "path element_offset basic")

Location = namedtuple("Location", "where path offset_in_element basic element_offset "
                                  "prev_path next_path prev_end next_start holders "
                                  "holders_total")
Location.__doc__ = """where: 'inside' (the byte is data: path, basic and
element_offset name the first element holding it in typemap order,
offset_in_element the byte's place in it; holders lists the first ``limit``
holders and holders_total counts them all, None when more were found than
counted), 'gap' (between prev_path, whose bytes end at prev_end, and
next_path, starting at next_start), 'before' (before every element; next_*
set), 'after' (past every element; prev_* set) or 'empty' (no elements)."""


class _Found:
    """What a walk below one node found for the target byte t (absolute)."""

    __slots__ = ("holders", "total", "exact", "prev", "next")

    def __init__(self):
        self.holders = []       # Holder, typemap order, at most limit
        self.total = 0          # holders counted
        self.exact = True       # total counts every holder
        self.prev = None        # (end, start, path): the element ending last at or before t
        self.next = None        # (start, path): the element starting first after t

    def add(self, other, limit):
        """Merge the result of a later part of the typemap."""
        room = limit - len(self.holders)
        if room > 0:
            self.holders.extend(other.holders[:room])
        self.total += other.total
        self.exact = self.exact and other.exact
        if other.prev is not None and (self.prev is None or other.prev[0] > self.prev[0]):
            self.prev = other.prev
        if other.next is not None and (self.next is None or other.next[0] < self.next[0]):
            self.next = other.next


class _Walk:
    """One lookup: the target byte, the holder limit, per-node caches."""

    def __init__(self, target, limit):
        self.t = target
        self.limit = limit
        self.spans = {}         # id(node) -> (node, data span)

    # -- spans -------------------------------------------------------------

    def span(self, node):
        """[lo, hi) of the data of a program relative to its offset, or None."""
        got = self.spans.get(id(node))
        if got is None:
            got = self.spans[id(node)] = (node, self._span(node))
        return got[1]

    def _span(self, node):
        tag = node[0]
        if tag == "C":
            return _child_span(node[1])
        if tag == "L":
            _, count, bs, _slot, _ist, boff, _ib, body = node
            sp = self.span(body)
            if sp is None or count <= 0:
                return None
            last = (count - 1) * bs
            return sp[0] + boff + min(0, last), sp[1] + boff + max(0, last)
        if len(node) > 3:
            return self.block_index(node[3]).span
        spans = [s for s in (self.span(node[2](i)) for i in range(node[1])) if s is not None]
        if not spans:
            return None
        return min(s[0] for s in spans), max(s[1] for s in spans)

    @staticmethod
    def block_index(arrays):
        """The _BlockIndex of a type's block arrays, built once per type."""
        got = arrays.derived.get("where")
        if got is None:
            got = arrays.derived["where"] = _BlockIndex(arrays)
        return got

    # -- the walk ----------------------------------------------------------

    def node(self, node, P, loc, off):
        tag = node[0]
        if tag == "L":
            return self.loop(node, P, loc, off)
        if tag == "S":
            if len(node) > 3:
                return self.blocks(node[3], P, off)
            found = _Found()
            for i in range(node[1]):
                found.add(self.node(node[2](i), P, loc, off), self.limit)
            return found
        return self.child(node[1], P + tuple(loc), off)

    def child(self, dt, path, off):
        if not dt.is_leaf:
            return self.node(layout(dt), path, [0] * combiners.n_stages(dt), off)
        found = _Found()
        if dt.is_marker:
            return found
        end = off + element_span(dt)
        if off <= self.t < end:
            found.holders.append(Holder(path, off, dt))
            found.total = 1
        elif end <= self.t:
            found.prev = (end, off, path)
        else:
            found.next = (off, path)
        return found

    def loop(self, node, P, loc, off):
        _, count, bs, slot, ist, boff, ibase, body = node
        found = _Found()
        sp = self.span(body) if count > 0 else None
        if sp is None:
            return found
        o0 = off + boff
        saved = loc[slot]

        def at(v):
            loc[slot] = saved + ibase + v * ist
            try:
                return self.node(body, P, loc, o0 + v * bs)
            finally:
                loc[slot] = saved

        x = self.t - o0
        if bs == 0:
            # identical iterations: one walk finds what each holds (so nested
            # stride-0 loops -- resized, dup, darray BLOCK dimensions -- cost
            # one walk each); iteration v holds iteration 0's elements with
            # index v at this stage
            first = at(0)
            found.prev, found.next = first.prev, first.next
            found.total = count * first.total
            found.exact = first.exact
            found.holders = _repeated(first.holders, count, len(P) + slot, ist, self.limit)
            return found
        lo, hi = sp
        if bs > 0:
            first = -((hi - x - 1) // bs)         # smallest v with hi + v*bs > x
            last = (x - lo) // bs                  # largest v with lo + v*bs <= x
            # the nearest iterations wholly before / after x: their last /
            # first element is the nearest element on that side
            before = min(first - 1, count - 1) if first > 0 else None
            after = max(last + 1, 0) if last + 1 < count else None
        else:
            c = -bs
            first = -((x - lo) // c)               # smallest v with lo + v*bs <= x
            last = -((x - hi) // c) - 1            # largest v with hi + v*bs > x
            before = max(last + 1, 0) if last + 1 < count else None
            after = min(first - 1, count - 1) if first > 0 else None
        first, last = max(first, 0), min(last, count - 1)
        holding = range(first, last + 1)
        if len(holding) > MAX_OVERLAP:
            holding = holding[:MAX_OVERLAP]
            found.exact = False
        for v in holding:
            found.add(at(v), self.limit)
        if not found.total:
            # the nearest elements matter only when nothing holds the byte
            for v in (before, after):
                if v is not None:
                    found.add(_neighbours(at(v)), self.limit)
        return found

    def blocks(self, arrays, P, off):
        """Indexed / struct blocks (block i: blocklength i children at
        displacement i, path [i][j]), by bisection."""
        index = self.block_index(arrays)
        disps, bls, kids = arrays
        found = _Found()
        x = self.t - off
        holding, complete, before, after = index.around(x)
        for i in sorted(holding):
            found.add(self.block(i, disps, bls, kids, P, off), self.limit)
        if not found.total:
            for i in sorted(set(n for n in (before, after) if n is not None) - set(holding)):
                found.add(_neighbours(self.block(i, disps, bls, kids, P, off)), self.limit)
        found.exact = found.exact and complete
        return found

    def block(self, i, disps, bls, kids, P, off):
        t = kids[i]
        return self.loop(("L", bls[i], t.extent, 1, 1, disps[i], 0, ("C", t)), P, [i, 0], off)


def _repeated(holders, count, pos, step, limit):
    """The first ``limit`` holders of ``count`` identical iterations, in
    typemap order, from those of iteration 0 (path index pos + v*step)."""
    out = list(holders[:limit])
    v = 1
    while holders and len(out) < limit and v < count:
        for h in holders[:limit - len(out)]:
            shifted = h.path[:pos] + (h.path[pos] + v * step,) + h.path[pos + 1:]
            out.append(h._replace(path=shifted))
        v += 1
    return out


def _neighbours(found):
    """Only the nearest elements of a walk (a neighbour holds nothing)."""
    near = _Found()
    near.prev, near.next = found.prev, found.next
    return near


def _child_span(dt):
    # the standard's bytes, not MPI's size: MPI says 0 for 2**65 bytes
    if dt.is_marker or data_bytes(dt) == 0:
        return None
    if dt.is_leaf:
        return 0, element_span(dt)
    return dt.true_lb, dt.true_lb + dt.true_extent


class _BlockIndex:
    """The data spans of an indexed/struct node's blocks, sorted once per
    type: by start (with the running maximum of the ends, to find every
    block holding a byte) and by end (for the nearest block before it).
    Built with list operations over the arrays (10**6 blocks: a fraction
    of a second); sorting costs little when the displacements come in
    order, as they mostly do."""

    def __init__(self, arrays):
        lo, hi = _block_bounds(*arrays)
        blocks = [i for i, v in enumerate(lo) if v is not None] if None in lo \
            else range(len(lo))
        self.hi = hi
        self.start_order = sorted(blocks, key=lo.__getitem__)
        self.starts = [lo[i] for i in self.start_order]
        self.reach = list(itertools.accumulate(map(hi.__getitem__, self.start_order), max))
        self.end_order = sorted(blocks, key=hi.__getitem__)
        self.ends = [hi[i] for i in self.end_order]
        self.span = (self.starts[0], self.reach[-1]) if self.starts else None

    def around(self, x):
        """(blocks whose span holds x, whether that list is complete, the
        block ending last at or before x, the block starting first after
        x) -- block indices.  At most MAX_OVERLAP blocks are examined."""
        k = bisect.bisect_right(self.starts, x)
        holding = []
        j = k - 1
        while j >= 0 and self.reach[j] > x and k - j <= MAX_OVERLAP:
            if self.hi[self.start_order[j]] > x:
                holding.append(self.start_order[j])
            j -= 1
        complete = j < 0 or self.reach[j] <= x
        e = bisect.bisect_right(self.ends, x)
        before = self.end_order[e - 1] if e else None
        after = self.start_order[k] if k < len(self.start_order) else None
        return holding, complete, before, after


def _block_bounds(disps, bls, kids):
    """([lo], [hi]): per block the bytes [lo, hi) its data spans, None for a
    block without data; one pass per distinct child type (an indexed type
    has one)."""
    n = len(disps)
    if n and kids.count(kids[0]) == n:
        groups = [(kids[0], range(n))]
    else:
        by_kid = {}
        for i, t in enumerate(kids):
            by_kid.setdefault(id(t), (t, []))[1].append(i)
        groups = list(by_kid.values())
    lo, hi = [None] * n, [None] * n
    for kid, mine in groups:
        span, ext = _child_span(kid), kid.extent
        if span is None:
            continue
        a, b = span
        # the first and the last instance of a block of bl children
        a_at, b_at = (0, ext) if ext >= 0 else (ext, 0)
        if len(mine) == n:
            lo = [d + a + (bl - 1) * a_at if bl > 0 else None for d, bl in zip(disps, bls)]
            hi = [d + b + (bl - 1) * b_at if bl > 0 else None for d, bl in zip(disps, bls)]
            continue
        for i in mine:
            bl = bls[i]
            if bl > 0:
                lo[i] = disps[i] + a + (bl - 1) * a_at
                hi[i] = disps[i] + b + (bl - 1) * b_at
    return lo, hi


def locate(dt, count, offset, limit=DEFAULT_LIMIT):
    """Which elements of a buffer of count elements hold byte ``offset``
    (relative to the buffer start); see Location."""
    validate(dt)
    walk = _Walk(offset, max(1, limit))
    found = walk.node(layout(buffer_type(dt, count)), (), [0], 0)
    if found.holders:
        path, eoff, basic = found.holders[0]
        return Location("inside", path, offset - eoff, basic, eoff, None, None, None, None,
                        tuple(found.holders), found.total if found.exact else None)
    prev, nxt = found.prev, found.next
    if prev is None and nxt is None:
        return Location("empty", None, None, None, None, None, None, None, None, (), 0)
    where = "gap" if prev and nxt else ("before" if nxt else "after")
    return Location(where, None, None, None, None,
                    prev[2] if prev else None, nxt[1] if nxt else None,
                    prev[0] if prev else None, nxt[0] if nxt else None, (), 0)


def describe_location(loc):
    """One-line text for a Location."""
    if loc.where == "inside":
        first = "%s (%s) +%d" % (format_path(loc.path), loc.basic.display_name,
                                 loc.offset_in_element)
        if len(loc.holders) <= 1 and loc.holders_total == 1:
            return first
        # not counted to the end: past MAX_OVERLAP iterations over the byte
        # only the holders listed are known to be there
        total = ("%d elements" % loc.holders_total if loc.holders_total is not None
                 else "at least %d element%s" % (len(loc.holders),
                                                  "" if len(loc.holders) == 1 else "s"))
        shown = ", ".join("%s (%s) +%d" % (format_path(h.path), h.basic.display_name,
                                           loc.element_offset + loc.offset_in_element
                                           - h.element_offset) for h in loc.holders)
        more = "" if loc.holders_total == len(loc.holders) else ", ..."
        return "held by %s: %s%s" % (total, shown, more)
    if loc.where == "gap":
        return "gap between %s and %s" % (format_path(loc.prev_path), format_path(loc.next_path))
    if loc.where == "before":
        return "before the first element %s" % format_path(loc.next_path)
    if loc.where == "after":
        return "after the last element %s" % format_path(loc.prev_path)
    return "in no element (the buffer has none)"
