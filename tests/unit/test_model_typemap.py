"""Extents, typemaps (expanded and compressed) and signatures for every
combiner, against values worked out by hand from the MPI standard."""

import pytest

from dtypes import (BYTE, CHAR, CYCLIC, BLOCK, DFLT, DOUBLE, DOUBLE_INT, FLOAT, INT, LB,
                    ORDER_C, ORDER_F, SHORT, UB, contiguous, darray, dup, f90_real, hindexed,
                    hindexed_block, hindexed_integer, hvector, hvector_integer, indexed,
                    indexed_block, resized, struct, struct_integer, subarray, vector)
from mpipp.model import typemap as T
from mpipp.model.datatype import Datatype


def tm(dt, count=1):
    return [(b.name, o) for b, o in T.expand_typemap(dt, count)]


def ext(dt):
    e = T.compute_extents(dt)
    return (e.size, e.lb, e.extent, e.true_lb, e.true_extent)


def D(*offs):
    return [("MPI_DOUBLE", o) for o in offs]


def I(*offs):
    return [("MPI_INT", o) for o in offs]


# ------------------------------------------------------------------ per combiner

def test_contiguous():
    t = contiguous(3, DOUBLE)
    assert tm(t) == D(0, 8, 16)
    assert ext(t) == (24, 0, 24, 0, 24)
    assert tm(contiguous(3, DOUBLE, large=True)) == D(0, 8, 16)


def test_vector_and_large_form():
    for t in (vector(3, 2, 4, DOUBLE), vector(3, 2, 4, DOUBLE, large=True)):
        assert tm(t) == D(0, 8, 32, 40, 64, 72)
        assert ext(t) == (48, 0, 80, 0, 80)


def test_vector_negative_stride():
    t = vector(3, 1, -2, INT)
    assert tm(t) == I(0, -8, -16)
    assert ext(t) == (12, -16, 20, -16, 20)


@pytest.mark.parametrize("mk", [lambda: hvector(2, 3, 20, INT),
                                lambda: hvector(2, 3, 20, INT, large=True),
                                lambda: hvector_integer(2, 3, 20, INT)])
def test_hvector_forms(mk):
    t = mk()
    assert tm(t) == I(0, 4, 8, 20, 24, 28)
    assert ext(t) == (24, 0, 32, 0, 32)


@pytest.mark.parametrize("large", [False, True])
def test_indexed(large):
    t = indexed([2, 1], [3, 0], INT, large=large)
    assert tm(t) == I(12, 16, 0)
    assert ext(t) == (12, 0, 20, 0, 20)


@pytest.mark.parametrize("mk", [lambda: hindexed([1, 2], [16, 0], DOUBLE),
                                lambda: hindexed([1, 2], [16, 0], DOUBLE, large=True),
                                lambda: hindexed_integer([1, 2], [16, 0], DOUBLE)])
def test_hindexed_forms(mk):
    t = mk()
    assert tm(t) == D(16, 0, 8)
    assert ext(t) == (24, 0, 24, 0, 24)


@pytest.mark.parametrize("large", [False, True])
def test_indexed_block(large):
    t = indexed_block(2, [4, 0], SHORT, large=large)
    assert [(b.name, o) for b, o in T.expand_typemap(t)] == [
        ("MPI_SHORT", 8), ("MPI_SHORT", 10), ("MPI_SHORT", 0), ("MPI_SHORT", 2)]
    assert ext(t) == (8, 0, 12, 0, 12)


@pytest.mark.parametrize("large", [False, True])
def test_hindexed_block(large):
    t = hindexed_block(1, [5, 1], CHAR, large=large)
    assert [(b.name, o) for b, o in T.expand_typemap(t)] == [("MPI_CHAR", 5), ("MPI_CHAR", 1)]
    assert ext(t) == (2, 1, 5, 1, 5)


@pytest.mark.parametrize("large", [False, True])
def test_struct(large):
    t = struct([1, 2], [0, 8], [INT, DOUBLE], large=large)
    assert tm(t) == I(0) + D(8, 16)
    assert ext(t) == (20, 0, 24, 0, 24)
    assert T.compute_extents(struct([1, 1], [0, 8], [DOUBLE, CHAR]), align=8).extent == 16


