"""Typemaps, signatures and extents, computed in O(size of the type tree).

Compressed typemap
------------------
``typemap_runs(dt, count)`` returns a list of entries (a tuple-based tree):

* ``Leaf(offset, basic)``            one basic element at ``offset``
* ``Rep(offset, count, stride, body)`` the entries of ``body`` (offsets
  relative to ``offset``) repeated ``count`` times, copy k shifted by
  ``k*stride`` bytes

Entries are in typemap order.  LB/UB markers produce no entries; a pair type
(MPI_DOUBLE_INT ...) is one entry.

Notation of ``format_typemap``
------------------------------
MPI's ``{(MPI_INT,0), (MPI_DOUBLE,8)}``.  A repetition is written
``{ENTRIES}×N stride S`` -- ENTRIES (with the displacements of the first
copy) repeated N times, copy k shifted by k*S bytes -- when it would expand
to more than ``expand_limit`` (16) entries, and whenever it repeats another
repetition (nested runs compress at every level: the 4×4 face of a 3-D
subarray is one row of 4 repeated 4 times, not 16 entries).  When the whole
typemap is one such repetition the outer braces are dropped, so a
vector(250000, 4, 8, MPI_DOUBLE) is the single line
``{(MPI_DOUBLE,0), (MPI_DOUBLE,8), (MPI_DOUBLE,16), (MPI_DOUBLE,24)}×250000 stride 64``.

Signatures
----------
``signature(dt, count)`` returns [(item, n)] where item is a type name, or,
for a long repeated pattern, a nested signature list repeated n times.
``format_signature`` writes 'MPI_DOUBLE×12, MPI_INT×1' and nests as
'(MPI_INT×1, MPI_DOUBLE×1)×1000000'.  Short patterns (expanding to at most 8
items) are always expanded, so simple signatures are flat.
"""

from collections import namedtuple

from .combiners import layout
from .datatype import has_true_bounds, validate
from .errors import TypeTreeError
from .offsets import format_offset

Leaf = namedtuple("Leaf", "offset basic")
Rep = namedtuple("Rep", "offset count stride body")
Extents = namedtuple("Extents", "size lb ub extent true_lb true_ub true_extent")

_INLINE = 8


def _shift(e, d):
    if d == 0:
        return e
    if type(e) is Leaf:
        return Leaf(e.offset + d, e.basic)
    return Rep(e.offset + d, e.count, e.stride, e.body)


def _same_body(a, b):
    return a is b or a == b


def _append(out, e):
    """Append entry e to list out, merging regular runs."""
    if out:
        last = out[-1]
        if type(e) is Leaf:
            if type(last) is Leaf and last.basic is e.basic:
                out[-1] = Rep(last.offset, 2, e.offset - last.offset, (Leaf(0, e.basic),))
                return
            if (type(last) is Rep and len(last.body) == 1 and type(last.body[0]) is Leaf
                    and last.body[0].offset == 0 and last.body[0].basic is e.basic
                    and last.offset + last.count * last.stride == e.offset):
                out[-1] = Rep(last.offset, last.count + 1, last.stride, last.body)
                return
        elif type(last) is Rep:
            if (last.stride == e.stride and last.offset + last.count * last.stride == e.offset
                    and _same_body(last.body, e.body)):
                out[-1] = Rep(last.offset, last.count + e.count, last.stride, last.body)
                return
            if _runs_of(last, e):
                # one more equal run at the same distance: a run of runs grows
                out[-1] = Rep(last.offset, last.count + 1, last.stride, last.body)
                return
            if last.count > 1 and last.count == e.count and last.stride == e.stride \
                    and _same_body(last.body, e.body):
                # two equal runs apart (indexed blocks of one length): a run of runs
                out[-1] = Rep(last.offset, 2, e.offset - last.offset,
                              (Rep(0, last.count, last.stride, last.body),))
                return
            if (type(last) is Rep and e.count and len(last.body) == 1 and len(e.body) == 1
                    and type(last.body[0]) is Leaf and last.body[0].offset == 0
                    and type(e.body[0]) is Leaf and e.body[0].offset == 0
                    and last.body[0].basic is e.body[0].basic and last.count == 1):
                # single leaf followed by a run of the same leaf
                if e.offset - last.offset == e.stride:
                    out[-1] = Rep(last.offset, e.count + 1, e.stride, e.body)
                    return
        elif type(last) is Leaf and len(e.body) == 1 and type(e.body[0]) is Leaf \
                and e.body[0].offset == 0 and e.body[0].basic is last.basic \
                and e.offset - last.offset == e.stride:
            out[-1] = Rep(last.offset, e.count + 1, e.stride, e.body)
            return
    out.append(e)


