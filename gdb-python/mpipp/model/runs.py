"""A buffer as its contiguous runs of bytes, and byte-built types read as
something else (``mpipp -as TYPE``).

Libraries that move raw bytes -- HDF5 builds every memory and file type
from MPI_BYTE, chains of ``resized(hindexed(1, vector(..., contiguous(n,
MPI_BYTE))))`` -- describe a 4 MB array of doubles as 4 million one-byte
elements.  What matters there is which bytes are touched:

* ``contiguous_runs(dt, count)`` yields the maximal runs of consecutive
  bytes the buffer's elements cover, in typemap order, from the compressed
  typemap: its cost grows with the number of runs, never with bytes (the
  4 MB HDF5 buffer of a 512 × 1024 block is 512 runs).  A type of blocks
  of basic types (an indexed type of 10**6 blocks) gives its runs straight
  from its block arrays: no typemap is compressed, a tuple per block.
* ``reinterpret(dt, count, element)`` is a datatype whose elements are
  those runs read as ``element`` (MPI_DOUBLE, a C struct, any datatype):
  block k holds run k, cut into elements of that type (a remainder shorter
  than one is its bytes).  Decoding, dumping, comparing and drawing it are
  then the model's usual fast paths over long runs of one type; paths are
  ``[0][k][j]``: element j of run k.

Gaps between the elements of a run are not bytes of the run: a run is
bytes the buffer's typemap covers one after the other.  Elements that
cover bytes twice (a negative or zero stride) start a new run.
"""

from itertools import islice

from .combiners import layout
from .datatype import Datatype, validate
from .errors import TypeTreeError
from .typemap import Extents, Leaf, _sticky, compute_extents, typemap_runs

# A type read as runs is a datatype of one block per run (two when a run
# ends in a remainder): beyond this many runs it would take gigabytes.
MAX_RUNS = 1 << 22


def _leaf_spans(basic):
    """((offset, length), ...) of the bytes one element covers."""
    if basic.basic_kind == "pair" and basic.members:
        return tuple((off, member.size) for off, member in basic.members if member.size > 0)
    return ((0, basic.size),) if basic.size > 0 else ()


def _spans(basic, cache):
    """_leaf_spans of a basic type, once per type (cache: one walk's)."""
    spans = cache.get(id(basic))
    if spans is None:
        spans = cache[id(basic)] = _leaf_spans(basic)
    return spans


def _span_of(body, cache):
    """L when one copy of body covers exactly [0, L) in order (so copies at
    stride L are one run), else None.  A body of one basic element (the
    blocks of an indexed type: a million of them, each its own tuple) is
    answered from its type alone; others are walked once (cache: by the
    body's identity: the entries stay alive for the walk)."""
    if len(body) == 1 and type(body[0]) is Leaf:
        if body[0].offset:
            return None
        spans = _spans(body[0].basic, cache)
        return spans[0][1] if len(spans) == 1 and spans[0][0] == 0 else None
    key = ("body", id(body))
    if key not in cache:             # up to its second run: a gap ends the walk
        runs = list(islice(_merged(_pieces(body, 0, cache)), 2))
        cache[key] = runs[0][1] if len(runs) == 1 and runs[0][0] == 0 else None
    return cache[key]


def _pieces(entries, base, cache):
    """(offset, length) of the bytes compressed entries cover, in typemap
    order (pieces that touch are not merged yet).  A repetition whose copy
    is one run costs one piece per copy, or one piece in all when the
    copies touch: the cost follows the entries, not the bytes.  (The
    blocks of one basic type are answered inline: an indexed type of 10**6
    blocks is 10**6 of them.)"""
    for e in entries:
        if type(e) is Leaf:
            spans = cache.get(id(e.basic)) or _spans(e.basic, cache)
            offset = base + e.offset
            for off, length in spans:
                yield offset + off, length
            continue
        count = e.count
        if count <= 0:
            continue
        body = e.body
        if len(body) == 1 and type(body[0]) is Leaf and not body[0].offset:
            spans = cache.get(id(body[0].basic)) or _spans(body[0].basic, cache)
            span = spans[0][1] if len(spans) == 1 and not spans[0][0] else None
        else:
            span = _span_of(body, cache)
        start, stride = base + e.offset, e.stride
        if span is not None and span == stride:
            yield start, count * span
        elif span is not None:          # one run per copy (rows of an array)
            for k in range(count):
                yield start + k * stride, span
        else:
            for k in range(count):
                yield from _pieces(body, start + k * stride, cache)


def _merged(pieces):
    """Maximal runs of pieces: a piece that starts where the last ended
    extends it."""
    start = end = None
    for offset, length in pieces:
        if offset == end:
            end += length
            continue
        if start is not None:
            yield start, end - start
        start, end = offset, offset + length
    if start is not None:
        yield start, end - start


def contiguous_runs(dt, count=1):
    """(offset, length) of every maximal run of consecutive bytes the
    buffer's elements cover, in typemap order, as the walk finds them
    (memory stays bounded whatever the number of runs)."""
    validate(dt)
    arrays = _basic_blocks(dt)
    if arrays is not None:
        return _merged(_repeated(arrays, count, dt.extent))
    return _merged(_pieces(typemap_runs(dt, count), 0, {}))


def _basic_blocks(dt):
    """The block arrays (byte displacements, blocklengths, children) of an
    indexed, hindexed or struct type of basic types -- the types of 10**6
    blocks --, or None.  Their runs come from the arrays: compressing the
    typemap first would make a tuple or two per block (seconds for 10**6)."""
    if dt.is_leaf or dt.combiner not in _BLOCK_COMBINERS:
        return None
    node = layout(dt)
    if len(node) <= 3:
        return None
    kids = node[3][2]
    if not all(kid.is_leaf for kid in {id(kid): kid for kid in kids}.values()):
        return None
    return node[3]


