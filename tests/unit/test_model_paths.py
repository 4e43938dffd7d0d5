"""Paths: parse (short/long/malformed), format (short/long), resolve with
range errors and kind checks, stage browsing per combiner."""

import pytest

from dtypes import (BLOCK, CHAR, CYCLIC, DFLT, DOUBLE, DOUBLE_INT, INT, LB, ORDER_C, ORDER_F,
                    UB, contiguous, darray, dup, hindexed, indexed, indexed_block, resized,
                    struct, subarray, vector, hvector)
from mpipp.model import combiners as K
from mpipp.model.errors import PathError
from mpipp.model.paths import format_long_path, format_path, parse_path, resolve_path


def paper_struct():
    return struct([1, 5, 7, 2, 1], [-4, 0, 47, 76, 100], [LB, INT, CHAR, DOUBLE, UB],
                  name="s_type")


def test_parse_short_and_long():
    p = parse_path("[0][2][5]")
    assert (p.label, p.indices, p.kinds) == (None, (0, 2, 5), ())
    p = parse_path("s_type(STRUCT)[2][5](CHAR)")
    assert (p.label, p.indices, p.kinds) == ("s_type", (2, 5), ((0, "STRUCT"), (2, "CHAR")))
    p = parse_path("  buf(CONTIGUOUS) [0] (STRUCT)[ 2 ][5](CHAR) ")
    assert p.indices == (0, 2, 5) and p.kinds[0] == (0, "CONTIGUOUS")
    assert parse_path("[0x10]").indices == (16,)
    assert parse_path("").indices == ()
    assert parse_path("s_type").label == "s_type"


@pytest.mark.parametrize("bad", ["[", "[1", "[a]", "[1]]", "[-1]", "[1](", "[1]x", "(STRUCT",
                                 "[1.5]", "[1][2", "buf)[0]", "[0]()"])
def test_parse_malformed(bad):
    with pytest.raises(PathError) as e:
        parse_path(bad)
    assert "\n" not in str(e.value)


def test_format_short_and_long():
    s = paper_struct()
    assert format_path((0, 2, 5)) == "[0][2][5]"
    assert format_path(()) == ""
    assert format_long_path(s, (2, 5)) == "s_type(STRUCT)[2][5](CHAR)"
    assert format_long_path(s, (2, 5), None, "t") == "t(STRUCT)[2][5](CHAR)"
    assert format_long_path(s, (0, 2, 5), 4) == "buf(CONTIGUOUS)[0](STRUCT)[2][5](CHAR)"
    assert format_long_path(s, (0, 2), 4, "b") == "b(CONTIGUOUS)[0](STRUCT)[2]"
    assert format_long_path(s, (3,), None) == "s_type(STRUCT)[3]"
    nested = contiguous(2, vector(3, 2, 4, DOUBLE))
    assert format_long_path(nested, (1, 1, 2, 0), 2) == \
        "buf(CONTIGUOUS)[1](CONTIGUOUS)[1](VECTOR)[2][0](DOUBLE)"
    r = resized(DOUBLE_INT, 0, 32)
    assert format_long_path(r, (0, 0), 1) == "buf(CONTIGUOUS)[0](RESIZED)[0](DOUBLE_INT)"


def test_long_and_short_input_resolve_the_same():
    s = paper_struct()
    a = resolve_path(s, 3, parse_path("[1][2][5]"))
    b = resolve_path(s, 3, parse_path("buf(CONTIGUOUS)[1](STRUCT)[2][5](CHAR)"))
    c = resolve_path(s, 3, parse_path("x(contiguous)[1](s_type)[2][5](MPI_CHAR)"))
    assert a == b == c
    assert a.indices == (1, 2, 5) and a.is_leaf and a.offset == 104 + 47 + 5
    assert a.node is CHAR
    t = resolve_path(s, None, parse_path("s_type(STRUCT)[2][5](CHAR)"))
    assert t.offset == 52 and t.is_leaf


def test_kind_mismatch_and_misplaced_kind():
    s = paper_struct()
    with pytest.raises(PathError, match=r"kind mismatch at \[0\]\[2\]\[5\]: path says \(INT\)"):
        resolve_path(s, 1, parse_path("[0][2][5](INT)"))
    with pytest.raises(PathError, match="does not name a node"):
        resolve_path(s, 1, parse_path("[0](STRUCT)[2](CHAR)[5]"))
    with pytest.raises(PathError, match="kind mismatch"):
        resolve_path(s, 1, parse_path("buf(VECTOR)[0]"))


def test_out_of_range_messages():
    v = vector(3, 4, 5, DOUBLE)
    with pytest.raises(PathError) as e:
        resolve_path(v, 1, (0, 1, 7))
    assert str(e.value) == "index 7 out of range at stage 2 of [0][1]: valid 0..3"
    with pytest.raises(PathError) as e:
        resolve_path(v, 2, (2,))
    assert str(e.value) == "index 2 out of range at stage 0 of []: valid 0..1"
    with pytest.raises(PathError) as e:
        resolve_path(v, 1, (0, 3))
    assert str(e.value) == "index 3 out of range at stage 1 of [0]: valid 0..2"
    with pytest.raises(PathError, match="past leaf MPI_DOUBLE at \\[0\\]\\[1\\]\\[2\\]"):
        resolve_path(v, 1, (0, 1, 2, 0))
    s = paper_struct()
    with pytest.raises(PathError, match="valid 0..6"):
        resolve_path(s, 1, (0, 2, 7))
    with pytest.raises(PathError, match="valid none"):
        resolve_path(contiguous(0, INT), 1, (0, 0))


