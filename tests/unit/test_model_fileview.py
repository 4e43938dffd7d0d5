"""The file-view model (model/fileview.py): the byte ranges an access touches,
against a brute-force walk of the filetype's expanded typemap, and the cells
of a subarray or darray global array those ranges name."""

import pytest

from mpipp.model.fileview import (Range, ViewError, access_ranges, array_cells, data_blocks,
                                  format_cells, global_array, order_text)
from mpipp.model.typemap import expand_typemap

from dtypes import (BLOCK, CYCLIC, DFLT, DOUBLE, INT, NONE, ORDER_C, ORDER_F, contiguous,
                    darray, hindexed, resized, struct, subarray, vector)


def brute(etype, filetype, disp, offset, count):
    """Byte ranges by expanding the tiled filetype element by element."""
    elems = [(off, basic.size) for basic, off in expand_typemap(filetype) if basic.size]
    tile_size = sum(size for _off, size in elems)
    byte, want, out = offset * etype.size, count * etype.size, []
    data = 0
    tile = 0
    while want > 0:
        for off, size in elems:
            for b in range(size):
                if data >= byte and want > 0:
                    at = disp + tile * filetype.extent + off + b
                    if out and out[-1][0] + out[-1][1] == at:
                        out[-1] = (out[-1][0], out[-1][1] + 1)
                    else:
                        out.append((at, 1))
                    want -= 1
                data += 1
        tile += 1
        assert tile_size
    return [Range(*r) for r in out]


VIEWS = [
    ("vector", INT, vector(3, 2, 4, INT)),
    ("subarray C", INT, subarray([4, 6], [2, 3], [1, 2], ORDER_C, INT)),
    ("subarray F", DOUBLE, subarray([5, 3], [2, 2], [3, 1], ORDER_F, DOUBLE)),
    ("darray cyclic", INT, darray(4, 3, [6, 8], [CYCLIC, CYCLIC], [DFLT, 2], [2, 2], ORDER_C, INT)),
    ("darray block", DOUBLE, darray(4, 1, [6, 5], [BLOCK, BLOCK], [DFLT, DFLT], [2, 2], ORDER_F,
                                    DOUBLE)),
    ("hindexed of vectors", INT, hindexed([1, 2], [40, 0], vector(2, 1, 3, INT))),
    ("resized struct", INT, resized(struct([2, 1], [4, 20], [INT, INT]), 0, 32)),
]


@pytest.mark.parametrize("etype,filetype", [v[1:] for v in VIEWS], ids=[v[0] for v in VIEWS])
def test_ranges_match_the_expanded_typemap(etype, filetype):
    n = filetype.size // etype.size
    for offset, count in ((0, n), (1, n), (n - 1, 2), (3, 2 * n + 1), (0, 0)):
        if offset < 0:
            continue
        ranges, truncated = access_ranges(etype, filetype, 64, offset, count)
        assert not truncated
        assert ranges == brute(etype, filetype, 64, offset, count), (offset, count)


def test_blocks_come_from_runs_not_elements():
    assert data_blocks(vector(3, 2, 4, INT)) == [(0, 8), (16, 8), (32, 8)]
    assert data_blocks(vector(1000000, 2, 2, DOUBLE)) == [(0, 16000000)]
    # vector(2, 1, 2) has extent 12: its last element and the next copy's first touch
    assert data_blocks(contiguous(5, vector(2, 1, 2, INT))) == [(0, 4), (8, 8), (20, 8), (32, 8),
                                                                (44, 8), (56, 4)]


def test_limit_truncates():
    ranges, truncated = access_ranges(INT, vector(100, 1, 2, INT), 0, 0, 100, limit=3)
    assert truncated and ranges == [(0, 4), (8, 4), (16, 4)]


def test_subarray_cells_name_rows_and_columns():
    ft = subarray([4, 6], [2, 3], [1, 2], ORDER_C, INT)
    arr = global_array(ft)
    assert arr.sizes == (4, 6) and not arr.fortran and arr.cell == 4
    ranges, _ = access_ranges(INT, ft, 0, 0, 6)
    assert format_cells(arr, array_cells(arr, 0, ft.extent, ranges)) == ["rows 1..2: columns 2..4"]
    # the second tile (the next global array in the file) is named as such
    ranges, _ = access_ranges(INT, ft, 0, 0, 9)
    assert format_cells(arr, array_cells(arr, 0, ft.extent, ranges)) == [
        "rows 1..2: columns 2..4", "tile 1: row 1: columns 2..4"]


