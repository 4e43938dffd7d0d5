"""The model on legal extreme types: work that grows with the answer, not
with the type.  Nested stride-0 loops (resized, dup, darray BLOCK
dimensions) cost `where` one walk each; path prefixes are checked in one
pass; pictures of 2**60-byte arrays are sized by what is drawn; empty
repetitions are skipped by arithmetic; bounds MPI defines its own way are
accepted and named.  Work is counted in calls, never timed."""

import random

import pytest

from counting import counting
from dtypes import (BLOCK, CHAR, CYCLIC, DFLT, DOUBLE, FLOAT, INT, ORDER_C, ORDER_F, contiguous,
                    darray, dup, hindexed, hvector, indexed, named, resized, struct, subarray,
                    vector)
from mpipp.model import combiners, elements, render, typemap
from mpipp.model import where as W
from mpipp.model.datatype import Datatype
from mpipp.model.offsets import format_offset
from mpipp.model.picture import layout as L
from mpipp.model.picture import svg as SV
from mpipp.model.picture import text as TX


def stacked(levels, count):
    """count copies of the level below, all on the same bytes, levels deep."""
    t = INT
    for _ in range(levels):
        t = vector(count, 1, 0, t)
    return t


def holders_by_expansion(dt, count, offset):
    return [path for path, off, basic in elements.iter_elements(dt, count)
            if off <= offset < off + basic.size]


@pytest.mark.parametrize("levels,count", [(3, 3), (4, 2), (2, 7)])
def test_stride_zero_holders_are_those_of_the_typemap(levels, count):
    t = stacked(levels, count)
    expected = holders_by_expansion(t, 2, 6)
    loc = W.locate(t, 2, 6)
    assert loc.holders_total == len(expected) == count ** levels
    assert [h.path for h in loc.holders] == expected[:W.DEFAULT_LIMIT]


def test_nested_stride_zero_loops_cost_one_walk_each(monkeypatch):
    """100 nested dups, 60 nested resized, 40 levels of 3 copies on the same
    bytes (3**40 holders, counted exactly): a walk per level."""
    deep_dups, deep_resized = INT, INT
    for _ in range(100):
        deep_dups = dup(deep_dups)
    for _ in range(60):
        deep_resized = resized(deep_resized, 0, 4)
    calls = counting(monkeypatch, W._Walk, "node")
    loc = W.locate(deep_dups, 1, 2)
    assert loc.path == (0,) * 101 and loc.holders_total == 1
    assert calls[0] <= 3 * 101
    calls[0] = 0
    assert W.locate(deep_resized, 3, 9).path == (2,) + (0,) * 60
    assert calls[0] <= 5 * 61
    calls[0] = 0
    loc = W.locate(stacked(40, 3), 1, 1)
    assert loc.holders_total == 3 ** 40 and len(loc.holders) == W.DEFAULT_LIMIT
    assert calls[0] <= 3 * 41


def test_darray_of_32_block_dimensions(monkeypatch):
    t = darray(1, 0, [2] * 32, [BLOCK] * 32, [DFLT] * 32, [1] * 32, ORDER_C, CHAR)
    assert typemap.n_elements(t) == 2 ** 32
    calls = counting(monkeypatch, W._Walk, "node")
    loc = W.locate(t, 1, 2 ** 32 - 2)
    assert loc.path == (0,) + (1,) * 31 + (0,)
    assert calls[0] < 500


def test_path_prefixes_are_checked_in_one_pass(monkeypatch):
    t = subarray([2] * 32, [1] * 32, [1] * 32, ORDER_C, CHAR)
    sizes = counting(monkeypatch, combiners.Subarray, "size_at")
    child, offset = combiners.child_at(t, (0,) * 32)
    assert child is CHAR and offset == 2 ** 32 - 1
    assert sizes[0] == 32
    sizes[0] = 0
    assert combiners.stage_sizes(t, (0,) * 31) == 1
    assert sizes[0] == 32
    with pytest.raises(Exception, match="index 1 out of range at stage 5"):
        combiners.child_at(t, (0,) * 5 + (1,) + (0,) * 26)


def test_empty_repetitions_are_skipped():
    nothing = contiguous(0, INT)
    for t in (contiguous(2 ** 31 - 1, nothing), vector(2 ** 31 - 1, 0, 4, INT),
              indexed([2 ** 31 - 1, 0], [0, 4], nothing),
              contiguous(1000, contiguous(2 ** 31 - 1, nothing))):
        assert typemap.n_elements(t, 2 ** 31 - 1) == 0
        assert list(elements.internal_runs(t, 2 ** 31 - 1)) == []
        assert list(render.render_text(t, 3, lambda offset, length: b"")) == []
        assert elements.periodic_plan(t, 5) is None
        assert W.locate(t, 4, 0).where == "empty"
        assert L.build(t, 3).note == "no elements: nothing to draw"
    assert W.describe_location(W.locate(nothing, 1, 0)) == "in no element (the buffer has none)"


