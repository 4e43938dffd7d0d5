"""Streaming element enumeration over the type tree.

``leaf_runs(dt, count, prefix=())`` yields ``LeafRun`` items: tuples
``(path_prefix, offset, basic, n, stride)``: elements ``path_prefix + (k,)``
at byte ``offset + k*stride`` for k < n.  Two refinements (attributes of the
run, see ``LeafRun``): ``start`` -- the varying index starts at ``start``, not 0
(a restricted sub-tree, a darray remainder piece) -- and ``vpos`` -- position
of the varying index in the full path when it is not the last one (Fortran
order subarray/darray: the first dimension varies fastest).  ``run.path(k)``
always gives the full path of element k.  Runs come in typemap order; the
number of runs is about (number of elements / innermost block length).

(Which element holds a byte: where.locate.)
"""

from . import combiners
from .combiners import buffer_type, layout
from .datatype import validate
from .paths import resolve_path, shift_index
from .typemap import n_elements, subtree_elements


class LeafRun(tuple):
    """Public run: tuple (prefix, offset, basic, n, stride); attributes
    ``start`` (first value of the varying index) and ``vpos`` (its position in
    the full path, None = last).  ``path(k)`` = full path of element k."""

    def __new__(cls, prefix, offset, basic, n, stride, start=0, vpos=None):
        self = tuple.__new__(cls, (prefix, offset, basic, n, stride))
        self.start = start
        self.vpos = vpos
        return self

    prefix = property(lambda s: s[0])
    offset = property(lambda s: s[1])
    basic = property(lambda s: s[2])
    n = property(lambda s: s[3])
    stride = property(lambda s: s[4])

    def path(self, k):
        p = self[0]
        v = len(p) if self.vpos is None else self.vpos
        return p[:v] + (self.start + k,) + p[v:]


# ---------------------------------------------------------------- internal runs
# Internal run tuple: (full, vpos, offset, basic, n, stride) where ``full`` is
# the full path of the first element and full[vpos] is the varying index.

def _holds_nothing(node):
    """Whether a layout program has no elements: a loop over it is skipped
    whatever its count (10**6 or 2**31 repetitions of contiguous(0))."""
    return subtree_elements(node) == 0


def _gen_dt(dt, P, off):
    if dt.is_leaf:
        if not dt.is_marker:
            yield (P, len(P) - 1, off, dt, 1, 0) if P else ((0,), 0, off, dt, 1, 0)
        return
    if _holds_nothing(("C", dt)):
        return
    n = combiners.n_stages(dt)
    yield from _gen(layout(dt), P, [0] * n, off)


def _gen(node, P, loc, off):
    tag = node[0]
    if tag == "L":
        _, count, bs, slot, ist, boff, ibase, body = node
        if count <= 0 or count > 1 and _holds_nothing(body):
            return
        saved = loc[slot]
        o0 = off + boff
        if body[0] == "C":
            child = body[1]
            if child.is_leaf and ist == 1:
                if child.is_marker:
                    return
                loc[slot] = saved + ibase
                yield (P + tuple(loc), len(P) + slot, o0, child, count, bs)
                loc[slot] = saved
                return
        elif body[0] == "L" and body[7][0] == "C" and body[7][1].is_leaf and body[4] == 1:
            # loop over a leaf loop (vector of basics): emit runs directly
            _, c2, bs2, slot2, _i2, boff2, ib2, leafnode = body
            child = leafnode[1]
            if child.is_marker or c2 <= 0:
                return
            vp = len(P) + slot2
            for v in range(count):
                loc[slot] = saved + ibase + v * ist
                base2 = loc[slot2]
                loc[slot2] = base2 + ib2
                yield (P + tuple(loc), vp, o0 + v * bs + boff2, child, c2, bs2)
                loc[slot2] = base2
            loc[slot] = saved
            return
        for v in range(count):
            loc[slot] = saved + ibase + v * ist
            yield from _gen(body, P, loc, o0 + v * bs)
        loc[slot] = saved
    elif tag == "S":
        if len(node) > 3:
            # indexed/struct block arrays: stage indices (i, j)
            disps, bls, kids = node[3]
            vp = len(P) + 1
            i = -1
            for d, bl, t in zip(disps, bls, kids):
                i += 1
                if bl <= 0:
                    continue
                if t.is_leaf:
                    if not t.is_marker:
                        yield (P + (i, 0), vp, off + d, t, bl, t.extent)
                    continue
                if _holds_nothing(("C", t)):
                    continue
                ext = t.extent
                for j in range(bl):
                    yield from _gen_dt(t, P + (i, j), off + d + j * ext)
            return
        item = node[2]
        for i in range(node[1]):
            yield from _gen(item(i), P, loc, off)
    else:
        child = node[1]
        if child.is_leaf:
            if not child.is_marker:
                yield (P + tuple(loc), len(P) + len(loc) - 1, off, child, 1, 0)
        else:
            yield from _gen_dt(child, P + tuple(loc), off)