def test_struct_integer():
    t = struct_integer([2, 1], [4, 0], [SHORT, CHAR])
    assert [(b.name, o) for b, o in T.expand_typemap(t)] == [
        ("MPI_SHORT", 4), ("MPI_SHORT", 6), ("MPI_CHAR", 0)]
    assert ext(t) == (5, 0, 8, 0, 8)


def test_paper_struct_with_lb_ub_markers():
    # Protze et al. 2012 (docs/design.md), figures 1 and 5
    s = struct([1, 5, 7, 2, 1], [-4, 0, 47, 76, 100], [LB, INT, CHAR, DOUBLE, UB])
    assert ext(s) == (43, -4, 104, 0, 92)
    e = tm(s)
    assert len(e) == 14
    assert e[:5] == I(0, 4, 8, 12, 16)
    assert e[5:12] == [("MPI_CHAR", 47 + k) for k in range(7)]
    assert e[12:] == D(76, 84)
    # markers are sticky in an enclosing constructor
    c = contiguous(2, s)
    assert ext(c) == (86, -4, 208, 0, 196)


def test_resized_negative_lb():
    for large in (False, True):
        r = resized(DOUBLE, -8, 24, large=large)
        assert ext(r) == (8, -8, 24, 0, 8)
        c = contiguous(2, r)
        assert tm(c) == D(0, 24)
        assert ext(c) == (16, -8, 48, 0, 32)


def test_dup():
    d = dup(vector(2, 1, 2, INT))
    assert tm(d) == I(0, 8)
    assert ext(d) == (8, 0, 12, 0, 12)


def test_subarray_c_and_fortran():
    # 4x5 ints, 2x3 block starting at (1,1)
    c = subarray([4, 5], [2, 3], [1, 1], ORDER_C, INT)
    assert tm(c) == I(24, 28, 32, 44, 48, 52)      # row-major: (1+i)*20 + (1+j)*4
    assert ext(c) == (24, 0, 80, 24, 32)
    f = subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT)
    # column-major: (1+i)*4 + (1+j)*16, first index fastest
    assert tm(f) == I(20, 24, 36, 40, 52, 56)
    assert ext(f) == (24, 0, 80, 20, 40)
    assert tm(subarray([4, 5], [2, 3], [1, 1], ORDER_C, INT, large=True)) == tm(c)


def test_f90_leaf():
    r = f90_real(15, 307, 8)
    assert r.display_name == "MPI_Type_create_f90_real(15,307)"
    c = contiguous(2, r)
    assert [o for _b, o in T.expand_typemap(c)] == [0, 8]


def test_pair_is_one_entry():
    c = contiguous(2, DOUBLE_INT)
    assert [(b.name, o) for b, o in T.expand_typemap(c)] == [("MPI_DOUBLE_INT", 0),
                                                            ("MPI_DOUBLE_INT", 16)]
    assert ext(c) == (24, 0, 32, 0, 28)


def test_zero_count():
    for t in (contiguous(0, INT), vector(0, 2, 3, INT), indexed([], [], INT),
              struct([0], [8], [INT]), vector(2, 0, 3, INT)):
        assert tm(t) == []
        assert ext(t) == (0, 0, 0, 0, 0)
        assert T.format_typemap(T.typemap_runs(t)) == "{}"
        assert T.signature(t) == []


def test_nested_three_levels():
    inner = vector(2, 1, 2, INT)                          # ints at 0, 8; extent 12
    mid = struct([1, 2], [0, 16], [CHAR, inner])          # char 0; inner at 16, 28
    outer = contiguous(2, mid)
    mid_ext = T.compute_extents(mid)
    assert (mid_ext.lb, mid_ext.extent) == (0, 40)
    assert tm(outer) == [("MPI_CHAR", 0)] + I(16, 24, 28, 36) + [("MPI_CHAR", 40)] + \
        I(56, 64, 68, 76)


