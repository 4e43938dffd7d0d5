"""model/runs.py: a buffer's contiguous runs of bytes from the compressed
typemap (cost per run, not per byte) and byte-built types read as another
type (`mpipp -as`)."""

import struct

import pytest

from dtypes import (BYTE, DOUBLE, DOUBLE_INT, INT, SHORT_INT, contiguous, hindexed, hvector,
                    indexed, resized, vector)
from counting import counting
from dtypes import struct as struct_of
from mpipp.model import render
from mpipp.model import runs as runs_module
from mpipp.model.errors import TypeTreeError
from mpipp.model.runs import contiguous_runs, reinterpret
from mpipp.model.typemap import compute_extents, expand_typemap


def hdf5_block(rows, cols, halo=1):
    """The memory type parallel HDF5 1.10 builds for a rows x cols block of
    doubles inside an array with a halo: resized(hindexed(1, vector(...)))
    per dimension over contiguous(8, MPI_BYTE)."""
    row_extent = (cols + 2 * halo) * 8
    row = resized(hindexed([1], [8 * halo], vector(1, cols, 1, contiguous(8, BYTE))), 0,
                  row_extent)
    return resized(hindexed([1], [row_extent * halo], vector(1, rows, 1, row)), 0,
                   row_extent * (rows + 2 * halo))


def naive_runs(dt, count=1):
    """The runs from the expanded typemap, byte by byte (reference)."""
    out = []
    for basic, offset in expand_typemap(dt, count):
        spans = [(o, m.size) for o, m in basic.members] if basic.basic_kind == "pair" \
            else [(0, basic.size)]
        for o, n in spans:
            if out and out[-1][0] + out[-1][1] == offset + o:
                out[-1] = (out[-1][0], out[-1][1] + n)
            else:
                out.append((offset + o, n))
    return out


@pytest.mark.parametrize("dt,count", [
    (vector(3, 2, 4, INT), 2), (contiguous(5, vector(2, 1, 2, INT)), 1),
    (indexed([2, 1, 3], [0, 2, 7], DOUBLE), 3), (hvector(4, 1, -8, INT), 1),
    (vector(3, 1, 0, INT), 1), (contiguous(3, DOUBLE_INT), 2), (contiguous(2, SHORT_INT), 1),
    (hdf5_block(4, 6), 1), (hdf5_block(3, 5, 2), 2),
    # blocks of basic types, runs from the block arrays
    (struct_of([1, 2, 1], [0, 16, 4], [SHORT_INT, DOUBLE, INT]), 2),
    (indexed([2, 1], [3, 0], SHORT_INT), 1), (hindexed([1, 1], [8, 0], INT), 2),
    (hindexed([2, 2], [0, 8], INT), 3), (indexed([1, 0, 2], [0, 5, 1], INT), 2),
])
def test_runs_match_the_typemap(dt, count):
    assert list(contiguous_runs(dt, count)) == naive_runs(dt, count)


def test_hdf5_block_is_one_run_per_row():
    runs = list(contiguous_runs(hdf5_block(512, 1024), 1))
    assert len(runs) == 512
    assert runs[0] == (1026 * 8 + 8, 1024 * 8) and runs[1][0] - runs[0][0] == 1026 * 8


def test_reinterpret_reads_runs_as_doubles():
    dt = hdf5_block(4, 6)
    as_double = reinterpret(dt, 1, DOUBLE, BYTE)
    assert as_double.combiner == "HINDEXED" and as_double.size == dt.size
    data = struct.pack("<48d", *range(48))        # an 6 x 8 array, halo of one cell
    lines = list(render.render_elements(as_double, 1, lambda o, n: data[o:o + n]))
    assert lines == ["[0][%d][%d] = %d" % (i, j, 8 * (i + 1) + j + 1)
                     for i in range(4) for j in range(6)]


def test_reinterpret_keeps_a_remainder_as_bytes():
    dt = contiguous(11, BYTE)                  # 8 bytes as one double, then 3 bytes
    out = reinterpret(dt, 1, DOUBLE, BYTE)
    assert out.combiner == "STRUCT"
    assert [(b, d, t.display_name) for b, d, t in zip(out.integers[1:], out.addresses,
                                                      out.children)] == \
        [(1, 0, "MPI_DOUBLE"), (3, 8, "MPI_BYTE")]
    with pytest.raises(TypeTreeError, match="no data"):
        reinterpret(dt, 1, contiguous(0, INT), BYTE)


@pytest.mark.parametrize("dt,count,element", [
    (hdf5_block(4, 6), 1, DOUBLE), (contiguous(11, BYTE), 2, DOUBLE),
    (indexed([2, 1, 3], [0, 2, 7], DOUBLE), 3, INT), (hvector(4, 1, -8, INT), 1, INT),
    (contiguous(3, DOUBLE_INT), 2, DOUBLE), (vector(3, 2, 5, INT), 2, resized(INT, -4, 8)),
])
def test_reinterpreted_bounds_are_the_trees(dt, count, element):
    """The bounds reinterpret makes from its arrays are those the type tree
    gives (compute_extents of the same blocks)."""
    out = reinterpret(dt, count, element, BYTE)
    computed = compute_extents(out)
    assert (out.size, out.lb, out.extent, out.true_lb, out.true_extent) == \
        (computed.size, computed.lb, computed.extent, computed.true_lb, computed.true_extent)


def test_runs_of_blocks_of_basic_types_come_from_the_arrays(monkeypatch):
    """Two copies of 10**4 indexed blocks of MPI_INT: no typemap compressed
    (a tuple or two per block), the spans of MPI_INT found once; one copy
    looked at up to its first gap (is it one run?), then each copy's
    blocks: the cost follows the blocks."""
    blocks = indexed([1 + k % 3 for k in range(10000)], [7 * k + k % 5 for k in range(10000)],
                     INT)
    spans = counting(monkeypatch, runs_module, "_spans")
    compressed = counting(monkeypatch, runs_module, "typemap_runs")
    copies = counting(monkeypatch, runs_module, "_block_pieces")
    found = list(contiguous_runs(blocks, 2))
    assert found == naive_runs(blocks, 2)
    assert spans[0] == 1 and compressed[0] == 0 and copies[0] == 3
    # copies that touch are one run, whatever their number
    assert list(contiguous_runs(hindexed([1, 1], [0, 4], INT), 10 ** 9)) == [(0, 8 * 10 ** 9)]

