"""The --until-hang watcher's gdb-free parts (job/analysis/progress.py,
job/node/peek.py): thread slots decoded from raw bytes, a rank that waits
told from one that computes or progresses, memory read from a running
process -- by the console, a launcher, or the back-ends next to the ranks
(node/agent.py), asked down their tree (link/fleet.py)."""

import ctypes
import json
import os
import shutil
import socket
import struct
import threading

from mpipp.job.node import peek
from mpipp.job.link import wire
from mpipp.job.node.agent import Agent
from mpipp.job.link.fleet import Fleet
from mpipp.job.analysis.progress import INIT_SECONDS, HangWatch, Layout, Sample, TreeReader
from mpipp.job.link.session import Reactor

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
    for t in range(10):      # spinning, caught inside 2 samples in 5 (a loaded machine)
        watch.update(2, Sample(t % 5 < 2, 9), t * 0.5)
    assert watch.waiting(2, 4.5)


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


def test_a_rank_in_mpi_init_waits_only_after_init_seconds():
    """A rank that completed no call yet is in MPI_Init: starting MPI takes
    seconds of its own."""
    watch = HangWatch(2)
    for t in range(0, 2 * int(INIT_SECONDS) + 1):
        watch.update(0, Sample(True, 0), t * 0.5)
    assert not watch.waiting(0, INIT_SECONDS - 0.5) and watch.waiting(0, INIT_SECONDS)
    assert watch.hung([0], INIT_SECONDS)


def test_peek_reads_a_running_process_and_answers_requests():
    buf = ctypes.create_string_buffer(b"progress")
    address = ctypes.addressof(buf)
    assert peek.read_memory(os.getpid(), [(address, 8), (0, 8)]) == [b"progress", None]
    assert peek.answer(b'{"peek": [[%d, 4]]}' % address, os.getpid()) == \
        b'{"data": ["70726f67"]}\n'
    assert peek.answer(b"nonsense", os.getpid()) == b'{"error": "bad request"}\n'


class Link:
    """A connection in the tree, as a back-end writes to it."""
    closed = False

    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)
        return True


def test_a_back_end_reads_its_ranks_and_passes_the_rest_down():
    buf = ctypes.create_string_buffer(b"progress")
    address = ctypes.addressof(buf)
    # a node's back-end holding ranks 0 and 4 (both this process, read through /proc)
    agent = Agent("token", "a", {"children": 2, "ranks": {"0": {"pid": os.getpid()},
                                                          "4": {"pid": os.getpid()}}})
    try:
        agent.parent, below_1, below_2 = Link(), Link(), Link()
        agent.children = {below_1: [{"rank": 1}, {"rank": 3}], below_2: [{"rank": 2}]}
        agent.ready_sent = True                          # the tree is up
        agent.handle(agent.parent, {"t": "peek", "id": 7, "ranges": {
            "0": [[address, 8]], "3": [[address, 4]], "4": [[address, 2]]}})
        assert below_1.sent == [{"t": "peek", "id": 7, "ranges": {"3": [[address, 4]]}}]
        assert below_2.sent == []                        # none of its ranks asked
        agent.handle(below_1, {"t": "peeked", "id": 7, "data": {"3": ["70726f67"]}})
        agent.step()
        assert agent.parent.sent == [{"t": "peeked", "id": 7, "data": {
            "0": ["70726f6772657373"], "4": ["7072"], "3": ["70726f67"]}}]
        assert not agent.peeks
    finally:
        shutil.rmtree(agent.scratch, ignore_errors=True)


def test_the_console_reads_ranks_next_to_their_back_ends_in_one_request():
    down, up = socket.socketpair()
    fleet = Fleet(wire.Link(up), Reactor())
    fleet.attach()
    reader = TreeReader(fleet)
    ranks = [reader.of(r) for r in range(3)]
    for rank, of in enumerate(ranks):
        of.send([(0x1000 + rank, 2)])
    requests = []

    def root():      # the tree's root: rank 1's back-end is gone
        requests.append(json.loads(down.makefile().readline()))
        down.sendall(wire.encode({"t": "peeked", "id": requests[0]["id"],
                                  "data": {"0": ["0001"], "2": [None]}}))
    answering = threading.Thread(target=root)
    answering.start()
    assert [of.receive() for of in ranks] == [[b"\x00\x01"], None, [None]]
    answering.join()
    assert requests == [{"t": "peek", "id": 1, "ranges": {
        "0": [[0x1000, 2]], "1": [[0x1001, 2]], "2": [[0x1002, 2]]}}]
    assert fleet.peek({0: [(0x1000, 2)]}, 0.1) == {}      # no answer in time: not read
    assert not fleet.peeks
    down.close()