def _runs_of(runs, e):
    """runs repeats a run equal to the run e, and e is its next copy."""
    if len(runs.body) != 1 or type(runs.body[0]) is not Rep:
        return False
    inner = runs.body[0]
    return (inner.offset == 0 and inner.count == e.count and inner.stride == e.stride
            and _same_body(inner.body, e.body)
            and e.offset == runs.offset + runs.count * runs.stride)


def _rep(offset, count, stride, body):
    """Entries for body repeated; returns a list (possibly empty)."""
    if count <= 0 or not body:
        return []
    if count == 1 or stride == 0 and count == 1:
        if len(body) <= _INLINE:
            return [_shift(e, offset) for e in body]
        return [Rep(offset, 1, 0, body)]
    if len(body) == 1 and type(body[0]) is Rep:
        b = body[0]
        if b.count * b.stride == stride:
            return [Rep(offset + b.offset, count * b.count, b.stride, b.body)]
    if len(body) == 1 and type(body[0]) is Leaf and body[0].offset:
        return [Rep(offset + body[0].offset, count, stride, (Leaf(0, body[0].basic),))]
    return [Rep(offset, count, stride, body)]


def _body(dt):
    """Compressed typemap of one instance of dt (tuple), memoized."""
    b = dt._cache.get("tm_body")
    if b is not None:
        return b
    if dt.is_leaf:
        b = () if dt.is_marker else (Leaf(0, dt),)
    else:
        b = tuple(_node_entries(layout(dt)))
    dt._cache["tm_body"] = b
    return b


def _node_entries(node):
    tag = node[0]
    if tag == "C":
        return _body(node[1])
    if tag == "L":
        _, count, bs, _slot, _ist, boff, _ib, body = node
        b = _node_entries(body)
        return _rep(boff, count, bs, b if type(b) is tuple else tuple(b))
    out = []
    if len(node) > 3:
        return _block_entries(node[3])
    for i in range(node[1]):
        for e in _node_entries(node[2](i)):
            _append(out, e)
    return out


def _block_entries(arrays):
    """Entries of an indexed/struct node from its block arrays, merging
    regular sequences of leaves on the fly (tight loop: millions of blocks)."""
    disps, bls, kids = arrays
    out = []
    # pending leaf run: start, count, stride, basic
    start = cnt = stride = 0
    basic = None

    new = tuple.__new__

    def flush():
        if basic is not None:
            if cnt == 1:
                e = new(Leaf, (start, basic))
            else:
                e = new(Rep, (start, cnt, stride, (new(Leaf, (0, basic)),)))
            if out and type(e) is Leaf and type(out[-1]) is Rep:
                out.append(e)       # irregular: no merge possible (checked by the loop)
            else:
                _append(out, e)

    for d, bl, t in zip(disps, bls, kids):
        if bl <= 0:
            continue
        if t.is_leaf:
            if t.is_marker:
                continue
            ext = t.extent
            if basic is t:
                if cnt == 1:
                    if bl == 1 or d - start == ext:
                        stride = d - start
                        cnt += bl
                        continue
                elif d == start + cnt * stride and (bl == 1 or ext == stride):
                    cnt += bl
                    continue
            flush()
            start, cnt, stride, basic = d, bl, ext, t
            continue
        flush()
        basic = None
        for e in _rep(d, bl, t.extent, _body(t)):
            _append(out, e)
    flush()
    return out