def test_partial_paths():
    v = vector(3, 4, 5, DOUBLE)
    r = resolve_path(v, 2, (1, 2))
    assert r.node is v and r.partial == (2,) and not r.is_leaf
    assert r.offset == v.extent + 2 * 5 * 8
    r = resolve_path(v, 2, (1,))
    assert r.node is v and r.partial == () and r.offset == v.extent
    r = resolve_path(v, 2, ())
    assert r.partial == () and r.offset == 0


@pytest.mark.parametrize("mk,stages,sizes,child_off", [
    (lambda: contiguous(4, DOUBLE), 1, [((), 4)], ((3,), 24)),
    (lambda: vector(3, 2, 4, DOUBLE), 2, [((), 3), ((1,), 2)], ((2, 1), 72)),
    (lambda: hvector(3, 2, 100, DOUBLE), 2, [((), 3), ((1,), 2)], ((2, 1), 208)),
    (lambda: indexed([2, 5], [10, 0], INT), 2, [((), 2), ((0,), 2), ((1,), 5)], ((0, 1), 44)),
    (lambda: hindexed([2, 5], [10, 0], INT), 2, [((1,), 5)], ((0, 1), 14)),
    (lambda: indexed_block(3, [2, 9], INT), 2, [((), 2), ((1,), 3)], ((1, 2), 44)),
    (lambda: resized(DOUBLE, -8, 24), 1, [((), 1)], ((0,), 0)),
    (lambda: dup(DOUBLE), 1, [((), 1)], ((0,), 0)),
    (lambda: subarray([4, 5], [2, 3], [1, 1], ORDER_C, INT), 2, [((), 2), ((1,), 3)],
     ((1, 2), 2 * 20 + 3 * 4)),
    (lambda: subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT), 2, [((), 2), ((0,), 3)],
     ((1, 2), 2 * 4 + 3 * 16)),
    (lambda: darray(4, 0, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT), 2,
     [((), 3), ((0,), 3)], ((2, 2), (4 * 6 + 2) * 4)),
])
def test_stage_browsing(mk, stages, sizes, child_off):
    t = mk()
    assert K.n_stages(t) == stages
    for prefix, n in sizes:
        assert K.stage_sizes(t, prefix) == n
    idx, off = child_off
    assert K.child_at(t, idx)[1] == off


def test_stage_browsing_struct_children():
    s = paper_struct()
    assert K.stage_sizes(s, ()) == 5
    assert [K.stage_sizes(s, (i,)) for i in range(5)] == [1, 5, 7, 2, 1]
    assert K.child_at(s, (2, 5)) == (CHAR, 52)
    assert K.child_at(s, (3, 1)) == (DOUBLE, 84)
    with pytest.raises(PathError, match="valid 0..4"):
        K.stage_sizes(s, (5,))
    with pytest.raises(PathError):
        K.stage_sizes(DOUBLE, ())


def test_huge_stage_browsing_is_cheap():
    v = vector(10 ** 12, 10 ** 6, 2 * 10 ** 6, DOUBLE)
    assert K.stage_sizes(v, ()) == 10 ** 12
    assert K.stage_sizes(v, (10 ** 12 - 1,)) == 10 ** 6
    r = resolve_path(v, 10 ** 9, (10 ** 9 - 1, 10 ** 12 - 1, 999999))
    assert r.is_leaf


def test_stage_sizes_rejects_complete_prefix():
    v = vector(3, 2, 4, DOUBLE)
    with pytest.raises(PathError, match="complete"):
        K.stage_sizes(v, (1, 1))
    with pytest.raises(PathError, match="complete"):
        K.stage_sizes(contiguous(2, INT), (0,))
    assert K.stage_sizes(v, (2,)) == 2


def test_parse_labels_with_brackets():
    p = parse_path("cases[13].buf(CONTIGUOUS)[0](STRUCT)[2][5](CHAR)")
    assert (p.label, p.indices) == ("cases[13].buf", (0, 2, 5))
    assert p.kinds == ((0, "CONTIGUOUS"), (1, "STRUCT"), (3, "CHAR"))
    p = parse_path("a(b)[1](VECTOR)[2]")
    assert (p.label, p.indices, p.kinds) == ("a(b)[1]", (2,), ((0, "VECTOR"),))
    p = parse_path("s_type(STRUCT)")
    assert (p.label, p.indices, p.kinds) == ("s_type", (), ((0, "STRUCT"),))
    p = parse_path("x[0]")
    assert (p.label, p.indices) == ("x", (0,))
    with pytest.raises(PathError):
        parse_path("a]b[0]")
