"""jsonout: the streamed `mpipp -json` and `mpipp typemap -json` documents
are exactly what json.dumps writes for the whole document (valid, complete,
same spelling), for every combiner, limits, non-finite floats, strides of
every sign and addresses that wrap; and they come in bounded pieces."""

import json
import math
import struct as st

import pytest

from dtypes import (ALL, BASICS, CHAR, DOUBLE, FLOAT, INT, LONG, SHORT, UNSIGNED, contiguous,
                    f90_complex, f90_integer, f90_real, hvector, struct, vector)
from mpipp.model import jsonout, render, typemap
from mpipp.model.combiners import buffer_type


def memory(dt, count, seed=3):
    """Bytes covering a buffer of count elements (from its true lb), as read()."""
    b = buffer_type(dt, count)
    lo, hi = min(b.true_lb, 0), max(b.true_lb + b.true_extent, 16)
    raw = bytes((i * 37 + seed) % 256 for i in range(hi - lo))
    return lambda off, n: raw[off - lo:off - lo + n]


def whole_document(dt, count, read, **kw):
    """The `mpipp -json` document as json.dumps writes it from the element dicts."""
    items = list(render.iter_json_elements(dt, count, read, **kw))
    truncated = bool(items) and items[-1] is render.TRUNCATED
    elements = items[:-1] if truncated else items
    return json.dumps({"count": count, "elements": elements, "truncated": truncated})


@pytest.mark.parametrize("name", sorted(ALL))
def test_decode_document_is_json_dumps_of_the_elements(name):
    t = ALL[name]()
    read = memory(t, 3)
    for kw in ({}, {"limit": 4}, {"base_address": 0x7ffe0000}, {"long_paths": True,
                                                                "root_label": "buf"}):
        text = "".join(jsonout.decode_document(t, 3, read, **kw))
        assert text == whole_document(t, 3, read, **kw)
        json.loads(text)


@pytest.mark.parametrize("basic", BASICS + (f90_real(15, 307, 8), f90_complex(6, 37, 8),
                                            f90_integer(9, 4)), ids=lambda b: b.display_name)
def test_every_basic_type(basic):
    for t, count in ((contiguous(5, basic), 3), (vector(3, 2, 3, basic), 2), (basic, 7)):
        read = memory(t, count, seed=5)
        for kw in ({}, {"fmt": "x"}, {"limit": 4}):
            text = "".join(jsonout.decode_document(t, count, read, **kw))
            assert text == whole_document(t, count, read, **kw)


def test_numbers_of_every_width_and_sign():
    s = struct([1, 2, 1, 1, 3, 1], [0, 4, 12, 16, 24, 40],
               [INT, SHORT, UNSIGNED, FLOAT, DOUBLE, LONG])
    read = memory(s, 50, seed=11)
    assert "".join(jsonout.decode_document(s, 50, read)) == whole_document(s, 50, read)


@pytest.mark.parametrize("dt", [vector(5, 1, 0, DOUBLE), vector(4, 2, -3, INT),
                                hvector(6, 1, 4, DOUBLE), contiguous(7, CHAR)],
                         ids=["stride0", "negative", "overlapping", "chars"])
def test_strides(dt):
    read = memory(dt, 2)
    assert "".join(jsonout.decode_document(dt, 2, read)) == whole_document(dt, 2, read)


def test_non_finite_floats_and_wrapping_addresses():
    v = contiguous(4, DOUBLE)
    raw = st.pack("<4d", 1.5, math.inf, math.nan, -0.0)
    read = lambda off, n: raw[off:off + n]  # noqa: E731
    text = "".join(jsonout.decode_document(v, 1, read, base_address=(1 << 64) - 16))
    assert text == whole_document(v, 1, read, base_address=(1 << 64) - 16)
    doc = json.loads(text)
    assert [e["value"] for e in doc["elements"]] == [1.5, "inf", "nan", -0.0]
    assert [e["address"] for e in doc["elements"]] == [(1 << 64) - 16, (1 << 64) - 8, 0, 8]


def test_pieces_are_bounded():
    v = vector(200000, 1, 2, DOUBLE)
    raw = st.pack("<%dd" % (2 * 200000), *range(2 * 200000))
    read = lambda off, n: raw[off:off + n]  # noqa: E731
    pieces = list(jsonout.decode_document(v, 1, read))
    assert max(map(len, pieces)) < 200 * render.CHUNK_ELEMENTS
    doc = json.loads("".join(pieces))
    assert len(doc["elements"]) == 200000
    assert doc["elements"][-1] == {"path": "[0][199999][0]", "offset": 16 * 199999,
                                   "address": 16 * 199999, "type": "MPI_DOUBLE",
                                   "value": 2.0 * 199999, "bytes": raw[16 * 199999:][:8].hex()}


@pytest.mark.parametrize("name", sorted(ALL))
def test_typemap_document_is_json_dumps_of_the_typemap(name):
    t = ALL[name]()
    head = {"size": t.size, "lb": t.lb}
    text = "".join(jsonout.typemap_document(head, typemap.typemap_runs(t, 3)))
    want = dict(head, typemap=[[b.display_name, o] for b, o in typemap.expand_typemap(t, 3)])
    assert text == json.dumps(want)


def test_typemap_of_ten_million_elements_in_bounded_pieces():
    v = vector(10 ** 7, 1, 0, INT)
    pieces = jsonout.typemap_document({"size": v.size}, typemap.typemap_runs(v, 1))
    n, biggest = 0, 0
    for piece in pieces:
        n += piece.count('["MPI_INT", 0]')
        biggest = max(biggest, len(piece))
    assert n == 10 ** 7 and biggest < 20 * render.CHUNK_ELEMENTS
