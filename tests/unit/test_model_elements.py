"""Element enumeration: leaf_runs vs expand_typemap, sub-tree restriction,
subarray/darray element order and paths."""

import itertools

import pytest

from dtypes import (ALL, BLOCK, CHAR, CYCLIC, DFLT, DOUBLE, INT, NONE, ORDER_C, ORDER_F,
                    contiguous, darray, resized, subarray, vector)
from mpipp.model import elements as E
from mpipp.model import typemap as T
from mpipp.model.errors import PathError

@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("count", [1, 2])
def test_leaf_runs_match_typemap(name, count):
    t = ALL[name]()
    from_runs = []
    for run in E.leaf_runs(t, count):
        prefix, off, basic, n, stride = run
        for k in range(n):
            from_runs.append((basic, off + k * stride))
            p = run.path(k)
            if run.vpos is None and run.start == 0:
                assert p == prefix + (k,)
    assert from_runs == list(T.expand_typemap(t, count))
    # paths are unique, start with the repetition index, and resolve back
    paths = [p for p, _o, _b in E.iter_elements(t, count)]
    assert len(set(paths)) == len(paths)
    from mpipp.model.paths import resolve_path
    for p, o, b in E.iter_elements(t, count):
        r = resolve_path(t, count, p)
        assert r.is_leaf and r.offset == o and r.node is b
    assert E.count_elements(t, count) == len(paths)


def test_vector_runs_and_paths():
    v = vector(3, 2, 4, DOUBLE)
    runs = list(E.leaf_runs(v, 2))
    assert [tuple(r[:2]) + tuple(r[3:]) for r in runs] == [
        ((0, 0), 0, 2, 8), ((0, 1), 32, 2, 8), ((0, 2), 64, 2, 8),
        ((1, 0), 80, 2, 8), ((1, 1), 112, 2, 8), ((1, 2), 144, 2, 8)]
    assert [p for p, _o, _b in E.iter_elements(v, 1)] == [
        (0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (0, 2, 0), (0, 2, 1)]


def test_contiguous_leaves_collapse_and_resized_leaf_n1():
    runs = list(E.leaf_runs(contiguous(1000, DOUBLE), 3))
    assert [(r.prefix, r.offset, r.n, r.stride) for r in runs] == [
        ((0,), 0, 1000, 8), ((1,), 8000, 1000, 8), ((2,), 16000, 1000, 8)]
    runs = list(E.leaf_runs(resized(DOUBLE, -8, 24), 3))
    assert [(r.prefix, r.offset, r.n) for r in runs] == [((0,), 0, 1), ((1,), 24, 1),
                                                         ((2,), 48, 1)]
    assert [r.path(0) for r in runs] == [(0, 0), (1, 0), (2, 0)]
    # a buffer of a basic type: one run
    runs = list(E.leaf_runs(DOUBLE, 5))
    assert [(r.prefix, r.offset, r.n, r.stride) for r in runs] == [((), 0, 5, 8)]


def test_paper_struct_paths():
    s = ALL["struct"]()
    els = list(E.iter_elements(s, 1))
    assert els[0][:2] == ((0, 1, 0), 0)           # block 0 is the MPI_LB marker
    assert els[5 + 5][:2] == ((0, 2, 5), 52)
    assert els[-1][:2] == ((0, 3, 1), 84)


def test_subtree_restriction():
    v = vector(3, 2, 4, DOUBLE)
    assert [(p, o) for p, o, _b in E.iter_elements(v, 2, prefix=(1,))] == [
        ((1, 0, 0), 80), ((1, 0, 1), 88), ((1, 1, 0), 112), ((1, 1, 1), 120),
        ((1, 2, 0), 144), ((1, 2, 1), 152)]
    assert [(p, o) for p, o, _b in E.iter_elements(v, 2, prefix=(1, 2))] == [
        ((1, 2, 0), 144), ((1, 2, 1), 152)]
    assert [(p, o) for p, o, _b in E.iter_elements(v, 2, prefix=(1, 2, 1))] == [
        ((1, 2, 1), 152)]
    runs = list(E.leaf_runs(v, 2, prefix=(1, 2, 1)))
    assert runs[0].path(0) == (1, 2, 1) and runs[0].n == 1
    s = ALL["struct"]()
    assert [p for p, _o, _b in E.iter_elements(s, 1, prefix=(0, 3))] == [(0, 3, 0), (0, 3, 1)]
    assert list(E.iter_elements(s, 1, prefix=(0, 0, 0))) == []     # the LB marker
    assert E.count_elements(v, 2, (1,)) == 6
    assert E.count_elements(v, 2, (1, 2)) == 2
    with pytest.raises(PathError):
        list(E.iter_elements(v, 2, prefix=(2,)))


def test_subarray_fortran_order_and_partial_prefix():
    f = subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT)
    els = [(p, o) for p, o, _b in E.iter_elements(f, 1)]
    # first index varies fastest; offset (1+i)*4 + (1+j)*16
    assert els == [((0, 0, 0), 20), ((0, 1, 0), 24), ((0, 0, 1), 36), ((0, 1, 1), 40),
                   ((0, 0, 2), 52), ((0, 1, 2), 56)]
    runs = list(E.leaf_runs(f, 1))
    assert runs[0].vpos == 1 and runs[0].path(1) == (0, 1, 0)
    # sub-tree [0][1]: elements with i == 1, in typemap order
    assert [(p, o) for p, o, _b in E.iter_elements(f, 1, prefix=(0, 1))] == [
        ((0, 1, 0), 24), ((0, 1, 1), 40), ((0, 1, 2), 56)]
    c = subarray([4, 5], [2, 3], [1, 1], ORDER_C, INT)
    assert [(p, o) for p, o, _b in E.iter_elements(c, 1, prefix=(0, 1))] == [
        ((0, 1, 0), 44), ((0, 1, 1), 48), ((0, 1, 2), 52)]


