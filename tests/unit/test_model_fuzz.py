"""Random type trees checked against an independent reference expansion
written straight from the MPI definitions (not from the model's code)."""

import itertools
import random
import struct as st

import pytest

import dtypes as M
from mpipp.model import decode as DEC
from mpipp.model import elements as E
from mpipp.model import render as R
from mpipp.model import typemap as T
from mpipp.model import where as W

BASICS = [M.CHAR, M.SHORT, M.INT, M.DOUBLE, M.FLOAT, M.DOUBLE_INT, M.UNSIGNED]


def _owned(g, distrib, darg, p, c):
    if distrib == M.NONE:
        return list(range(g))
    if distrib == M.BLOCK:
        blk = -(-g // p) if darg == M.DFLT else darg
        return [x for x in range(g) if x // blk == c]
    blk = 1 if darg == M.DFLT else darg
    return [x for x in range(g) if (x // blk) % p == c]


def gen(rnd, depth):
    """(datatype, ref) where ref(path, off) yields (path, off, basic)."""
    if depth == 0 or rnd.random() < 0.25:
        b = rnd.choice(BASICS)

        def ref(path, off, b=b):
            yield path, off, b
        return b, ref
    kind = rnd.choice(["contig", "vector", "hvector", "indexed", "hindexed", "iblock",
                       "hiblock", "struct", "resized", "dup", "subarray", "darray"])
    large = rnd.random() < 0.5
    child, cref = gen(rnd, depth - 1)
    ext = child.extent
    if kind == "contig":
        n = rnd.randint(0, 4)
        dt = M.contiguous(n, child, large=large)

        def ref(path, off):
            for i in range(n):
                yield from cref(path + (i,), off + i * ext)
    elif kind in ("vector", "hvector"):
        c, bl = rnd.randint(0, 3), rnd.randint(0, 3)
        if kind == "vector":
            s = rnd.randint(-4, 5)
            dt = M.vector(c, bl, s, child, large=large)
            sb = s * ext
        else:
            sb = rnd.randint(-40, 60)
            dt = rnd.choice([M.hvector(c, bl, sb, child, large=large),
                             M.hvector_integer(c, bl, sb, child)])

        def ref(path, off):
            for i in range(c):
                for j in range(bl):
                    yield from cref(path + (i, j), off + i * sb + j * ext)
    elif kind in ("indexed", "hindexed", "iblock", "hiblock"):
        n = rnd.randint(0, 4)
        block = kind.endswith("block")
        bl1 = rnd.randint(0, 3)
        bls = [bl1] * n if block else [rnd.randint(0, 3) for _ in range(n)]
        if kind in ("indexed", "iblock"):
            disps = [rnd.randint(-3, 8) for _ in range(n)]
            dbytes = [d * ext for d in disps]
            dt = (M.indexed_block(bl1, disps, child, large=large) if block
                  else M.indexed(bls, disps, child, large=large))
        else:
            dbytes = [rnd.randint(-30, 80) for _ in range(n)]
            if block:
                dt = M.hindexed_block(bl1, dbytes, child, large=large)
            else:
                dt = rnd.choice([M.hindexed(bls, dbytes, child, large=large),
                                 M.hindexed_integer(bls, dbytes, child)])

        def ref(path, off):
            for i in range(n):
                for j in range(bls[i]):
                    yield from cref(path + (i, j), off + dbytes[i] + j * ext)
    elif kind == "struct":
        n = rnd.randint(1, 3)
        kids = [(child, cref)] + [gen(rnd, depth - 1) for _ in range(n - 1)]
        if rnd.random() < 0.3:          # sticky MPI_LB / MPI_UB markers
            kids.append((rnd.choice([M.LB, M.UB]), lambda path, off: iter(())))
            n += 1
        bls = [rnd.randint(0, 3) for _ in range(n)]
        disps = [rnd.randint(-20, 60) for _ in range(n)]
        dt = rnd.choice([M.struct(bls, disps, [k for k, _ in kids], large=large),
                         M.struct_integer(bls, disps, [k for k, _ in kids])])

        def ref(path, off):
            for i in range(n):
                k, kr = kids[i]
                for j in range(bls[i]):
                    yield from kr(path + (i, j), off + disps[i] + j * k.extent)
    elif kind in ("resized", "dup"):
        dt = (M.resized(child, rnd.randint(-16, 8), rnd.randint(1, 40), large=large)
              if kind == "resized" else M.dup(child))

        def ref(path, off):
            yield from cref(path + (0,), off)
    elif kind == "subarray":
        nd = rnd.randint(1, 3)
        sizes = [rnd.randint(1, 4) for _ in range(nd)]
        subs = [rnd.randint(0, s) for s in sizes]
        starts = [rnd.randint(0, s - sub) for s, sub in zip(sizes, subs)]
        order = rnd.choice([M.ORDER_C, M.ORDER_F])
        dt = M.subarray(sizes, subs, starts, order, child, large=large)
        strides = []
        for d in range(nd):
            dims = sizes[:d] if order == M.ORDER_F else sizes[d + 1:]
            p = 1
            for v in dims:
                p *= v
            strides.append(p * ext)

        def ref(path, off):
            ranges = [range(s) for s in subs]
            combos = (itertools.product(*ranges) if order == M.ORDER_C else
                      (tuple(reversed(c)) for c in itertools.product(*reversed(ranges))))
            for ks in combos:
                o = sum((starts[d] + ks[d]) * strides[d] for d in range(nd))
                yield from cref(path + ks, off + o)
    else:
        nd = rnd.randint(1, 2)
        gs = [rnd.randint(1, 7) for _ in range(nd)]
        ps = [rnd.randint(1, 3) for _ in range(nd)]
        dis, dargs = [], []
        for d in range(nd):
            kd = rnd.choice([M.BLOCK, M.CYCLIC, M.NONE])
            if kd == M.NONE:
                ps[d] = 1
                dargs.append(M.DFLT)
            elif kd == M.BLOCK:
                dargs.append(rnd.choice([M.DFLT, -(-gs[d] // ps[d]) + rnd.randint(0, 2)]))
            else:
                dargs.append(rnd.choice([M.DFLT, rnd.randint(1, 3)]))
            dis.append(kd)
        size = 1
        for p in ps:
            size *= p
        rank = rnd.randrange(size)
        order = rnd.choice([M.ORDER_C, M.ORDER_F])
        dt = M.darray(size, rank, gs, dis, dargs, ps, order, child, large=large)
        coords, r = [], rank
        for d in reversed(range(nd)):
            coords.append(r % ps[d])
            r //= ps[d]
        coords.reverse()
        owned = [_owned(gs[d], dis[d], dargs[d], ps[d], coords[d]) for d in range(nd)]
        strides = []
        for d in range(nd):
            dims = gs[:d] if order == M.ORDER_F else gs[d + 1:]
            p = 1
            for v in dims:
                p *= v
            strides.append(p * ext)

        def ref(path, off):
            ranges = [range(len(o)) for o in owned]
            combos = (itertools.product(*ranges) if order == M.ORDER_C else
                      (tuple(reversed(c)) for c in itertools.product(*reversed(ranges))))
            for ks in combos:
                o = sum(owned[d][ks[d]] * strides[d] for d in range(nd))
                yield from cref(path + ks, off + o)
    return dt, ref


def reference(dt, ref, count):
    out = []
    for k in range(count):
        out.extend(ref((k,), k * dt.extent))
    return out


@pytest.mark.parametrize("seed", range(200))
def test_random_trees(seed):
    rnd = random.Random(seed)
    for _ in range(5):
        dt, ref = gen(rnd, 3)
        count = rnd.randint(0, 3)
        want = reference(dt, ref, count)
        if len(want) > 3000:
            continue
        got = list(E.iter_elements(dt, count))
        assert [(p, o, b.name) for p, o, b in got] == [(p, o, b.name) for p, o, b in want]
        assert list(T.expand_typemap(dt, count)) == [(b, o) for _p, o, b in want]
        runs = [(r.path(k), r.offset + k * r.stride, r.basic)
                for r in E.leaf_runs(dt, count) for k in range(r.n)]
        assert runs == want
        assert T.n_elements(dt, count) == len(want)
        sig = list(T.expand_signature(T.signature(dt, count)))
        assert sig == [b.name for _p, _o, b in want]
        if dt.is_leaf:
            continue
        # extents: size and true bounds from the elements
        e = T.compute_extents(dt)
        one = reference(dt, ref, 1)
        assert e.size == sum(b.size for _p, _o, b in one)
        if one:
            assert e.true_lb == min(o for _p, o, _b in one)
            assert e.true_ub == max(o + b.true_extent for _p, o, b in one)
        # locate against brute force
        if want:
            lo = min(o for _p, o, _b in want) - 3
            hi = max(o + b.size for _p, o, b in want) + 3
            for off in {rnd.randint(lo, hi) for _ in range(6)} | {lo, hi}:
                loc = W.locate(dt, count, off, limit=4)
                holders = [(p, o) for p, o, b in want if o <= off < o + b.size]
                if holders:
                    assert loc.where == "inside"
                    assert [(h.path, h.element_offset) for h in loc.holders] == holders[:4]
                    assert loc.holders_total == len(holders)
                    assert (loc.path, loc.element_offset) == holders[0]
                    assert loc.offset_in_element == off - loc.element_offset
                else:
                    assert loc.where in ("gap", "before", "after")
                    ends = [o + b.size for _p, o, b in want if o + b.size <= off]
                    starts = [o for _p, o, _b in want if o > off]
                    assert loc.prev_end == (max(ends) if ends else None)
                    assert loc.next_start == (min(starts) if starts else None)
        # render against per-element decoding
        if want:
            lo = min(o for _p, o, _b in want)
            hi = max(o + max(b.size, b.extent) for _p, o, b in want)
            raw = bytes(rnd.randrange(256) for _ in range(hi - lo))

            def read(off, n):
                assert lo <= off and off + n <= hi, (off, n)
                return raw[off - lo:off - lo + n]
            lines = list(R.render_elements(dt, count, read, repeats=None))
            expect = []
            for p, o, b in want:
                span = b.size if b.kind != "pair" else b.true_extent
                expect.append("%s = %s" % ("".join("[%d]" % i for i in p),
                                          DEC.format_one(b, read(o, span))))
            assert lines == expect


def test_fast_chunk_matches_generic_path():
    v = M.vector(5000, 3, 7, M.INT)
    raw = st.pack("<%di" % (v.extent // 4), *range(v.extent // 4))
    read = (lambda o, n: raw[o:o + n])
    fast = list(R.render_elements(v, 1, read, repeats=None))
    slow = list(R.render_elements(v, 1, read, repeats=None, fmt="d"))
    assert fast == slow
    assert fast[4] == "[0][1][1] = 8"
