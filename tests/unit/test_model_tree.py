"""The combiner table, parameter parsing (classic and _c layouts), display
parameters, and defences against corrupt trees."""

import pytest

from dtypes import (BLOCK, CHAR, CYCLIC, DFLT, DOUBLE, INT, LB, ORDER_C, ORDER_F, UB,
                    contiguous, darray, dup, hindexed, hindexed_block, hvector, indexed,
                    indexed_block, resized, struct, subarray, vector)
from mpipp.model import combiners as K
from mpipp.model import elements as E
from mpipp.model import typemap as T
from mpipp.model import where as W
from mpipp.model.datatype import (DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING, Datatype, max_depth,
                                   set_max_depth, validate)
from mpipp.model.errors import TooDeepError
from mpipp.readers.errors import MpippError
from mpipp.model.errors import TypeTreeError

ALL_COMBINERS = ["NAMED", "DUP", "CONTIGUOUS", "VECTOR", "HVECTOR", "HVECTOR_INTEGER",
                 "INDEXED", "HINDEXED", "HINDEXED_INTEGER", "INDEXED_BLOCK", "HINDEXED_BLOCK",
                 "STRUCT", "STRUCT_INTEGER", "SUBARRAY", "DARRAY", "F90_REAL", "F90_COMPLEX",
                 "F90_INTEGER", "RESIZED"]


def test_one_row_per_combiner():
    assert sorted(K.COMBINERS) == sorted(ALL_COMBINERS)
    for name, row in K.COMBINERS.items():
        assert row.name == name


def test_params_display():
    assert K.params(vector(3, 2, 4, DOUBLE)) == [("count", 3), ("blocklength", 2),
                                                ("stride", 4), ("oldtype", DOUBLE)]
    assert K.params(vector(3, 2, 4, DOUBLE, large=True)) == K.params(vector(3, 2, 4, DOUBLE))
    assert K.params(hvector(3, 2, 40, DOUBLE))[2] == ("stride", 40)
    assert K.params(contiguous(5, INT)) == [("count", 5), ("oldtype", INT)]
    s = struct([1, 5], [-4, 0], [LB, INT])
    assert K.params(s) == [("count", 2), ("array_of_blocklengths", [1, 5]),
                           ("array_of_displacements", [-4, 0]), ("array_of_types", [LB, INT])]
    assert K.params(struct([1, 5], [-4, 0], [LB, INT], large=True)) == K.params(s)
    indexed_params = [("count", 2), ("array_of_blocklengths", [2, 1]),
                      ("array_of_displacements", [3, 0]), ("oldtype", INT)]
    assert K.params(indexed([2, 1], [3, 0], INT)) == indexed_params
    assert K.params(hindexed([2, 1], [3, 0], INT, large=True)) == indexed_params
    assert K.params(indexed_block(2, [4, 0], INT)) == [
        ("count", 2), ("blocklength", 2), ("displacements", [4, 0]), ("oldtype", INT)]
    assert K.params(hindexed_block(2, [4, 0], INT, large=True))[2] == ("displacements", [4, 0])
    assert K.params(subarray([4, 5], [2, 3], [1, 0], ORDER_F, INT, large=True)) == [
        ("ndims", 2), ("sizes", [4, 5]), ("subsizes", [2, 3]), ("starts", [1, 0]),
        ("order", "FORTRAN"), ("oldtype", INT)]
    assert K.params(darray(4, 1, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT,
                           large=True)) == [
        ("size", 4), ("rank", 1), ("ndims", 2), ("gsizes", [5, 6]),
        ("distribs", ["CYCLIC", "BLOCK"]), ("dargs", [2, "DFLT"]), ("psizes", [2, 2]),
        ("order", "C"), ("oldtype", INT)]
    assert K.params(resized(DOUBLE, -8, 24, large=True)) == [("lb", -8), ("extent", 24),
                                                            ("oldtype", DOUBLE)]
    assert K.params(dup(INT)) == [("oldtype", INT)]
    assert K.params(DOUBLE) == [("name", "MPI_DOUBLE"), ("kind", "float"), ("size", 8)]


def test_blocks():
    v = vector(2, 2, 3, INT)
    assert [(i, c.name, d) for i, c, d in K.blocks(v)] == [
        ((0, 0), "MPI_INT", 0), ((0, 1), "MPI_INT", 4), ((1, 0), "MPI_INT", 12),
        ((1, 1), "MPI_INT", 16)]
    s = struct([1, 2], [0, 8], [CHAR, DOUBLE])
    assert [(i, c.name, d) for i, c, d in K.blocks(s)] == [
        ((0, 0), "MPI_CHAR", 0), ((1, 0), "MPI_DOUBLE", 8), ((1, 1), "MPI_DOUBLE", 16)]


def test_cycle_is_detected():
    a = Datatype("CONTIGUOUS", integers=[2], children=[], size=8, extent=8)
    b = Datatype("CONTIGUOUS", integers=[2], children=[a], size=8, extent=8)
    a.children = [b]
    with pytest.raises(TypeTreeError, match="cyclic"):
        validate(b)
    with pytest.raises(TypeTreeError):
        T.typemap_runs(a)


def chain(depth):
    t = INT
    for _ in range(depth):
        t = Datatype("CONTIGUOUS", integers=[1], children=[t], size=4, extent=4)
    return t


