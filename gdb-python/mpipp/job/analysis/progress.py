"""Watching a running job for a hang without stopping it (gdb-free): what
`until-hang` and `mpipp-job --until-hang` build on.

libmpireg's thread slots count each thread's calls that completed and say
whether it is inside an MPI call now (libmpireg/context/calls.h); their address and
layout come from each rank's `mpipp context -json` ("progress").  A Reader
reads them while the rank runs, on the rank's own host: through its
launcher (a lifeline request, peek.py) or, with the debuggers next to the
ranks, its back-end (a request down their tree, fleet.py); or from
/proc/PID/mem for a process on this host.  A rank waits when it completes
no MPI call and is inside MPI at many samples -- blocked in a call (every
sample), or spinning on MPI_Test or MPI_Iprobe (about half of them: the
wrapper's own work between the calls is outside); a rank computing between
calls is seldom caught inside.  The job
hangs when every live rank has waited so for the chosen time.
"""

import json
import socket
import struct

from ..link.wire import from_hex
from ..node.peek import read_memory

# Of the samples inside MPI: a rank that waits (or spins).  A rank spinning
# on MPI_Test is caught inside in 50-70% of them (MPICH and Open MPI, on a
# loaded 2-core machine): half would take it for computing now and then.
SPIN_FRACTION = 0.25
SLOTS_MARGIN = 4        # thread slots read beyond those claimed at the last sample
REPLY_TIMEOUT = 5.0
# A rank that completed no MPI call yet is in MPI_Init (libmpireg shows it
# there): starting MPI takes seconds of its own (Open MPI, 2 ranks under gdb
# on a loaded machine: over 2 s), so it waits only after this long too.
INIT_SECONDS = 10.0


class Layout:
    """Where one rank's thread slots are (the "progress" of its context
    document), and how to read them."""

    def __init__(self, doc):
        self.threads_used = doc["threads_used"]
        self.threads = doc["threads"]
        self.max_threads = doc["max_threads"]
        self.slot_size = doc["slot_size"]
        self.offsets = doc["offsets"]
        self.claimed = 1

    def ranges(self):
        n = min(self.claimed + SLOTS_MARGIN, self.max_threads)
        return [(self.threads_used, 8), (self.threads, n * self.slot_size)]

    def sample(self, data):
        """The Sample of the bytes read at ranges(), or None (unreadable)."""
        used, slots = data
        if used is None or slots is None:
            return None
        claimed = struct.unpack("<Q", used)[0]
        self.claimed = max(1, min(claimed, self.max_threads))
        o = self.offsets
        inside = completed = 0
        for k in range(min(claimed, len(slots) // self.slot_size)):
            base = k * self.slot_size
            tid, = struct.unpack_from("<i", slots, base + o["tid"])
            if not tid:
                continue
            active, = struct.unpack_from("<i", slots, base + o["active"])
            done, = struct.unpack_from("<Q", slots, base + o["completed"])
            inside |= bool(active)
            completed += done
        return Sample(inside, completed)


class Sample:
    __slots__ = ("inside", "completed")

    def __init__(self, inside, completed):
        self.inside, self.completed = inside, completed


class ProcReader:
    """A rank on this host: its /proc/PID/mem."""

    def __init__(self, pid):
        self.pid, self.ranges = pid, []

    def send(self, ranges):
        self.ranges = ranges

    def receive(self):
        return read_memory(self.pid, self.ranges)


class LifelineReader:
    """A rank read by its launcher (rank.py) over its lifeline, wherever it
    runs: requests go out to every rank first, the answers are read after."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def send(self, ranges):
        self.sock.sendall((json.dumps({"peek": ranges}) + "\n").encode())

    def receive(self):
        self.sock.settimeout(REPLY_TIMEOUT)
        try:
            while b"\n" not in self.buffer:
                data = self.sock.recv(65536)
                if not data:
                    return None
                self.buffer += data
        except OSError:
            return None
        finally:
            self.sock.settimeout(None)
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return from_hex(json.loads(line)["data"])
        except (ValueError, KeyError, TypeError):
            return None


class TreeReader:
    """Ranks whose back-ends run next to them (agent.py) read their memory
    on their hosts: one request down the tree for every rank of a sample
    (fleet.peek), sent when the first answer is wanted."""

    def __init__(self, fleet):
        self.fleet = fleet
        self.asked, self.data = {}, None

    def of(self, rank):
        """The reader of one rank, for sample_all."""
        return _TreeRank(self, rank)

    def send(self, rank, ranges):
        if self.data is not None:          # a new sample
            self.asked, self.data = {}, None
        self.asked[rank] = ranges

    def receive(self, rank):
        if self.data is None:
            self.data = self.fleet.peek(self.asked, REPLY_TIMEOUT)
        return self.data.get(rank)


class _TreeRank:
    def __init__(self, reader, rank):
        self.reader, self.rank = reader, rank

    def send(self, ranges):
        self.reader.send(self.rank, ranges)

    def receive(self):
        return self.reader.receive(self.rank)


def sample_all(watched):
    """{rank: Sample or None} of {rank: (Layout, reader)}, asked of every
    rank at once."""
    for layout, reader in watched.values():
        try:
            reader.send(layout.ranges())
        except (OSError, socket.timeout):
            pass
    out = {}
    for rank, (layout, reader) in watched.items():
        data = reader.receive()
        out[rank] = layout.sample(data) if data is not None and len(data) == 2 else None
    return out


class HangWatch:
    """Per rank: when it last completed an MPI call, and how many samples
    since found it inside MPI."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.ranks = {}       # rank -> [completed, since, samples, inside]

    def update(self, rank, sample, now):
        if sample is None:
            self.ranks.pop(rank, None)      # unreadable: never called waiting
            return
        state = self.ranks.get(rank)
        if state is None or state[0] != sample.completed:
            self.ranks[rank] = [sample.completed, now, 1, int(sample.inside)]
        else:
            state[2] += 1
            state[3] += sample.inside

    def waiting(self, rank, now):
        """Has rank completed no MPI call for the time (in MPI_Init, at
        least INIT_SECONDS), being inside MPI at enough samples since?"""
        state = self.ranks.get(rank)
        if state is None:
            return False
        seconds = self.seconds if state[0] else max(self.seconds, INIT_SECONDS)
        return now - state[1] >= seconds and state[3] >= SPIN_FRACTION * state[2]

    def hung(self, live, now):
        """Does every live rank wait?"""
        return bool(live) and all(self.waiting(r, now) for r in live)
