"""mpipp-job --until-hang on real jobs (testprogs/hang, 2 ranks): a job
that hangs after 3 s -- one rank polling MPI_Test in a loop, the other in
MPI_Recv -- is reported within the chosen time plus 2 s, with `waits` and
`check`, and exit status 124; a job that runs 20 s without hanging (one
rank computing between collectives, then polling MPI_Test while the other
computes) is never reported and exits with its own status; a rank that
dies of a signal ends the watch, and mpipp-job exits as the signal would
have ended it.  test_multihost.py runs the first two across hosts.

One verdict (testprogs/verdict): jobs that hang for good where `waits`
once saw every rank able to progress -- ranks in one collective that
disagree on it, nonblocking collectives of different kinds waited on, a
peer or member inside MPI_Finalize, a rank stuck in MPI_Init -- are
reported once, with the reason (or what waits cannot explain), and exit
124; each one's correct twin ends with status 0 and no report."""

import os
import subprocess
import time

import gdbrun
import pytest
from jobrun import LOCAL, MPIPP_JOB, batch, check_output, environment, new_job, wait_no_leftovers

HANG = gdbrun.program("hang")
VERDICT = gdbrun.program("verdict")
SECONDS = 3


def run(tmp_path, args, launch=LOCAL, program=HANG):
    """(output lines with the time each was read, exit status, piddir)."""
    marker, piddir = new_job(tmp_path)
    proc = subprocess.Popen(launch.prefix + [MPIPP_JOB, "-nx", "--until-hang=%d" % SECONDS] +
                            launch.options + ["-n", "2"] + launch.mpiexec + ["--", program] +
                            args,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=environment(marker, piddir, launch.env),
                            text=True)
    lines = [(time.time(), line.rstrip("\n")) for line in proc.stdout]
    status = proc.wait(timeout=300)
    check_output("\n".join(line for _t, line in lines))
    wait_no_leftovers(marker)
    return lines, status, piddir


def hang_reported(tmp_path, launch=LOCAL):
    """The hang is reported within SECONDS + 2 s, with waits and check, and
    mpipp-job exits with 124; returns the output lines."""
    lines, status, piddir = run(tmp_path, ["hang", "3"], launch)
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
    return text


def busy_job_ended(tmp_path, seconds, launch=LOCAL):
    """A job that does not hang is never reported, and mpipp-job exits with
    its status; returns the output lines."""
    lines, status, _piddir = run(tmp_path, ["busy", str(seconds)], launch)
    text = [line for _t, line in lines]
    assert status == 3, "\n".join(text)
    assert not any("completed no MPI call" in line for line in text), text
    assert "until-hang: the job ended (status 3)" in text
    return text


def test_a_hang_is_reported_in_time(tmp_path):
    hang_reported(tmp_path)


def test_a_busy_job_is_never_reported_and_exits_with_its_status(tmp_path):
    busy_job_ended(tmp_path, 20)


def test_a_rank_stopped_by_a_signal_ends_the_watch(tmp_path):
    lines, status, _piddir = run(tmp_path, ["crash", "1"])
    text = [line for _t, line in lines]
    assert status == 128 + 11, "\n".join(text)
    assert any("received signal SIGSEGV" in line for line in text), text
    assert "until-hang: [1] stopped: watch again with until-hang" in text
    assert not any("completed no MPI call" in line for line in text), text


# -- one verdict --------------------------------------------------------------

FOR_GOOD = "deadlock: 2 ranks blocked for good, 1 cycle"
EXPLAINED = "until-hang: the job hangs: ranks 0,1 are blocked for good (waits above)"
NEVER_AGAIN = "MPI_Finalize on MPI_COMM_WORLD: it will never call MPI again"
# case -> lines the report of its hang must have (a line may be given by its
# start and end: (head, tail))
VERDICTS = {
    "reduce_root": [FOR_GOOD, EXPLAINED,
                    ("  0 → 1: rank 0 is in MPI_Reduce on MPI_COMM_WORLD; rank 1 is in MPI_Reduce",
                     ": ranks disagree on the root: 0 root 0; 1 root 1"),
                    "  MPI_Reduce on MPI_COMM_WORLD: ranks disagree on the root: 0 root 0; "
                    "1 root 1"],
    "ibarrier_scatter": [FOR_GOOD, EXPLAINED,
                         ("  0 → 1: rank 0 is in MPI_Ibarrier on MPI_COMM_WORLD; rank 1 is in "
                          "MPI_Scatter", "different collectives at that point: 0 MPI_Ibarrier; "
                          "1 MPI_Scatter"),
                         "  different collectives on MPI_COMM_WORLD: 0 MPI_Ibarrier; "
                         "1 MPI_Scatter"],
    "iallreduce_ibcast": [FOR_GOOD, EXPLAINED,
                          ("  0 → 1: rank 0 is in MPI_Iallreduce on MPI_COMM_WORLD; rank 1 is in "
                           "MPI_Ibcast on MPI_COMM_WORLD (MPI_Wait)", "different collectives at "
                           "that point: 0 MPI_Iallreduce; 1 MPI_Ibcast"),
                          "  different collectives on MPI_COMM_WORLD: 0 MPI_Iallreduce; "
                          "1 MPI_Ibcast"],
    "finalize_peer": [FOR_GOOD, EXPLAINED,
                      "  0 → 1: rank 0 waits for tag 3 from 1; rank 1 is in " + NEVER_AGAIN],
    # both MPIs keep rank 1 in MPI_Finalize while rank 0 waits
    "gone_member": [FOR_GOOD, EXPLAINED,
                    "  0 → 1: rank 0 is in MPI_Allreduce on MPI_COMM_WORLD; rank 1 is in " +
                    NEVER_AGAIN],
    "init_stuck": ["no deadlock yet: every rank can progress (ranks 0)",
                   "not modelled: rank 0 is in MPI_Init (taken as able to complete)",
                   "[1] exited normally",
                   "until-hang: possible hang: waits cannot prove a deadlock (a long call may "
                   "still complete)",
                   "  not explained: rank 0, which waits takes as able to progress (calls waits "
                   "does not model: rank 0 is in MPI_Init)"],
}


def has_line(text, expected):
    if isinstance(expected, tuple):
        return any(line.startswith(expected[0]) and line.endswith(expected[1]) for line in text)
    return expected in text


@pytest.mark.parametrize("case", sorted(VERDICTS))
def test_a_hang_is_explained_once_and_its_twin_is_not_reported(tmp_path, case):
    lines, status, _piddir = run(tmp_path, [case], program=VERDICT)
    text = [line for _t, line in lines]
    assert status == 124, "\n".join(text)
    missing = [e for e in VERDICTS[case] if not has_line(text, e)]
    assert not missing, (missing, text)
    assert sum("completed no MPI call for" in line for line in text) == 1, text
    assert sum(line.startswith(("until-hang: the job hangs", "until-hang: possible hang"))
               for line in text) == 1, text
    lines, status, _piddir = run(tmp_path, [case, "twin"], program=VERDICT)
    text = [line for _t, line in lines]
    assert status == 0, "\n".join(text)
    assert "until-hang: the job ended (status 0)" in text
    assert not any("completed no MPI call" in line or "error" in line for line in text), text


def test_after_the_job_ended_waits_says_so(tmp_path):
    marker, piddir = new_job(tmp_path)
    out = batch(["-ex", "continue", "-ex", "waits", "-n", "2", "--", VERDICT, "reduce_root",
                 "twin"], marker, piddir)
    assert "no deadlock: the job has ended (every rank exited)" in out.splitlines(), out
    wait_no_leftovers(marker)
