"""Packing in typemap order, element comparison (exact, tolerances, NaN,
signed zeros, x87 padding, pairs), dump files written and read back as
streams, and diffs of a buffer against a dump or a second buffer."""

import io
import math
import struct as st

import pytest

from dtypes import (CHAR, DOUBLE, DOUBLE_INT, FLOAT, INT, LONG_DOUBLE, SHORT, SHORT_INT,
                    contiguous, resized, struct, vector)
from fakemem import Mem
from mpipp.model import compare as C
from mpipp.model import dumpfile, render
from mpipp.model.errors import UnreadableElement
from mpipp.model.pack import PackedBuffer, pack, pack_run, packed_size, unpack

S_TYPE = struct([1, 3, 5], [0, 8, 32], [INT, DOUBLE, CHAR])
TOL = C.Tolerance(1e-6, 0.0)


def d(x):
    return st.pack("<d", x)


def test_pack_and_unpack_pairs():
    raw = d(1.5) + st.pack("<i", 7) + b"\xee" * 4            # padding after the int
    assert packed_size(DOUBLE_INT) == 12
    assert pack(DOUBLE_INT, raw) == d(1.5) + st.pack("<i", 7)
    assert unpack(DOUBLE_INT, pack(DOUBLE_INT, raw))[:12] == raw[:12]
    short_int = st.pack("<h", -2) + b"\xff\xff" + st.pack("<i", 9)
    assert pack(SHORT_INT, short_int) == st.pack("<hi", -2, 9)


@pytest.mark.parametrize("basic,stride", [(DOUBLE, 8), (DOUBLE, 24), (SHORT, 6), (INT, 4),
                                          (LONG_DOUBLE, 32), (DOUBLE_INT, 16)])
def test_pack_run_gathers_strided_elements(basic, stride):
    buf = bytes(range(256)) * 2
    want = b"".join(pack(basic, buf[4 + k * stride:]) for k in range(5))
    assert pack_run(basic, buf, 4, 5, stride) == want


def test_packed_stream_is_mpi_pack_order():
    vec = vector(2, 2, 3, SHORT)                             # shorts 0,1 and 3,4 of each 6
    mem = Mem(bytes(range(40)))
    packed = PackedBuffer(vec, 2, mem)
    assert packed.gather is not None                         # repetitions: gathered in blocks
    assert b"".join(packed.stream()) == bytes([0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17,
                                               18, 19])
    assert len(mem.reads) == 1
    irregular = PackedBuffer(struct([1, 1], [4, 0], [SHORT, SHORT]), 2, Mem(bytes(range(40))))
    assert irregular.gather is None                          # descending offsets: piece by piece
    assert b"".join(irregular.stream()) == bytes([4, 5, 0, 1, 10, 11, 6, 7])


def test_gathered_blocks_fall_back_to_pieces_at_an_unreadable_repetition():
    t = resized(struct([1, 1], [0, 8], [INT, DOUBLE]), 0, 16)
    mem = Mem(bytes(range(64)), bad=[(40, 44)])              # repetition 2's double
    packed = PackedBuffer(t, 4, mem)
    got = []
    with pytest.raises(UnreadableElement, match=r"\[2\]\[0\]\[1\]\[0\]"):
        for kind, _what, data in packed.blocks():
            got.append(kind)
    assert got == ["piece"] * 5                              # reps 0 and 1, then rep 2's int


