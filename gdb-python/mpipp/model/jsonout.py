"""Streaming JSON documents: `mpipp -json` (elements) and `mpipp typemap
-json`, written as text pieces in the order and spelling json.dumps would
use (same separators, one line), so memory does not grow with the buffer.

``decode_document(dt, count, read, ...)`` yields pieces of
``{"count": N, "elements": [{...}, ...], "truncated": false}`` with one
object per element as render.iter_json_elements describes it.  A piece of
elements of one basic type is formatted by ONE % over a template holding
everything the elements share (the path around the varying index, the type
name), its values a column at a time (decode.json_values) written as
json.dumps writes them; the pieces that also carry gdb's text of each value
(fmt) and the MPI_LB and MPI_UB markers are built as render.element_dicts
and encoded by one json.dumps each.

``typemap_document(head, entries)`` yields pieces of ``{...head...,
"typemap": [["MPI_INT", 0], ...]}`` from the compressed typemap, a run of
one basic type at a time.
"""

import json
from itertools import chain

from . import decode
from .basics import element_span, is_unsigned_char
from .elements import count_elements
from .offsets import address_run, offset_run
from .paths import LongPathFormatter, format_path
from .render import CHUNK_ELEMENTS, element_dicts, periodic, read_pieces
from .typemap import Leaf


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
        text = None if fmt else _formatted_objects(piece, m, longf, base_address)
        if text is None:
            text = json.dumps(element_dicts(piece, m, longf, base_address, fmt))[1:-1]
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
        args[5 * j + 1::5 * E] = offset_run(offset, nb, bs)
        args[5 * j + 2::5 * E] = address_run(base_address, offset, nb, bs)
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
        return decode.hex_run(self.buf, first, n, stride, size)


def _formatted_objects(piece, m, longf, base_address):
    """The objects of m elements of a piece by one %, or None when their
    values have no texts here (_value_texts)."""
    basic, stride = piece.basic, piece.stride
    if basic.basic_kind not in _TEXT_KINDS:
        return None
    rel = piece.offset - piece.base
    value_spec, values = _value_texts(basic, decode.json_values(basic, piece.buf, rel, m,
                                                                stride))
    full, vpos = piece.full, piece.vpos
    if longf is not None:
        head, tail = longf.parts(full, vpos)
    else:
        head, tail = format_path(full[:vpos]), format_path(full[vpos + 1:])
    template = ('{"path": "%s[%%d]%s", "offset": %%d, "address": %%d, "type": "%s", '
                '"value": %s, "bytes": "%%s"}' % (_literal(head), _literal(tail),
                                                  _literal(basic.display_name), value_spec))
    first = piece.offset
    args = [None] * (5 * m)
    k0 = full[vpos]
    args[0::5] = range(k0, k0 + m)
    args[1::5] = offset_run(first, m, stride)
    args[2::5] = address_run(base_address, first, m, stride)
    args[3::5] = values
    args[4::5] = decode.hex_run(piece.buf, rel, m, stride, element_span(basic))
    return ", ".join([template] * m) % tuple(args)


def _value_texts(basic, values):
    """(% spec, arguments) writing each of a column of JSON values
    (decode.json_values) as json.dumps does.  Integers are formatted by the
    %; other scalars are cut from one json.dumps of the column (none of
    their texts holds its separator: strings are hex, nan, inf or invalid);
    complexes and pairs (the rest of _TEXT_KINDS) from those of their parts."""
    kind = basic.basic_kind
    if kind in _INTEGER_KINDS:
        return "%d", values
    if kind in _SCALAR_KINDS:
        return "%s", _json_texts(values)
    if kind == "complex":
        parts = _json_texts(list(chain.from_iterable(values)))
        return "%s", list(map("[%s, %s]".__mod__, zip(parts[0::2], parts[1::2])))
    firsts = _json_texts([v["value"] for v in values])      # a pair
    seconds = _json_texts([v["index"] for v in values])
    return "%s", list(map('{"value": %s, "index": %s}'.__mod__, zip(firsts, seconds)))


_INTEGER_KINDS = frozenset(("int", "uint", "char"))
_SCALAR_KINDS = frozenset(("float", "bool", "byte", "packed"))
# every kind but the LB and UB markers (no value): a pair's members are scalars
_TEXT_KINDS = _INTEGER_KINDS | _SCALAR_KINDS | {"complex", "pair"}


def _json_texts(scalars):
    """json.dumps of each of a list of scalars (one call for all)."""
    return json.dumps(scalars)[1:-1].split(", ")


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
                batch.append(", ".join([entry] * n) % tuple(offset_run(start + k * e.stride,
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
