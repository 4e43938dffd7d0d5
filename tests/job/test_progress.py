"""The --until-hang watcher's gdb-free parts (job/progress.py, job/peek.py):
thread slots decoded from raw bytes, a rank that waits told from one that
computes or progresses, memory read from a running process."""

import ctypes
import os
import struct

from mpipp.job import peek
from mpipp.job.progress import HangWatch, Layout, Sample

SLOT = 64
LAYOUT = {"threads_used": 0x1000, "threads": 0x2000, "max_threads": 256, "slot_size": SLOT,
          "offsets": {"tid": 8, "active": 12, "ncalls": 16, "completed": 24, "polling": 32}}


def slot(tid, active, completed):
    raw = bytearray(SLOT)
    struct.pack_into("<iiQ", raw, 8, tid, active, 0)
    struct.pack_into("<Q", raw, 24, completed)
    return bytes(raw)


def test_slots_are_summed_over_the_threads_that_called_mpi():
    layout = Layout(LAYOUT)
    assert layout.ranges() == [(0x1000, 8), (0x2000, 5 * SLOT)]
    raw = slot(100, 0, 7) + slot(0, 1, 99) + slot(101, 1, 3)
    sample = layout.sample([struct.pack("<Q", 3), raw])
    assert (sample.inside, sample.completed) == (True, 10)   # the free slot is no thread
    assert layout.ranges()[1] == (0x2000, 7 * SLOT)            # 3 claimed: read a few more
    assert layout.sample([None, raw]) is None


def test_a_rank_waits_when_it_completes_nothing_inside_mpi():
    watch = HangWatch(3)
    for t in range(8):       # rank 0 blocked; rank 1 inside MPI half of the time (spinning)
        watch.update(0, Sample(True, 5), t * 0.5)
        watch.update(1, Sample(t % 2 == 0, 9), t * 0.5)
    assert watch.waiting(0, 3.5) and watch.waiting(1, 3.5) and watch.hung([0, 1], 3.5)
    assert not watch.hung([0, 1], 2.5)                     # not for 3 s yet


def test_progress_or_computing_is_no_hang():
    watch = HangWatch(3)
    for t in range(8):
        watch.update(0, Sample(True, t), t * 0.5)          # completes calls
        watch.update(1, Sample(t == 3, 4), t * 0.5)         # computes between calls
        watch.update(2, Sample(True, 4), t * 0.5)
    assert not watch.waiting(0, 3.5) and not watch.waiting(1, 3.5) and watch.waiting(2, 3.5)
    assert not watch.hung([0, 1, 2], 3.5)
    watch.update(2, None, 4)                               # unreadable: never called waiting
    assert not watch.waiting(2, 4) and not watch.hung([2], 4)
    watch.reset()
    assert not watch.hung([0], 10)


def test_peek_reads_a_running_process_and_answers_requests():
    buf = ctypes.create_string_buffer(b"progress")
    address = ctypes.addressof(buf)
    assert peek.read_memory(os.getpid(), [(address, 8), (0, 8)]) == [b"progress", None]
    assert peek.answer(b'{"peek": [[%d, 4]]}' % address, os.getpid()) == \
        b'{"data": ["70726f67"]}\n'
    assert peek.answer(b"nonsense", os.getpid()) == b'{"error": "bad request"}\n'
