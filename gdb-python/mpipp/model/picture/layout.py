"""The picture of a buffer's datatype, as data for the renderers.

Byte pictures.  The bytes from min(lb, true lb) to max(ub, true ub) of
COUNT repetitions are cut into cells of ``unit`` bytes (the largest unit
that keeps every element, hole and marker on cell boundaries: one cell per
element when all elements are alike, per byte otherwise) and laid out in
rows.  A buffer of repetitions, or a type that is one loop of a block (a
vector's blocks, a contiguous of structs), gets one row per repetition, so
a vector looks like the matrix column it describes; anything else wraps at
the width.  Each row holds Segments: runs of adjacent elements of one
basic type.  Long pictures are summarised: rows past ``max_rows`` are one
Gap (identical repetitions, or rows not drawn), and only the runs of the
rows drawn are visited, so a 10**6-element type costs no more than its
repetition template.

Grid pictures.  A 2-D subarray or darray is drawn as the array it selects
from: ``Grid`` with the selected indices of each dimension (a subarray's
range, the global indices a darray gives this rank); each grid cell may
stand for a block of array elements when the array is larger than the
space.
"""

from bisect import bisect_left
from collections import namedtuple
from math import gcd

from .. import combiners
from ..combiners import buffer_type
from ..datatype import validate
from ..elements import internal_runs, periodic_plan
from ..paths import format_path, shift_index
from ..typemap import n_elements

Key = namedtuple("Key", "letter name size")
Segment = namedtuple("Segment", "cell ncells key n per full vpos offset")
Segment.__doc__ = """cell: first cell in the row; ncells; key: index into
Picture.keys; n elements of per cells each; element k has path full with
full[vpos] + k and byte offset offset + k * per * unit."""
Row = namedtuple("Row", "offset label cells segments")
Gap = namedtuple("Gap", "rows first_offset last_offset periodic")
Marker = namedtuple("Marker", "name offset")
Grid = namedtuple("Grid", "shape selected block key strides")
Grid.__doc__ = """shape: (rows, columns) of the array (its two dimensions in
constructor order); selected: (Selection of the rows, Selection of the
columns); block: (rows, columns) of array elements per drawn cell;
key: index of the element's Key; strides: bytes from one row / column to
the next in memory (the order argument decides which is contiguous)."""

MAX_RUNS = 20000          # runs visited for a picture without repetitions
TEMPLATE_RUNS = 4096      # runs of one repetition drawn as rows


class Picture:
    """What a renderer draws.  title: one line; facts: [(name, value)];
    unit: bytes per cell; row_cells: cells per row; rows: Row and Gap items;
    keys: [Key]; markers: [Marker] (offsets relative to the buffer start);
    grid: Grid or None; note: text about what was not drawn, or None."""

    def __init__(self, title, facts, unit=1, row_cells=0, rows=(), keys=(), markers=(),
                 grid=None, note=None):
        self.title, self.facts = title, facts
        self.unit, self.row_cells = unit, row_cells
        self.rows, self.keys, self.markers = list(rows), list(keys), list(markers)
        self.grid, self.note = grid, note

    def cell_of(self, row, offset):
        """Cell index of a byte offset in a row (may be row_cells: the end)."""
        return (offset - row.offset) // self.unit

    def row_markers(self, row):
        """[(cell, [Marker])] of the markers drawn in a row, by cell: a
        start marker (lb, true_lb) at its first byte, an end marker (ub,
        true_ub) at the byte after its last."""
        end = row.offset + row.cells * self.unit
        at = {}
        for m in self.markers:
            starts = m.name in ("lb", "true_lb")
            if (row.offset <= m.offset < end) if starts else (row.offset < m.offset <= end):
                at.setdefault(self.cell_of(row, m.offset), []).append(m)
        return sorted(at.items())


