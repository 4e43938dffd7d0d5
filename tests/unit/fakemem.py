"""Fake inferior memory for the model's renderers (read(offset, length) -> bytes)."""

from mpipp.readers.errors import ReadError


class Mem:
    """Fake inferior memory: bytes at [lo, lo+len), counts the reads."""

    def __init__(self, data, lo=0, bad=()):
        self.data, self.lo, self.bad = bytes(data), lo, list(bad)
        self.reads = []

    def __call__(self, off, length):
        self.reads.append((off, length))
        for b0, b1 in self.bad:
            if off < b1 and b0 < off + length:
                raise ReadError(off, length)
        if off < self.lo or off + length > self.lo + len(self.data):
            raise ReadError(off, length)
        return self.data[off - self.lo:off - self.lo + length]


class Blobs:
    """Fake process memory for the table readers (memory.read(address,
    length) -> bytes): blobs {address: bytes}; records the reads."""

    def __init__(self, blobs):
        self.blobs = blobs
        self.reads = []

    def read(self, address, length):
        self.reads.append((address, length))
        for base, data in self.blobs.items():
            if base <= address and address + length <= base + len(data):
                return data[address - base:address - base + length]
        raise ReadError(address, length)
