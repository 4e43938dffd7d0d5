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
from ..offsets import format_offset
from ..paths import format_path, shift_index
from ..typemap import n_elements

Key = namedtuple("Key", "letter name size")
Segment = namedtuple("Segment", "cell ncells key n per full vpos offset")
Segment.__doc__ = """cell: first cell in the row; ncells; key: index into
Picture.keys; n elements of per cells each; element k has path full with
full[vpos] + k and byte offset offset + k * per * unit."""
Row = namedtuple("Row", "offset label cells segments")
Gap = namedtuple("Gap", "rows first_offset last_offset periodic")
Gap.__doc__ = """Rows not drawn: `rows` identical repetitions (periodic), or
the rows past the picture's last row."""
Holes = namedtuple("Holes", "first_offset last_offset")
Holes.__doc__ = """Bytes [first_offset, last_offset) that hold no data, folded into one line."""
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
    return [("size", dt.size), ("lb", format_offset(dt.lb)), ("extent", dt.extent),
            ("true_lb", format_offset(dt.true_lb)),
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
    marks = [lo, hi] + [m.offset for m in markers]
    avail = max(8, width)
    plan = periodic_plan(dt, count, TEMPLATE_RUNS)
    if plan is not None and plan[1] > 0:
        _reps, period, _ipos, _ibase, _istep, runs = plan
        unit = _unit(runs, marks + [period])
        # a group of whole repetitions, cut into rows_per rows of row_cells
        period_cells = period // unit
        dense = sum(r[3].size * r[4] for r in runs) >= period
        per_group = 1 if period_cells >= 8 or not dense or period_cells * 2 > avail else \
            max(1, min(avail // period_cells, 32 // period_cells))
        group = per_group * period
        rows_per = -(-(group // unit) // avail)
    if plan is None or plan[1] <= 0 or rows_per > max_rows // 2:
        # no repetitions, or one fills more rows than the picture has: its data
        runs = []
        for r in internal_runs(dt, count):
            runs.append(r)
            if len(runs) >= MAX_RUNS:
                break
        return scattered_picture(dt, count, runs, _unit(runs, marks), avail, max_rows, title,
                                 len(runs) >= MAX_RUNS)
    keys, key_index = _keys_for(r[3] for r in runs)
    row_cells = -(-(group // unit) // rows_per)
    row_bytes = row_cells * unit

    def bounds(r):
        """Bytes [start, end) of row r."""
        g, j = divmod(r, rows_per)
        start = lo + g * group + j * row_bytes
        return start, min(hi, start + row_bytes, lo + (g + 1) * group)

    n_rows = -(-(hi - lo) // group) * rows_per
    n_rows = next(r for r in range(n_rows, 0, -1) if bounds(r - 1)[0] < hi)
    if n_rows <= max_rows:
        drawn = list(range(n_rows))
    else:               # identical repetitions: the first groups and the last
        head = max(1, max_rows // rows_per - 1) * rows_per
        drawn = list(range(head)) + list(range(n_rows - rows_per, n_rows))
    index = _RunIndex(runs)
    rows = []
    for previous, r in zip([None] + drawn, drawn):
        if previous is not None and r != previous + 1:
            rows.append(Gap((r - previous - 1) // rows_per * per_group, bounds(previous)[1],
                            bounds(r)[0], True))
        start, end = bounds(r)
        rows.append(_row(start, end, unit, index, key_index, plan, lo))
    return Picture(title, facts, unit, row_cells, rows, keys, markers)


def _data_rows(index, lo, row_bytes, limit):
    """The first `limit` row numbers (rows of row_bytes from lo) that hold
    data, ascending, and whether more rows hold data."""
    spans = []                              # [first row, last row], merged
    for first, end, _run in index.spans:
        a, b = (first - lo) // row_bytes, (end - 1 - lo) // row_bytes
        if spans and a <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    rows = []
    for a, b in spans:
        rows.extend(range(a, min(b + 1, a + limit + 1 - len(rows))))
        if len(rows) > limit:
            break
    return rows[:limit], len(rows) > limit


def scattered_picture(dt, count, runs, unit, avail, max_rows, title, truncated):
    """Rows of `avail` cells over the bytes from min(lb, true_lb) to
    max(ub, true_ub); rows without data are not drawn but folded, a run of
    them into one line ('... 4096 bytes of holes ...'), and when a whole
    row of holes comes before the data the rows start at its first byte:
    a type whose bytes lie far apart (an absolute MPI_BOTTOM type, a block
    of a large array) shows its data, not its gaps."""
    root = buffer_type(dt, count)
    index = _RunIndex(runs)
    lo = min(root.lb, root.true_lb)
    hi = max(root.lb + root.extent, root.true_lb + root.true_extent)
    row_cells = min(avail, -(-(hi - lo) // unit))
    row_bytes = row_cells * unit
    start = index.first if index.first - lo >= row_bytes else lo
    keys, key_index = _keys_for(r[3] for r in runs)
    drawn, more = _data_rows(index, start, row_bytes, max_rows)
    if more:                        # the last line says what is not drawn
        drawn = drawn[:max(1, max_rows - 1)]
    start_of = lambda r: start + r * row_bytes  # noqa: E731
    rows = [Holes(lo, start)] if start > lo else []
    for previous, r in zip([-1] + drawn, drawn):
        if r != previous + 1:
            rows.append(Holes(start_of(previous + 1), start_of(r)))
        rows.append(_row(start_of(r), min(hi, start_of(r + 1)), unit, index, key_index, None,
                         start))
    if more:
        n_rows = -(-(hi - start) // row_bytes)
        rows.append(Gap(n_rows - 1 - drawn[-1], start_of(drawn[-1] + 1), hi, False))
    elif start_of(drawn[-1] + 1) < hi:
        rows.append(Holes(start_of(drawn[-1] + 1), hi))
    note = "drawn from the first %d runs of elements" % MAX_RUNS if truncated else None
    return Picture(title, _facts(dt, count), unit, row_cells, rows, keys, _markers(dt),
                   note=note)


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
