"""where.locate: which elements hold a byte, found by arithmetic at every
stage of the tree (never element by element): inside, gaps, sides, every
combiner, overlapping elements as a bounded list with their total, and
types of 10^7..10^13 elements answered from a handful of nodes."""

import pytest

from dtypes import (ALL, CHAR, DOUBLE, INT, ORDER_F, SHORT_INT, contiguous, hindexed, hvector,
                    indexed, resized, struct, subarray, vector)
from mpipp.model import combiners
from mpipp.model import where as W


def test_inside_gap_sides():
    v = vector(3, 2, 4, DOUBLE)          # doubles at 0,8 | 32,40 | 64,72 ; extent 80
    loc = W.locate(v, 2, 70)
    assert (loc.where, loc.path, loc.offset_in_element, loc.element_offset) == \
        ("inside", (0, 2, 0), 6, 64)
    assert loc.basic.name == "MPI_DOUBLE" and loc.holders_total == 1
    loc = W.locate(v, 2, 17)
    assert (loc.where, loc.prev_path, loc.next_path, loc.prev_end, loc.next_start) == \
        ("gap", (0, 0, 1), (0, 1, 0), 16, 32)
    loc = W.locate(v, 2, 81)
    assert (loc.where, loc.path) == ("inside", (1, 0, 0))
    loc = W.locate(v, 2, -3)
    assert (loc.where, loc.next_path) == ("before", (0, 0, 0))
    loc = W.locate(v, 2, 160)
    assert (loc.where, loc.prev_path, loc.prev_end) == ("after", (1, 2, 1), 160)
    assert W.locate(contiguous(0, INT), 3, 0).where == "empty"
    assert "gap between [0][0][1] and [0][1][0]" == W.describe_location(W.locate(v, 2, 17))
    assert "[0][2][0] (MPI_DOUBLE) +6" == W.describe_location(W.locate(v, 2, 70))


def test_struct_fortran_subarray_negative_stride():
    s = ALL["struct"]()
    loc = W.locate(s, 1, 50)
    assert (loc.where, loc.path, loc.offset_in_element) == ("inside", (0, 2, 3), 0)
    loc = W.locate(s, 1, 60)
    assert (loc.where, loc.prev_path, loc.next_path) == ("gap", (0, 2, 6), (0, 3, 0))
    f = subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT)
    assert W.locate(f, 1, 41).path == (0, 1, 1)
    assert W.locate(f, 1, 30).where == "gap"
    v = vector(3, 1, -2, INT)
    assert W.locate(v, 1, -7).path == (0, 1, 0)
    assert W.locate(v, 1, -12).where == "gap"


def walks(monkeypatch):
    """Counts the nodes a lookup visits."""
    visits = [0]
    real = W._Walk.node

    def node(self, *args):
        visits[0] += 1
        return real(self, *args)
    monkeypatch.setattr(W._Walk, "node", node)
    return visits


def test_stride_zero_vector_counts_every_holder(monkeypatch):
    visits = walks(monkeypatch)
    v = vector(5 * 10 ** 7, 1, 0, INT)   # 5*10^7 ints, all on bytes 0..3
    loc = W.locate(v, 1, 2)
    assert loc.where == "inside" and loc.holders_total == 5 * 10 ** 7
    assert [h.path for h in loc.holders] == [(0, i, 0) for i in range(10)]
    assert loc.offset_in_element == 2
    text = W.describe_location(loc)
    assert text.startswith("held by 50000000 elements: [0][0][0] (MPI_INT) +2, [0][1][0]")
    assert text.endswith(", ...")
    assert visits[0] < 100
    loc = W.locate(v, 3, 5)                                # extent 4: copy 1 at 4..8
    assert loc.path == (1, 0, 0) and loc.holders_total == 5 * 10 ** 7
    assert W.locate(v, 1, 4).where == "after"


def test_stride_zero_copies_of_a_capped_miss_are_walked_once(monkeypatch):
    """Identical iterations whose first holds nothing (its overlapping
    iterations, more than MAX_OVERLAP, all leave the byte in a gap) are not
    walked one by one: the lookup costs the same for 2 or 10^6 of them."""
    gappy = struct([1, 1], [0, 20000], [CHAR, CHAR])           # a 19999-byte gap
    inner = hvector(6000, 1, 2, gappy)                          # ~7500 spans over byte 15001
    costs = []
    for count in (2, 10 ** 6):
        visits = walks(monkeypatch)
        loc = W.locate(hvector(count, 1, 0, inner), 1, 15001)
        assert (loc.where, loc.holders, loc.holders_total) == ("gap", (), 0)
        costs.append(visits[0])
        monkeypatch.undo()
    assert costs[0] == costs[1]


def test_holders_past_the_overlap_cap_are_not_overstated():
    """5001 iterations span byte 6000, two elements hold it: past
    MAX_OVERLAP the count is unknown and the text says no more than what
    was found."""
    h = hvector(10000, 1, 1, struct([1, 1], [0, 5000], [CHAR, CHAR]))
    loc = W.locate(h, 1, 6000)
    assert loc.holders_total is None
    assert [x.path for x in loc.holders] == [(0, 1000, 0, 1, 0)]
    assert W.describe_location(loc) == \
        "held by at least 1 element: [0][1000][0][1][0] (MPI_CHAR) +0, ..."


