"""Streaming renderer: lines, long paths, offsets, repeats, limit, batched
reads, unreadable memory, JSON."""

import json
import math
import struct as st

import pytest

from dtypes import (BASICS, CHAR, DOUBLE, DOUBLE_INT, INT, LB, UB, contiguous, hvector, resized,
                    struct, subarray, vector, ORDER_F)
from mpipp.model import decode
from mpipp.model import render as R
from mpipp.model.basics import element_span
from mpipp.model.offsets import address_of
from mpipp.model.paths import LongPathFormatter, format_path
from fakemem import Mem
from mpipp.model.errors import PathError, UnreadableElement


def doubles(vals):
    return b"".join(st.pack("<d", v) for v in vals)


def test_vector_lines():
    v = vector(2, 2, 3, DOUBLE)                 # doubles at 0,8 | 24,32 ; extent 40
    mem = Mem(doubles([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
    lines = list(R.render_elements(v, 2, mem))
    assert lines == ["[0][0][0] = 0", "[0][0][1] = 1", "[0][1][0] = 3", "[0][1][1] = 4",
                     "[1][0][0] = 5", "[1][0][1] = 6", "[1][1][0] = 8", "[1][1][1] = 9"]
    assert len(mem.reads) == 1            # one coalesced read


def test_struct_long_paths_offsets_and_format():
    s = struct([1, 2, 1], [0, 8, 24], [INT, DOUBLE, CHAR], name="s_t")
    raw = st.pack("<i4xddc", 7, 1.5, -2.0, b"A")
    mem = Mem(raw)
    assert list(R.render_elements(s, 1, mem)) == [
        "[0][0][0] = 7", "[0][1][0] = 1.5", "[0][1][1] = -2", "[0][2][0] = 65 'A'"]
    assert list(R.render_elements(s, 1, mem, long_paths=True, root_label="buf")) == [
        "buf(CONTIGUOUS)[0](STRUCT)[0][0](INT) = 7",
        "buf(CONTIGUOUS)[0](STRUCT)[1][0](DOUBLE) = 1.5",
        "buf(CONTIGUOUS)[0](STRUCT)[1][1](DOUBLE) = -2",
        "buf(CONTIGUOUS)[0](STRUCT)[2][0](CHAR) = 65 'A'"]
    assert list(R.render_elements(s, 1, mem, with_offsets=True, base_address=0x1000)) == [
        "[0][0][0] +0 0x1000 = 7", "[0][1][0] +8 0x1008 = 1.5",
        "[0][1][1] +16 0x1010 = -2", "[0][2][0] +24 0x1018 = 65 'A'"]
    assert list(R.render_elements(s, 1, mem, fmt="x"))[0] == "[0][0][0] = 0x7"


def test_prefix_restriction():
    v = vector(2, 2, 3, DOUBLE)
    mem = Mem(doubles(range(10)))
    assert list(R.render_elements(v, 2, mem, prefix=(1, 1))) == [
        "[1][1][0] = 8", "[1][1][1] = 9"]
    assert list(R.render_elements(v, 2, mem, prefix=(1, 1, 1))) == ["[1][1][1] = 9"]
    with pytest.raises(PathError):
        list(R.render_elements(v, 2, mem, prefix=(2,)))


def test_negative_lb_resized_reads_before_base():
    r = resized(DOUBLE, -8, 16)
    mem = Mem(doubles([1, 2, 3, 4]), lo=-8)
    # elements at 0, 16 relative to base (lb -8 does not move data)
    assert list(R.render_elements(contiguous(1, r), 2, mem)) == [
        "[0][0][0] = 2", "[1][0][0] = 4"]
    lines = list(R.render_elements(r, 2, Mem(doubles([1, 2, 3]))))
    assert lines == ["[0][0] = 1", "[1][0] = 3"]
    s = struct([1, 1], [-8, 0], [DOUBLE, INT])
    mem = Mem(doubles([2.5]) + st.pack("<i", 9), lo=-8)
    assert list(R.render_elements(s, 1, mem, with_offsets=True, base_address=0x100)) == [
        "[0][0][0] -8 0xf8 = 2.5", "[0][1][0] +0 0x100 = 9"]


def test_markers_and_pairs():
    s = struct([1, 1, 1], [-4, 0, 16], [LB, DOUBLE_INT, UB])
    raw = st.pack("<di4x", 0.25, 5)
    assert list(R.render_elements(s, 1, Mem(raw))) == ["[0][1][0] = {value = 0.25, index = 5}"]


def test_repeats_fold_like_gdb():
    c = contiguous(30, INT)
    raw = st.pack("<30i", *([0] * 20 + [1] * 10))
    lines = list(R.render_elements(c, 1, Mem(raw), repeats=10))
    # 20 zeros > 10: folded; 10 ones == threshold: not folded (gdb: reps > threshold)
    assert lines[0] == "[0][0..19] = 0 <repeats 20 times>"
    assert lines[1:] == ["[0][%d] = 1" % k for k in range(20, 30)]
    lines = list(R.render_elements(c, 1, Mem(raw), repeats=None))
    assert len(lines) == 30
    # 11 identical values are folded
    raw = st.pack("<30i", *([3] * 11 + list(range(19))))
    lines = list(R.render_elements(c, 1, Mem(raw), repeats=10))
    assert lines[0] == "[0][0..10] = 3 <repeats 11 times>" and len(lines) == 20


def test_repeats_are_per_run_and_span_chunks(monkeypatch):
    monkeypatch.setattr(R, "CHUNK_ELEMENTS", 7)
    c = contiguous(2, contiguous(25, INT))
    raw = st.pack("<50i", *([4] * 50))
    lines = list(R.render_elements(c, 1, Mem(raw), repeats=10))
    assert lines == ["[0][0][0..24] = 4 <repeats 25 times>",
                     "[0][1][0..24] = 4 <repeats 25 times>"]
    lines = list(R.render_elements(c, 1, Mem(raw), repeats=10, with_offsets=True))
    assert lines[1] == "[0][1][0..24] +100 0x64 = 4 <repeats 25 times>"


def test_limit():
    v = vector(250, 4, 8, DOUBLE)
    mem = Mem(doubles(range(2000)))
    lines = list(R.render_elements(v, 1, mem, limit=5))
    assert lines == ["[0][0][0] = 0", "[0][0][1] = 1", "[0][0][2] = 2", "[0][0][3] = 3",
                     "[0][1][0] = 8",
                     "... (showing 5 of 1000 elements; use 'set print elements unlimited'"
                     " or a PATH)"]
    assert sum(n for _o, n in mem.reads) < 2000 * 8
    # exactly all elements: no trailer
    assert len(list(R.render_elements(contiguous(5, INT), 1, Mem(bytes(20)), limit=5,
                                      repeats=None))) == 5
    # folded block counts `repeats` toward the limit (like gdb)
    c = contiguous(100, INT)
    lines = list(R.render_elements(c, 1, Mem(bytes(400)), limit=15, repeats=10))
    assert lines == ["[0][0..99] = 0 <repeats 100 times>"]
    c = contiguous(2, contiguous(50, INT))
    lines = list(R.render_elements(c, 1, Mem(bytes(400)), limit=15, repeats=10))
    assert lines == ["[0][0][0..49] = 0 <repeats 50 times>",
                     "[0][1][0..49] = 0 <repeats 50 times>"]
    lines = list(R.render_elements(c, 1, Mem(bytes(400)), limit=5, repeats=10))
    assert lines == ["[0][0][0..49] = 0 <repeats 50 times>",
                     "... (showing 50 of 100 elements; use 'set print elements unlimited'"
                     " or a PATH)"]


def test_batched_reads_are_few_and_bounded():
    v = vector(100000, 1, 2, DOUBLE)             # 100000 doubles, 8-byte gaps
    mem = Mem(bytes(v.extent))
    n = sum(1 for _ in R.render_elements(v, 1, mem))
    assert n == 100000
    assert len(mem.reads) <= 10
    assert max(length for _o, length in mem.reads) <= R.MAX_READ
    # far apart blocks are not merged into one huge read
    far = vector(3, 1, 10 ** 6, DOUBLE)
    mem = Mem(bytes(far.extent))
    list(R.render_elements(far, 1, mem))
    assert sorted(mem.reads) == [(0, 8), (8 * 10 ** 6, 8), (16 * 10 ** 6, 8)]


def test_unreadable_names_first_bad_element():
    v = vector(10, 2, 4, INT)                       # ints at 16*i + {0,4}
    mem = Mem(bytes(v.extent), bad=[(16 * 6 + 4, 16 * 6 + 5)])
    out = []
    with pytest.raises(UnreadableElement) as e:
        for line in R.render_elements(v, 1, mem, base_address=0x1000):
            out.append(line)
    assert e.value.path == "[0][6][1]"
    assert e.value.offset == 100 and e.value.address == 0x1000 + 100
    assert "[0][6][1]" in str(e.value) and "\n" not in str(e.value)
    assert out[-1] == "[0][6][0] = 0" and len(out) == 13
    # long form names the element in the output form
    with pytest.raises(UnreadableElement) as e:
        list(R.render_elements(v, 1, mem, long_paths=True))
    assert e.value.path == "buf(CONTIGUOUS)[0](VECTOR)[6][1](INT)"
    # the buffer starts in unmapped memory
    with pytest.raises(UnreadableElement) as e:
        list(R.render_elements(contiguous(4, INT), 1, Mem(bytes(16), lo=8)))
    assert e.value.path == "[0][0]"
    # inside a long run: bisection
    c = contiguous(1000, INT)
    with pytest.raises(UnreadableElement) as e:
        list(R.render_elements(c, 1, Mem(bytes(4000), bad=[(2001, 2002)])))
    assert e.value.path == "[0][500]"


def test_text_blocks_keep_the_lines_before_an_unreadable_element():
    """render_text (what the command writes) batches lines: those before
    the first unreadable element are written all the same (an hvector
    whose second element is 2**40 bytes away printed its error alone)."""
    far = hvector(3, 1, 1 << 40, DOUBLE)
    out = []
    with pytest.raises(UnreadableElement) as e:
        for text in R.render_text(far, 1, Mem(bytes(8))):
            out.append(text)
    assert "".join(out) == "[0][0][0] = 0\n" and e.value.path == "[0][1][0]"


def test_unreadable_gap_does_not_blame_elements():
    v = vector(3, 1, 1000, INT)                  # gaps between the blocks unreadable
    mem = Mem(bytes(v.extent), bad=[(100, 200)])
    assert list(R.render_elements(v, 1, mem)) == ["[0][0][0] = 0", "[0][1][0] = 0",
                                                  "[0][2][0] = 0"]


def test_subarray_fortran_render():
    f = subarray([2, 3], [2, 2], [0, 1], ORDER_F, INT)
    raw = st.pack("<6i", 0, 1, 2, 3, 4, 5)
    assert list(R.render_elements(f, 1, Mem(raw))) == [
        "[0][0][0] = 2", "[0][1][0] = 3", "[0][0][1] = 4", "[0][1][1] = 5"]


def test_json_elements():
    s = struct([1, 1], [0, 8], [INT, DOUBLE])
    raw = st.pack("<i4xd", 3, 0.5) * 2
    items = list(R.iter_json_elements(s, 2, Mem(raw), base_address=0x2000))
    assert items == [
        {"path": "[0][0][0]", "offset": 0, "address": 0x2000, "type": "MPI_INT", "value": 3,
         "bytes": "03000000"},
        {"path": "[0][1][0]", "offset": 8, "address": 0x2008, "type": "MPI_DOUBLE",
         "value": 0.5, "bytes": "000000000000e03f"},
        {"path": "[1][0][0]", "offset": 16, "address": 0x2010, "type": "MPI_INT", "value": 3,
         "bytes": "03000000"},
        {"path": "[1][1][0]", "offset": 24, "address": 0x2018, "type": "MPI_DOUBLE",
         "value": 0.5, "bytes": "000000000000e03f"}]
    items = list(R.iter_json_elements(s, 2, Mem(raw), limit=3))
    assert len(items) == 4 and items[-1] is R.TRUNCATED
    items = list(R.iter_json_elements(s, 2, Mem(raw), limit=4))
    assert len(items) == 4 and items[-1] is not R.TRUNCATED
    items = list(R.iter_json_elements(s, 2, Mem(raw), prefix=(1, 1), long_paths=True))
    assert [i["path"] for i in items] == ["buf(CONTIGUOUS)[1](STRUCT)[1][0](DOUBLE)"]
    with pytest.raises(UnreadableElement):
        list(R.iter_json_elements(s, 3, Mem(raw)))
    items = list(R.iter_json_elements(contiguous(1, DOUBLE_INT), 1,
                                      Mem(st.pack("<di4x", 1.5, 2))))
    assert items[0]["value"] == {"value": 1.5, "index": 2}
    assert items[0]["bytes"] == st.pack("<di", 1.5, 2).hex()


def test_zero_count_and_empty():
    assert list(R.render_elements(INT, 0, Mem(b""))) == []
    assert list(R.render_elements(contiguous(0, INT), 5, Mem(b""))) == []
    assert list(R.render_elements(CHAR, 3, Mem(b"abc"))) == [
        "[0] = 97 'a'", "[1] = 98 'b'", "[2] = 99 'c'"]


def test_long_paths_with_brackets_in_label():
    s = struct([1, 2], [0, 8], [INT, DOUBLE])
    raw = st.pack("<i4xdd", 7, 1.5, 2.5)
    assert list(R.render_elements(s, 1, Mem(raw), long_paths=True,
                                  root_label="cases[13].buf")) == [
        "cases[13].buf(CONTIGUOUS)[0](STRUCT)[0][0](INT) = 7",
        "cases[13].buf(CONTIGUOUS)[0](STRUCT)[1][0](DOUBLE) = 1.5",
        "cases[13].buf(CONTIGUOUS)[0](STRUCT)[1][1](DOUBLE) = 2.5"]
    f = subarray([2, 3], [2, 2], [0, 1], ORDER_F, INT)
    assert list(R.render_elements(f, 1, Mem(st.pack("<6i", *range(6))), long_paths=True,
                                  root_label="a(b)[1]"))[1] == \
        "a(b)[1](CONTIGUOUS)[0](SUBARRAY)[1][0](INT) = 3"


def test_sparse_runs_are_split_into_bounded_reads(monkeypatch):
    monkeypatch.setattr(R, "MAX_READ", 64)
    c = contiguous(40, INT)                    # one run of 160 bytes
    mem = Mem(st.pack("<40i", *range(40)))
    lines = list(R.render_elements(c, 1, mem, repeats=None))
    assert lines[-1] == "[0][39] = 39" and len(lines) == 40
    assert max(length for _o, length in mem.reads) <= 64


def test_limit_stops_before_unreadable_memory():
    c = contiguous(6, INT)
    mem = Mem(st.pack("<6i", 1, 2, 3, 4, 5, 6), bad=[(12, 24)])
    lines = list(R.render_elements(c, 1, mem, limit=3))
    assert lines == ["[0][0] = 1", "[0][1] = 2", "[0][2] = 3",
                     "... (showing 3 of 6 elements; use 'set print elements unlimited'"
                     " or a PATH)"]
    items = list(R.iter_json_elements(c, 1, mem, limit=3))
    assert [i["value"] for i in items[:3]] == [1, 2, 3] and items[3] is R.TRUNCATED
    with pytest.raises(UnreadableElement) as e:
        list(R.render_elements(c, 1, mem, limit=4))
    assert e.value.path == "[0][3]"


def elements_one_at_a_time(piece, m, longf, base_address, fmt):
    """What render.element_dicts builds a column at a time, an element at a time."""
    basic, span = piece.basic, element_span(piece.basic)
    out = []
    for j in range(m):
        o = piece.offset + j * piece.stride
        raw = bytes(piece.buf[o - piece.base:o - piece.base + span])
        path = piece.path(j)
        if longf is not None:
            head, tail = longf.parts(path, piece.vpos)
            path_text = "%s[%d]%s" % (head, path[piece.vpos], tail)
        else:
            path_text = format_path(path)
        d = {"path": path_text, "offset": o, "address": address_of(base_address, o),
             "type": basic.display_name, "value": decode.json_value(basic, raw),
             "bytes": raw.hex()}
        if fmt:
            d["text"] = decode.format_one(basic, raw, fmt)
        out.append(d)
    return out


@pytest.mark.parametrize("basic", BASICS, ids=lambda b: b.display_name)
def test_element_dicts_are_the_elements_one_at_a_time(basic):
    raw = st.pack("<ddd", math.inf, math.nan, -0.0) + bytes((i * 37 + 5) % 256 for i in range(900))
    span = max(element_span(basic), 1)
    longf = LongPathFormatter(contiguous(9, basic), 1, "b%s")
    for fmt in (None, "x", "d", "u", "c", "a", "f", "z", "o", "t"):
        for offset, stride in ((8, span), (16, 3 * span), (3, 5 * span + 1), (4, 0), (400, -span)):
            piece = R.Piece((0, 2), 1, offset, basic, 6, stride, raw[2:], 2)
            for paths in (None, longf):
                want = elements_one_at_a_time(piece, 5, paths, (1 << 64) - 40, fmt)
                got = R.element_dicts(piece, 5, paths, (1 << 64) - 40, fmt)
                assert json.dumps(got) == json.dumps(want), (fmt, offset, stride)


def test_json_elements_of_a_piece_come_in_growing_slices(monkeypatch):
    v = vector(3, 700, 1000, INT)                      # runs of 700 ints
    raw = st.pack("<3000i", *range(3000))
    whole = [d for p in R.read_pieces(v, 1, Mem(raw), base_address=64)
             for d in R.element_dicts(p, p.n, None, 64)]
    assert list(R.iter_json_elements(v, 1, Mem(raw), base_address=64)) == whole
    assert list(R.iter_json_elements(v, 1, Mem(raw), base_address=64, limit=1000)) == \
        whole[:1000] + [R.TRUNCATED]
    decoded = []
    real = decode.json_values
    monkeypatch.setattr(decode, "json_values", lambda *a: decoded.append(a[3]) or real(*a))
    first = next(R.iter_json_elements(v, 1, Mem(raw)))
    assert first["value"] == 0 and decoded == [R.FIRST_DICTS]
