"""The job console's `rma`: a one-sided operation's target region, read from
the target rank's memory and decoded through the target datatype (testprogs/rma.c:
each rank puts a row into the other rank's grid)."""

import json

import gdbrun
from jobrun import batch, new_job, wait_no_leftovers


def test_rma_reads_the_target_on_the_target_rank(tmp_path):
    marker, piddir = new_job(tmp_path)
    out = batch(["-ex", "break PMPI_Put", "-ex", "continue", "-ex", "rma", "-ex", "rma -json",
                 "-ex", "calls", "-ex", "quit", "-n", "2", gdbrun.program("rma")],
                marker, piddir)
    for origin in (0, 1):
        target = 1 - origin
        # row 1 of the target's grid: g(i, j) = 100 r + 10 i + j
        head = ("rank %d: MPI_Put, target rank %d of grid_win, disp 6: MPI_DOUBLE × 6 at 0x"
                % (origin, target))
        assert head in out, out
        block = out.split(head, 1)[1].splitlines()[1:7]
        assert block == ["  [%d] = %d" % (j, 100 * target + 10 + j) for j in range(6)], out
    doc = json.loads([l for l in out.splitlines() if l.startswith('{"rma"')][0])
    assert [(e["origin"], e["target"], e["error"]) for e in doc["rma"]] == [(0, 1, None),
                                                                          (1, 0, None)]
    # the calls table names the window's communicator as every rank does
    assert "comm#1 [dup of MPI_COMM_WORLD, 2 ranks]" in out
    wait_no_leftovers(marker)
