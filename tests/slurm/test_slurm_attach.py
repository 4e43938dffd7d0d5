"""mpipp-job --attach-job on a Slurm job it did not start, from outside the
job (this machine is the login node): a 4-rank job on 3 nodes deadlocked
under a plain `srun --mpi=PMI` with libmpireg preloaded, reached by its job
id (the layout from Slurm, one back-end per node started by srun inside the
job's allocation) or by the pid of its srun (the ranks from srun's
MPIR_proctable); some ranks only (--ranks); left with `detach` and found
again; a job started without libmpireg refused in one line; a node's ranks
killed under the console."""

import os
import re
import subprocess
import time
import uuid

import pytest

import gdbrun
from jobrun import MARK, MPIPP_JOB, PROGRAM, Console, Launch, check_output, new_job, wait_files

# The PMI each MPI's programs need from srun (Debian's builds).
PMI = {"mpich": "pmi2", "openmpi": "pmix"}
OPEN_MPI_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
PLACES = {0: 0, 1: 0, 2: 1, 3: 2}     # rank -> node (srun -N3 -n4: block distribution)


class HungJob:
    """A job deadlocked under srun, started in the background: its srun,
    Slurm job id, where its ranks write their pids."""

    def __init__(self, cluster, tmp_path, preload=True):
        self.cluster = cluster
        self.name = "hung-" + uuid.uuid4().hex[:8]
        _marker, self.piddir = new_job(tmp_path)
        env = dict(OPEN_MPI_AS_ROOT, JOB_PIDDIR=self.piddir)
        if preload:
            env["LD_PRELOAD"] = os.path.join(gdbrun.BUILD, "libmpireg.so")
        self.srun = subprocess.Popen(
            ["srun", "--mpi=" + PMI[gdbrun.MPI], "-N3", "-n4", "-J", self.name, PROGRAM,
             "deadlock"], env=cluster.env(env), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            self.pids = wait_files(self.piddir, "blocking", 4)
            self.job = cluster.run(["squeue", "-h", "-n", self.name, "-o", "%i"]).stdout.strip()
            assert self.job.isdigit(), self.job
        except BaseException:
            self.end()
            raise

    def state(self):
        """The state of the job's step (RUNNING while it hangs)."""
        out = self.cluster.run(["scontrol", "show", "step", "-o", self.job + ".0"]).stdout
        state = re.search(r"\bState=(\S+)", out)
        return state.group(1) if state else out

    def steps(self):
        """The names of the job's steps running now."""
        out = self.cluster.run(["squeue", "-h", "-s", "-j", self.job, "-o", "%j"]).stdout
        return out.split()

    def wait_no_backends(self, timeout=60):
        """Until the console's back-ends' step (mpipp-backends) has ended."""
        deadline = time.monotonic() + timeout
        while "mpipp-backends" in self.steps():
            assert time.monotonic() < deadline, self.steps()
            time.sleep(0.2)

    def end(self):
        self.cluster.run(["scancel", self.job]) if getattr(self, "job", "").isdigit() else None
        self.srun.kill()
        self.srun.wait()


@pytest.fixture(scope="module")
def hung(cluster, tmp_path_factory):
    job = HungJob(cluster, tmp_path_factory.mktemp("hung"))
    yield job
    job.end()


def console(cluster, args, tmp_path, timeout=300):
    """A -batch console against the cluster: (exit status, output)."""
    marker = uuid.uuid4().hex
    env = cluster.env({MARK: marker, **OPEN_MPI_AS_ROOT})
    proc = subprocess.run([MPIPP_JOB, "-nx", "-batch"] + list(args), capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    check_output(out)
    return proc.returncode, out


def rank_rows(out):
    """{rank: (node, pid, gdb pid)} of the `ranks` table."""
    rows = [line.split() for line in out.splitlines() if re.match(r"\d+\s+\S+\s+\d+\s+\d+", line)]
    return {int(r[0]): (r[1], int(r[2]), int(r[3])) for r in rows}


def on_node(cluster, node, *argv):
    """What argv prints on node (in its namespaces)."""
    return subprocess.run([os.path.join(cluster.directory, "node"), node] + list(argv),
                          capture_output=True, text=True, timeout=60).stdout


def untouched(cluster, node, pid):
    """Whether process pid on node runs on, traced by nobody (nothing of
    mpipp-job left attached)."""
    status = on_node(cluster, node, "cat", "/proc/%d/status" % pid)
    return "TracerPid:\t0\n" in status and not re.search(r"State:\s+[TtZ]", status)


def test_attach_from_outside_detach_and_attach_again(hung, cluster, tmp_path):
    """By job id: every rank reached on its node, the cycle named; detach
    leaves every rank running untraced, the job still hung; the step named
    by JOBID.STEP is found again, still deadlocked, and left again while
    its ranks run (continued from the console)."""
    status, out = console(cluster, ["-ex", "ranks", "-ex", "waits", "-ex", "detach",
                                    "--attach-job", hung.job], tmp_path)
    assert status == 0, out
    assert "mpipp-job: 4 ranks attached (0-3)" in out, out
    assert "gdbs next to the ranks on 3 hosts" in out, out
    rows = rank_rows(out)
    assert {r: node for r, (node, _p, _g) in rows.items()} == \
        {r: cluster.nodes[k] for r, k in PLACES.items()}, out
    assert "deadlock: 4 ranks blocked for good, 1 cycle" in out, out
    assert "cycle 0 → 1 → 0" in out, out
    assert hung.state() == "RUNNING", out
    hung.wait_no_backends()
    for _rank, (node, pid, gdb) in rows.items():
        assert untouched(cluster, node, pid), (node, pid)
        assert on_node(cluster, node, "cat", "/proc/%d/comm" % gdb) != "gdb\n"
    status, again = console(cluster, ["-ex", "ranks", "-ex", "waits", "-ex", "continue &",
                                      "-ex", "detach", "--attach-job", hung.job + ".0"], tmp_path)
    assert status == 0, again
    assert {r: pid for r, (_n, pid, _g) in rank_rows(again).items()} == \
        {r: pid for r, (_n, pid, _g) in rows.items()}, again
    assert "cycle 0 → 1 → 0" in again, again
    assert hung.state() == "RUNNING", again
    hung.wait_no_backends()
    # detached while running: they run on, untraced
    for _rank, (node, pid, _gdb) in rows.items():
        assert untouched(cluster, node, pid), (node, pid)


def test_some_ranks_through_the_pid_of_srun(hung, cluster, tmp_path):
    """--attach-job SRUN_PID reads srun's MPIR_proctable (srun runs on);
    --ranks 1,3 attaches those two, on their nodes; the others are not
    touched, and all run on after quit."""
    status, out = console(cluster, ["-ex", "ranks", "-ex", "calls", "-ex", "quit",
                                    "--ranks", "1,3", "--attach-job", str(hung.srun.pid)],
                          tmp_path)
    assert status == 0, out
    assert "mpipp-job: 2 ranks attached (1,3); focus [1,3]" in out, out
    assert "mpipp-job: only ranks 1,3 attached (--ranks): waits and check judge what they do, " \
        "not what the other ranks do" in out, out
    rows = rank_rows(out)
    assert {r: node for r, (node, _p, _g) in rows.items()} == \
        {1: cluster.nodes[0], 3: cluster.nodes[2]}, out
    assert re.search(r"^1\s+MPI_Recv", out, re.M) and re.search(r"^3\s+MPI_Barrier", out, re.M), out
    assert hung.srun.poll() is None
    assert hung.state() == "RUNNING", out
    for _rank, (node, pid, _gdb) in rows.items():
        assert untouched(cluster, node, pid), (node, pid)


def test_ranks_not_in_the_job(hung, cluster, tmp_path):
    status, out = console(cluster, ["--ranks", "2,9", "--attach-job", hung.job], tmp_path)
    assert status == 1 and "--ranks 2,9:" in out and "the job's ranks: 0-3" in out, out


def test_a_job_started_without_libmpireg(cluster, tmp_path):
    """One line says which ranks lack libmpireg and how to start them with
    it; nothing was attached, the job runs on."""
    bare = HungJob(cluster, tmp_path, preload=False)
    try:
        status, out = console(cluster, ["-ex", "waits", "--attach-job", bare.job], tmp_path)
        assert status == 1, out
        lines = [line for line in out.splitlines() if line.startswith("mpipp-job:")]
        assert len(lines) == 1, out
        assert re.match(r"mpipp-job: ranks 0-3 \(rank 0: pid \d+ on %s\) were not started with "
                        r"libmpireg: start the job with LD_PRELOAD=\S+/libmpireg.so " % cluster.nodes[0],
                        lines[0]), out
        assert bare.state() == "RUNNING", out
        for rank, pid in bare.pids.items():
            assert untouched(cluster, cluster.nodes[PLACES[rank]], pid)
    finally:
        bare.end()


def kill_node(cluster, node, *marks):
    """Every process on node of one job and one console (their environment
    holds one of marks) killed: the job's rank there, its back-end and gdb
    die as with the node (slurmd lives on, and the session's other jobs,
    for the other tests)."""
    with open(os.path.join(cluster.directory, "namespaces")) as f:
        names = dict(line.split()[:2] for line in f)
    pids = subprocess.run(["ip", "netns", "pids", names[node]], capture_output=True,
                          text=True).stdout.split()
    for pid in pids:
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                environ = f.read().split(b"\0")
            if any(mark.encode() in environ for mark in marks):
                os.kill(int(pid), 9)
        except (OSError, ProcessLookupError):
            continue


def test_a_node_of_the_job_killed(cluster, tmp_path):
    """Rank 3's node dies under the console (its rank, back-end and gdb
    killed): the console names rank 3 gone with its node and keeps ranks
    0-2, whose deadlock it still explains.  Under both MPIs the step lives
    on while the ranks are held (MPICH's PMI-2 survives a task's death in
    any case; under PMIx, Slurm has been seen to end the whole step when a
    running task dies: docs/slurm.md says not to count on the rest)."""
    job = HungJob(cluster, tmp_path)
    marker, piddir = new_job(tmp_path)
    try:
        with Console(["--attach-job", job.job], marker, piddir,
                     Launch(env=cluster.env(OPEN_MPI_AS_ROOT))) as session:
            assert sorted(rank_rows(session.run("ranks"))) == [0, 1, 2, 3]
            kill_node(cluster, cluster.nodes[2], "JOB_PIDDIR=" + job.piddir,
                      "%s=%s" % (MARK, marker))
            deadline = time.monotonic() + 120
            gone = "its back-end on %s is gone (the connection closed)" % cluster.nodes[2]
            while gone not in session.run("ranks"):
                assert time.monotonic() < deadline, session.transcript
                time.sleep(0.5)
            assert job.state() == "RUNNING"
            table = session.run("ranks")
            assert re.search(r"^3 .*  %s$" % re.escape(gone), table, re.M), table
            assert all(re.search(r"^%d .* stopped$" % r, table, re.M) for r in (0, 1, 2)), table
            waits = session.run("waits")
            assert "cycle 0 → 1 → 0" in waits and "[3] state unknown: " + gone in waits, waits
            assert session.run("on 0-2 print 6*7").count("$1 = 42") == 1
            session.quit()
    finally:
        job.end()


def test_no_address_answers(hung, cluster, tmp_path):
    """When the nodes reach none of the console's addresses (here --host
    names one of TEST-NET-3, which routes nowhere), one line says which
    address the console offered and what to do; the job is not touched."""
    status, out = console(cluster, ["--host", "203.0.113.9", "--timeout", "5",
                                    "--attach-job", hung.job], tmp_path)
    assert status == 1, out
    line = [line for line in out.splitlines() if line.startswith("mpipp-job:")]
    assert len(line) == 1 and re.match(
        r"mpipp-job: only 0 of 4 ranks reported within 5 s \(.*the console listened at "
        r"203\.0\.113\.9:\d+: --host ADDRESS for one the ranks' hosts reach", line[0]), out
    assert hung.state() == "RUNNING"
    for rank, pid in hung.pids.items():
        assert untouched(cluster, cluster.nodes[PLACES[rank]], pid)