def internal_runs(dt, count, prefix=()):
    """Internal 6-tuples (full, vpos, offset, basic, n, stride) below prefix."""
    validate(dt)
    root = buffer_type(dt, count)
    prefix = tuple(prefix)
    res = resolve_path(dt, count, prefix)
    node = res.node
    if not prefix:
        return _gen_dt(root, (), 0)
    if res.partial:
        fixed = dict(enumerate(res.partial))
        base = prefix[:len(prefix) - len(res.partial)]
        off0 = _node_offset(dt, count, base)
        prog = combiners.layout(node, fixed)
        return _gen(prog, base, [0] * combiners.n_stages(node), off0)
    if node.is_leaf:
        if node.is_marker:
            return iter(())
        return iter([(prefix, len(prefix) - 1, res.offset, node, 1, 0)])
    return _gen_dt(node, prefix, res.offset)


def periodic_plan(dt, count, max_runs=1024):
    """The whole buffer (no prefix) as repetitions of one run template, or
    None.  Returns (reps, rep_stride, ipos, index_base, index_step, template):
    repetition v has the runs of ``template`` (internal 6-tuples of
    repetition 0) with full[ipos] = index_base + v*index_step and offsets
    + v*rep_stride.  The repetitions are those of the buffer (count > 1) or,
    for count 1, of the outermost loop of the type with more than one
    iteration over a derived child (a vector of blocks, a contiguous of
    structs).  None when there are fewer than 2 repetitions or one has no
    runs or more than ``max_runs``."""
    if dt.is_leaf:
        return None
    node = layout(buffer_type(dt, count))
    P, loc, off = (), [0], 0
    for _depth in range(8):
        if node[0] != "L" or len(node) != 8:
            return None
        _, reps, bs, slot, ist, boff, ibase, body = node
        if reps != 1:
            break
        # a single iteration: descend into a derived child
        if body[0] != "C" or body[1].is_leaf or not 0 <= slot < len(loc):
            return None
        loc = list(loc)
        loc[slot] += ibase
        P = P + tuple(loc)
        off += boff
        child = body[1]
        node = layout(child)
        loc = [0] * combiners.n_stages(child)
    else:
        return None
    if reps < 2 or ist == 0 or not 0 <= slot < len(loc):
        return None
    if body[0] == "C" and body[1].is_leaf:
        return None             # a run of basics: the chunked path handles it
    ipos = len(P) + slot
    loc = list(loc)
    loc[slot] += ibase
    ibase = loc[slot]
    template = []
    for r in _gen(body, P, loc, off + boff):
        if r[1] == ipos:
            return None
        template.append(r)
        if len(template) > max_runs:
            return None
    if not template:
        return None             # repetitions of nothing
    return reps, bs, ipos, ibase, ist, template


def periodic_runs(plan, start=0):
    """Internal runs of repetitions start.. of a periodic_plan (the same
    tuples as internal_runs(dt, count) yields for them)."""
    reps, bs, ipos, _ibase, ist, template = plan
    for v in range(start, reps):
        d = v * bs
        step = v * ist
        # a template run's index at ipos may be past the repetition's first
        # (a darray's cyclic blocks: several loops over one index): shift it
        for full, vpos, off, basic, n, stride in template:
            yield shift_index(full, ipos, step), vpos, off + d, basic, n, stride


def _node_offset(dt, count, base):
    return resolve_path(dt, count, base).offset if base else 0


def leaf_runs(dt, count=1, prefix=()):
    """Public runs (LeafRun) of the elements below ``prefix`` (a buffer path,
    starting with the repetition index), in typemap order."""
    for full, vpos, off, basic, n, stride in internal_runs(dt, count, prefix):
        last = vpos == len(full) - 1
        yield LeafRun(full[:vpos] + full[vpos + 1:], off, basic, n, stride,
                      full[vpos], None if last else vpos)


def iter_elements(dt, count=1, prefix=()):
    """(path, offset, basic) per element, typemap order (expands: small use)."""
    for full, vpos, off, basic, n, stride in internal_runs(dt, count, prefix):
        pre, k0, post = full[:vpos], full[vpos], full[vpos + 1:]
        for k in range(n):
            yield pre + (k0 + k,) + post, off + k * stride, basic


def count_elements(dt, count=1, prefix=()):
    prefix = tuple(prefix)
    if not prefix:
        return n_elements(dt, count)
    res = resolve_path(dt, count, prefix)
    if res.partial:
        return subtree_elements(combiners.layout(res.node, dict(enumerate(res.partial))))
    if res.node.is_leaf:
        return 0 if res.node.is_marker else 1
    return n_elements(res.node, 1)