@pytest.mark.parametrize("basic,a,b,tol,equal", [
    (DOUBLE, d(0.0), d(-0.0), C.EXACT, True),
    (DOUBLE, d(math.nan), st.pack("<Q", 0xFFF0000000000001), C.EXACT, True),
    (DOUBLE, d(math.nan), d(1.0), C.EXACT, False),
    (DOUBLE, d(1.0), d(math.nan), TOL, False),
    (DOUBLE, d(math.inf), d(math.inf), C.EXACT, True),
    (DOUBLE, d(math.inf), d(-math.inf), TOL, False),
    (DOUBLE, d(1e308), d(math.inf), C.Tolerance(1.0, 1.0), False),
    (DOUBLE, d(1.0000001), d(1.0), C.EXACT, False),
    (DOUBLE, d(1.0000001), d(1.0), C.Tolerance(1e-6, 0), True),
    (DOUBLE, d(1.0000001), d(1.0), C.Tolerance(1e-8, 0), False),
    (DOUBLE, d(0.25), d(0.0), C.Tolerance(0, 0.25), True),
    (FLOAT, st.pack("<f", 0.5), st.pack("<f", -0.0), C.Tolerance(0, 0.5), True),
    (INT, st.pack("<i", 1), st.pack("<i", 2), C.Tolerance(1.0, 1.0), False),
    (CHAR, b"a", b"a", C.EXACT, True),
])
def test_element_equality_rules(basic, a, b, tol, equal):
    assert C.elements_equal(basic, a, b, tol) is equal


def test_long_double_padding_is_not_a_difference_and_values_are_exact():
    third = (0x3FFDAAAAAAAAAAAAAAAB).to_bytes(10, "little")
    next_up = (0x3FFDAAAAAAAAAAAAAAAC).to_bytes(10, "little")
    assert C.elements_equal(LONG_DOUBLE, third + b"\1" * 6, third + b"\2" * 6)
    # one x87 ulp apart: the same double, still a difference when exact
    assert not C.elements_equal(LONG_DOUBLE, third + bytes(6), next_up + bytes(6))
    assert C.elements_equal(LONG_DOUBLE, third + bytes(6), next_up + bytes(6), TOL)


def test_pairs_compare_members():
    a = pack(DOUBLE_INT, d(0.0) + st.pack("<i", 1) + bytes(4))
    b = pack(DOUBLE_INT, d(-0.0) + st.pack("<i", 1) + bytes(4))
    c = pack(DOUBLE_INT, d(0.0) + st.pack("<i", 2) + bytes(4))
    assert C.elements_equal(DOUBLE_INT, a, b)
    assert not C.elements_equal(DOUBLE_INT, a, c)


def test_run_differences_name_paths():
    left = d(1) + d(2) + d(3)
    right = d(1) + d(-2) + d(3)
    got = list(C.run_differences((0, 1, 5), 2, DOUBLE, 3, left, right))
    assert [(x.path, x.left, x.right) for x in got] == [((0, 1, 6), d(2), d(-2))]
    assert list(C.run_differences((0,), 0, DOUBLE, 3, left, left)) == []


def s_memory(values):
    """Two S_TYPE elements {int, double[3], char[5]} at offset 0 and extent."""
    out = bytearray(2 * S_TYPE.extent)
    for rep, (i, ds, cs) in enumerate(values):
        o = rep * S_TYPE.extent
        out[o:o + 4] = st.pack("<i", i)
        out[o + 8:o + 32] = st.pack("<3d", *ds)
        out[o + 32:o + 37] = cs
    return Mem(bytes(out))


GOOD = s_memory([(1, (0.5, 1.5, 2.5), b"abcde"), (2, (3.5, 4.5, 5.5), b"fghij")])
BAD = s_memory([(1, (0.5, 1.5000001, 2.5), b"abcde"), (7, (3.5, 4.5, math.nan), b"fghiJ")])


def dump_text(fmt, mem):
    pieces = render.read_pieces(S_TYPE, 2, mem)
    if fmt == "raw":
        out = io.BytesIO()
        dumpfile.write_raw(out, PackedBuffer(S_TYPE, 2, mem).stream())
        return out.getvalue()
    out = io.StringIO()
    if fmt == "csv":
        dumpfile.write_csv(out, pieces)
    else:
        dumpfile.write_json(out, {"type": "s_type", "count": 2},
                            render.iter_json_elements(S_TYPE, 2, mem))
    return out.getvalue().encode()


