"""The gdb-free reader (mpipp/context.py) on fake memory: a corrupted or
foreign root is a one-line ContextError, lists with cycles are caught."""

import os
import struct
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "gdb-python"))

from mpipp.context.reader import MAGIC, ROOT, Context, ContextError  # noqa: E402
from mpipp.remote import CONSTANT  # noqa: E402
from mpipp.model.errors import ReadError  # noqa: E402


class Memory:
    def __init__(self, blobs):
        self.blobs = blobs  # {address: bytes}

    def read(self, address, length):
        for base, data in self.blobs.items():
            if base <= address and address + length <= base + len(data):
                return data[address - base:address - base + length]
        raise ReadError(address, length)


def image(constants, requests_head=0, magic=MAGIC, version=1):
    table = b"".join(CONSTANT.pack(n.encode(), v) for n, v in constants.items())
    root = ROOT.pack(magic, version, ROOT.size, 0, len(constants), 4, 0x2000, 0, requests_head,
                     0, 0, 0, 0, 0)
    return {0x1000: root, 0x2000: table}


BASE = {"sizeof.call": 64, "sizeof.cbuf": 64, "sizeof.thread": 96, "call.bufs": 0,
        "request.call": 64, "thread.call": 32, "MPI_REQUEST_NULL": 0x2c000000,
        "sizeof.MPI_Comm": 4, "sizeof.MPI_Request": 4, "sizeof.MPI_Op": 4,
        "sizeof.MPI_Datatype": 4, "sizeof.request": 128, "request.next": 16}


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


def test_request_list_cycle_is_caught():
    consts = dict(BASE, **{"request." + f: 8 * k for k, f in enumerate(
        ("handle", "serial", "next", "prev", "state", "tid"))})
    consts.update({"state.active": 1, "state.persistent": 2, "state.cancelled": 4,
                   "state.partitioned": 8, "call.func": 0, "call.site": 8, "call.flags": 16,
                   "call.nbufs": 20, "call.comm": 24, "call.peer_name": 32, "call.peer": 40,
                   "call.tag": 44, "call.peer2_name": 48, "call.peer2": 40, "call.tag2": 44,
                   "call.extra_name": 48, "call.extra": 56, "call.reqs": 56, "call.nreqs": 56})
    mem = image(consts, requests_head=0x3000)
    rec = bytearray(128)
    struct.pack_into("<Q", rec, 16, 0x3000)  # next points at itself
    mem[0x3000] = bytes(rec)
    view = Context(Memory(mem), 0x1000)
    with pytest.raises(ContextError, match="cycle"):
        view.requests()
    del consts["request.tid"]
    view = Context(Memory(image(consts, requests_head=0x3000) | {0x3000: mem[0x3000]}), 0x1000)
    with pytest.raises(ContextError, match="lacks request.tid"):
        view.requests()
