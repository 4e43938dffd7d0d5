"""Periodic fast path of render_elements (count repetitions of a small fixed
layout, e.g. an array of structs): output identical to the general path for
values, limits, repeats, unreadable memory and odd layouts."""

import random
import struct as st

import pytest

from dtypes import (BLOCK, BYTE, CHAR, C_BOOL, CYCLIC, DFLT, DOUBLE, FLOAT, INT, LONG,
                    LONG_DOUBLE, ORDER_F, SHORT, UINT8, UNSIGNED, UNSIGNED_CHAR, ULONG,
                    contiguous, darray, hvector, resized, struct, vector)
from mpipp.model import elements as E
from mpipp.model import jsonout
from mpipp.model import render as R
from fakemem import Mem
from test_model_jsonout import whole_document
from mpipp.model.errors import UnreadableElement


def item_t():
    return resized(struct([1, 3, 5], [0, 8, 32], [INT, DOUBLE, CHAR]), 0, 40)


def item_mem(n, special=False):
    out = bytearray(40 * n)
    for k in range(n):
        st.pack_into("<i", out, 40 * k, k - 3)
        ds = [k + j * 0.5 + 1.0 / (k + 7) for j in range(3)]
        if special and k % 7 == 3:
            ds = [float("nan"), float("-inf"), -0.0]
        st.pack_into("<3d", out, 40 * k + 8, *ds)
        out[40 * k + 32:40 * k + 37] = bytes(((k * 5 + j) * 37) % 256 for j in range(5))
        out[40 * k + 37:40 * k + 40] = b"\xee\xee\xee"        # padding
    if special:                      # a NaN with payload and a signalling NaN
        st.pack_into("<Q", out, 8, 0x7FF0000000000001)
        st.pack_into("<Q", out, 16, 0xFFF8000000000123)
    return out


def general(monkeypatch, *args, **kw):
    with monkeypatch.context() as m:
        m.setattr(R, "periodic", lambda *a: None)
        return collect(*args, **kw)


def collect(*args, **kw):
    out = []
    try:
        for line in R.render_elements(*args, **kw):
            out.append(line)
    except UnreadableElement as e:
        out.append(("unreadable", e.path, e.offset, e.address))
    return out


def same(monkeypatch, dt, count, mem, **kw):
    fast = collect(dt, count, mem, **kw)
    slow = general(monkeypatch, dt, count, mem, **kw)
    assert fast == slow
    return fast


def test_plan_and_runs_match_internal_runs():
    t = item_t()
    plan = E.periodic_plan(t, 5)
    assert plan is not None and plan[0] == 5 and plan[1] == 40
    assert list(E.periodic_runs(plan)) == list(E.internal_runs(t, 5))
    assert list(E.periodic_runs(plan, 3)) == list(E.internal_runs(t, 5))[9:]
    assert E.periodic_plan(t, 1) is None
    assert E.periodic_plan(DOUBLE, 10) is None


def test_struct_array_is_fast_and_identical(monkeypatch):
    t = item_t()
    mem = Mem(item_mem(50))
    lines = same(monkeypatch, t, 50, mem, repeats=10)
    assert lines[:6] == ["[0][0][0][0] = -3", "[0][0][1][0] = 0.14285714285714285",
                         "[0][0][1][1] = 0.64285714285714279",
                         "[0][0][1][2] = 1.1428571428571428", "[0][0][2][0] = 0 '\\000'",
                         "[0][0][2][1] = 37 '%'"]
    mem.reads.clear()
    collect(t, 50, mem, repeats=10)
    assert len(mem.reads) == 1


def test_special_values_and_all_chars(monkeypatch):
    for t in (item_t(), resized(struct([1, 3, 5], [0, 8, 32], [INT, DOUBLE, UNSIGNED_CHAR]),
                                0, 40)):
        same(monkeypatch, t, 80, Mem(item_mem(80, special=True)), repeats=None)
    for basic in (CHAR, UNSIGNED_CHAR, C_BOOL, BYTE, UINT8):
        t = contiguous(2, basic)
        same(monkeypatch, t, 128, Mem(bytes(range(256))), repeats=None)


@pytest.mark.parametrize("limit", [1, 2, 8, 9, 10, 17, 18, 19, 200, 449, 450, 451, 1000])
def test_limits(monkeypatch, limit):
    t = item_t()
    mem = Mem(item_mem(50))
    same(monkeypatch, t, 50, mem, limit=limit, repeats=10)


def test_small_blocks(monkeypatch):
    monkeypatch.setattr(R, "CHUNK_ELEMENTS", 20)
    t = item_t()
    mem = Mem(item_mem(50))
    for limit in (None, 7, 30, 449):
        same(monkeypatch, t, 50, mem, limit=limit, repeats=10)


def test_repeats_fall_back_to_folding(monkeypatch):
    t = item_t()
    data = bytearray(40 * 30)          # all zeros: chars fold when run > repeats
    for r in (None, 0, 2, 3, 4, 5, 10):
        same(monkeypatch, t, 30, Mem(data), repeats=r)
    assert any("<repeats" in x for x in collect(t, 30, Mem(data), repeats=3))


@pytest.mark.parametrize("bad", [(0, 1), (5, 6), (8, 9), (36, 37), (37, 40), (400, 401),
                                 (1999, 2000), (1000, 4000)])
def test_unreadable(monkeypatch, bad):
    t = item_t()
    mem = Mem(item_mem(50), bad=[bad])
    for limit in (None, 5, 100, 300):
        for chunk in (32768, 20):
            with monkeypatch.context() as m:
                m.setattr(R, "CHUNK_ELEMENTS", chunk)
                same(monkeypatch, t, 50, mem, limit=limit, repeats=10)


