"""mpipp-job on a job it did not start: a 4-rank job deadlocked under the
plain mpiexec of the MPI under test (libmpireg preloaded), reached through
--attach-job MPIEXEC_PID, then through its core files (named so that their
order is not the ranks' order: the ranks come from the cores' memory)."""

import json
import os
import re
import subprocess
import time

import pytest

import gdbrun
from mpipp.job.console.attach_job import mpir_table
from jobrun import (MPIPP_JOB, PROGRAM, batch, environment, leftovers, new_job, wait_files,
                    wait_no_leftovers)


@pytest.fixture(scope="module")
def deadlocked(tmp_path_factory):
    _marker, piddir = new_job(tmp_path_factory.mktemp("job"))
    env = {"LD_PRELOAD": os.path.join(gdbrun.BUILD, "libmpireg.so"), "JOB_PIDDIR": piddir}
    proc = subprocess.Popen(gdbrun.mpiexec(4, env) + [PROGRAM, "deadlock"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        pids = wait_files(piddir, "blocking", 4)
        time.sleep(1)  # every rank inside its blocking call
        yield proc, pids, piddir
    finally:
        gdbrun.stop_job(proc)


@pytest.fixture(scope="module")
def cores(deadlocked):
    """Core files of the 4 ranks, named c0..c3 in the reverse order of the ranks."""
    _proc, pids, piddir = deadlocked
    files = []
    for k, rank in enumerate(sorted(pids, reverse=True)):
        out = subprocess.run(["gcore", "-o", os.path.join(piddir, "core"), str(pids[rank])],
                             capture_output=True, text=True, timeout=120)
        path = os.path.join(piddir, "core.%d" % pids[rank])
        assert os.path.exists(path), out.stdout + out.stderr
        renamed = os.path.join(piddir, "c%d" % k)
        os.rename(path, renamed)
        files.append(renamed)
    return files


def test_attach_job_finds_the_ranks_and_explains_the_deadlock(deadlocked, cores):
    proc, pids, piddir = deadlocked
    marker, _ = new_job(piddir)
    out = batch(["-ex", "ranks", "-ex", "waits", "-ex", "waits -json", "-ex", "calls",
                 "-ex", "quit", "--attach-job", str(proc.pid)], marker, piddir)
    assert "mpipp-job: 4 ranks attached (0-3)" in out
    rows = [l.split() for l in out.splitlines() if l[:1].isdigit() and "pid " in l]
    assert {int(r[0]): int(r[2]) for r in rows} == pids
    assert "cycle 0 → 1 → 0" in out
    assert "deadlock: 4 ranks blocked for good, 1 cycle" in out
    assert ("1 → 0: rank 1 waits for tag 10 from 0; rank 0 sends tag 9 to 1 (MPI_Ssend): no "
            "matching send") in out
    doc = json.loads([l for l in out.splitlines() if l.startswith('{"verdict"')][0])
    assert doc["cycles"] == [[0, 1]] and doc["verdict"] == "deadlock"
    assert [(b["rank"], b["waits_for"]) for b in doc["blocked"]] == [(2, "0,1"), (3, "0,1")]
    wait_no_leftovers(marker)
    # detached, not killed: the job still runs
    assert proc.poll() is None
    for pid in pids.values():
        os.kill(pid, 0)


def test_the_launchers_process_table(deadlocked):
    """Open MPI's mpirun exports MPIR_proctable (the ranks' host, program
    and pid, by rank): read by a gdb that attaches and detaches, mpirun
    running on; MPICH's hydra mpiexec has none (its ranks are found among
    its descendants, as in the test above)."""
    proc, pids, _piddir = deadlocked
    table = mpir_table(proc.pid)
    if gdbrun.MPI == "openmpi":
        assert {rank: pid for rank, (_host, _exe, pid) in enumerate(table)} == pids
        assert all(exe == PROGRAM for _host, exe, _pid in table), table
    else:
        assert table is None
    with open("/proc/%d/status" % proc.pid) as f:
        status = f.read()
    assert "TracerPid:\t0\n" in status and "State:\tT" not in status, status


def test_attach_to_a_list_of_processes(deadlocked, cores):
    """--attach PIDS in any order: each process's rank comes from its
    environment; detach leaves the job running on."""
    proc, pids, piddir = deadlocked
    marker, _ = new_job(piddir)
    listed = ",".join(str(pids[r]) for r in (2, 0, 3))
    out = batch(["-ex", "ranks", "-ex", "calls", "-ex", "detach", "--attach", listed],
                marker, piddir)
    assert "mpipp-job: 3 ranks attached (0,2,3)" in out
    rows = [l.split() for l in out.splitlines() if l[:1].isdigit() and "pid " in l]
    assert {int(r[0]): int(r[2]) for r in rows} == {r: pids[r] for r in (0, 2, 3)}
    assert "2,3    MPI_Barrier" in out
    wait_no_leftovers(marker)
    assert proc.poll() is None


def test_a_job_started_without_libmpireg(tmp_path):
    """One line says which ranks lack libmpireg and how to start the job
    with it; nothing is attached."""
    marker, piddir = new_job(tmp_path)
    proc = subprocess.Popen(gdbrun.mpiexec(4, {"JOB_PIDDIR": piddir}) + [PROGRAM, "deadlock"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        pids = wait_files(piddir, "blocking", 4)
        run = subprocess.run([MPIPP_JOB, "-nx", "-batch", "-ex", "waits", "--attach-job",
                              str(proc.pid)], capture_output=True, text=True, timeout=300,
                             env=environment(marker, piddir), stdin=subprocess.DEVNULL)
        out = run.stdout + run.stderr
        assert run.returncode == 1, out
        assert re.fullmatch(r"mpipp-job: ranks 0-3 \(rank 0: pid %d on \S+\) were not started "
                            r"with libmpireg: start the job with LD_PRELOAD=\S+libmpireg.so .*"
                            % pids[0], out.strip()), out
        assert proc.poll() is None
    finally:
        gdbrun.stop_job(proc)
    wait_no_leftovers(marker)


def test_core_files_ranks_read_from_memory(deadlocked, cores):
    _proc, pids, piddir = deadlocked
    marker, _ = new_job(piddir)
    out = batch(["-ex", "ranks", "-ex", "waits", "-ex", "frame function deadlock",
                 "-ex", "merge groups", "-ex", "print parity", "-ex", "calls", "-ex", "quit",
                 "--core", PROGRAM] + cores, marker, piddir)
    assert "mpipp-job: 4 ranks from core files (0-3)" in out
    rows = {int(l.split()[0]): l.split()[4] for l in out.splitlines()
            if l[:1].isdigit() and "/c" in l}
    assert rows == {rank: os.path.join(piddir, "c%d" % (3 - rank)) for rank in range(4)}
    assert "cycle 0 → 1 → 0" in out
    assert "[0,2]\n$1 = 0\n[1,3]\n$1 = 1\n" in out
    assert "2,3    MPI_Barrier" in out
    assert leftovers(marker) == []