_BLOCK_COMBINERS = frozenset(("INDEXED", "HINDEXED", "HINDEXED_INTEGER", "INDEXED_BLOCK",
                              "HINDEXED_BLOCK", "STRUCT", "STRUCT_INTEGER"))


def _block_pieces(arrays, base, cache):
    """The pieces of one copy of a type of blocks of basic types, at base."""
    for d, n, t in zip(*arrays):
        if n <= 0:
            continue
        spans = cache.get(id(t)) or _spans(t, cache)
        ext = t.extent
        if len(spans) == 1 and spans[0] == (0, ext):
            yield base + d, n * ext           # the block is one run
            continue
        for j in range(n):
            at = base + d + j * ext
            for off, length in spans:
                yield at + off, length


def _repeated(arrays, count, extent):
    """The pieces of count copies, extent apart: one piece when a copy is
    one run of extent bytes (the copies touch), else each copy's."""
    cache = {}
    if count > 1:
        first = list(islice(_merged(_block_pieces(arrays, 0, cache)), 2))
        if len(first) == 1 and first[0] == (0, extent):
            yield 0, count * extent
            return
    for k in range(count):
        yield from _block_pieces(arrays, k * extent, cache)


def derived(combiner, children, integers=(), addresses=(), constants=None, name=None):
    """A committed derived Datatype made here (not by the program), its
    size and extents computed from the tree as MPI would."""
    dt = Datatype(combiner, integers=list(integers), addresses=list(addresses),
                  children=list(children), name=name)
    if constants is not None:
        dt.constants = constants
    e = compute_extents(dt)
    dt.size, dt.lb, dt.extent = e.size, e.lb, e.extent
    dt.true_lb, dt.true_extent = e.true_lb, e.true_extent
    dt.committed = True
    return dt


def reinterpret(dt, count, element, remainder):
    """A datatype whose block k is run k of dt × count cut into elements of
    `element` (a Datatype; its extent is the step), the bytes after the
    last whole element as elements of `remainder` (MPI_BYTE), named
    '<dt> as <element>'.  An hindexed type, or a struct when some run has
    a remainder.  Its arrays and bounds are made by list operations over
    the runs (a type of 10**6 blocks is up to 10**6 runs)."""
    step = element.extent
    if step <= 0 or element.size <= 0:
        raise TypeTreeError("%s has no data to read runs as" % element.display_name)
    runs = list(islice(contiguous_runs(dt, count), MAX_RUNS + 1))
    if len(runs) > MAX_RUNS:
        raise TypeTreeError("more than %d contiguous runs: too scattered to read as runs"
                            % MAX_RUNS)
    name = "%s as %s" % (dt.name or "runs", element.display_name)
    if not any(length % step for _offset, length in runs):
        disps = [offset for offset, _length in runs]
        lengths = [length // step for _offset, length in runs]
        kids = [element]
        combiner = "HINDEXED"
    else:
        disps, lengths, kids = _cut(runs, step, element, remainder)
        combiner = "STRUCT"
    del runs
    out = Datatype(combiner, integers=[len(disps)] + lengths, addresses=disps, children=kids,
                   name=name, constants=dt.constants, committed=True)
    if _sticky(element) != (False, False):
        bounds = compute_extents(out)       # markers: MPI's rules for them
    elif combiner == "HINDEXED":
        bounds = _uniform_bounds(disps, lengths, element)
    else:
        bounds = _blocks_bounds(disps, lengths, kids)
    out.size, out.lb, out.extent = bounds.size, bounds.lb, bounds.extent
    out.true_lb, out.true_extent = bounds.true_lb, bounds.true_extent
    return out


def _cut(runs, step, element, remainder):
    """(displacements, blocklengths, types) of runs cut into elements of
    step bytes, each run's remainder a block of `remainder`."""
    disps, lengths, kids = [], [], []
    for offset, length in runs:
        whole, rest = divmod(length, step)
        if whole:
            disps.append(offset)
            lengths.append(whole)
            kids.append(element)
        if rest:
            disps.append(offset + whole * step)
            lengths.append(rest)
            kids.append(remainder)
    return disps, lengths, kids


def _uniform_bounds(disps, lengths, t):
    """compute_extents of blocks of one child t without markers."""
    if not disps:
        return Extents(0, 0, 0, 0, 0, 0, 0)
    ext = t.extent
    first = min(disps)
    last = max([d + (n - 1) * ext for d, n in zip(disps, lengths)])
    lb, ub = first + t.lb, last + t.ub
    true_lb, true_ub = first + t.true_lb, last + t.true_ub
    return Extents(sum(lengths) * t.size, lb, ub, ub - lb, true_lb, true_ub, true_ub - true_lb)


def _blocks_bounds(disps, lengths, kids):
    """compute_extents of blocks of children without markers, copy j of a
    block's child at disp + j * its extent (positive extents)."""
    lo = hi = true_lo = true_hi = None
    size = 0
    for d, n, t in zip(disps, lengths, kids):
        last = d + (n - 1) * t.extent
        size += n * t.size
        if lo is None or d + t.lb < lo:
            lo = d + t.lb
        if hi is None or last + t.ub > hi:
            hi = last + t.ub
        if true_lo is None or d + t.true_lb < true_lo:
            true_lo = d + t.true_lb
        if true_hi is None or last + t.true_ub > true_hi:
            true_hi = last + t.true_ub
    if lo is None:
        return Extents(0, 0, 0, 0, 0, 0, 0)
    return Extents(size, lo, hi, hi - lo, true_lo, true_hi, true_hi - true_lo)
