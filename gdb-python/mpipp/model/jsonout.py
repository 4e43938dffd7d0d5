"""Streaming JSON documents: `mpipp -json` (elements) and `mpipp typemap
-json`, written as text pieces in the order and spelling json.dumps would
use (same separators, one line), so memory does not grow with the buffer.

``decode_document(dt, count, read, ...)`` yields pieces of
``{"count": N, "elements": [{...}, ...], "truncated": false}`` with one
object per element as render.iter_json_elements describes it.  A piece of
elements of one basic type with a plain number for value (integers, IEEE
floats) is formatted by ONE % over a template holding everything the
elements share (the path around the varying index, the type name), so the
element rate is that of the text output; other elements go through
json.dumps one by one.

``typemap_document(head, entries)`` yields pieces of ``{...head...,
"typemap": [["MPI_INT", 0], ...]}`` from the compressed typemap, a run of
one basic type at a time.
"""

import json

from . import decode
from .basics import is_unsigned_char
from .elements import count_elements
from .offsets import ADDRESS_MASK
from .paths import LongPathFormatter, format_path
from .render import CHUNK_ELEMENTS, element_dicts, periodic, read_pieces
from .typemap import Leaf

# The % spec of a value that is a JSON number (decode.NUMBER_CODES) by its
# kind: floats use %r, json.dumps writes float.__repr__.
_NUMBER_SPECS = {"int": "%d", "uint": "%d", "float": "%r"}


def _literal(text):
    """text as the inside of a JSON string, safe inside a % template."""
    return json.dumps(text)[1:-1].replace("%", "%%")


def decode_document(dt, count, read, *, prefix=(), fmt=None, long_paths=False,
                    base_address=0, limit=None, root_label=None):
    """Pieces of the `mpipp -json` document (see the module doc)."""
    yield '{"count": %d, "elements": [' % count
    limit = limit or None
    longf = LongPathFormatter(dt, count, root_label) if long_paths else None
    shown = 0
    runs = None
    per = None if fmt or long_paths or prefix else _periodic(dt, count)
    if per is not None:
        room = None if limit is None else (lambda: limit - shown)
        for r, nb, buf, vals in per.blocks(read, room):
            m = nb * per.E if limit is None else min(nb * per.E, limit - shown)
            if shown:
                yield ", "
            yield _periodic_objects(per, r, nb, buf, vals, m, base_address)
            shown += m
        runs = per.rest()
    for piece in read_pieces(dt, count, read, prefix=prefix, base_address=base_address,
                             runs=runs):
        if limit is not None and shown >= limit:
            break
        m = piece.n if limit is None else min(piece.n, limit - shown)
        text = None if fmt else _numbers(piece, m, longf, base_address)
        if text is None:
            text = ", ".join(map(json.dumps, element_dicts(piece, m, longf, base_address, fmt)))
        if shown:
            yield ", "
        yield text
        shown += m
    truncated = limit is not None and shown >= limit and shown < count_elements(dt, count, prefix)
    yield '], "truncated": %s}' % ("true" if truncated else "false")


def _periodic(dt, count):
    """render's Periodic layout when every element's value is a JSON number
    (integers, IEEE floats, characters), else None."""
    per = periodic(dt, count)
    if per is None or any(e.kind == "t" and e.basic.basic_kind != "char" for e in per.elems):
        return None
    return per


def _periodic_objects(per, r, nb, buf, vals, m, base_address):
    """The objects of the first m elements of nb repetitions from r, by one %."""
    E, bs = per.E, per.plan[1]
    args = [None] * (5 * E * nb)
    hexes = _Hex(buf)
    start = r * bs + per.lo
    templates = []
    for j, e in enumerate(per.elems):
        size = e.basic.size
        col = vals[e.pos::E] if E > 1 else vals
        if e.kind == "f":
            # float.__repr__ is what json.dumps writes (faster mapped than by %r)
            col = (list(map(repr, col)) if all(map(decode._isfinite, col)) else
                   [json.dumps(decode.json_float(v)) for v in col])
            spec = "%s"
        else:
            spec = "%d"
            if e.kind == "t" and not is_unsigned_char(e.basic):
                col = [v - 256 if v > 127 else v for v in col]
        templates.append('{"path": "%s", "offset": %%d, "address": %%d, "type": "%s", '
                         '"value": %s, "bytes": "%%s"}'
                         % (e.path, _literal(e.basic.display_name), spec))
        offset = start + e.roff
        args[5 * j::5 * E] = per.indices(r, nb, e.delta)
        args[5 * j + 1::5 * E] = _progression(offset, nb, bs)
        args[5 * j + 2::5 * E] = _addresses(base_address + offset, nb, bs)
        args[5 * j + 3::5 * E] = col
        args[5 * j + 4::5 * E] = hexes.column(e.roff, size, bs, nb)
    if m < E * nb:
        return ", ".join((templates * nb)[:m]) % tuple(args[:5 * m])
    return ", ".join(templates * nb) % tuple(args)