def test_buffer_count():
    assert tm(vector(2, 1, 2, INT), 2) == I(0, 8, 12, 20)


# ------------------------------------------------------------------ compressed

def test_compressed_vector_is_one_line_and_instant():
    t = vector(250000, 4, 8, DOUBLE)
    runs = T.typemap_runs(t)
    assert len(runs) == 1
    assert T.format_typemap(runs) == ("{(MPI_DOUBLE,0), (MPI_DOUBLE,8), (MPI_DOUBLE,16), "
                                      "(MPI_DOUBLE,24)}×250000 stride 64")
    huge = vector(10 ** 6, 1, 2, DOUBLE)
    assert T.format_typemap(T.typemap_runs(huge, 10 ** 6)) == \
        "{{(MPI_DOUBLE,0)}×1000000 stride 16}×1000000 stride 15999992"
    assert T.n_elements(huge, 10 ** 6) == 10 ** 12


def test_compressed_contiguous_collapses():
    t = contiguous(10, contiguous(100, DOUBLE))
    assert T.format_typemap(T.typemap_runs(t, 3)) == "{(MPI_DOUBLE,0)}×3000 stride 8"


def test_small_typemap_is_mpi_notation():
    t = struct([1, 1], [0, 8], [INT, DOUBLE])
    assert T.format_typemap(T.typemap_runs(t)) == "{(MPI_INT,0), (MPI_DOUBLE,8)}"


def test_mixed_compressed():
    t = struct([1, 100, 1], [0, 8, 808], [INT, DOUBLE, CHAR])
    assert T.format_typemap(T.typemap_runs(t)) == \
        "{(MPI_INT,0), {(MPI_DOUBLE,8)}×100 stride 8, (MPI_CHAR,808)}"


def test_compressed_matches_expanded():
    types = [vector(3, 2, 4, DOUBLE), indexed([2, 1], [3, 0], INT),
             struct([1, 2], [0, 8], [INT, DOUBLE]),
             subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT),
             darray(4, 3, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT),
             contiguous(3, struct([1, 1, 1], [0, 8, 16], [DOUBLE, DOUBLE, DOUBLE]))]
    from mpipp.model.elements import iter_elements
    for t in types:
        for count in (1, 3):
            # two independent code paths: compressed runs vs the element walker
            assert list(T.iter_entries(T.typemap_runs(t, count))) == \
                [(b, o) for _p, o, b in iter_elements(t, count)]


# ------------------------------------------------------------------ signature

def test_signature():
    s = struct([1, 5, 7, 2, 1], [-4, 0, 47, 76, 100], [LB, INT, CHAR, DOUBLE, UB])
    assert T.signature(s) == [("MPI_INT", 5), ("MPI_CHAR", 7), ("MPI_DOUBLE", 2)]
    assert T.format_signature(T.signature(s)) == "MPI_INT×5, MPI_CHAR×7, MPI_DOUBLE×2"
    assert T.format_signature(T.signature(vector(3, 4, 5, DOUBLE), 1)) == "MPI_DOUBLE×12"
    pair = struct([1, 1], [0, 8], [INT, DOUBLE])
    big = T.signature(pair, 10 ** 6)
    assert T.format_signature(big) == "(MPI_INT×1, MPI_DOUBLE×1)×1000000"
    assert T.signature(pair, 2) == [("MPI_INT", 1), ("MPI_DOUBLE", 1), ("MPI_INT", 1),
                                    ("MPI_DOUBLE", 1)]
    assert list(T.expand_signature(T.signature(pair, 20))) == ["MPI_INT", "MPI_DOUBLE"] * 20
    assert T.signature(contiguous(2, DOUBLE_INT)) == [("MPI_DOUBLE_INT", 2)]


def test_signature_float_byte():
    t = struct([2, 3], [0, 8], [FLOAT, BYTE])
    assert T.format_signature(T.signature(t, 1)) == "MPI_FLOAT×2, MPI_BYTE×3"