@pytest.mark.parametrize("depth", [DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING])
def test_deep_valid_types_work(depth):
    """A loop nesting a type in itself builds 70 levels in real programs;
    every walk of the model works at the depth limit itself, up to the
    highest limit 'set mpipp max-depth' takes."""
    t = chain(depth)
    set_max_depth(depth)
    try:
        validate(t)
        assert T.format_typemap(T.typemap_runs(t, 2)) == "{(MPI_INT,0), (MPI_INT,4)}"
        assert T.compute_extents(t).size == 4
        path = (1,) + (0,) * depth
        assert W.locate(t, 2, 5).path == path
        assert list(E.iter_elements(t, 2))[1][0] == path
    finally:
        set_max_depth(DEFAULT_MAX_DEPTH)


def test_depth_is_a_limit_not_corruption():
    """Deeper than the limit is "too deep to show", whatever was validated
    before (a part of the tree already checked changes nothing), and shown
    once the limit is raised."""
    t = chain(DEFAULT_MAX_DEPTH + 1)
    validate(t.children[0])
    for _ in range(2):
        with pytest.raises(TooDeepError, match=r"too deep to show: more than %d levels \(set "
                           r"mpipp max-depth, up to %d\)" % (DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING)):
            validate(t)
    set_max_depth(DEFAULT_MAX_DEPTH + 1)
    try:
        assert validate(t) is t
    finally:
        set_max_depth(DEFAULT_MAX_DEPTH)
    assert max_depth() == DEFAULT_MAX_DEPTH
    with pytest.raises(TooDeepError, match="more than %d levels" % MAX_DEPTH_CEILING):
        validate(chain(2 * MAX_DEPTH_CEILING))  # the check stops before going deeper
    with pytest.raises(ValueError):
        set_max_depth(MAX_DEPTH_CEILING + 1)


def test_dag_sharing_is_cheap():
    t = INT
    for _ in range(60):       # 2**60 paths through a DAG of 60 nodes
        t = Datatype("STRUCT", integers=[2, 1, 1], addresses=[0, 0], children=[t, t],
                     size=4, extent=4)
    validate(t)
    assert T.n_elements(t) == 2 ** 60


@pytest.mark.parametrize("dt,msg", [
    (Datatype("VECTOR", integers=[3, 2], children=[INT]), "stride missing"),
    (Datatype("VECTOR", integers=[-3, 2, 1], children=[INT]), "negative count"),
    (Datatype("INDEXED", integers=[1000000, 1, 2], children=[INT]), "count=1000000"),
    (Datatype("STRUCT", integers=[2, 1, 1], addresses=[0, 4], children=[INT]),
     "expected 2 child"),
    (Datatype("HINDEXED", integers=[2, 1, 1], addresses=[0], children=[INT]), "count=2"),
    (Datatype("SUBARRAY", integers=[1000, 1], children=[INT]), "ndims"),
    (Datatype("SUBARRAY", integers=[1, 4, 3, 2, 56], children=[INT]), "inconsistent"),
    (Datatype("SUBARRAY", integers=[1, 4, 3, 0, 99], children=[INT]), "unknown order"),
    (Datatype("DARRAY", integers=[4, 7, 1, 8, 121, -49767, 4, 56], children=[INT]), "rank"),
    (Datatype("DARRAY", integers=[4, 0, 1, 8, 999, -49767, 4, 56], children=[INT]),
     "unknown distribution"),
    (Datatype("RESIZED", addresses=[0], children=[INT]), "extent missing"),
    (Datatype("BOGUS"), "unknown combiner"),
    (Datatype("NAMED", name="MPI_X", kind="int", size=10 ** 9), "absurd size"),
    (Datatype("NAMED", name="MPI_P", kind="pair", size=12, members=[(0, INT)]),
     "corrupt pair"),
    # a member outside the pair's extent; members that do not hold its size
    (Datatype("NAMED", name="MPI_P", kind="pair", size=12, extent=16,
              members=[(0, DOUBLE), (64, INT)]), "corrupt pair"),
    (Datatype("NAMED", name="MPI_P", kind="pair", size=16, extent=16,
              members=[(0, DOUBLE), (8, INT)]), "corrupt pair"),
    (Datatype("CONTIGUOUS", integers=[2],
              children=[Datatype("NAMED", name="MPI_X", kind="int", size=-1)]), "absurd size"),
])
def test_corrupt_records(dt, msg):
    with pytest.raises(TypeTreeError, match=msg):
        validate(dt)
    assert issubclass(TypeTreeError, MpippError)


def test_huge_counts_are_lazy():
    v = vector(10 ** 15, 3, 4, DOUBLE)
    assert T.n_elements(v, 10 ** 3) == 3 * 10 ** 18
    it = E.leaf_runs(v, 10 ** 3)
    first = next(it)
    assert first.n == 3 and first.offset == 0
    e = T.compute_extents(v)
    assert e.extent == ((10 ** 15 - 1) * 4 + 3) * 8


def test_large_form_mixed_large_values():
    # a _c vector whose counts do not fit in an int
    v = Datatype("VECTOR", large_counts=[2 ** 40, 1, 2], children=[CHAR])
    validate(v)
    assert K.stage_sizes(v, ()) == 2 ** 40
    assert K.child_at(v, (2 ** 40 - 1, 0))[1] == (2 ** 40 - 1) * 2


def test_markers_alone():
    s = struct([1, 1], [-8, 8], [LB, UB])
    assert T.compute_extents(s)[:4] == (0, -8, 8, 16)
    assert list(E.leaf_runs(s, 3)) == []
