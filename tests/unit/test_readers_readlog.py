"""readlog: the reads a stop's views made, checked again at a later stop."""

from fakemem import Blobs
from mpipp.readers import readlog
from mpipp.readers.errors import ReadError

import pytest

BASE = 0x10000


def memory():
    return Blobs({BASE: bytes(range(256)) * 64, 0x90000: b"\1" * 64})


def logged(mem, reads):
    log = readlog.ReadLog()
    logged_memory = readlog.LoggedMemory(mem, log)
    for address, length in reads:
        try:
            logged_memory.read(address, length)
        except ReadError:
            pass
    return log


def test_same_bytes_are_unchanged_and_close_ranges_are_read_at_once():
    mem = memory()
    reads = logged(mem, [(BASE, 16), (BASE + 8, 24), (BASE + 2000, 8), (0x90000, 64)]).snapshot()
    assert [(start, end - start) for start, end, _runs in reads.spans] == \
        [(BASE, 2008), (0x90000, 64)]
    mem.reads.clear()
    assert reads.unchanged(mem)
    assert mem.reads == [(BASE, 2008), (0x90000, 64)]


def test_a_changed_byte_is_seen():
    mem = memory()
    reads = logged(mem, [(BASE + 100, 8)]).snapshot()
    data = bytearray(mem.blobs[BASE])
    data[103] ^= 1
    mem.blobs[BASE] = bytes(data)
    assert not reads.unchanged(mem)


def test_bytes_between_the_ranges_may_change():
    mem = memory()
    reads = logged(mem, [(BASE, 8), (BASE + 64, 8)]).snapshot()
    data = bytearray(mem.blobs[BASE])
    data[32] ^= 1
    mem.blobs[BASE] = bytes(data)
    assert reads.unchanged(mem)


def test_a_failed_read_must_fail_again():
    mem = memory()
    reads = logged(mem, [(0x50000, 8)]).snapshot()
    assert reads.unchanged(mem)
    mem.blobs[0x50000] = bytes(8)
    assert not reads.unchanged(mem)


def test_an_unreadable_gap_checks_the_ranges_one_by_one():
    mem = Blobs({BASE: bytes(64), BASE + 1024: bytes(64)})
    reads = logged(mem, [(BASE, 8), (BASE + 1024, 8)]).snapshot()
    assert len(reads.spans) == 1
    assert reads.unchanged(mem)
    del mem.blobs[BASE + 1024]
    assert not reads.unchanged(mem)


@pytest.mark.parametrize("reads", [[(BASE, 16)] * (readlog.MAX_READS + 1),
                                   [(BASE, 16384)] * (readlog.MAX_BYTES // 16384 + 1)])
def test_too_many_reads_keep_nothing(reads):
    assert logged(memory(), reads).snapshot() is None