def typemap_runs(dt, count=1):
    """Compressed typemap of a buffer of ``count`` elements of dt."""
    validate(dt)
    if count < 0:
        raise TypeTreeError("negative count %d" % count)
    out = []
    for e in _rep(0, count, dt.extent, _body(dt)):
        _append(out, e)
    return out


# ---------------------------------------------------------------- expansion

def iter_entries(entries, base=0):
    """Expand compressed entries into (basic, offset) in typemap order."""
    for e in entries:
        if type(e) is Leaf:
            yield e.basic, base + e.offset
        else:
            for k in range(e.count):
                yield from iter_entries(e.body, base + e.offset + k * e.stride)


def expand_typemap(dt, count=1):
    """Generator of (basic Datatype, offset) for every element, typemap order
    (LB/UB markers excluded, a pair type is one entry)."""
    return iter_entries(typemap_runs(dt, count))


def _expanded_len(entries, cap):
    n = 0
    for e in entries:
        if type(e) is Leaf:
            n += 1
        else:
            n += e.count * _expanded_len(e.body, cap)
        if n > cap:
            return cap + 1
    return n


DEFAULT_MAX_PARTS = 10000


def format_typemap(entries, expand_limit=16, max_parts=DEFAULT_MAX_PARTS):
    """MPI notation with compressed long repetitions (see module doc).
    ``max_parts`` bounds the output (None: unbounded): once that many items
    are printed the rest is written ``...`` (irregular types with millions of
    blocks cannot be compressed and would print megabytes)."""
    budget = [max_parts if max_parts else -1, False]
    parts = _fmt_entries(entries, 0, expand_limit, budget)
    if len(parts) == 1 and "×" in parts[0] and parts[0].startswith("{") \
            and len(entries) == 1 and type(entries[0]) is Rep and entries[0].count > 1:
        return parts[0]
    return "{" + ", ".join(parts) + "}"


def _fmt_entries(entries, base, limit, budget):
    parts = []
    for e in entries:
        if budget[0] == 0:
            if not budget[1]:
                parts.append("...")
                budget[1] = True
            break
        if type(e) is Leaf:
            parts.append("(%s,%s)" % (e.basic.display_name, format_offset(base + e.offset)))
            budget[0] -= 1
        elif e.count == 1 or (e.count * _expanded_len(e.body, limit) <= limit
                              and not any(type(b) is Rep and b.count > 1 for b in e.body)):
            for k in range(e.count):
                if budget[0] == 0:
                    if not budget[1]:
                        parts.append("...")
                        budget[1] = True
                    break
                parts.extend(_fmt_entries(e.body, base + e.offset + k * e.stride, limit, budget))
        else:
            inner = _fmt_entries(e.body, base + e.offset, limit, budget)
            parts.append("{%s}×%d stride %s" % (", ".join(inner), e.count, format_offset(e.stride)))
    return parts


# ---------------------------------------------------------------- signature

def _sig_append(out, item, n):
    if n == 0:
        return
    if out and out[-1][0] == item and isinstance(item, str):
        out[-1] = (item, out[-1][1] + n)
    else:
        out.append((item, n))


def _sig_len(sig, cap):
    n = 0
    for item, k in sig:
        n += 1 if isinstance(item, str) else k * _sig_len(item, cap)
        if n > cap:
            return cap + 1
    return n


def _signature(entries):
    out = []
    for e in entries:
        if type(e) is Leaf:
            _sig_append(out, e.basic.display_name, 1)
            continue
        s = _signature(e.body)
        if not s:
            continue
        if len(s) == 1 and isinstance(s[0][0], str):
            _sig_append(out, s[0][0], s[0][1] * e.count)
        elif e.count == 1 or e.count * _sig_len(s, _INLINE) <= _INLINE:
            for _ in range(e.count):
                for item, k in s:
                    _sig_append(out, item, k)
        else:
            _sig_append(out, tuple(s), e.count)
    return out