def test_fortran_order_and_cyclic_columns():
    ft = subarray([4, 6], [4, 2], [0, 1], ORDER_F, DOUBLE)     # columns 1..2, every row
    arr = global_array(resized(ft, 0, ft.extent))
    ranges, _ = access_ranges(DOUBLE, ft, 8, 0, 8)
    assert format_cells(arr, array_cells(arr, 8, ft.extent, ranges)) == ["columns 1..2: rows 0..3"]
    cyc = darray(2, 1, [2, 6], [BLOCK, CYCLIC], [DFLT, 1], [1, 2], ORDER_C, INT)
    arr = global_array(cyc)
    ranges, _ = access_ranges(INT, cyc, 0, 0, 6)
    assert format_cells(arr, array_cells(arr, 0, cyc.extent, ranges)) == [
        "rows 0..1: columns 1, 3, 5"]


def test_not_an_array_and_errors():
    assert global_array(vector(3, 2, 4, INT)) is None
    with pytest.raises(ViewError, match="no data"):
        access_ranges(INT, contiguous(0, INT), 0, 0, 1)
    with pytest.raises(ViewError, match="etype has no data"):
        access_ranges(contiguous(0, INT), INT, 0, 0, 1)
    with pytest.raises(ViewError, match="negative"):
        access_ranges(INT, INT, 0, -1, 1)


def test_work_grows_with_the_answer_not_the_count():
    # 10^12 contiguous repetitions: one block, one range (no loop over them)
    pair = struct([1, 1], [0, 4], [INT, INT])
    assert data_blocks(contiguous(10 ** 12, pair)) == [(0, 8 * 10 ** 12)]
    assert access_ranges(INT, INT, 16, 3, 10 ** 12) == ([Range(28, 4 * 10 ** 12)], False)
    assert data_blocks(contiguous(10 ** 12, contiguous(0, INT))) == []
    ranges, truncated = access_ranges(INT, resized(INT, 0, 8), 0, 0, 10 ** 12, limit=3)
    assert truncated and ranges == [(0, 4), (8, 4), (16, 4)]


def test_a_size_its_typemap_does_not_hold_is_corruption():
    corrupted = vector(3, 2, 4, INT)
    corrupted.size = 28   # recorded size 28, the typemap holds 24 bytes
    with pytest.raises(ViewError, match="holds 24 bytes of data, its size is 28"):
        access_ranges(INT, corrupted, 0, 0, 9)


def test_boxes_of_three_dimensional_arrays_fold_into_one_range_per_dimension():
    """A 5 x 7 x 2 box of an 8 x 12 x 4 array: one line, not one per row
    and plane; the names follow each language's order (Fortran a(row,
    column, plane), C a[plane][row][column]) and the header says which
    index varies fastest."""
    for order, names, fast in ((ORDER_F, ("rows", "columns", "planes"), "rows"),
                               (ORDER_C, ("planes", "rows", "columns"), "columns")):
        ft = subarray([8, 12, 4], [5, 7, 2], [1, 2, 1], order, INT)
        arr = global_array(ft)
        assert order_text(arr) == "%s order: %s vary fastest" % (
            "Fortran" if order == ORDER_F else "C", fast)
        ranges, _ = access_ranges(INT, ft, 0, 0, 70)
        assert format_cells(arr, array_cells(arr, 0, ft.extent, ranges)) == [
            "%s 1..5 × %s 2..8 × %s 1..2" % names]
        # and the start of the next tile: part of a box, as boxes
        ranges, _ = access_ranges(INT, ft, 0, 0, 80)
        lines = format_cells(arr, array_cells(arr, 0, ft.extent, ranges))
        assert lines[0] == "%s 1..5 × %s 2..8 × %s 1..2" % names and len(lines) <= 3
        assert all(line.startswith("tile 1: ") for line in lines[1:])


def test_a_darray_of_three_dimensions_folds_its_cyclic_blocks():
    """Rank 2 of a 2 x 2 x 1 grid: a block of planes, two cyclic blocks of rows."""
    cyc = darray(4, 2, [4, 6, 2], [BLOCK, CYCLIC, NONE], [DFLT, 2, DFLT], [2, 2, 1], ORDER_C,
                 INT)
    arr = global_array(cyc)
    ranges, _ = access_ranges(INT, cyc, 0, 0, cyc.size // 4)
    assert format_cells(arr, array_cells(arr, 0, cyc.extent, ranges)) == [
        "planes 2..3 × rows 0..1, 4..5 × columns 0..1"]