def test_subarray_3d():
    s = subarray([3, 4, 5], [2, 1, 2], [1, 2, 3], ORDER_C, CHAR)
    assert [(p, o) for p, o, _b in E.iter_elements(s, 1)] == [
        ((0, i, j, k), (1 + i) * 20 + (2 + j) * 5 + 3 + k)
        for i in range(2) for j in range(1) for k in range(2)]


# ------------------------------------------------------------------ darray

def _owned(g, distrib, darg, p, c):
    if distrib == NONE:
        return list(range(g))
    if distrib == BLOCK:
        blk = -(-g // p) if darg == DFLT else darg
        return [x for x in range(g) if x // blk == c]
    blk = 1 if darg == DFLT else darg
    return [x for x in range(g) if (x // blk) % p == c]


def _darray_reference(rank, gsizes, distribs, dargs, psizes, order):
    n = len(gsizes)
    coords, r = [], rank
    for d in reversed(range(n)):
        coords.append(r % psizes[d])
        r //= psizes[d]
    coords.reverse()
    owned = [_owned(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d]) for d in range(n)]
    locs = [list(range(len(o))) for o in owned]
    out = []
    if order == ORDER_C:
        combos = itertools.product(*locs)
    else:
        combos = (tuple(reversed(c)) for c in itertools.product(*reversed(locs)))
    for ks in combos:
        g = [owned[d][ks[d]] for d in range(n)]
        if order == ORDER_C:
            lin = 0
            for d in range(n):
                lin = lin * gsizes[d] + g[d]
        else:
            lin = 0
            for d in reversed(range(n)):
                lin = lin * gsizes[d] + g[d]
        out.append(((0,) + ks, lin * 4))
    return out


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
@pytest.mark.parametrize("order", [ORDER_C, ORDER_F])
def test_darray_2x2_grid_each_rank(rank, order):
    gsizes, distribs, dargs, psizes = [5, 6, 2], [CYCLIC, BLOCK, NONE], [2, DFLT, DFLT], [2, 2, 1]
    d = darray(4, rank, gsizes, distribs, dargs, psizes, order, INT)
    got = [(p, o) for p, o, _b in E.iter_elements(d, 1)]
    assert got == _darray_reference(rank, gsizes, distribs, dargs, psizes, order)
    assert (d.lb, d.extent) == (0, 5 * 6 * 2 * 4)


def test_darray_by_hand():
    # rank 0 of a 2x2 grid, C order: rows {0,1,4} (cyclic 2), cols {0,1,2} (block)
    d = darray(4, 0, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT)
    rows, cols = [0, 1, 4], [0, 1, 2]
    assert [o for _p, o, _b in E.iter_elements(d, 1)] == [
        (r * 6 + c) * 4 for r in rows for c in cols]
    from mpipp.model import combiners
    assert combiners.stage_sizes(d, ()) == 3
    assert combiners.stage_sizes(d, (2,)) == 3
    assert combiners.child_at(d, (2, 1))[1] == (4 * 6 + 1) * 4
    # rank 3: rows {2,3}, cols {3,4,5}
    d3 = darray(4, 3, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT)
    assert [o for _p, o, _b in E.iter_elements(d3, 1)] == [
        (r * 6 + c) * 4 for r in (2, 3) for c in (3, 4, 5)]
    # cyclic default darg (1) and block with explicit darg
    d5 = darray(2, 1, [7], [CYCLIC], [DFLT], [2], ORDER_C, INT)
    assert [o // 4 for _p, o, _b in E.iter_elements(d5, 1)] == [1, 3, 5]
    d6 = darray(2, 1, [7], [BLOCK], [5], [2], ORDER_C, INT)
    assert [o // 4 for _p, o, _b in E.iter_elements(d6, 1)] == [5, 6]
    # a process that owns nothing
    d7 = darray(4, 3, [3], [BLOCK], [1], [4], ORDER_C, INT)
    assert list(E.iter_elements(d7, 1)) == []


@pytest.mark.parametrize("name", sorted(ALL))
def test_long_paths_round_trip_every_combiner(name):
    from mpipp.model.paths import format_long_path, format_path, parse_path, resolve_path
    t = ALL[name]()
    for p, o, b in E.iter_elements(t, 2):
        text = format_long_path(t, p, 2, "buf")
        assert text.startswith("buf(CONTIGUOUS)[%d](%s)" % (p[0], t.combiner))
        assert text.endswith("(%s)" % b.kind_label)
        parsed = parse_path(text)
        assert parsed.indices == p
        r = resolve_path(t, 2, parsed)
        assert (r.offset, r.node, r.is_leaf) == (o, b, True)
        assert parse_path(format_path(p)).indices == p


def test_periodic_runs_shift_indices_that_several_loops_share():
    """A cyclic(2) darray dimension loops twice over one index: repetition v
    of the periodic plan shifts each template run's index, not sets it."""
    t = darray(1, 0, [8, 6], [BLOCK, CYCLIC], [DFLT, 2], [1, 1], ORDER_F, DOUBLE)
    assert list(E.periodic_runs(E.periodic_plan(t, 1))) == list(E.internal_runs(t, 1))
