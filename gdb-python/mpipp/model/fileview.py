"""What a file view makes of an access (gdb-free).

An MPI file view is (disp, etype, filetype): the filetype's typemap, tiled
from byte `disp` of the file (tile k shifted by k extents of the filetype),
selects the bytes a process sees; its data is a stream of etypes.  An access
of `count` etypes starting at etype `offset` of that stream (an explicit
offset, or the individual file pointer) touches the file byte ranges
`access_ranges` computes: the filetype's data blocks in typemap order
(`data_blocks`, from the model's compressed typemap, so a vector of 10^6
doubles is one run per block, not 10^6 elements), walked tile by tile.

When the filetype is (a resized or dup of) a subarray or a darray, one tile
is the whole global array, so a byte range names cells of that array:
`array_cells` turns ranges into index ranges of its fastest-varying
dimension, and `format_cells` groups equal ones ("rows 0..3: columns 6..11").
"""

import bisect
from collections import namedtuple

from ..readers.errors import MpippError
from . import combiners
from .typemap import Leaf, typemap_runs

MAX_BLOCKS = 1 << 20
# byte ranges one answer lists at most, whatever the count asked for
MAX_RANGES = 1 << 16
Range = namedtuple("Range", "offset length")
# The global array a filetype describes: sizes (dimension 0 first), fortran
# order, the byte size of one cell.
Array = namedtuple("Array", "sizes fortran cell")


class ViewError(MpippError):
    """An access the view cannot describe (empty etype, filetype too large...)."""


def data_blocks(dt, limit=MAX_BLOCKS):
    """[(byte offset, length)] of the data of one dt, in typemap order,
    adjacent pieces merged."""
    return data_blocks_of(typemap_runs(dt), limit)


def data_blocks_of(entries, limit):
    """data_blocks of compressed typemap entries."""
    out = []

    def add(offset, length):
        if out and out[-1][0] + out[-1][1] == offset:
            out[-1] = (out[-1][0], out[-1][1] + length)
            return
        if len(out) >= limit:
            raise ViewError("the filetype has more than %d separate blocks of data" % limit)
        out.append((offset, length))

    def walk(entries, base):
        for e in entries:
            if type(e) is Leaf:
                if e.basic.size:
                    add(base + e.offset, e.basic.size)
                continue
            if not e.count:
                continue
            first = _first_blocks(e.body)
            if first == []:
                continue  # repetitions of no data
            if first and first[0][1] == e.stride:
                # repetitions that tile without a gap: one block (a loop
                # over them would merge e.count pieces, however many)
                add(base + e.offset + first[0][0], e.count * e.stride)
                continue
            for k in range(e.count):  # each adds a block: bounded by limit
                walk(e.body, base + e.offset + k * e.stride)

    walk(entries, 0)
    return out


def _first_blocks(entries):
    """The data blocks of entries when there is at most one, else None
    (stops at the second block)."""
    try:
        return data_blocks_of(entries, 1)
    except ViewError:
        return None


def access_ranges(etype, filetype, disp, offset, count, limit=None):
    """([Range], truncated): the file bytes an access of count etypes at etype
    offset touches, in access order, adjacent ranges merged; at most limit
    ranges (None: MAX_RANGES)."""
    limit = MAX_RANGES if limit is None else min(limit, MAX_RANGES)
    esize = etype.size
    if esize <= 0:
        raise ViewError("the etype has no data (size %d)" % esize)
    if offset < 0 or count < 0:
        raise ViewError("negative offset or count (%d, %d)" % (offset, count))
    tile_size, tile_extent = filetype.size, filetype.extent
    if tile_size <= 0:
        raise ViewError("the filetype has no data: the view selects no byte of the file")
    blocks = data_blocks(filetype)
    starts = []                      # data offset of each block within a tile
    total = 0
    for _off, length in blocks:
        starts.append(total)
        total += length
    if total != tile_size:
        raise ViewError("the filetype's typemap holds %d bytes of data, its size is %d "
                        "(corrupted?)" % (total, tile_size))
    position, remaining = offset * esize, count * esize
    if len(blocks) == 1 and blocks[0][1] == tile_extent:
        # tiles that follow each other without a gap: the access is one range
        if not remaining:
            return [], False
        return [Range(disp + blocks[0][0] + position, remaining)], False
    # Blocks of a tile never merge (data_blocks merged them), so a step that
    # appends no range is the first of a tile: at most about 2 * limit +
    # len(blocks) steps.
    out = []
    while remaining > 0:
        tile, within = divmod(position, tile_size)
        k = bisect.bisect_right(starts, within) - 1
        block_off, block_len = blocks[k]
        skip = within - starts[k]
        take = min(block_len - skip, remaining)
        at = disp + tile * tile_extent + block_off + skip
        if out and out[-1].offset + out[-1].length == at:
            out[-1] = Range(out[-1].offset, out[-1].length + take)
        elif len(out) >= limit:
            return out, True
        else:
            out.append(Range(at, take))
        position += take
        remaining -= take
    return out, False