def test_short_buffer(monkeypatch):
    t = item_t()
    mem = Mem(item_mem(50)[:40 * 49 + 35])      # last chars missing
    same(monkeypatch, t, 50, mem, repeats=10)


def test_odd_layouts(monkeypatch):
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(1 << 14))
    types = [
        struct([2, 1], [16, 0], [INT, DOUBLE]),                 # descending displacements
        struct([1, 1], [0, 2], [INT, SHORT]),                   # overlapping elements
        resized(struct([1, 1], [4, 12], [FLOAT, LONG]), -4, 32),   # negative lb
        resized(struct([1], [0], [DOUBLE]), 0, 8000),            # huge gap between reps
        struct([1, 2], [0, 8], [LONG_DOUBLE, UNSIGNED]),        # no fast formatter
        vector(3, 2, 3, ULONG),
        hvector(2, 1, -16, DOUBLE),
        contiguous(3, struct([1, 2], [0, 4], [C_BOOL, SHORT])),
        struct([1, 1], [0, 1], [UINT8, CHAR]),
        struct([1, 1], [0, 5000], [INT, INT]),                  # gap the reads skip
    ]
    for t in types:
        for count in (2, 3, 17):
            lo = min(0, t.lb * count, t.true_lb) - 64
            mem = Mem(data[:8192], lo=lo)
            for limit in (None, 5):
                same(monkeypatch, t, count, mem, limit=limit, repeats=None)
                same(monkeypatch, t, count, mem, limit=limit, repeats=10)


def covered(dt, count):
    """(lo, hi): the bytes a buffer's elements touch, 8 bytes wider each
    side; None without elements."""
    runs = list(E.internal_runs(dt, count))
    if not runs:
        return None
    lo = min(min(o, o + (n - 1) * s) for _f, _v, o, _b, n, s in runs) - 8
    hi = max(max(o, o + (n - 1) * s) + max(b.size, b.extent)
             for _f, _v, o, b, n, s in runs) + 8
    return lo, hi


@pytest.mark.parametrize("seed", range(60))
def test_random_trees_fast_equals_general(monkeypatch, seed):
    from test_model_fuzz import gen
    rnd = random.Random(1000 + seed)
    used = 0
    for _ in range(8):
        dt, _ref = gen(rnd, 3)
        count = rnd.randint(1, 6)
        if dt.is_leaf or E.count_elements(dt, count) > 2000:
            continue
        plan = E.periodic_plan(dt, count)
        if plan is not None:
            assert list(E.periodic_runs(plan)) == list(E.internal_runs(dt, count))
            used += R.periodic(dt, count, None) is not None
        bounds = covered(dt, count)
        if bounds is None:
            continue
        lo, hi = bounds
        data = bytes(rnd.randrange(4) if rnd.random() < 0.5 else rnd.randrange(256)
                     for _ in range(hi - lo))
        bad = []
        if rnd.random() < 0.3:
            b0 = rnd.randint(lo, hi)
            bad = [(b0, b0 + rnd.randint(1, 9))]
        mem = Mem(data, lo=lo, bad=bad)
        for limit in (None, rnd.randint(1, 40)):
            for repeats in (None, 2, 10):
                same(monkeypatch, dt, count, mem, limit=limit, repeats=repeats)


def test_float_specials(monkeypatch):
    t = struct([2, 1], [0, 8], [FLOAT, SHORT])
    vals = [0.5, float("inf"), float("nan"), -0.0, 1e-40, 3.4e38]
    data = bytearray()
    for k in range(12):
        data += st.pack("<ffhxx", vals[k % 6], vals[(k + 1) % 6], k)
    st.pack_into("<I", data, 4, 0x7F800001)          # signalling NaN payload
    st.pack_into("<I", data, 12, 0xFFC00042)
    lines = same(monkeypatch, t, 12, Mem(data), repeats=None)
    assert lines[1] == "[0][0][1] = nan(0x1)"
    assert E.periodic_plan(t, 12) is not None and R.periodic(t, 12, None) is not None


def test_repetitions_spanning_several_indices(monkeypatch):
    """A cyclic(2) darray in Fortran order repeats blocks holding two values
    of the slowest index: each element keeps its own index ([0][0][1], not
    [0][0][0]), in the text and in JSON."""
    d = darray(1, 0, [8, 6], [BLOCK, CYCLIC], [DFLT, 2], [1, 1], ORDER_F, DOUBLE)
    mem = Mem(st.pack("<%dd" % 48, *(k + 0.5 for k in range(48))))
    assert R.periodic(d, 1) is not None
    lines = same(monkeypatch, d, 1, mem, repeats=None)
    assert lines[7:10] == ["[0][7][0] = 7.5", "[0][0][1] = 8.5", "[0][1][1] = 9.5"]
    check_json(d, 1, mem)


def check_json(dt, count, mem, limit=None):
    """jsonout's document (periodic blocks included) equals json.dumps of the
    element dicts."""
    want = whole_document(dt, count, mem, limit=limit, base_address=0x1000)
    assert "".join(jsonout.decode_document(dt, count, mem, limit=limit,
                                           base_address=0x1000)) == want


@pytest.mark.parametrize("seed", range(30))
def test_random_trees_json(seed):
    from test_model_fuzz import gen
    rnd = random.Random(2000 + seed)
    for _ in range(8):
        dt, _ref = gen(rnd, 3)
        count = rnd.randint(1, 6)
        if dt.is_leaf or E.count_elements(dt, count) > 2000:
            continue
        bounds = covered(dt, count)
        if bounds is None:
            continue
        lo, hi = bounds
        mem = Mem(bytes(rnd.randrange(256) for _ in range(hi - lo)), lo=lo)
        for limit in (None, rnd.randint(1, 40)):
            check_json(dt, count, mem, limit)
