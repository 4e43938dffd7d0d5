"""Reading a running process's memory without stopping it, for the
--until-hang watcher (progress.py): /proc/PID/mem, on the rank's host by
its launcher (rank.py) or, with the debuggers next to the ranks, by its
back-end (agent.py) -- each an ancestor of the process, so ptrace
permission holds -- or, for ranks mpipp-job attached to on its own host,
by the console.

The launcher answers requests on its lifeline to the console, one JSON
line each way:

    {"peek": [[address, length], ...]}   ->   {"data": ["hex" or null, ...]}

(back-ends carry the same lists in the tree's messages: wire.py).

Standalone on purpose, like rank.py: it runs on compute hosts.
"""

import json
import os

MAX_LENGTH = 1 << 20     # bytes per range
MAX_RANGES = 64


def read_memory(pid, ranges):
    """[bytes or None] of each (address, length) of process pid's memory
    (None: that range could not be read)."""
    out = []
    try:
        fd = os.open("/proc/%d/mem" % pid, os.O_RDONLY)
    except OSError:
        return [None] * len(ranges)
    try:
        for address, length in ranges:
            try:
                data = os.pread(fd, length, address) if 0 <= length <= MAX_LENGTH else None
            except (OSError, OverflowError, ValueError):
                data = None
            out.append(data if data is not None and len(data) == length else None)
    finally:
        os.close(fd)
    return out


def ranges_of(raw):
    """[(address, length)] of a request's [[address, length], ...] (ValueError
    or TypeError: not that)."""
    return [(int(a), int(n)) for a, n in raw][:MAX_RANGES]


def read_hex(pid, ranges):
    """read_memory for the wire: [hex or None] (pid None: the process is
    gone); wire.from_hex reads it back (this module runs alone on compute
    hosts: it imports nothing of mpipp)."""
    data = read_memory(pid, ranges) if pid else [None] * len(ranges)
    return [d.hex() if d is not None else None for d in data]


def answer(line, pid):
    """The reply line to one request line about process pid."""
    try:
        ranges = ranges_of(json.loads(line)["peek"])
    except (ValueError, KeyError, TypeError):
        return b'{"error": "bad request"}\n'
    return (json.dumps({"data": read_hex(pid, ranges)}) + "\n").encode()
