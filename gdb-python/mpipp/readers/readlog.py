"""The reads a stop's views made, and whether they would read the same again
(gdb-free).

What mpipp builds from libmpireg's tables is a function of the bytes its
readers read: if every read made at one stop gives the same bytes at a later
stop (the same failures too), the readers would take the same paths, read
the same places and build the same answer.  So an answer can be kept across
stops with the reads it was built from (memory.kept_across_stops), and a
later stop checks them again instead of building anew: the ranges are read
again, those close together at once, and compared.
"""

from .errors import ReadError

# The most reads, and bytes, a stop's log holds: past them nothing is kept
# across stops (checking would cost as much as building).
MAX_READS = 512
MAX_BYTES = 1 << 20
# Ranges this close are checked with one read (what lies between is read
# too): libmpireg's roots, tables and first records lie within a few pages.
MERGE_GAP = 4096
MAX_MERGED = 64 << 10


class ReadLog:
    """The reads made through LoggedMemory objects: (address, length, the
    bytes, or None when the read failed), in order."""

    def __init__(self):
        self.reads = []
        self.size = 0
        self.overflowed = False

    def note(self, address, length, data):
        if self.overflowed:
            return
        self.size += length
        if len(self.reads) >= MAX_READS or self.size > MAX_BYTES:
            self.overflowed = True
            self.reads = []
            return
        self.reads.append((address, length, data))

    def snapshot(self):
        """Reads of the reads so far, or None when there were too many to keep."""
        return None if self.overflowed else Reads(self.reads)


class LoggedMemory:
    """A memory (read(address, length) -> bytes, raising ReadError) whose
    reads, and their results, are noted in a ReadLog."""

    def __init__(self, memory, log):
        self.memory = memory
        self.log = log
        self.cache_key = getattr(memory, "cache_key", None)

    def read(self, address, length):
        try:
            data = self.memory.read(address, length)
        except ReadError:
            self.log.note(address, length, None)
            raise
        self.log.note(address, length, data)
        return data


class Reads:
    """Reads noted in a ReadLog, ready to be checked again: the failed ones
    one by one; the others as runs of the bytes they read (overlapping or
    adjacent ranges joined), grouped into spans of runs at most MERGE_GAP
    apart, each span read at once (at most MAX_MERGED bytes; a longer run
    is a span alone)."""

    def __init__(self, reads):
        self.failed = sorted(set((address, length) for address, length, data in reads
                                 if data is None))
        self.spans = []
        for address, data in _runs(reads):
            end = address + len(data)
            if self.spans and address - self.spans[-1][1] <= MERGE_GAP and \
                    end - self.spans[-1][0] <= MAX_MERGED:
                start, _end, members = self.spans[-1]
                self.spans[-1] = (start, end, members + [(address, data)])
            else:
                self.spans.append((address, end, [(address, data)]))

    def unchanged(self, memory):
        """Whether each read gives the same result when made again through
        memory."""
        for address, length in self.failed:
            if not _fails(memory, address, length):
                return False
        for start, end, members in self.spans:
            try:
                raw = memory.read(start, end - start)
            except ReadError:       # something between the ranges is unreadable
                if not all(_same(memory, *run) for run in members):
                    return False
                continue
            for address, data in members:
                if raw[address - start:address - start + len(data)] != data:
                    return False
        return True


def _runs(reads):
    """[(address, bytes)] of the successful reads, in address order, those
    that overlap or touch joined (made at one stop, they agree)."""
    runs = []
    for address, length, data in sorted(r for r in reads if r[2] is not None):
        if runs and address <= runs[-1][0] + len(runs[-1][1]):
            start, joined = runs[-1]
            end = start + len(joined)
            if address + length > end:
                runs[-1] = (start, joined + data[end - address:])
        else:
            runs.append((address, data))
    return runs


def _fails(memory, address, length):
    try:
        memory.read(address, length)
    except ReadError:
        return True
    return False


def _same(memory, address, data):
    try:
        return memory.read(address, len(data)) == data
    except ReadError:
        return False