def signature(dt, count=1):
    """Compressed type signature [(name or nested signature, n)]."""
    return _signature(typemap_runs(dt, count))


def format_signature(sig):
    parts = []
    for item, n in sig:
        if isinstance(item, str):
            parts.append("%s×%d" % (item, n))
        else:
            parts.append("(%s)×%d" % (format_signature(item), n))
    return ", ".join(parts)


def expand_signature(sig):
    for item, n in sig:
        if isinstance(item, str):
            for _ in range(n):
                yield item
        else:
            for _ in range(n):
                yield from expand_signature(item)


# ---------------------------------------------------------------- counting

def n_elements(dt, count=1):
    """Number of elements (leaves without markers) in count instances."""
    validate(dt)
    return count * _count(dt)


def _count(dt):
    return _tree_sum(dt, "n_elem", _one)


def _one(_leaf):
    return 1


def _leaf_size(leaf):
    return leaf.size


def _tree_sum(dt, key, leaf_value):
    """The sum of leaf_value over the elements of dt's tree (markers count
    0), cached in dt under key: what counts elements and data bytes."""
    total = dt._cache.get(key)
    if total is None:
        total = (0 if dt.is_marker else leaf_value(dt)) if dt.is_leaf else \
            _node_sum(layout(dt), key, leaf_value)
        dt._cache[key] = total
    return total


def _node_sum(node, key, leaf_value):
    tag = node[0]
    if tag == "C":
        return _tree_sum(node[1], key, leaf_value)
    if tag == "L":
        return node[1] * _node_sum(node[7], key, leaf_value)
    if len(node) > 3:
        _disps, bls, kids = node[3]
        if kids and all(k is kids[0] for k in kids):
            return sum(bls) * _tree_sum(kids[0], key, leaf_value)
        return sum(b * _tree_sum(k, key, leaf_value) for b, k in zip(bls, kids) if b > 0)
    return sum(_node_sum(node[2](i), key, leaf_value) for i in range(node[1]))


def data_bytes(dt, count=1):
    """Bytes of data in count instances by the standard: the sum of the
    sizes of its elements, from the tree.  MPI's size is that number
    wrapped to 64 bits when it overflowed inside MPI (hvector_c(2**62+2,
    2, 24, MPI_FLOAT) is 2**65+16 bytes, MPI says 16): what a decode reads
    is this one."""
    validate(dt)
    return count * _bytes(dt)


def _bytes(dt):
    return _tree_sum(dt, "n_bytes", _leaf_size)


def subtree_elements(node):
    """Number of elements of a layout program (internal helper)."""
    return _node_sum(node, "n_elem", _one)


# ---------------------------------------------------------------- extents

def _sticky(dt):
    """(has explicit lb marker, has explicit ub marker) of dt."""
    s = dt._cache.get("sticky")
    if s is not None:
        return s
    if dt.is_leaf:
        s = (dt.kind == "lb", dt.kind == "ub") if dt.combiner == "NAMED" else (False, False)
    elif dt.combiner in ("RESIZED", "SUBARRAY", "DARRAY"):
        s = (True, True)
    else:
        lb = ub = False
        for ch in dt.children:
            a, b = _sticky(ch)
            lb, ub = lb or a, ub or b
        s = (lb, ub)
    dt._cache["sticky"] = s
    return s


