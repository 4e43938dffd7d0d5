"""mpipp-job --until-hang on real jobs (testprogs/hang, 2 ranks): a job
that hangs after 3 s -- one rank polling MPI_Test in a loop, the other in
MPI_Recv -- is reported within the chosen time plus 2 s, with `waits` and
`check`, and exit status 124; a job that runs 20 s without hanging (one
rank computing between collectives, then polling MPI_Test while the other
computes) is never reported and exits with its own status; a rank that
dies of a signal ends the watch, and mpipp-job exits as the signal would
have ended it."""

import os
import subprocess
import time

import gdbrun
from jobrun import MPIPP_JOB, check_output, environment, new_job, wait_no_leftovers

HANG = gdbrun.program("hang")
SECONDS = 3


def run(tmp_path, args):
    """(output lines with the time each was read, exit status, piddir)."""
    marker, piddir = new_job(tmp_path)
    proc = subprocess.Popen([MPIPP_JOB, "-nx", "--until-hang=%d" % SECONDS, "-n", "2", HANG] +
                            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=environment(marker, piddir), text=True)
    lines = [(time.time(), line.rstrip("\n")) for line in proc.stdout]
    status = proc.wait(timeout=300)
    check_output("\n".join(line for _t, line in lines))
    wait_no_leftovers(marker)
    return lines, status, piddir


def test_a_hang_is_reported_in_time(tmp_path):
    lines, status, piddir = run(tmp_path, ["hang", "3"])
    text = [line for _t, line in lines]
    assert status == 124, "\n".join(text)
    hung = max(os.path.getmtime(os.path.join(piddir, "blocking.%d" % r)) for r in (0, 1))
    reported = next(t for t, line in lines if line.startswith("until-hang: ranks 0,1 completed "
                                                              "no MPI call for 3 s"))
    assert reported - hung <= SECONDS + 2, (reported - hung, text)
    assert "would deadlock if every rank continued: 2 ranks, 1 cycle" in text
    assert "  (rank 0 is polling)" in text
    assert any(line.startswith("  1 → 0: rank 1 waits for tag 2 from 0; rank 0 waits for tag 2 "
                               "from 1 (MPI_Irecv) (MPI_Test)") for line in text), text
    assert "check: 0 collectives, 0 send/receive pairs: no errors" in text


def test_a_busy_job_is_never_reported_and_exits_with_its_status(tmp_path):
    lines, status, _piddir = run(tmp_path, ["busy", "20"])
    text = [line for _t, line in lines]
    assert status == 3, "\n".join(text)
    assert not any("completed no MPI call" in line for line in text), text
    assert "until-hang: the job ended (status 3)" in text


def test_a_rank_stopped_by_a_signal_ends_the_watch(tmp_path):
    lines, status, _piddir = run(tmp_path, ["crash", "1"])
    text = [line for _t, line in lines]
    assert status == 128 + 11, "\n".join(text)
    assert any("received signal SIGSEGV" in line for line in text), text
    assert "until-hang: [1] stopped: watch again with until-hang" in text
    assert not any("completed no MPI call" in line for line in text), text