def test_pictures_of_nothing():
    """No elements (MPI_UB, contiguous(0)) or elements of no size: a note,
    in the terminal and in SVG."""
    zero = named("MPI_ZERO", "byte", 0)
    for t, count, note in ((named("MPI_UB", "ub", 0), 2, "no elements: nothing to draw"),
                           (contiguous(0, INT), 3, "no elements: nothing to draw"),
                           (zero, 3, "elements of no size: no bytes to draw"),
                           (contiguous(3, zero), 2, "elements of no size: no bytes to draw")):
        picture = L.build(t, count)
        assert picture.note == note
        assert "  (%s)" % note in TX.render(picture)
        assert "(%s)" % note in SV.render(picture)


def test_grid_of_huge_arrays_counts_selections():
    """[2**30, 2**30] arrays: cells count the selected indices of each
    dimension by arithmetic on its pieces (a darray's CYCLIC(1) dimension of
    2**29 owned indices is one piece)."""
    for t in (subarray([1 << 30, 1 << 30], [2, 3], [5, 7], ORDER_F, CHAR),
              darray(4, 1, [1 << 30, 1 << 30], [BLOCK, CYCLIC], [DFLT, 1], [2, 2], ORDER_C,
                     CHAR)):
        picture = L.build(t, 1, width=80, max_rows=24)
        lines = TX.render(picture)
        assert "1073741824×1073741824 array" in lines[2]
        assert len(lines) < 40
    rows, cols = picture.grid.selected
    assert rows.count(0, 1 << 29) == 1 << 29 and rows.count(1 << 29, 1 << 30) == 0
    assert cols.count(0, 1 << 30) == 1 << 29 and cols.count(10, 20) == 5