def _instances(node):
    """{id(child): [child, min_disp, max_disp, n_instances]} of a program."""
    tag = node[0]
    if tag == "C":
        return {id(node[1]): [node[1], 0, 0, 1]}
    if tag == "L":
        _, count, bs, _slot, _ist, boff, _ib, body = node
        if count <= 0:
            return {}
        lo = boff + min(0, (count - 1) * bs)
        hi = boff + max(0, (count - 1) * bs)
        return {k: [c, mn + lo, mx + hi, n * count]
                for k, (c, mn, mx, n) in _instances(body).items()}
    out = {}
    if len(node) > 3:
        for t, ds, bs in _block_groups(*node[3]):
            ext = t.extent
            lasts = [d + (bl - 1) * ext for d, bl in zip(ds, bs)]
            firsts, lasts = (ds, lasts) if ext >= 0 else (lasts, ds)
            out[id(t)] = [t, min(firsts), max(lasts), sum(bs)]
        return out
    for i in range(node[1]):
        for k, (c, mn, mx, n) in _instances(node[2](i)).items():
            if k in out:
                o = out[k]
                o[1], o[2], o[3] = min(o[1], mn), max(o[2], mx), o[3] + n
            else:
                out[k] = [c, mn, mx, n]
    return out


def _block_groups(disps, bls, kids):
    """[(child, displacements, blocklengths)] of an indexed/struct node's
    blocks with data, one entry per distinct child (list operations: an
    indexed type of 10**6 blocks has one child)."""
    if kids and kids.count(kids[0]) == len(kids):
        if min(bls) > 0:
            return [(kids[0], disps, bls)]
        kept = [(d, bl) for d, bl in zip(disps, bls) if bl > 0]
        return [(kids[0], [d for d, _bl in kept], [bl for _d, bl in kept])] if kept else []
    groups = {}
    for d, bl, t in zip(disps, bls, kids):
        if bl > 0:
            group = groups.setdefault(id(t), (t, [], []))
            group[1].append(d)
            group[2].append(bl)
    return list(groups.values())


def compute_extents(dt, align=None):
    """Extents from the tree, using the children's *recorded* values,
    honoring sticky MPI_LB/MPI_UB markers and resized/subarray/darray bounds.
    ``align``: round the extent of a STRUCT without explicit ub up to this
    multiple (MPI's epsilon; MPICH pads).  For tests and cross-checks only:
    display always uses the values MPI recorded."""
    validate(dt)
    if dt.is_leaf:
        return Extents(dt.size, dt.lb, dt.ub, dt.extent, dt.true_lb, dt.true_ub,
                       dt.true_extent)
    inst = _instances(layout(dt))
    size = sum(c.size * n for c, _mn, _mx, n in inst.values())
    slb = [mn + c.lb for c, mn, mx, n in inst.values() if _sticky(c)[0]]
    sub = [mx + c.ub for c, mn, mx, n in inst.values() if _sticky(c)[1]]
    data = [(c, mn, mx) for c, mn, mx, n in inst.values()
            if not c.is_marker and (c.size > 0 or _sticky(c) != (False, False))]
    nlb = [mn + c.lb for c, mn, mx in data if not _sticky(c)[0]]
    nub = [mx + c.ub for c, mn, mx in data if not _sticky(c)[1]]
    if slb:
        lb = min(slb)
    else:
        lb = min(nlb) if nlb else 0
    if sub:
        ub = max(sub)
    else:
        ub = max(nub) if nub else (lb if slb else 0)
    tdata = [(c, mn, mx) for c, mn, mx in data if c.size > 0]
    if tdata:
        true_lb = min(mn + c.true_lb for c, mn, mx in tdata)
        true_ub = max(mx + c.true_ub for c, mn, mx in tdata)
    else:
        true_lb = true_ub = 0
    p = dt._cache["parsed"]
    if dt.combiner == "RESIZED":
        lb, ub = p["lb"], p["lb"] + p["extent"]
    elif dt.combiner in ("SUBARRAY", "DARRAY"):
        child = p["children"][0]
        dims = p["sizes"] if dt.combiner == "SUBARRAY" else p["gsizes"]
        total = 1
        for v in dims:
            total *= v
        lb, ub = 0, total * child.extent
    elif dt.combiner == "DUP":
        c = p["children"][0]
        return Extents(c.size, c.lb, c.ub, c.extent, c.true_lb, c.true_ub, c.true_extent)
    extent = ub - lb
    if align and dt.combiner in ("STRUCT", "STRUCT_INTEGER") and not sub and extent % align:
        extent += align - extent % align
        ub = lb + extent
    return Extents(size, lb, ub, extent, true_lb, true_ub, true_ub - true_lb)


