"""`make demo` (scripts/demo) on the MPI under test: every act runs and
shows what it is there to show."""

import os
import subprocess

import gdbrun

DEMO = os.path.join(gdbrun.REPO, "scripts", "demo")


def test_demo_runs_every_act():
    env = dict(os.environ, MPIPP_MPI=gdbrun.MPI, MPIPP_BUILD=gdbrun.BUILD,
               MPIPP_MPIEXEC=gdbrun.MPIEXEC)
    proc = subprocess.run([DEMO], capture_output=True, text=True, env=env, timeout=600,
                          stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    for bad in ("Traceback", "Python Exception", "mpipp: internal error"):
        assert bad not in out, out
    expected = [
        # one process: print, decode, layout
        'vector(count=4, blocklength=1, stride=6) of MPI_DOUBLE "column_t"',
        "[0][0][1][1] = 0.25",
        "^ ub (+40)",
        # the job console: merged values, the deadlock, the signature checks
        "$1 = <[0,2]: 0 | [1,3]: 1>",
        "cycle 0 → 1 → 0",
        "rank 0 sends tag 9 to 1 (MPI_Ssend); rank 1 waits for tag 10 from 0: no matching receive",
        "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT",
        "rank 2 has 3 elements, rank 0 4",
        # MPI-IO: views by rank, the collective write in calls
        "rows 4..7: columns 2..3, 6..7, 10..11",
        "0-3    MPI_File_write_all",
    ]
    missing = [text for text in expected if text not in out]
    assert not missing, (missing, out[-4000:])