@pytest.mark.parametrize("seed", range(5))
def test_selection_counts_what_the_pieces_select(seed):
    rng = random.Random(seed)
    gsize, nprocs = rng.randrange(1, 60), rng.randrange(1, 5)
    distrib, darg = rng.choice([(BLOCK, DFLT), (CYCLIC, DFLT), (CYCLIC, rng.randrange(1, 6)),
                                (BLOCK, rng.randrange((gsize + nprocs - 1) // nprocs, 70))])
    rank = rng.randrange(nprocs)
    t = darray(nprocs, rank, [gsize], [distrib], [darg], [nprocs], ORDER_C, CHAR)
    pieces = combiners.combiner_of(t).parse(t)["pieces"][0]
    owned = sorted(path[1] for path, _o, _b in elements.iter_elements(t, 1))
    owned = [combiners.combiner_of(t)._global(combiners.combiner_of(t).parse(t), 0, k)
             for k in owned]
    selection = L.Selection(pieces)
    for lo in range(0, gsize + 1):
        for hi in range(lo, gsize + 2):
            assert selection.count(lo, hi) == sum(1 for g in owned if lo <= g < hi)


def test_sparse_pictures_draw_their_data_rows():
    """Elements 2**62 bytes apart: the rows holding them, not 2**56 rows of holes."""
    lines = TX.render(L.build(hvector(2, 1, 1 << 62, CHAR), 1))
    drawn = [line for line in lines if "|" in line]
    assert len(drawn) == 2 and "C" in drawn[0] and "C" in drawn[1]
    assert any("bytes of holes" in line for line in lines)
    lines = TX.render(L.build(subarray([2] * 32, [1] * 32, [1] * 32, ORDER_C, CHAR), 3))
    assert sum(1 for line in lines if "|" in line) == 3
    # 2**30 doubles on the same bytes or a step back each: a bounded picture
    for t in (vector(1 << 30, 1, 0, INT), hvector(1 << 30, 1, -16, DOUBLE)):
        assert len(TX.render(L.build(t, 2))) < 40


def test_block_index_agrees_with_the_typemap():
    rng = random.Random(3)
    kids = [INT, DOUBLE, contiguous(2, CHAR), contiguous(0, INT)]
    for _ in range(20):
        n = rng.randrange(1, 12)
        t = struct([rng.randrange(0, 3) for _ in range(n)], [rng.randrange(-40, 40) for _ in
                                                            range(n)],
                   [rng.choice(kids) for _ in range(n)])
        for offset in range(t.true_lb - 2, t.true_lb + t.true_extent + 2):
            expected = holders_by_expansion(t, 1, offset)
            loc = W.locate(t, 1, offset)
            assert [h.path for h in loc.holders] == expected[:W.DEFAULT_LIMIT]
            assert (loc.holders_total or 0) == len(expected)


def test_the_block_index_is_built_once_per_type(monkeypatch):
    t = indexed([1 + k % 3 for k in range(1000)], [7 * k for k in range(1000)], INT)
    built = counting(monkeypatch, W, "_BlockIndex")
    for offset in (0, 4, 7000, 27972):
        W.locate(t, 1, offset)
    assert built[0] == 1


def _recorded(dt, **values):
    """dt as MPI recorded it: its size and extents replaced."""
    return Datatype(dt.combiner, integers=dt.integers, addresses=dt.addresses,
                    large_counts=dt.large_counts, children=dt.children,
                    size=values.get("size", dt.size),
                    lb=values.get("lb", dt.lb), extent=values.get("extent", dt.extent))


def test_bounds_mpi_defines_are_accepted_and_named():
    mpich_empty = _recorded(vector(3, 0, 4, INT), extent=32)
    assert typemap.extents_check(mpich_empty) == (
        None, "extent as MPI reports it (the standard's formula gives extent 0, for a type "
              "without data)")
    apart = hindexed([1, 1], [-(1 << 62), 1 << 62], CHAR)
    overflowed = _recorded(apart, extent=(1 << 63) + 1 - (1 << 64))
    assert typemap.extents_check(overflowed) == (
        None, "extent as MPI reports it (the standard's formula gives extent "
              "9223372036854775809, beyond MPI_Aint)")
    assert typemap.extents_check(_recorded(vector(3, 2, 4, DOUBLE), size=1600)) == (
        "recorded size 1600, its arguments give 48", None)
    assert typemap.extents_check(_recorded(vector(3, 2, 4, DOUBLE))) == (None, None)


# MPICH 4.0.2's values for the two hvector_c types of testprogs/extremes.c
PAST_2_64 = dict(c=(1 << 62) + 2, bl=2, s=24, t=FLOAT, size=16, extent=32)
WRAPPED_TO_0 = dict(c=1 << 62, bl=1, s=1 << 40, t=DOUBLE, size=0, extent=0)


def _as_mpich_recorded(c, bl, s, t, size, extent):
    return _recorded(hvector(c, bl, s, t, large=True), size=size, lb=0, extent=extent)


def test_values_mpi_overflowed_are_its_own_and_told():
    """hvector_c(2**62+2, 2, 24, MPI_FLOAT): 2**65+16 bytes, extent past
    2**64, MPI's values wrapped to 64 bits; hvector_c(2**62, 1, 2**40,
    MPI_DOUBLE): 2**65 bytes, a size that wraps to 0, and MPICH then
    bounds it as a type without data (lb 0, extent 0).  Legal types: not
    corrupted, the standard's values named."""
    past = _as_mpich_recorded(**PAST_2_64)
    assert typemap.extents_check(past) == (
        None, "size and extent as MPI reports them (the standard's formula gives size "
              "36893488147419103248, extent 110680464442257309728, beyond MPI_Aint)")
    wrapped = _as_mpich_recorded(**WRAPPED_TO_0)
    assert typemap.extents_check(wrapped) == (
        None, "size and extent as MPI reports them (the standard's formula gives size "
              "36893488147419103232, extent 5070602400912917604887301193736, beyond "
              "MPI_Count: MPI's size wrapped to 0, and MPI bounds a type without data its "
              "own way)")
    # what a decode reads is the standard's bytes
    assert typemap.data_bytes(past) == (1 << 65) + 16
    assert typemap.data_bytes(wrapped, 3) == 3 << 65
    # and MPI's size 0 is no sign of a buffer without elements
    loc = W.locate(wrapped, 1, 4)
    assert loc.where == "inside" and loc.path == (0, 0, 0)
    assert W.locate(wrapped, 1, (1 << 40) + 8).next_path == (0, 2, 0)


def test_a_corrupted_count_still_shows_past_64_bits():
    """MPI's size must be the standard's (wrapped or not) whatever else
    overflowed: one more block, or a size MPI never gave, is corruption."""
    one_more = dict(WRAPPED_TO_0, c=(1 << 62) + 1)
    assert typemap.extents_check(_as_mpich_recorded(**one_more)) == (
        "recorded size 0, its arguments give 36893488147419103240", None)
    not_wrapped = dict(PAST_2_64, size=48)
    assert typemap.extents_check(_as_mpich_recorded(**not_wrapped))[0] == \
        "recorded size 48, its arguments give 36893488147419103248"
    bad_extent = dict(PAST_2_64, extent=40)
    assert typemap.extents_check(_as_mpich_recorded(**bad_extent))[0] == \
        "recorded extent 40, its arguments give 110680464442257309728"


def test_offsets_in_hex_only_where_they_are_addresses():
    assert format_offset(-(1 << 40)) == "-1099511627776"
    assert format_offset(0x7FFD2A100000) == "0x7ffd2a100000"
    assert format_offset(1 << 62, signed=True) == "+4611686018427387904"
