"""Two ranks deadlocked in MPI_Recv: attach gdb to each, `mpipp calls` shows
the receive with its (still unfilled) buffer decoded through halo_t."""

import json
import os
import subprocess
import tempfile
import time

import pytest

import gdbrun


@pytest.fixture(scope="module")
def job():
    tmp = tempfile.mkdtemp(prefix="mpipp-ctx-")
    rank_env = {"CTX_PIDDIR": tmp, "LD_PRELOAD": os.path.join(gdbrun.BUILD, "libmpireg.so")}
    proc = subprocess.Popen(gdbrun.mpiexec(2, rank_env) + [gdbrun.program("ctx_deadlock")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        pids = []
        deadline = time.monotonic() + 60
        for rank in range(2):
            path = os.path.join(tmp, "pid.%d" % rank)
            while not (os.path.exists(path) and open(path).read().endswith("\n")):
                assert time.monotonic() < deadline, "ranks never started"
                assert proc.poll() is None, "mpiexec exited early"
                time.sleep(0.1)
            pids.append(int(open(path).read()))
        time.sleep(0.5)  # let both ranks enter MPI_Recv
        yield pids
    finally:
        gdbrun.stop_job(proc)
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)


def attach(pid, *commands):
    args = ["-p", str(pid)]
    for c in commands:
        args += ["-ex", c]
    return gdbrun.run(args, timeout=120)


def test_both_ranks_shown_inside_recv_with_decoded_buffer(job):
    for rank, pid in enumerate(job):
        proc = attach(pid, "mpipp calls", "mpipp calls -json")
        out = proc.stdout
        line = [l for l in out.splitlines() if "MPI_Recv(" in l]
        assert line, out + proc.stderr
        assert line[0].startswith("thread 1 ")
        assert "datatype=halo_t" in line[0]
        assert "count=1" in line[0]
        assert "source=%d" % (1 - rank) in line[0]
        assert "tag=7" in line[0] and "comm=MPI_COMM_WORLD" in line[0]
        assert "at testprogs/ctx_deadlock.c:" in out
        assert "buf = halo_t × 1 at 0x" in out
        # vector(3, 2, 4) of doubles still holding -1 - k: elements 0,1,4,5,8,9
        for path, value in (("[0][0][0]", "-1"), ("[0][0][1]", "-2"), ("[0][1][0]", "-5"),
                            ("[0][2][1]", "-10")):
            assert "%s = %s" % (path, value) in out
        doc = json.loads([l for l in out.splitlines() if l.startswith("{")][0])
        t = [t for t in doc["threads"] if t["in_mpi"]]
        assert len(t) == 1 and t[0]["call"]["function"] == "MPI_Recv"
        piece = t[0]["call"]["buffers"][0]["pieces"][0]
        assert [e["value"] for e in piece["elements"]] == [-1, -2, -5, -6, -9, -10]


def test_requests_on_the_attached_rank_and_no_traceback(job):
    proc = attach(job[0], "mpipp requests", "mpipp requests -json", "print MPI_COMM_WORLD")
    assert "no pending requests" in proc.stdout
    assert '"requests": []' in proc.stdout