def _keys_for(basics):
    """A Key per basic type (first appearance order) with distinct letters."""
    keys, index, used = [], {}, set()
    for basic in basics:
        name = basic.display_name
        if name in index:
            continue
        short = name[4:] if name.startswith("MPI_") else name
        candidates = [c for c in short.lower() if c.isalpha()] + list("abcdefghijklmnopqrstuvwxyz")
        letter = next((c for c in candidates if c not in used), "?")
        used.add(letter)
        index[name] = len(keys)
        keys.append(Key(letter, name, basic.size))
    return keys, index


def _facts(dt, count):
    root = buffer_type(dt, count)
    return [("size", dt.size), ("lb", dt.lb), ("extent", dt.extent), ("true_lb", dt.true_lb),
            ("true_extent", dt.true_extent), ("elements", n_elements(root, 1))] + (
        [("count", count), ("buffer extent", root.extent)] if count != 1 else [])


def _markers(dt):
    return [Marker("lb", dt.lb), Marker("true_lb", dt.true_lb),
            Marker("ub", dt.lb + dt.extent), Marker("true_ub", dt.true_lb + dt.true_extent)]


def _title(dt, count):
    return "%s%s: %s" % (dt.display_name, " × %d" % count if count != 1 else "",
                         "predefined" if dt.is_leaf else dt.combiner.lower())


def build(dt, count=1, *, width=80, max_rows=24, title=None):
    """The Picture of ``count`` repetitions of dt for ``width`` cells a row
    (title: the first line, by default the type's name and constructor)."""
    validate(dt)
    title = title or _title(dt, count)
    grid = _grid_of(dt)
    if grid is not None:
        return grid_picture(dt, count, grid, width, max_rows, title)
    return byte_picture(dt, count, width, max_rows, title)


# ---------------------------------------------------------------- bytes

