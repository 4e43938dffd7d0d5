"""A Fortran job (testprogs/fjob.f90, `use mpi`) under the job console, seen
as a C job is: every call reaches libmpireg through its Fortran entry points
(Open MPI's Fortran binding calls PMPI_ directly, MPICH's the C MPI_
functions), so `calls` shows ranks inside MPI_Allreduce on the communicator
MPI_Comm_split made, `waits` names the deadlock cycle, `check` sees the
collectives, `--until-hang` catches the hang, and `--record` then
`--replay` give the same run."""

import os
import re
import subprocess

import gdbrun
from jobrun import (MPIPP_JOB, Console, batch, check_output, environment, new_job,
                    wait_files, wait_no_leftovers)

FJOB = gdbrun.program("fjob")
MPIPP = os.path.join(gdbrun.REPO, "scripts", "mpipp")
SPLIT = r"comm#1 \[split of MPI_COMM_WORLD \(color 1\), %d ranks\]"


def stopped_inside_mpi(console):
    """Interrupts the job once every rank is in its blocking call (each
    wrote blocking.RANK just before it): returns `calls`."""
    for _ in range(30):
        console.run("interrupt")
        calls = console.run("calls")
        if "not in an MPI call" not in calls:
            return calls
        console.run("continue &")
    raise AssertionError("ranks never seen inside MPI:\n" + calls)


def test_fortran_ranks_in_a_deadlock_cycle(tmp_path):
    marker, piddir = new_job(tmp_path)
    with Console(["--mpi", gdbrun.MPI, "-n", "3", "--", FJOB, "cycle"], marker,
                 piddir) as console:
        console.run("continue &")
        wait_files(piddir, "blocking", 3)
        calls = stopped_inside_mpi(console)
        assert re.search(r"^0\s+MPI_Recv\s+source=1\s+7\s+%s\s+MPI_INTEGER\b" % (SPLIT % 3),
                         calls, re.M), calls
        assert re.search(r"^1,2\s+MPI_Allreduce\s+-\s+-\s+%s\s+MPI_DOUBLE_PRECISION\s+"
                         r"MPI_DOUBLE_PRECISION×4" % (SPLIT % 3), calls, re.M), calls
        waits = console.run("waits")
        assert "deadlock: 3 ranks blocked for good, 1 cycle" in waits, waits
        assert "cycle 0 → 1 → 0" in waits, waits
        assert re.search(r"0 → 1: rank 0 waits for tag 7 from 1 on %s; rank 1 is in "
                         r"MPI_Allreduce on %s: no matching send" % (SPLIT % 3, SPLIT % 3),
                         waits), waits
        assert "check: 1 collective, 0 send/receive pairs: no errors" in console.run("check")
        console.quit()
    wait_no_leftovers(marker)


def test_until_hang_catches_a_fortran_hang(tmp_path):
    """Rank 0 in MPI_Barrier, rank 1 in MPI_Allreduce on one communicator:
    the hang is caught and `check` names the two collectives."""
    marker, piddir = new_job(tmp_path)
    proc = subprocess.run([MPIPP_JOB, "-nx", "--until-hang=3", "--mpi", gdbrun.MPI, "-n", "2",
                           "--", FJOB, "mismatch"], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, env=environment(marker, piddir))
    out = proc.stdout + proc.stderr
    check_output(out)
    assert proc.returncode == 124, out
    assert "until-hang: ranks 0,1 completed no MPI call for 3 s" in out, out
    assert re.search(r"check: 1 collective, 0 send/receive pairs: 1 error\n  different "
                     r"collectives on %s: 0 MPI_Barrier; 1 MPI_Allreduce" % (SPLIT % 2), out), out
    wait_no_leftovers(marker)


def program_lines(out):
    """What fjob printed: rank 0's wildcard receives in the order they
    matched, then every rank's other lines (ranks print concurrently)."""
    lines = [line for line in out.splitlines() if re.match(r"^rank \d+: ", line)]
    received = [line for line in lines if line.startswith("rank 0: message ")]
    return received, sorted(set(lines) - set(received))


def test_record_then_replay_a_fortran_job(tmp_path):
    directory = str(tmp_path / "record")
    runs = []
    for option in ("--record", "--replay"):
        marker, piddir = new_job(tmp_path / option.strip("-"))
        runs.append(batch([option, directory, "--mpi", gdbrun.MPI, "-ex", "continue",
                           "-n", "3", "--", FJOB, "wildcard", "8"], marker, piddir))
        wait_no_leftovers(marker)
    recorded, replayed = (program_lines(out) for out in runs)
    assert len(recorded[0]) == 32 and len(recorded[1]) == 3, runs[0]
    assert recorded == replayed, runs
    assert "unreplayed" not in runs[1] and "diverged" not in runs[1], runs[1]
    summary = subprocess.run([MPIPP, "record", directory], capture_output=True, text=True,
                             timeout=120, check=True).stdout
    assert summary.count("closed at MPI_Finalize") == 3, summary
    assert re.search(r"rank 0: \d+ steps .*MPI_Recv 32", summary), summary


def test_a_fortran_call_record_cannot_see_is_told(tmp_path):
    """MPI_Isend/MPI_Irecv/MPI_Wait from Fortran: MPICH's binding calls the
    C functions, which record them; Open MPI's calls PMPI_ directly and
    libmpireg has no recipe for them from Fortran: each rank says so in one
    line and its record says where it ends (never a silent gap)."""
    directory = str(tmp_path / "record")
    marker, piddir = new_job(tmp_path)
    out = batch(["--record", directory, "--mpi", gdbrun.MPI, "-ex", "continue", "-n", "3", "--",
                 FJOB, "nonblocking"], marker, piddir)
    wait_no_leftovers(marker)
    summary = subprocess.run([MPIPP, "record", directory], capture_output=True, text=True,
                             timeout=120, check=True).stdout
    assert len(program_lines(out)[0]) == 2, out
    if gdbrun.MPI == "openmpi":
        for rank, call in ((0, "MPI_Irecv"), (1, "MPI_Isend"), (2, "MPI_Isend")):
            assert out.count("mpipp record: rank %d: %s, called from Fortran, is not seen by "
                             "libmpireg (MPI's Fortran binding calls PMPI_ directly); recording "
                             "stops at step 1\n" % (rank, call)) == 1, out
        assert summary.count("ended after step 1, at a Fortran call libmpireg does not "
                             "see") == 3, summary
        # such a record replays up to where it ends, then each rank says so
        marker, piddir = new_job(tmp_path)
        out = batch(["--replay", directory, "--mpi", gdbrun.MPI, "-ex", "continue", "-n", "3",
                     "--", FJOB, "nonblocking"], marker, piddir)
        wait_no_leftovers(marker)
        assert "header is damaged" not in out, out
        for rank, call in ((0, "MPI_Irecv"), (1, "MPI_Isend"), (2, "MPI_Isend")):
            assert out.count("mpipp replay: rank %d: %s, called from Fortran at step 2, is not "
                             "seen by libmpireg (MPI's Fortran binding calls PMPI_ directly); "
                             "the rank goes on unreplayed\n" % (rank, call)) == 1, out
    else:
        assert "not seen by libmpireg" not in out, out
        assert summary.count("closed at MPI_Finalize") == 3, summary
        assert "receive request 2" in summary, summary