def test_pair_covers_its_last_member():
    """MPI_SHORT_INT: short at 0, int at 4 (size 6): bytes 6 and 7 are the
    int's, not a gap; the padding 2..3 belongs to the element too."""
    loc = W.locate(SHORT_INT, 2, 7)
    assert (loc.where, loc.path, loc.offset_in_element) == ("inside", (0,), 7)
    assert W.describe_location(W.locate(SHORT_INT, 2, 14)) == "[1] (MPI_SHORT_INT) +6"


def test_overlapping_hvector(monkeypatch):
    visits = walks(monkeypatch)
    h = hvector(5 * 10 ** 7, 1, 4, DOUBLE)   # doubles at 0, 4, 8, ...: each byte in two
    loc = W.locate(h, 1, 4 * 12345678 + 5)
    assert loc.holders_total == 2
    assert [(h_.path, h_.element_offset) for h_ in loc.holders] == [
        ((0, 12345678, 0), 4 * 12345678), ((0, 12345679, 0), 4 * 12345679)]
    assert W.describe_location(loc) == ("held by 2 elements: [0][12345678][0] (MPI_DOUBLE) +5,"
                                        " [0][12345679][0] (MPI_DOUBLE) +1")
    loc = W.locate(h, 1, 2)
    assert loc.holders_total == 1 and loc.path == (0, 0, 0)
    assert visits[0] < 100


def test_huge_counts_are_pruned(monkeypatch):
    visits = walks(monkeypatch)
    big = vector(10 ** 7, 4, 8, DOUBLE)
    assert W.locate(big, 10 ** 6, 10 ** 13 + 8).where in ("inside", "gap")
    loc = W.locate(big, 1, 64 * 123456 + 17)
    assert loc.path == (0, 123456, 2) and loc.offset_in_element == 1
    assert W.locate(big, 1, 64 * 123456 + 40).where == "gap"
    assert visits[0] < 200


def test_indexed_blocks_are_bisected(monkeypatch):
    n = 10 ** 5
    disps = [3 * (n - i) for i in range(n)]          # descending: typemap order != address order
    ix = indexed([1] * n, disps, INT)                 # int i at 12*(n-i)
    visits = walks(monkeypatch)
    loc = W.locate(ix, 1, 12 * 777 + 1)
    assert loc.path == (0, n - 777, 0) and loc.offset_in_element == 1
    loc = W.locate(ix, 1, 12 * 777 + 5)
    assert (loc.where, loc.prev_path, loc.next_path) == ("gap", (0, n - 777, 0), (0, n - 778, 0))
    assert visits[0] < 50


def test_overlapping_blocks_in_typemap_order():
    # blocks 0 and 2 cover byte 10; block 1 (later in memory) does not
    ix = hindexed([3, 1, 2], [8, 40, 4], INT)        # ints 8..20 | 40..44 | 4..12
    loc = W.locate(ix, 1, 10)
    assert [h.path for h in loc.holders] == [(0, 0, 0), (0, 2, 1)]
    assert loc.holders_total == 2
    assert W.locate(ix, 1, 10, limit=1).holders_total == 2
    assert len(W.locate(ix, 1, 10, limit=1).holders) == 1
    loc = W.locate(ix, 1, 30)
    assert (loc.where, loc.prev_path, loc.next_path, loc.prev_end, loc.next_start) == \
        ("gap", (0, 0, 2), (0, 1, 0), 20, 40)


def test_struct_of_resized_children_and_markers():
    cell = resized(struct([1, 1], [0, 8], [INT, DOUBLE]), 0, 24)
    grid = contiguous(1000, cell)
    loc = W.locate(grid, 3, 24 * 1500 + 9)
    assert loc.path == (1, 500, 0, 1, 0) and loc.offset_in_element == 1
    loc = W.locate(grid, 3, 24 * 1500 + 5)
    assert (loc.prev_path, loc.next_path) == ((1, 500, 0, 0, 0), (1, 500, 0, 1, 0))
    assert W.locate(struct([1, 1], [0, 4], [CHAR, CHAR]), 2, 4).path == (0, 1, 0)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_combiner_against_the_elements(name):
    from mpipp.model import elements as E
    t = ALL[name]()
    want = list(E.iter_elements(t, 2))
    if not want:
        assert W.locate(t, 2, 0).where == "empty"
        return
    lo = min(o for _p, o, _b in want) - 2
    hi = max(o + b.size for _p, o, b in want) + 2
    for off in range(lo, hi):
        loc = W.locate(t, 2, off, limit=3)
        holders = [(p, o) for p, o, b in want if o <= off < o + b.size]
        assert [(h.path, h.element_offset) for h in loc.holders] == holders[:3]
        assert loc.holders_total == len(holders)
        if not holders:
            ends = [o + b.size for _p, o, b in want if o + b.size <= off]
            starts = [o for _p, o, _b in want if o > off]
            assert loc.prev_end == (max(ends) if ends else None)
            assert loc.next_start == (min(starts) if starts else None)
    assert combiners.n_stages(t) >= 0