@pytest.fixture(params=dumpfile.FORMATS)
def good_dump(request, tmp_path):
    path = tmp_path / ("good." + request.param)
    path.write_bytes(dump_text(request.param, GOOD))
    return str(path), request.param


def diffs(mem, path, tol=C.EXACT, count=2):
    with dumpfile.open_dump(path) as ref:
        return [(x.path, x.basic.display_name) for x in
                C.diff_dump(S_TYPE, count, mem, ref, tol)]


def test_dumps_are_recognized_and_compare_equal(good_dump):
    path, fmt = good_dump
    with dumpfile.open_dump(path) as ref:
        assert ref.format == fmt
    assert diffs(GOOD, path) == []


def test_dump_diff_finds_each_change(good_dump):
    path, _fmt = good_dump
    assert diffs(BAD, path) == [((0, 1, 1), "MPI_DOUBLE"), ((1, 0, 0), "MPI_INT"),
                                ((1, 1, 2), "MPI_DOUBLE"), ((1, 2, 4), "MPI_CHAR")]
    assert diffs(BAD, path, TOL) == [((1, 0, 0), "MPI_INT"), ((1, 1, 2), "MPI_DOUBLE"),
                                     ((1, 2, 4), "MPI_CHAR")]


def test_dump_that_does_not_match_the_buffer(good_dump, tmp_path):
    path, fmt = good_dump
    with pytest.raises(dumpfile.DumpError, match="more"):
        diffs(GOOD, path, count=1)
    other = resized(contiguous(9, SHORT), 0, 40)
    with dumpfile.open_dump(path) as ref:
        with pytest.raises(dumpfile.DumpError, match="does not match" if fmt != "raw"
                           else "ends after"):
            list(C.diff_dump(other, 4, Mem(bytes(200)), ref))


def test_malformed_dumps(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(dumpfile.JSON_MAGIC + ', "elements": [\n{"path": 1}\n]}\n')
    with pytest.raises(dumpfile.DumpError, match=r"bad.json:2: not an element"):
        diffs(GOOD, str(bad))
    cut = tmp_path / "cut.json"
    cut.write_bytes(dump_text("json", GOOD)[:-4])
    with pytest.raises(dumpfile.DumpError, match="truncated"):
        diffs(GOOD, str(cut))
    with pytest.raises(dumpfile.DumpError, match="cannot open"):
        dumpfile.open_dump(str(tmp_path / "none.json"))


def test_json_dump_is_one_json_document(good_dump):
    path, fmt = good_dump
    if fmt == "json":
        import json
        with open(path) as f:
            doc = json.load(f)
        assert doc["mpipp_dump"] == 1 and doc["count"] == 2 and len(doc["elements"]) == 18


def test_two_buffers_read_together():
    read = C.read_both(GOOD, BAD)
    got = [x.path for x in C.diff_pieces(render.read_pieces(S_TYPE, 2, read))]
    assert got == [(0, 1, 1), (1, 0, 0), (1, 1, 2), (1, 2, 4)]
    short = Mem(bytes(50))
    with pytest.raises(UnreadableElement):
        list(C.diff_pieces(render.read_pieces(S_TYPE, 2, C.read_both(GOOD, short))))


def test_two_buffers_block_by_block():
    assert PackedBuffer(S_TYPE, 2, GOOD).gather is not None
    got = [(x.path, x.left, x.right) for x in C.diff_buffers(S_TYPE, 2, GOOD, BAD)]
    assert [g[0] for g in got] == [(0, 1, 1), (1, 0, 0), (1, 1, 2), (1, 2, 4)]
    assert got[1][1:] == (st.pack("<i", 2), st.pack("<i", 7))
    assert list(C.diff_buffers(S_TYPE, 2, GOOD, GOOD)) == []
    with pytest.raises(UnreadableElement, match=r"\[1\]\[0\]\[0\]"):
        list(C.diff_buffers(S_TYPE, 2, GOOD, Mem(GOOD.data[:S_TYPE.extent])))