def true_bounds(dt):
    """(true lb, true extent) of dt from its tree: the bytes its data
    touches (MPI's values; (0, 0) for a type without data)."""
    validate(dt)
    if dt.is_marker:
        return 0, 0
    if dt.is_leaf:
        if dt.kind == "pair":
            return 0, max(offset + t.size for offset, t in dt.members)
        return 0, dt.size
    e = compute_extents(dt)
    return e.true_lb, e.true_extent


# MPI pads the extent of a struct without an explicit upper bound up to the
# alignment of its most aligned member (MPICH; 16 bytes at most on x86-64).
MAX_STRUCT_PADDING = 16
EXTENT_FIELDS = ("size", "lb", "extent", "true_lb", "true_extent")


def _wrapped(value):
    """value as a signed 64-bit integer: what MPI's MPI_Aint / MPI_Count
    arithmetic gives when the exact value does not fit."""
    value %= 1 << 64
    return value - (1 << 64) if value >> 63 else value


def extents_check(dt):
    """(mismatch, note) for the size and extents recorded for dt (what MPI
    gave) against those its arguments and children give by the standard's
    formula.  mismatch: None, or one line saying which one differs (a
    corrupted count or displacement shows here before anything walks the
    type).  Three differences are MPI's own, not corruption: the bounds of
    a type without data (MPICH and Open MPI define them their own way), a
    value that overflowed MPI_Aint inside MPI (MPI's is the standard's
    wrapped to 64 bits), and the bounds of a type whose size wrapped to 0
    inside MPI (MPICH's hvector_c(2**62, 1, 2**40, MPI_DOUBLE): 2**65
    bytes are 0 in an MPI_Count, and MPI then bounds it as a type without
    data).  They are accepted, MPI's values kept, and note names them with
    the standard's values.  A corrupted count still shows: it changes the
    size, and MPI's size must be the standard's, wrapped or not."""
    if dt.is_leaf:
        return None, None
    computed = compute_extents(dt)
    if not has_true_bounds(dt):     # not recorded: the tree's, computed just now
        dt.true_lb, dt.true_extent = computed.true_lb, computed.true_extent
    padded = dt.combiner in ("STRUCT", "STRUCT_INTEGER") and not _sticky(dt)[1]
    size_wrapped_to_0 = dt.size == 0 != computed.size and _wrapped(computed.size) == 0
    own = []
    for name in EXTENT_FIELDS:
        recorded, expected = getattr(dt, name), getattr(computed, name)
        if name == "extent" and padded and 0 <= recorded - expected < MAX_STRUCT_PADDING:
            continue
        if recorded == expected:
            continue
        no_data = name != "size" and dt.size == 0 and (computed.size == 0 or size_wrapped_to_0)
        if no_data or recorded == _wrapped(expected):
            own.append((name.replace("_", " "), expected))
            continue
        return ("recorded %s %d, its arguments give %d" % (name.replace("_", " "), recorded,
                                                            expected), None)
    if not own:
        return None, None
    if size_wrapped_to_0:
        why = "beyond MPI_Count: MPI's size wrapped to 0, and MPI bounds a type without " \
              "data its own way"
    elif dt.size == 0 == computed.size:
        why = "for a type without data"
    else:
        why = "beyond MPI_Aint"
    names = " and ".join(name for name, _e in own)
    return None, "%s as MPI reports %s (the standard's formula gives %s, %s)" % (
        names, "it" if len(own) == 1 else "them",
        ", ".join("%s %d" % (name, expected) for name, expected in own), why)
