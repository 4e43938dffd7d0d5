"""Streaming rendering of a buffer through a datatype (``mpipp TYPE ADDR``).

Output lines (``render_elements``):
    [0][2][5] = 1.5                       short paths (default)
    buf(CONTIGUOUS)[0](STRUCT)[2][5](CHAR) = 65 'A'      long_paths=True
    [0][2][5] +52 0x7ffe0034 = 1.5        with_offsets=True: offset from the
                                          buffer start and absolute address
    [0][0..19] = 0 <repeats 20 times>     more than ``repeats`` consecutive
                                          identical values inside one run
    ... (showing 200 of 1000000 elements; use 'set print elements unlimited' or a PATH)

Like gdb: a run is folded when it is *longer* than the threshold (gdb's
``reps > repeat_count_threshold``), and a folded block counts ``repeats``
elements toward ``limit`` (``set print elements``); limit/repeats None or 0
mean unlimited / never fold.

Memory is read in batches: the runs of a chunk of elements are coalesced
into few ranges (gaps < 4 KiB merged, at most 4 MiB per read).  When a read
fails the chunk is re-read piece by piece and the FIRST unreadable element (in
typemap order) is found by bisection; the lines before it are still produced,
then ``UnreadableElement`` is raised.

``iter_json_elements`` yields dicts {"path", "offset", "address", "type",
"value", "bytes"} with the same batching, then the ``TRUNCATED`` sentinel when
``limit`` stopped it before the end.
"""

import struct
from collections import namedtuple
from itertools import chain

from ..readers.errors import ReadError
from . import decode
from .basics import element_span
from .datatype import validate
from .elements import count_elements, internal_runs, periodic_plan, periodic_runs
from .errors import UnreadableElement
from .offsets import address_of, address_run, format_offset, offset_run
from .paths import LongPathFormatter, format_path, shift_index

CHUNK_ELEMENTS = 32768
FIRST_DICTS = 64        # iter_json_elements' first slice of a piece
MERGE_GAP = 4096
MAX_READ = 4 << 20


class _Truncated:
    def __repr__(self):
        return "TRUNCATED"


TRUNCATED = _Truncated()


class _Unreadable(Exception):
    def __init__(self, full, vpos, k, offset):
        self.full, self.vpos, self.k, self.offset = full, vpos, k, offset


def _elem_span(basic):
    return max(basic.size, basic.true_lb + basic.true_extent, 1)


def _piece_range(p):
    full, vpos, off, basic, m, stride = p[:6]
    span = _elem_span(basic)
    if stride >= 0:
        return off, off + (m - 1) * stride + span
    return off + (m - 1) * stride, off + span


def read_exact(read, start, length):
    """length bytes from start; raises ReadError when read gives fewer."""
    data = read(start, length)
    if data is None or len(data) < length:
        raise ReadError(start, length)
    return data


def _read_chunk(chunk, read):
    """([buf per piece], [base per piece]) with coalesced reads; raises
    ReadError.  Pieces carry their byte range in p[8], p[9]."""
    starts = [p[8] for p in chunk]
    if all(a <= b for a, b in zip(starts, starts[1:])):
        order = range(len(chunk))
    else:
        order = sorted(range(len(chunk)), key=starts.__getitem__)
    groups = []        # [start, end, [piece indices]]
    g = None
    for i in order:
        p = chunk[i]
        s, e = p[8], p[9]
        if g is not None and s - g[1] < MERGE_GAP and (e if e > g[1] else g[1]) - g[0] <= MAX_READ:
            if e > g[1]:
                g[1] = e
            g[2].append(i)
            continue
        g = [s, e, [i]]
        groups.append(g)
    bufs = [None] * len(chunk)
    bases = [0] * len(chunk)
    for s, e, members in groups:
        buf = read_exact(read, s, e - s)
        for i in members:
            bufs[i] = buf
            bases[i] = s
    return bufs, bases


def _first_bad(read, full, vpos, off, basic, m, stride):
    """Index of the first element of a piece whose bytes cannot be read."""
    span = _elem_span(basic)

    def ok_elem(k):
        try:
            read_exact(read, off + k * stride, span)
            return True
        except ReadError:
            return False

    k0 = 0
    if stride >= span:
        lo, hi = 0, m          # smallest n such that prefix of n+1 elements fails
        while lo < hi:
            mid = (lo + hi) // 2
            try:
                read_exact(read, off, mid * stride + span)
                lo = mid + 1
            except ReadError:
                hi = mid
        k0 = lo
    for k in range(k0, m):
        if not ok_elem(k):
            return k
    for k in range(0, k0):
        if not ok_elem(k):
            return k
    return None


