"""mpipp-job on a program full of legal extreme datatypes
(testprogs/extremes): each rank's gdb, driven over MI, prints locals that
hold types of 10**6 and 9,000 blocks and describes them, and every rank's
gdb is still there afterwards (a value over max-value-size used to kill it)."""

import re

import gdbrun
from jobrun import batch, new_job, wait_no_leftovers


# MPI-4 large counts whose values overflow inside MPI (MPICH: Open MPI 4.1
# has no _c constructors, testprogs/extremes.c builds them only where MPI
# has them): each rank prints them and their true extents
LARGE_COUNTS = ["-ex", "print $mpipp_type(\"hvec_c_2_64\")", "-ex", "mpipp info hvec_c_wrap"] \
    if gdbrun.MPI == "mpich" else []


def test_ranks_show_extreme_types_and_live_on(tmp_path):
    marker, piddir = new_job(tmp_path)
    out = batch(["-ex", "break stop_here", "-ex", "continue", "-ex", "up", "-ex", "info locals",
                 "-ex", "print extremes[5].type", "-ex", "mpipp info extremes[0].type"]
                + LARGE_COUNTS + ["-ex", "calls", "-ex", "ranks", "-ex", "quit",
                                  "-n", "2", gdbrun.program("extremes")], marker, piddir)
    assert "mpipp-job: 2 ranks started" in out
    assert "local_many = hindexed(count=9000) of MPI_DOUBLE" in out
    assert re.search(r'\$1 = struct\(count=9000\) of \{MPI_INT, MPI_DOUBLE\} "struct_many"', out)
    assert 'indexed(count=1000000) of MPI_INT "idx_big"' in out
    if LARGE_COUNTS:
        assert "true_extent = 110680464442257309728" in out, out
        assert "MPI's size wrapped to 0" in out, out
    assert "Python Exception" not in out, out
    assert not re.search(r"died|exited|internal error|corrupted", out), out
    wait_no_leftovers(marker)