def global_array(filetype):
    """The Array a (resized or dup of a) subarray or darray filetype lays out
    in every tile, or None."""
    dt = filetype
    while dt.combiner in ("RESIZED", "DUP"):
        dt = combiners.get_combiner(dt.combiner).parse(dt)["children"][0]
    if dt.combiner not in ("SUBARRAY", "DARRAY"):
        return None
    p = combiners.get_combiner(dt.combiner).parse(dt)
    sizes = p["sizes"] if dt.combiner == "SUBARRAY" else p["gsizes"]
    cell = p["children"][0].extent
    if cell <= 0 or not sizes or any(s <= 0 for s in sizes):
        return None
    return Array(tuple(sizes), p["order"] == dt.constants.order_fortran, cell)


def _index(array, i):
    """The index tuple (dimension 0 first) of linear cell i of one tile."""
    dims = range(len(array.sizes)) if array.fortran else range(len(array.sizes) - 1, -1, -1)
    idx = [0] * len(array.sizes)
    for d in dims:
        i, idx[d] = divmod(i, array.sizes[d])
    return tuple(idx)


def array_cells(array, disp, tile_extent, ranges, limit=4096):
    """[(tile, outer index tuple, (first, last))]: the cells of the global
    array the byte ranges cover (a partly covered cell counts), as runs of
    the fastest-varying dimension (the last for C order, the first for
    Fortran order); the outer index is the other dimensions'."""
    fast = 0 if array.fortran else len(array.sizes) - 1
    tile_cells = 1
    for s in array.sizes:
        tile_cells *= s
    if tile_extent <= 0:
        raise ViewError("the filetype's extent is %d" % tile_extent)
    out = []
    for r in ranges:
        pos, end = r.offset - disp, r.offset - disp + r.length
        while pos < end:
            tile, within = divmod(pos, tile_extent)
            cell = within // array.cell
            tile_end = min(end, (tile + 1) * tile_extent) - tile * tile_extent
            if cell >= tile_cells:   # past the array, inside a resized tile
                pos = (tile + 1) * tile_extent
                continue
            idx = _index(array, cell)
            last = min((tile_end - 1) // array.cell, tile_cells - 1)
            run = min(last - cell, array.sizes[fast] - 1 - idx[fast])
            out.append((tile, idx[:fast] + idx[fast + 1:], (idx[fast], idx[fast] + run)))
            if len(out) >= limit:
                return out
            pos = tile * tile_extent + (cell + run + 1) * array.cell
    return out


def group_cells(cells):
    """[(tile, [outer index tuples], [(first, last)...])]: consecutive outer
    indices with the same runs of the fastest dimension grouped."""
    groups = []
    for tile, outer, runs in _by_outer(cells):
        if groups and groups[-1][0] == tile and groups[-1][2] == runs:
            groups[-1][1].append(outer)
        else:
            groups.append((tile, [outer], runs))
    return groups


def _span(values):
    return "%d" % values[0] if values[0] == values[-1] else "%d..%d" % (values[0], values[-1])


# What the dimensions of an array are called, as each language writes
# them: a(row, column, plane) in Fortran, a[plane][row][column] in C (for 2-D
# arrays both: rows, then columns).
DIMENSIONS = ("rows", "columns", "planes")


def dimension_names(ndims, fortran):
    """The names of the dimensions, in the constructor's order."""
    # the position, counted from the fastest dimension, of rows, columns, planes
    by_speed = {False: {0: "columns", 1: "rows", 2: "planes"},
                True: {0: "rows", 1: "columns", 2: "planes"}}[fortran]
    return [by_speed.get(d if fortran else ndims - 1 - d, "dim %d" % d) for d in range(ndims)]


def order_text(array):
    """'C order: columns vary fastest' -- which index is which in memory."""
    names = dimension_names(len(array.sizes), array.fortran)
    fast = 0 if array.fortran else len(array.sizes) - 1
    return "%s order: %s vary fastest" % ("Fortran" if array.fortran else "C", names[fast])


def fold_boxes(cells, ndims, fortran):
    """[(tile, [[(first, last)...] per outer dimension], [(first, last)...]
    of the fastest)]: the cells as products of index ranges, folding one
    outer dimension at a time from the fastest varying: entries equal but
    in that dimension become one, with the union of its ranges."""
    items = [(tile, [[(i, i)] for i in outer], runs) for tile, outer, runs in _by_outer(cells)]
    outer_dims = range(ndims - 1) if fortran else range(ndims - 2, -1, -1)
    for d in outer_dims:
        folded = {}
        for tile, ranges, runs in items:
            key = (tile, tuple(tuple(r) for e, r in enumerate(ranges) if e != d), tuple(runs))
            if key in folded:
                folded[key][1][d] = _union(folded[key][1][d] + ranges[d])
            else:
                folded[key] = (tile, list(ranges), runs)
        items = list(folded.values())
    return items


def _union(ranges):
    """Sorted, disjoint, non-adjacent (first, last) ranges covering ranges."""
    out = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _by_outer(cells):
    """[(tile, outer index tuple, [(first, last)])]: the runs of the fastest
    dimension of each outer index, in order."""
    by_outer = []
    for tile, outer, run in cells:
        if by_outer and by_outer[-1][0] == tile and by_outer[-1][1] == outer:
            by_outer[-1][2].append(run)
        else:
            by_outer.append((tile, outer, [run]))
    return by_outer


def format_cells(array, cells):
    """Lines naming the cells: 'rows 0..3: columns 6..11' for a 2-D C-order
    array (Fortran order: 'columns 0..1: rows 4..7'); for more dimensions
    one line per box, the ranges of each dimension in the constructor's
    order: 'rows 0..4 × columns 0..6 × planes 0..1'."""
    if len(array.sizes) != 2:
        return _format_boxes(array, cells)
    names = {False: ("row", "column"), True: ("column", "row")}[array.fortran]
    lines = []
    for tile, outers, runs in group_cells(cells):
        fast = ", ".join(_span([a, b]) for a, b in runs)
        prefix = "tile %d: " % tile if tile else ""
        outer = [o[0] for o in outers]
        contiguous = outer == list(range(outer[0], outer[0] + len(outer)))
        what = (names[0] + "s " + _span(outer) if contiguous and len(outer) > 1 else
                names[0] + (" " if len(outer) == 1 else "s ") +
                ", ".join(str(o) for o in outer))
        lines.append("%s%s: %s%s %s" % (prefix, what, names[1],
                                        "s" if len(runs) > 1 or runs[0][0] != runs[0][1]
                                        else "", fast))
    return lines


def _format_boxes(array, cells):
    ndims = len(array.sizes)
    names = dimension_names(ndims, array.fortran)
    fast = 0 if array.fortran else ndims - 1
    lines = []
    for tile, ranges, runs in fold_boxes(cells, ndims, array.fortran):
        parts = [", ".join(_span([a, b]) for a, b in r) for r in ranges]
        parts.insert(fast, ", ".join(_span([a, b]) for a, b in runs))
        lines.append(("tile %d: " % tile if tile else "") +
                     " × ".join("%s %s" % (n, p) for n, p in zip(names, parts)))
    return lines