def _pieces(runs, read, budget):
    """Flattened _chunks: (piece, buf, base) in typemap order."""
    for chunk, bufs, bases in _chunks(runs, read, budget):
        yield from zip(chunk, bufs, bases)


def _chunks(runs, read, budget):
    """Yield (pieces, bufs, bases) chunks in typemap order; piece = (full, vpos, off,
    basic, m, stride, run_id, run_n, start, end).  budget() gives the max
    elements of the next chunk.  Raises _Unreadable at the first unreadable
    element."""
    run_id = 0
    it = iter(runs)
    pending = None   # (run tuple, run_id, elements already taken, max per piece)
    last_basic = None
    sp = 1
    while True:
        limit = budget()
        if limit <= 0:
            return
        chunk, n = [], 0
        while n < limit:
            if pending is None:
                r = next(it, None)
                if r is None:
                    break
                run_id += 1
                full, vpos, off, basic, rn, stride = r
                if basic is not last_basic:
                    last_basic = basic
                    sp = _elem_span(basic)
                if rn > 1 and abs(stride) * (rn - 1) + sp > MAX_READ:
                    # sparse run: split so that no piece spans more than MAX_READ
                    per = max(1, (MAX_READ - sp) // abs(stride) + 1)
                    pending = (r, run_id, 0, per)
                    r = None
                elif rn <= limit - n:
                    # whole run fits: the common case
                    if stride >= 0:
                        chunk.append((full, vpos, off, basic, rn, stride, run_id, rn,
                                      off, off + (rn - 1) * stride + sp))
                    else:
                        chunk.append((full, vpos, off, basic, rn, stride, run_id, rn,
                                      off + (rn - 1) * stride, off + sp))
                    n += rn
                    continue
                else:
                    pending = (r, run_id, 0, rn)
            r, rid, taken, per = pending
            full, vpos, off, basic, rn, stride = r
            m = min(rn - taken, limit - n, per)
            if taken:
                full = shift_index(full, vpos, taken)
            p = (full, vpos, off + taken * stride, basic, m, stride, rid, rn)
            chunk.append(p + _piece_range(p))
            n += m
            pending = None if taken + m >= rn else (r, rid, taken + m, per)
        if not chunk:
            return
        try:
            bufs = _read_chunk(chunk, read)
        except ReadError:
            for p in chunk:
                try:
                    s, e = p[8], p[9]
                    buf = read_exact(read, s, e - s)
                    yield [p], [buf], [s]
                except ReadError:
                    full, vpos, off, basic, m, stride = p[:6]
                    k = _first_bad(read, full, vpos, off, basic, m, stride)
                    if k is None:       # transient: read per element
                        k = 0
                    if k > 0:
                        sub = (full, vpos, off, basic, k, stride) + p[6:8]
                        s, e = _piece_range(sub)
                        yield [sub + (s, e)], [read_exact(read, s, e - s)], [s]
                    raise _Unreadable(full, vpos, k, off + k * stride)
            continue
        yield chunk, bufs[0], bufs[1]


def _path_text(full, vpos, k, longf):
    path = shift_index(full, vpos, k)
    if longf is not None:
        a, b = longf.parts(path, vpos)
        return "%s[%d]%s" % (a, path[vpos], b)
    return format_path(path)


def render_elements(dt, count, read, **options):
    """Generator of output lines ``PATH = VALUE`` (see module doc)."""
    for item in _render(dt, count, read, **options):
        if type(item) is _Block:
            yield from item.lines()
        else:
            yield item


TEXT_BATCH = 4096


def render_text(dt, count, read, **options):
    """The lines of render_elements as blocks of text ('line\\n' * n), for
    writers: the fast paths format whole blocks of lines at once."""
    lines = []
    try:
        for item in _render(dt, count, read, **options):
            if type(item) is _Block:
                if lines:
                    yield "\n".join(lines) + "\n"
                    lines = []
                yield item.text
            else:
                lines.append(item)
                if len(lines) >= TEXT_BATCH:
                    yield "\n".join(lines) + "\n"
                    lines = []
    except UnreadableElement:
        if lines:           # the elements before the unreadable one are shown
            yield "\n".join(lines) + "\n"
        raise
    if lines:
        yield "\n".join(lines) + "\n"


def _render(dt, count, read, *, prefix=(), fmt=None, long_paths=False,
            with_offsets=False, base_address=0, limit=None, repeats=10, root_label=None):
    """Output lines (str) and blocks of lines (_Block) in order."""
    validate(dt)
    runs = internal_runs(dt, count, prefix)
    limit = limit or None
    repeats = repeats or None
    longf = LongPathFormatter(dt, count, root_label) if long_paths else None
    fmts = {}
    state = {"shown": 0}

    def budget():
        if limit is None:
            return CHUNK_ELEMENTS
        return max(1, min(CHUNK_ELEMENTS, limit - state["shown"] + (repeats or 0) + 1))

    # repeat group carried across pieces of one run
    grp = None   # [run_id, pre, post, k0, cnt, value, off0, stride]

    def emit_group(g):
        _rid, pre, post, k0, cnt, value, off0, stride = g
        if repeats is not None and cnt > repeats:
            yield _line(pre, post, "%d..%d" % (k0, k0 + cnt - 1), off0, value
                        + " <repeats %d times>" % cnt)
            state["shown"] += repeats
            state["covered"] = state.get("covered", 0) + cnt
            return
        for j in range(cnt):
            if limit is not None and state["shown"] >= limit:
                return
            yield _line(pre, post, str(k0 + j), off0 + j * stride, value)
            state["shown"] += 1
            state["covered"] = state.get("covered", 0) + 1

    def _line(pre, post, idx, off, value):
        if with_offsets:
            return "%s[%s]%s %s 0x%x = %s" % (pre, idx, post, format_offset(off, signed=True),
                                               address_of(base_address, off), value)
        return "%s[%s]%s = %s" % (pre, idx, post, value)

    def parts(full, vpos):
        if longf is not None:
            return longf.parts(full, vpos)
        return format_path(full[:vpos]), format_path(full[vpos + 1:])

    stopped = False
    fast = fmt in (None, "") and longf is None and not with_offsets
    if fast and not prefix:
        per = periodic(dt, count, repeats)
        if per is not None:
            for lines in _periodic_lines(per, read, state, limit):
                if type(lines) is _Block:
                    yield lines
                else:
                    yield from lines
            stopped = limit is not None and state["shown"] >= limit
            runs = per.rest() if not stopped else iter(())
    try:
        for chunk, bufs, bases in _chunks(runs, read, budget):
            if fast and grp is None and (limit is None
                                         or limit - state["shown"] >= CHUNK_ELEMENTS):
                lines = _fast_chunk(chunk, bufs, bases, repeats)
                if lines is not None:
                    state["shown"] += len(lines)
                    state["covered"] = state.get("covered", 0) + len(lines)
                    yield from lines
                    continue
            for p, buf, base in zip(chunk, bufs, bases):
                full, vpos, off, basic, m, stride, rid, rn = p[:8]
                f = fmts.get(id(basic))
                if f is None:
                    f = fmts[id(basic)] = decode.formatter(basic, fmt)
                strs = f(buf, off - base, m, stride)
                pre, post = parts(full, vpos)
                k0 = full[vpos]
                if grp is not None and grp[0] != rid:
                    yield from emit_group(grp)
                    grp = None
                    if limit is not None and state["shown"] >= limit:
                        stopped = True
                        break
                if repeats is None or rn <= repeats:
                    # no folding possible in this run
                    room = m if limit is None else min(m, limit - state["shown"])
                    if with_offsets:
                        for j in range(room):
                            yield _line(pre, post, str(k0 + j), off + j * stride, strs[j])
                    elif room == 1:
                        yield "%s[%d]%s = %s" % (pre, k0, post, strs[0])
                    else:
                        head = pre + "["
                        tail = "]" + post + " = "
                        yield from [head + str(k0 + j) + tail + strs[j] for j in range(room)]
                    state["shown"] += room
                    state["covered"] = state.get("covered", 0) + room
                    if room < m or (limit is not None and state["shown"] >= limit):
                        stopped = True
                        break
                    continue
                j = 0
                while j < m:
                    v = strs[j]
                    e = j + 1
                    while e < m and strs[e] == v:
                        e += 1
                    if grp is not None and grp[5] == v and grp[0] == rid:
                        grp[4] += e - j
                    else:
                        if grp is not None:
                            yield from emit_group(grp)
                            if limit is not None and state["shown"] >= limit:
                                grp = None
                                stopped = True
                                break
                        grp = [rid, pre, post, k0 + j, e - j, v, off + j * stride, stride]
                    j = e
                if stopped:
                    break
            if stopped:
                break
        if not stopped and grp is not None:
            yield from emit_group(grp)
            grp = None
    except _Unreadable as u:
        if grp is not None:
            yield from emit_group(grp)
            grp = None
        if limit is None or state["shown"] < limit:
            raise UnreadableElement(_path_text(u.full, u.vpos, u.k, longf), u.offset,
                                    address_of(base_address, u.offset)) from None
        stopped = True      # the bad element lies past the print limit
    if stopped or (limit is not None and state["shown"] >= limit):
        if grp is not None and state["shown"] < limit:
            yield from emit_group(grp)
        total = count_elements(dt, count, prefix)
        covered = state.get("covered", 0)
        if covered < total:
            yield ("... (showing %d of %d elements; use 'set print elements unlimited'"
                   " or a PATH)" % (covered, total))


_STRUCTS = {}
_FAST_CODES = {(kind, size): (code, decode.FLOAT_SPECS[size].__mod__ if kind == "float" else str)
               for (kind, size), code in decode.NUMBER_CODES.items()}


def _fast_chunk(chunk, bufs, bases, repeats):
    """Lines of a regular chunk (same basic/size/stride/path shape, pieces
    equally spaced in one buffer, no folding possible) decoded with ONE
    struct call; None when the chunk is not regular."""
    p0 = chunk[0]
    full0, vpos, off0, basic, m, stride, _rid, _rn = p0[:8]
    kind = basic.basic_kind
    spec = _FAST_CODES.get((kind, basic.size))
    if spec is None or basic.combiner != "NAMED" or len(chunk) < 2:
        return None
    size = basic.size
    npc = len(chunk)
    buf = bufs[0]
    gap = chunk[1][2] - off0
    last = chunk[-1]
    k0 = full0[vpos]
    post_t = full0[vpos + 1:]
    if (stride < size or gap < (m - 1) * stride + size
            or last[2] != off0 + (npc - 1) * gap):
        return None
    for p, b in zip(chunk, bufs):
        if (p[4] != m or p[3] is not basic or p[5] != stride or b is not buf or p[1] != vpos
                or (repeats is not None and p[7] > repeats)):
            return None
    for i in range(1, npc):
        if chunk[i][2] - chunk[i - 1][2] != gap:
            return None
    for p in chunk:
        f = p[0]
        if f[vpos] != k0 or f[vpos + 1:] != post_t:
            return None
    code, fmt1 = spec
    key = (code, m, stride, gap, npc)
    S = _STRUCTS.get(key)
    if S is None:
        if stride == size:
            unit = "%d%s" % (m, code)
        else:
            unit = ("%s%dx" % (code, stride - size)) * (m - 1) + code
        tail = gap - ((m - 1) * stride + size)
        rep = unit + ("%dx" % tail if tail else "")
        S = struct.Struct("<" + rep * (npc - 1) + unit)
        if len(_STRUCTS) > 64:
            _STRUCTS.clear()
        _STRUCTS[key] = S
    rel = off0 - bases[0]
    if rel < 0 or rel + S.size > len(buf):
        return None
    vals = S.unpack_from(buf, rel)
    if kind == "float" and not all(map(decode._isfinite, vals)):
        return None
    strs = list(map(fmt1, vals))
    post = format_path(post_t)
    mids = ["[%d]%s = " % (k0 + j, post) for j in range(m)]
    pres = [format_path(p[0][:vpos]) for p in chunk]
    if m == 1:
        heads = [a + mids[0] for a in pres]
    else:
        heads = [a + b for a in pres for b in mids]
    return list(map(str.__add__, heads, strs))


# ---------------------------------------------------------------- periodic fast path
# A buffer of count repetitions of a small fixed layout (an array of structs):
# the layout of one repetition is computed once (struct format, one line
# format per element), then blocks of repetitions are decoded with ONE
# struct call and formatted with ONE %.  Used only when no folding is
# possible (every run of a repetition has at most ``repeats`` elements) and
# every element has a formatter here; a failed read hands the rest of the
# buffer (from the block's first repetition) back to the general path, which
# finds the first unreadable element.  jsonout formats the same blocks.

_PER_MAX_ELEMS = 4096
_TABLES = {}

PeriodicElement = namedtuple("PeriodicElement", "kind pos table spec roff path basic delta")
PeriodicElement.__doc__ = """One element of a repetition, in typemap order:
kind 'i' (integer), 'f' (float) or 't' (1-byte, by table); pos: its value's
place in the unpacked repetition; table: the 256 strings of a 't' element;
spec: the % spec of its text value; roff: its offset from the repetition's
first byte; path: its path with %d for the index that counts repetitions;
basic: its type; delta: that index minus the repetition's own (a repetition
may span several values of it: a cyclic darray's blocks)."""


def _byte_table(basic):
    """The 256 natural strings of a 1-byte basic type, indexed by byte."""
    t = _TABLES.get(id(basic))
    if t is None or t[0] is not basic:
        t = (basic, [decode.format_one(basic, bytes((u,))) for u in range(256)])
        if len(_TABLES) > 64:
            _TABLES.clear()
        _TABLES[id(basic)] = t
    return t[1]


class Periodic:
    """The buffer of dt × count as repetitions of one layout (see above):
    ``plan`` (elements.periodic_plan), ``elems`` (PeriodicElement), ``unit``
    (struct format of one repetition from its first byte ``lo``), ``span``
    (its bytes), ``E`` (elements per repetition)."""

    def __init__(self, plan, elems, unit, lo, span):
        self.plan, self.elems, self.unit, self.lo, self.span = plan, elems, unit, lo, span
        self.E = len(elems)
        self.next_rep = 0       # the first repetition blocks() did not give

    def blocks(self, read, room=None):
        """(first repetition, repetitions, bytes, unpacked values) blocks from
        repetition 0 on; room() gives the elements still wanted (None: all)."""
        reps, bs, _ipos, _ibase, _ist, _template = self.plan
        E, span = self.E, self.span
        nb_max = max(1, min(CHUNK_ELEMENTS // E, (MAX_READ - span) // bs + 1))
        r = 0
        while r < reps:
            nb = min(nb_max, reps - r)
            if room is not None:
                left = room()
                if left <= 0:
                    return
                nb = min(nb, (left + E - 1) // E)
            try:
                buf = read_exact(read, r * bs + self.lo, (nb - 1) * bs + span)
            except ReadError:
                return
            vals = _periodic_struct(self.unit, nb, bs - span).unpack_from(buf, 0)
            self.next_rep = r + nb
            yield r, nb, buf, vals
            r += nb

    def rest(self):
        """Internal runs of the repetitions blocks() did not give."""
        return periodic_runs(self.plan, self.next_rep)

    def indices(self, r, nb, delta=0):
        """The path index of an element (its delta) in nb repetitions from r."""
        _reps, _bs, _ipos, ibase, ist, _template = self.plan
        first = ibase + delta
        return range(first + r * ist, first + (r + nb) * ist, ist)


def periodic(dt, count, repeats=None):
    """The Periodic layout of a buffer, or None when the fast path does not
    apply (runs longer than ``repeats``, elements without a formatter here,
    overlapping elements, big gaps)."""
    plan = periodic_plan(dt, count)
    if plan is None:
        return None
    reps, bs, ipos, ibase, _ist, template = plan
    raw = []             # (offset, size, code, kind, fmt spec, table, path, basic)
    for full, vpos, off, basic, n, stride in template:
        if vpos == ipos or n <= 0 or (repeats is not None and n > repeats):
            return None
        if len(raw) + n > _PER_MAX_ELEMS:
            return None
        kind, size = basic.basic_kind, basic.size
        if basic.combiner != "NAMED" or kind is None:
            return None
        code = decode.NUMBER_CODES.get((kind, size))
        if code is not None and kind != "float":
            ent = (code, "i", "%d", None)
        elif code is not None:
            ent = (code, "f", decode.FLOAT_SPECS[size], None)
        elif size == 1 and kind in ("char", "bool", "byte", "packed") and basic.extent >= 1:
            ent = ("B", "t", "%s", _byte_table(basic))
        else:
            return None
        if _elem_span(basic) != size:
            return None
        a, b = (ipos, vpos) if ipos < vpos else (vpos, ipos)
        pre = format_path(full[:a])
        mid = format_path(full[a + 1:b])
        post = format_path(full[b + 1:])
        k0 = full[vpos]
        for k in range(n):
            ks = "[%d]" % (k0 + k)
            if ipos < vpos:
                path = pre + "[%d]" + mid + ks + post
            else:
                path = pre + ks + mid + "[%d]" + post
            raw.append((off + k * stride, size) + ent + (path, basic, full[ipos] - ibase))
    if not raw:
        return None
    order = sorted(range(len(raw)), key=lambda e: raw[e][0])
    lo = raw[order[0]][0]
    unit = []
    end = lo
    pos = [0] * len(raw)
    for j, e in enumerate(order):
        o, size, code = raw[e][:3]
        if o < end or o - end >= MERGE_GAP:
            return None          # overlapping elements / a gap the reads would skip
        if o > end:
            unit.append("%dx" % (o - end))
        unit.append(code)
        end = o + size
        pos[e] = j
    span = end - lo
    if bs <= 0 or bs < span or bs - span >= MERGE_GAP or span > MAX_READ:
        return None
    elems = [PeriodicElement(r[3], pos[e], r[5], r[4], r[0] - lo, r[6], r[7], r[8])
             for e, r in enumerate(raw)]
    return Periodic(plan, elems, "".join(unit), lo, span)


_PER_STRUCTS = {}


def _periodic_struct(unit, nb, gap):
    key = (unit, nb, gap)
    S = _PER_STRUCTS.get(key)
    if S is None:
        sep = unit + ("%dx" % gap if gap else "")
        S = struct.Struct("<" + sep * (nb - 1) + unit)
        if len(_PER_STRUCTS) > 16:
            _PER_STRUCTS.clear()
        _PER_STRUCTS[key] = S
    return S


def _periodic_lines(per, read, state, limit):
    """The lines of the periodic buffer from repetition 0, a block of
    repetitions at a time: a _Block, or a list of lines for the block the
    limit cuts and for blocks holding non-finite floats."""
    E, bs = per.E, per.plan[1]
    isfinite = decode._isfinite
    fmts = [e.path + " = " + e.spec for e in per.elems]
    block_format = "\n".join(fmts) + "\n"   # one repetition: 2 arguments per element
    room = None if limit is None else (lambda: limit - state["shown"])
    for r, nb, buf, vals in per.blocks(read, room):
        wanted = nb * E if limit is None else min(nb * E, limit - state["shown"])
        text = _periodic_text(per, block_format, vals, r, nb) if wanted == nb * E else None
        if text is not None:
            state["shown"] += wanted
            state["covered"] = state.get("covered", 0) + wanted
            yield _Block(text)
            continue
        cols = []
        for e, f in zip(per.elems, fmts):
            col = vals[e.pos::E] if E > 1 else vals
            idx = per.indices(r, nb, e.delta)
            if e.kind == "i":
                cols.append(list(map(f.__mod__, zip(idx, col))))
            elif e.kind == "t":
                cols.append(list(map(f.__mod__, zip(idx, map(e.table.__getitem__, col)))))
            elif all(map(isfinite, col)):
                cols.append(list(map(f.__mod__, zip(idx, col))))
            else:
                one = decode.formatter(e.basic)
                strs = [e.spec % v if isfinite(v) else
                        one(buf, e.roff + b * bs, 1, e.basic.size)[0]
                        for b, v in enumerate(col)]
                g = f[:-len(e.spec)] + "%s"
                cols.append(list(map(g.__mod__, zip(idx, strs))))
        lines = cols[0] if E == 1 else list(chain.from_iterable(zip(*cols)))
        lines = lines[:wanted]
        state["shown"] += len(lines)
        state["covered"] = state.get("covered", 0) + len(lines)
        yield lines


def _periodic_text(per, block_format, vals, r, nb):
    """The lines of nb repetitions from r as one text, formatted by ONE %
    (the arguments interleaved: path index, value, for each element in
    typemap order); None when a float is not finite (gdb's own spelling)."""
    E = per.E
    args = [None] * (2 * E * nb)
    for j, e in enumerate(per.elems):
        col = vals[e.pos::E] if E > 1 else vals
        if e.kind == "f" and not all(map(decode._isfinite, col)):
            return None
        args[2 * j::2 * E] = per.indices(r, nb, e.delta)
        args[2 * j + 1::2 * E] = col if e.kind != "t" else list(map(e.table.__getitem__, col))
    return (block_format * nb) % tuple(args)


class _Block:
    """Output lines in one text (each line ends with a newline)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def lines(self):
        return self.text[:-1].split("\n")


def iter_json_elements(dt, count, read, *, prefix=(), fmt=None, long_paths=False,
                       base_address=0, limit=None, root_label=None):
    """Dicts {"path","offset","address","type","value","bytes"} per element
    (plus "text": the gdb-style value when fmt is given), then TRUNCATED if
    limit stopped the stream early."""
    limit = limit or None
    longf = LongPathFormatter(dt, count, root_label) if long_paths else None
    shown = 0
    for piece in read_pieces(dt, count, read, prefix=prefix, base_address=base_address):
        m = piece.n if limit is None else min(piece.n, limit - shown)
        k, n = 0, FIRST_DICTS
        while k < m:        # slices growing fourfold: a printer may want only the first
            yield from element_dicts(piece.since(k), min(n, m - k), longf, base_address, fmt)
            k, n = k + n, 4 * n
        shown += m
        if limit is not None and shown >= limit:
            break
    if limit is not None and shown >= limit and shown < count_elements(dt, count, prefix):
        yield TRUNCATED


def element_dicts(piece, m, longf, base_address, fmt=None):
    """The JSON dicts of the first m elements of a Piece (iter_json_elements),
    built a column at a time."""
    basic, buf, stride = piece.basic, piece.buf, piece.stride
    rel = piece.offset - piece.base
    columns = [path_texts(piece.full, piece.vpos, m, longf),
               offset_run(piece.offset, m, stride),
               address_run(base_address, piece.offset, m, stride),
               decode.json_values(basic, buf, rel, m, stride),
               decode.hex_run(buf, rel, m, stride, element_span(basic))]
    name = basic.display_name
    if fmt:
        columns.append(decode.formatter(basic, fmt)(buf, rel, m, stride))
        return [{"path": p, "offset": o, "address": a, "type": name, "value": v, "bytes": h,
                 "text": t} for p, o, a, v, h, t in zip(*columns)]
    return [{"path": p, "offset": o, "address": a, "type": name, "value": v, "bytes": h}
            for p, o, a, v, h in zip(*columns)]


def path_texts(full, vpos, m, longf):
    """The paths of m elements from the one at full, its index at vpos
    counting them (long ones when longf)."""
    if longf is not None:
        head, tail = longf.parts(full, vpos)
    else:
        head, tail = format_path(full[:vpos]), format_path(full[vpos + 1:])
    template = "%s[%%d]%s" % (head.replace("%", "%%"), tail.replace("%", "%%"))
    k0 = full[vpos]
    return list(map(template.__mod__, range(k0, k0 + m)))


class Piece(namedtuple("Piece", "full vpos offset basic n stride buf base")):
    """n elements of one basic type at offset + k*stride (buffer-relative);
    their bytes are in buf, which holds the buffer from offset ``base`` on.
    full[vpos] is the varying path index; path(k) is element k's path."""

    __slots__ = ()

    def path(self, k):
        return shift_index(self.full, self.vpos, k)

    def since(self, k):
        """The piece of its elements from element k on."""
        if k == 0:
            return self
        return self._replace(full=self.path(k), offset=self.offset + k * self.stride,
                             n=self.n - k)


def read_pieces(dt, count, read, *, prefix=(), base_address=0, runs=None):
    """Every element below prefix (or of the given internal runs, e.g.
    elements.periodic_runs: the rest of a Periodic buffer) with its bytes, as
    Pieces in typemap order:
    memory is read in the same batches as render_elements (bounded: at most
    CHUNK_ELEMENTS elements and MAX_READ bytes a batch).  Raises
    UnreadableElement at the first element that cannot be read."""
    validate(dt)
    if runs is None:
        runs = internal_runs(dt, count, prefix)
    try:
        for p, buf, base in _pieces(runs, read, lambda: CHUNK_ELEMENTS):
            yield Piece(p[0], p[1], p[2], p[3], p[4], p[5], buf, base)
    except _Unreadable as u:
        raise UnreadableElement(_path_text(u.full, u.vpos, u.k, None), u.offset,
                                address_of(base_address, u.offset)) from None
