"""A buffer as its contiguous runs of bytes, and byte-built types read as
something else (``mpipp -as TYPE``).

Libraries that move raw bytes -- HDF5 builds every memory and file type
from MPI_BYTE, chains of ``resized(hindexed(1, vector(..., contiguous(n,
MPI_BYTE))))`` -- describe a 4 MB array of doubles as 4 million one-byte
elements.  What matters there is which bytes are touched:

* ``contiguous_runs(dt, count)`` yields the maximal runs of consecutive
  bytes the buffer's elements cover, in typemap order, from the compressed
  typemap: its cost grows with the number of runs, never with bytes (the
  4 MB HDF5 buffer of a 512 × 1024 block is 512 runs).
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

from .datatype import Datatype, validate
from .errors import TypeTreeError
from .typemap import Leaf, compute_extents, typemap_runs

MAX_RUNS = 1 << 22
YIELD_EVERY = 4096      # runs found between two hand-outs of contiguous_runs


def _leaf_spans(basic):
    """[(offset, length)] of the bytes one element covers."""
    if basic.basic_kind == "pair" and basic.members:
        return [(off, member.size) for off, member in basic.members]
    return [(0, basic.size)] if basic.size > 0 else []


class _Merger:
    """Collects (offset, length) pieces into maximal runs, in order."""

    def __init__(self):
        self.runs = []
        self.start = self.end = None

    def add(self, offset, length):
        if length <= 0:
            return
        if self.end == offset:
            self.end += length
            return
        self.flush()
        self.start, self.end = offset, offset + length

    def flush(self):
        if self.start is not None:
            self.runs.append((self.start, self.end - self.start))
            if len(self.runs) > MAX_RUNS:
                raise TypeTreeError("more than %d contiguous runs: too scattered to read "
                                    "as runs" % MAX_RUNS)
            self.start = self.end = None

    def take(self):
        """The runs collected so far (the last one still open is kept)."""
        out, self.runs = self.runs, []
        return out


def _span_of(body, cache):
    """L when one copy of body covers exactly [0, L) in order (so copies at
    stride L are one run), else None."""
    key = id(body)
    if key not in cache:
        merger = _Merger()
        for _ in _expand(body, 0, merger, cache):
            pass
        merger.flush()
        runs = merger.take()
        cache[key] = runs[0][1] if len(runs) == 1 and runs[0][0] == 0 else None
    return cache[key]


def _expand(entries, base, merger, cache):
    """Feeds the bytes of compressed entries to merger; yields now and then
    so that callers can hand out finished runs (bounded memory)."""
    for e in entries:
        if type(e) is Leaf:
            for off, length in _leaf_spans(e.basic):
                merger.add(base + e.offset + off, length)
            continue
        if e.count <= 0:
            continue
        span = _span_of(e.body, cache)
        start = base + e.offset
        if span is not None and span == e.stride:
            merger.add(start, e.count * span)
        elif span is not None:          # one run per copy (rows of an array)
            add = merger.add
            for k in range(e.count):
                add(start + k * e.stride, span)
                if k % YIELD_EVERY == YIELD_EVERY - 1:
                    yield
        else:
            for k in range(e.count):
                yield from _expand(e.body, start + k * e.stride, merger, cache)
                yield


def contiguous_runs(dt, count=1):
    """(offset, length) of every maximal run of consecutive bytes the
    buffer's elements cover, in typemap order."""
    validate(dt)
    merger, cache = _Merger(), {}
    for _ in _expand(typemap_runs(dt, count), 0, merger, cache):
        yield from merger.take()
    merger.flush()
    yield from merger.take()


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
    a remainder."""
    step = element.extent
    if step <= 0 or element.size <= 0:
        raise TypeTreeError("%s has no data to read runs as" % element.display_name)
    blocks = []          # (displacement, blocklength, type)
    for offset, length in contiguous_runs(dt, count):
        whole = length // step
        if whole:
            blocks.append((offset, whole, element))
        if length % step:
            blocks.append((offset + whole * step, length % step, remainder))
    uniform = all(t is element for _d, _b, t in blocks)
    return derived("HINDEXED" if uniform else "STRUCT",
                   [element] if uniform else [t for _d, _b, t in blocks],
                   [len(blocks)] + [b for _d, b, _t in blocks], [d for d, _b, _t in blocks],
                   dt.constants, "%s as %s" % (dt.name or "runs", element.display_name))