class _Hex:
    """The hex of elements of a buffer: aligned columns come from the buffer
    cut once per element size (bytes.hex's separator, in C)."""

    def __init__(self, buf):
        self.buf = bytes(buf)
        self.groups = {}

    def column(self, first, size, stride, n):
        """The hex of n elements of size bytes at first + k*stride."""
        if stride % size == 0 and first % size == 0:
            groups = self.groups.get(size)
            if groups is None:
                groups = self.groups[size] = self.buf.hex(" ", -size).split(" ")
            return groups[first // size::stride // size][:n]
        buf = self.buf
        return [buf[i:i + size].hex() for i in range(first, first + stride * n, stride)]


def _numbers(piece, m, longf, base_address):
    """The objects of m elements of a piece by one %, or None when their
    values are not plain numbers."""
    basic = piece.basic
    code = decode.NUMBER_CODES.get((basic.basic_kind, basic.size))
    if code is None or basic.combiner != "NAMED":
        return None
    value_spec = _NUMBER_SPECS[basic.basic_kind]
    size, stride = basic.size, piece.stride
    rel = piece.offset - piece.base
    values = decode.unpack_run(code, size, piece.buf, rel, m, stride)
    if code in "fd" and not all(map(decode._isfinite, values)):
        return None
    full, vpos = piece.full, piece.vpos
    if longf is not None:
        head, tail = longf.parts(full, vpos)
    else:
        head, tail = format_path(full[:vpos]), format_path(full[vpos + 1:])
    template = ('{"path": "%s[%%d]%s", "offset": %%d, "address": %%d, "type": "%s", '
                '"value": %s, "bytes": "%%s"}' % (_literal(head), _literal(tail),
                                                  _literal(basic.display_name), value_spec))
    buf = piece.buf
    if stride == size:
        whole = bytes(buf[rel:rel + m * size]).hex()
        hexes = [whole[i:i + 2 * size] for i in range(0, 2 * size * m, 2 * size)]
    elif stride:
        hexes = [bytes(buf[o:o + size]).hex() for o in range(rel, rel + m * stride, stride)]
    else:
        hexes = [bytes(buf[rel:rel + size]).hex()] * m
    first = piece.offset
    args = [None] * (5 * m)
    k0 = full[vpos]
    args[0::5] = range(k0, k0 + m)
    args[1::5] = _progression(first, m, stride)
    args[2::5] = _addresses(base_address + first, m, stride)
    args[3::5] = values
    args[4::5] = hexes
    return ", ".join([template] * m) % tuple(args)


def _progression(first, n, step):
    """first, first + step, ... (n values; step may be 0)."""
    return range(first, first + n * step, step) if step else [first] * n


def _addresses(first, n, step):
    """_progression of addresses, wrapped to 64 bits when it leaves them
    (absolute displacements below a nonzero base)."""
    if 0 <= min(first, first + (n - 1) * step) and max(first, first + (n - 1) * step) \
            <= ADDRESS_MASK:
        return _progression(first, n, step)
    return [a & ADDRESS_MASK for a in _progression(first, n, step)]


def typemap_document(head, entries):
    """Pieces of {**head, "typemap": [[name, offset], ...]} for compressed
    typemap entries (typemap.typemap_runs)."""
    yield json.dumps(head)[:-1] + ', "typemap": ['
    first = True
    for text in _typemap_texts(entries, 0):
        yield text if first else ", " + text
        first = False
    yield "]}"


def _typemap_texts(entries, base, names=None):
    """Texts of '["name", offset], ...' for entries at base, in bounded
    pieces: a run of one basic type is formatted by one % per chunk, and
    the short runs and single entries of an irregular type are gathered
    into pieces of about CHUNK_ELEMENTS entries; each basic type's name is
    quoted once (names: basic -> JSON string)."""
    names = {} if names is None else names
    batch, gathered = [], 0
    for e in entries:
        if type(e) is Leaf:
            batch.append("[%s, %d]" % (_quoted(names, e.basic), base + e.offset))
            gathered += 1
        elif len(e.body) == 1 and type(e.body[0]) is Leaf:
            entry = "[%s, %%d]" % _quoted(names, e.body[0].basic).replace("%", "%%")
            start = base + e.offset + e.body[0].offset
            for k in range(0, e.count, CHUNK_ELEMENTS):
                n = min(CHUNK_ELEMENTS, e.count - k)
                batch.append(", ".join([entry] * n) % tuple(_progression(start + k * e.stride,
                                                                         n, e.stride)))
                gathered += n
                if gathered >= CHUNK_ELEMENTS:
                    yield ", ".join(batch)
                    batch, gathered = [], 0
        else:
            if batch:
                yield ", ".join(batch)
                batch, gathered = [], 0
            for k in range(e.count):
                yield from _typemap_texts(e.body, base + e.offset + k * e.stride, names)
        if gathered >= CHUNK_ELEMENTS:
            yield ", ".join(batch)
            batch, gathered = [], 0
    if batch:
        yield ", ".join(batch)


def _quoted(names, basic):
    name = names.get(basic)
    if name is None:
        name = names[basic] = json.dumps(basic.display_name)
    return name