def test_recorded_extents_are_not_recomputed():
    # MPICH pads struct {double, char} to 16: the recorded value is used by
    # enclosing types, compute_extents of the struct itself says 9 unaligned.
    s = struct([1, 1], [0, 8], [DOUBLE, CHAR])
    assert s.extent == 9
    s.extent = 16
    assert tm(contiguous(2, s)) == [("MPI_DOUBLE", 0), ("MPI_CHAR", 8), ("MPI_DOUBLE", 16),
                                    ("MPI_CHAR", 24)]


def test_named_leaf_extents():
    assert ext(DOUBLE) == (8, 0, 8, 0, 8)
    assert isinstance(DOUBLE, Datatype)


def test_format_typemap_bounded():
    ix = indexed([1, 2] * 50, list(range(0, 300, 3)), DOUBLE)
    assert T.format_typemap(T.typemap_runs(ix), max_parts=3) == \
        "{(MPI_DOUBLE,0), (MPI_DOUBLE,24), (MPI_DOUBLE,32), ...}"
    assert T.format_typemap(T.typemap_runs(vector(250000, 4, 8, DOUBLE)), max_parts=2) == \
        "{(MPI_DOUBLE,0), (MPI_DOUBLE,8), ...}×250000 stride 64"
    # irregular indexed types with many blocks stay exact
    from mpipp.model.elements import iter_elements
    assert list(T.expand_typemap(ix)) == [(b, o) for _p, o, b in iter_elements(ix)]
    assert [o for _b, o in T.expand_typemap(ix)][:5] == [0, 24, 32, 48, 72]


def test_nested_runs_compress_at_every_level():
    """A 4x4x1 face of a 3-D subarray is one row of 4 repeated 4 times, not
    16 entries; the same for every combiner that nests loops."""
    face = subarray([8, 8, 8], [4, 4, 1], [1, 1, 1], ORDER_C, DOUBLE)
    assert T.format_typemap(T.typemap_runs(face)) == (
        "{(MPI_DOUBLE,584), (MPI_DOUBLE,648), (MPI_DOUBLE,712), (MPI_DOUBLE,776)}×4 stride 512")
    cube = subarray([8, 8, 8], [2, 3, 4], [0, 0, 0], ORDER_F, INT)
    assert T.format_typemap(T.typemap_runs(cube)) == (
        "{{(MPI_INT,0), (MPI_INT,4)}×3 stride 32}×4 stride 256")
    assert T.format_typemap(T.typemap_runs(vector(4, 4, 8, INT))) == (
        "{(MPI_INT,0), (MPI_INT,4), (MPI_INT,8), (MPI_INT,12)}×4 stride 32")
    assert T.format_typemap(T.typemap_runs(contiguous(3, vector(2, 1, 4, SHORT)))) == (
        "{(MPI_SHORT,0), (MPI_SHORT,8)}×3 stride 10")


def test_equal_blocks_at_equal_distances_compress():
    assert T.format_typemap(T.typemap_runs(indexed([2, 2, 2, 2], [0, 10, 20, 30], INT))) == \
        "{(MPI_INT,0), (MPI_INT,4)}×4 stride 40"
    assert T.format_typemap(T.typemap_runs(indexed([2, 2, 2, 2], [0, 10, 20, 31], INT))) == \
        "{{(MPI_INT,0), (MPI_INT,4)}×3 stride 40, (MPI_INT,124), (MPI_INT,128)}"
    assert T.format_typemap(T.typemap_runs(hindexed_block(3, [0, 100, 200, 300], DOUBLE))) == \
        "{(MPI_DOUBLE,0), (MPI_DOUBLE,8), (MPI_DOUBLE,16)}×4 stride 100"


def test_small_flat_types_stay_flat():
    assert T.format_typemap(T.typemap_runs(contiguous(3, INT))) == \
        "{(MPI_INT,0), (MPI_INT,4), (MPI_INT,8)}"
    cell = resized(struct([1, 1], [0, 8], [INT, DOUBLE]), 0, 16)
    assert T.format_typemap(T.typemap_runs(contiguous(2, cell))) == \
        "{(MPI_INT,0), (MPI_DOUBLE,8), (MPI_INT,16), (MPI_DOUBLE,24)}"
