"""Benchmark (not a test): render 10**6 doubles of vector(250000, 4, 8, MPI_DOUBLE).

Run: /usr/bin/python3 tests/unit/perf_render.py
"""
import os
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gdb-python"))
sys.path.insert(0, HERE)

import dtypes  # noqa: E402
from mpipp.model import render, typemap, where  # noqa: E402


def main():
    vec = dtypes.vector(250000, 4, 8, dtypes.DOUBLE)
    nbytes = vec.extent
    mem = bytearray(struct.pack("<%dd" % (nbytes // 8), *[i * 0.5 for i in range(nbytes // 8)]))
    reads = []

    def read(off, length):
        reads.append(length)
        return bytes(mem[off:off + length])

    t0 = time.process_time()
    tm = typemap.format_typemap(typemap.typemap_runs(vec, 1))
    t1 = time.process_time()
    n = 0
    for _line in render.render_elements(vec, 1, read, limit=None):
        n += 1
    t2 = time.process_time()
    loc = where.locate(vec, 1, 64 * 123456 + 17)
    t3 = time.process_time()
    print("typemap: %s (%.3f s)" % (tm, t1 - t0))
    print("render: %d lines, %d reads, %.3f s CPU" % (n, len(reads), t2 - t1))
    print("locate: %s (%.4f s)" % (loc.path, t3 - t2))
    reads.clear()
    t4 = time.process_time()
    lines = list(render.render_elements(vec, 1, read, limit=200))
    t5 = time.process_time()
    print("limit 200: %d lines, %d reads, %.4f s; last: %s" % (len(lines), len(reads), t5 - t4,
                                                            lines[-1]))
    t6 = time.process_time()
    n = sum(1 for _ in render.render_elements(vec, 1, read, with_offsets=True, base_address=0x1000))
    t7 = time.process_time()
    print("render -offsets: %d lines %.3f s" % (n, t7 - t6))


if __name__ == "__main__":
    main()
