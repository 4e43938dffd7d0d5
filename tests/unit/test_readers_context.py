"""The gdb-free reader (readers/context.py) on fake memory: a corrupted or
foreign root is a one-line ContextError, lists with cycles are caught."""

import os
import struct
import sys

import pytest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "gdb-python"))
sys.path.insert(0, os.path.join(TESTS, "unit"))

from mpipp.readers.context import LAYOUT, MAGIC, ROOT, Context, ContextError  # noqa: E402
from mpipp.readers.remote import CONSTANT  # noqa: E402

from fakemem import Blobs as Memory  # noqa: E402


def image(constants, requests_head=0, magic=MAGIC, version=1):
    table = b"".join(CONSTANT.pack(n.encode(), v) for n, v in constants.items())
    root = ROOT.pack(magic, version, ROOT.size, 0, len(constants), 4, 0x2000, 0, requests_head,
                     0, 0, 0, 0, 0)
    return {0x1000: root, 0x2000: table}


def layout_constants():
    """A consistent constants table: every field of the reader's LAYOUT packed
    in order, each struct just large enough."""
    out = {"call.bufs_max": 1, "comm.name_max": 16, "MPI_REQUEST_NULL": 0x2c000000,
           "sizeof.MPI_Comm": 4, "sizeof.MPI_Request": 4, "sizeof.MPI_Op": 4,
           "sizeof.MPI_Datatype": 4, "state.active": 1, "state.persistent": 2,
           "state.cancelled": 4, "state.partitioned": 8}
    for size_name, _limit, fields in LAYOUT:
        offset = 0
        for name, width in fields:
            out[name] = offset
            offset += width if isinstance(width, int) else out[width]
        out[size_name] = offset
    return out


BASE = layout_constants()


def test_bad_magic_and_version():
    with pytest.raises(ContextError, match="bad magic"):
        Context(Memory(image(BASE, magic=1)), 0x1000)
    with pytest.raises(ContextError, match="version 9"):
        Context(Memory(image(BASE, version=9)), 0x1000)


def test_missing_constant():
    consts = dict(BASE)
    del consts["call.bufs"]
    with pytest.raises(ContextError, match="lacks call.bufs"):
        Context(Memory(image(consts)), 0x1000)


def test_unreadable_root():
    with pytest.raises(ContextError, match="cannot read context root"):
        Context(Memory({}), 0x1000)


def test_field_outside_its_record():
    consts = dict(BASE, **{"request.tid": BASE["sizeof.request"] - 2})
    with pytest.raises(ContextError, match="request.tid = .* out of range"):
        Context(Memory(image(consts)), 0x1000)


def test_request_list_cycle_is_caught():
    mem = image(BASE, requests_head=0x3000)
    rec = bytearray(BASE["sizeof.request"])
    struct.pack_into("<Q", rec, BASE["request.next"], 0x3000)  # next points at itself
    mem[0x3000] = bytes(rec)
    view = Context(Memory(mem), 0x1000)
    with pytest.raises(ContextError, match="cycle"):
        view.requests()
