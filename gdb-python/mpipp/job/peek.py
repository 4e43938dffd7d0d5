"""Reading a running process's memory without stopping it, for the
--until-hang watcher (progress.py): /proc/PID/mem, by the rank's launcher
(rank.py, on the rank's host: an ancestor of the process, so ptrace
permission holds) or, for ranks mpipp-job attached to on its own host, by
the console.

The launcher answers requests on its lifeline to the console, one JSON
line each way:

    {"peek": [[address, length], ...]}   ->   {"data": ["hex" or null, ...]}

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


def answer(line, pid):
    """The reply line to one request line about process pid."""
    try:
        request = json.loads(line)
        ranges = [(int(a), int(n)) for a, n in request["peek"]][:MAX_RANGES]
    except (ValueError, KeyError, TypeError):
        return b'{"error": "bad request"}\n'
    data = read_memory(pid, ranges) if pid else [None] * len(ranges)
    return (json.dumps({"data": [d.hex() if d is not None else None for d in data]}) +
            "\n").encode()