def _run_pieces(run, lo_cut, hi_cut):
    """(k0, n) ranges of a run's elements whose first byte lies in [lo_cut, hi_cut)."""
    _full, _vpos, off, basic, n, stride = run
    if n <= 0:
        return []
    if stride == 0:
        # elements on the same bytes: two show the overlap as well as 10**8
        return [(0, min(n, 2))] if lo_cut <= off < hi_cut else []
    if stride > 0:
        k0 = max(0, -(-(lo_cut - off) // stride))
        k1 = min(n, -(-(hi_cut - off) // stride))
    else:
        k0 = max(0, (off - hi_cut) // -stride + 1)
        k1 = min(n, (off - lo_cut) // -stride + 1)
    return [(k0, k1 - k0)] if k1 > k0 else []


def byte_picture(dt, count, width, max_rows, title):
    root = buffer_type(dt, count)
    facts = _facts(dt, count)
    markers = _markers(dt)
    if n_elements(root, 1) == 0:
        return Picture(title, facts, markers=markers,
                       note="no elements: nothing to draw")
    lo = min(root.lb, root.true_lb)
    hi = max(root.lb + root.extent, root.true_lb + root.true_extent)
    if hi <= lo:
        return Picture(title, facts, markers=markers,
                       note="elements of no size: no bytes to draw")
    avail = max(8, width)
    marks = [lo, hi] + [m.offset for m in markers]
    plan = periodic_plan(dt, count, TEMPLATE_RUNS)
    if plan is not None and plan[1] > 0:
        _reps, period, _ipos, _ibase, _istep, runs = plan
        truncated = False
        unit = _unit(runs, marks + [period])
        # a group of whole repetitions, cut into rows_per rows of row_cells
        period_cells = period // unit
        dense = sum(r[3].size * r[4] for r in runs) >= period
        per_group = 1 if period_cells >= 8 or not dense or period_cells * 2 > avail else \
            max(1, min(avail // period_cells, 32 // period_cells))
        group = per_group * period
        rows_per = -(-(group // unit) // avail)
        if rows_per > max_rows // 2:
            plan = None     # one repetition fills more than the picture: draw bytes
    else:
        plan = None
    if plan is None:
        runs, truncated = _first_runs(dt, count)
        unit = _unit(runs, marks)
        group = rows_per = per_group = None
        row_cells = min(avail, -(-(hi - lo) // unit))
    else:
        row_cells = -(-(group // unit) // rows_per)
    keys, key_index = _keys_for(r[3] for r in runs)
    row_bytes = row_cells * unit

    def bounds(r):
        """Bytes [start, end) of row r."""
        if group is None:
            start = lo + r * row_bytes
            return start, min(hi, start + row_bytes)
        g, j = divmod(r, rows_per)
        start = lo + g * group + j * row_bytes
        return start, min(hi, start + row_bytes, lo + (g + 1) * group)

    def row_of(offset):
        if group is None:
            return (offset - lo) // row_bytes
        g, within = divmod(offset - lo, group)
        return g * rows_per + within // row_bytes

    index = _RunIndex(runs)
    n_rows = row_of(hi - 1) + 1
    if n_rows <= max_rows:
        drawn = list(range(n_rows))
    elif group:         # identical repetitions: the first groups and the last
        head = max(1, max_rows // rows_per - 1) * rows_per
        drawn = list(range(head)) + list(range(n_rows - rows_per, n_rows))
    else:               # the first rows holding data (sized by what is drawn)
        drawn = index.first_rows(row_of, max_rows - 1)
    rows = []
    for previous, r in zip([None] + drawn, drawn):
        if previous is not None and r != previous + 1:
            skipped = r - previous - 1
            rows.append(Gap(skipped // rows_per * per_group if group else skipped,
                            bounds(previous)[1], bounds(r)[0], bool(group)))
        start, end = bounds(r)
        rows.append(_row(start, end, unit, index, key_index, plan, lo))
    if drawn[-1] < n_rows - 1:
        rows.append(Gap(n_rows - 1 - drawn[-1], bounds(drawn[-1] + 1)[0], hi, False))
    note = None
    if truncated:
        note = "drawn from the first %d runs of elements" % MAX_RUNS
    return Picture(title, facts, unit, row_cells, rows, keys, markers, note=note)


def _first_runs(dt, count):
    """(runs, truncated): the first MAX_RUNS internal runs of the buffer."""
    runs = []
    for r in internal_runs(dt, count):
        runs.append(r)
        if len(runs) >= MAX_RUNS:
            break
    return runs, len(runs) >= MAX_RUNS


def _unit(runs, offsets):
    g = 0
    for _full, _vpos, off, basic, n, stride in runs:
        g = gcd(g, off, basic.size)
        if n > 1:
            g = gcd(g, stride)
    for o in offsets:
        g = gcd(g, o)
    return max(1, g)


class _RunIndex:
    """The runs sorted by where their bytes start, to find the runs that
    touch a window without visiting all of them."""

    def __init__(self, runs):
        spans = []
        for r in runs:
            _full, _vpos, off, basic, n, stride = r
            first = off + min(0, (n - 1) * stride)
            spans.append((first, off + max(0, (n - 1) * stride) + basic.size, r))
        spans.sort(key=lambda span: span[0])
        self.starts = [span[0] for span in spans]
        self.spans = spans
        self.longest = max((hi - lo for lo, hi, _r in spans), default=0)
        self.first = self.starts[0] if spans else 0
        self.last = max((hi for _lo, hi, _r in spans), default=0)

    def first_rows(self, row_of, n):
        """The first n rows (row_of(byte offset) gives a byte's row) that
        hold bytes of a run, in order: a sparse picture draws its data,
        not the empty rows between (2**62 bytes apart)."""
        rows = set()
        for lo, hi, _r in self.spans:
            first, last = row_of(lo), row_of(hi - 1)
            rows.update(range(first, min(last, first + n) + 1))
            if len(rows) >= n and first > sorted(rows)[n - 1]:
                break
        return sorted(rows)[:n]

    def touching(self, start, end):
        """Runs (typemap order within equal starts) with bytes in [start, end)."""
        a = bisect_left(self.starts, start - self.longest)
        b = bisect_left(self.starts, end)
        return [r for lo, hi, r in self.spans[a:b] if hi > start]


def _row(start, end, unit, runs, key_index, plan, lo):
    """A Row over bytes [start, end): Segments of the runs' elements, which
    are a repetition template when plan is given (periodic_plan)."""
    shifts = [(0, 0)]
    label = None
    if plan is not None:
        reps, period, ipos, ibase, istep, _template = plan
        j_lo = max(0, (start - runs.last) // period)
        j_hi = min(reps - 1, (end - runs.first) // period)
        shifts = [(j * period, j * istep) for j in range(j_lo, j_hi + 1)]
        k0 = (start - lo) // period
        k1 = min(reps, -(-(end - lo) // period)) - 1
        label = format_path(runs.spans[0][2][0][:ipos]) + (
            "[%d]" % (ibase + k0 * istep) if k1 <= k0 else
            "[%d..%d]" % (ibase + k0 * istep, ibase + k1 * istep))
    segs = []
    for byte_shift, index_shift in shifts:
        for full, vpos, off, basic, n, stride in runs.touching(start - byte_shift,
                                                               end - byte_shift):
            if index_shift:
                full = shift_index(full, ipos, index_shift)
            off += byte_shift
            key = key_index[basic.display_name]
            per = max(1, basic.size // unit)
            for k0, m in _run_pieces((full, vpos, off, basic, n, stride),
                                     start - basic.size + 1, end):
                path = shift_index(full, vpos, k0)
                first_off = off + k0 * stride
                if stride == basic.size:
                    segs.append(Segment((first_off - start) // unit, m * per, key, m, per,
                                        path, vpos, first_off))
                    continue
                for j in range(m):
                    o = first_off + j * stride
                    segs.append(Segment((o - start) // unit, per, key, 1, per,
                                        shift_index(path, vpos, j),
                                        vpos, o))
    segs.sort(key=lambda seg: seg.cell)
    return Row(start, label, (end - start) // unit, segs)


# ---------------------------------------------------------------- grids

def _grid_of(dt):
    """(kind, parsed) for a 2-D subarray or darray, else None."""
    if dt.combiner not in ("SUBARRAY", "DARRAY"):
        return None
    p = combiners.combiner_of(dt).parse(dt)
    return p if p["ndims"] == 2 else None


class Selection:
    """The selected indices of one dimension of a grid, as the darray
    model's pieces (nrep, rep_stride, seglen, local_start, first): nrep
    segments of seglen indices, rep_stride apart.  Counted arithmetically:
    a dimension of 2**30 indices costs its number of pieces."""

    def __init__(self, pieces):
        self.pieces = pieces

    def below(self, x):
        """How many selected indices are < x (the local index of x)."""
        n = 0
        for nrep, repg, seg, _lstart, first in self.pieces:
            if x <= first:
                continue
            k = min(nrep - 1, (x - first) // repg) if repg else 0
            n += k * seg + min(seg, x - first - k * repg)
        return n

    def count(self, lo, hi):
        """How many selected indices lie in [lo, hi)."""
        return self.below(hi) - self.below(lo)


def _selected(dt, p, d):
    if dt.combiner == "SUBARRAY":
        return Selection([(1, 0, p["subsizes"][d], 0, p["starts"][d])])
    return Selection(p["pieces"][d])


def grid_picture(dt, count, p, width, max_rows, title):
    sizes = p["sizes"] if dt.combiner == "SUBARRAY" else p["gsizes"]
    child = p["children"][0]
    keys, _ = _keys_for([child] if child.is_leaf else [])
    if not keys:
        keys = [Key("x", child.display_name, child.size)]
    cols_avail = max(4, width // 2)
    block = (max(1, -(-sizes[0] // max_rows)), max(1, -(-sizes[1] // cols_avail)))
    grid = Grid((sizes[0], sizes[1]), (_selected(dt, p, 0), _selected(dt, p, 1)),
                block, 0, tuple(p["strides"]))
    facts = _facts(dt, count) + [("order", p["order_name"])]
    if dt.combiner == "DARRAY":
        facts.append(("rank", "%d of %d, process grid %s" % (
            p["rank"], p["size"], "×".join(map(str, p["psizes"])))))
    return Picture(title, facts, keys=keys, markers=_markers(dt), grid=grid,
                   note=None if count == 1 else
                   "repetition k is the same grid, %d bytes further" % dt.extent)
