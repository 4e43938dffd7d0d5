"""One back-end per node: inside an allocation, srun starts one mpipp-job
back-end on each node (a step of its own, --overlap), which holds the gdbs
of that node's ranks; the tree is built over the nodes."""

import os
import re
import signal
import time

import pytest

from gdbrun import MPI
from jobrun import MARK, Console, Launch, new_job, wait_files, wait_no_leftovers
from test_job_srun import network_namespace


def allocation_of(cluster, tasks):
    proc = cluster.run(["salloc", "-N3", "-n%d" % tasks, "--no-shell"])
    job = re.search(r"Granted job allocation (\d+)", proc.stderr)
    assert job, proc.stderr + cluster.log()
    return job.group(1), Launch(env={"SLURM_CONF": cluster.values["SLURM_CONF"],
                                     "SLURM_JOB_ID": job.group(1)}, name="slurm")


def parent(pid):
    with open("/proc/%s/stat" % pid, "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[1])


def command_line(pid):
    with open("/proc/%s/cmdline" % pid, "rb") as f:
        return f.read().split(b"\0")


def backends_in(place):
    """The pids of mpipp-job's node back-ends (rank.py --node) running in a
    network namespace."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = command_line(entry)
            if any(a.endswith(b"rank.py") for a in argv) and b"--node" in argv \
                    and network_namespace(entry) == place:
                out.append(int(entry))
        except OSError:
            continue
    return out


def test_one_back_end_per_node_holds_its_ranks_gdbs(tmp_path, cluster):
    """7 ranks over 3 nodes: on each node one back-end process, the parent
    of every gdb there, one gdb per rank of the node; answers merged by
    parity; the deadlock's cycle named."""
    job, launch = allocation_of(cluster, 7)
    try:
        marker, piddir = new_job(tmp_path)
        with Console(launch.job(7, "deadlock"), marker, piddir, launch) as console:
            console.run("break stop_here")
            assert "gdbs next to the ranks on 3 hosts" in console.transcript
            console.run("continue")
            console.run("up")
            assert "$1 = <[0,2,4,6]: 0 | [1,3,5]: 1>" in console.run("print parity")
            table = console.run("ranks")
            rows = [line.split() for line in table.splitlines()[1:]]
            assert sorted(int(row[0]) for row in rows) == list(range(7)), table
            for node in cluster.nodes:
                place = cluster.network_namespace(node)
                backends = backends_in(place)
                assert len(backends) == 1, (node, backends, table)
                gdbs = [row[3] for row in rows if row[1] == node]
                assert gdbs, table
                assert {parent(gdb) for gdb in gdbs} == set(backends), (node, table)
                assert all(network_namespace(gdb) == place for gdb in gdbs), table
            console.send("continue")
            wait_files(piddir, "blocking", 7)
            console.read_until("Continuing.")
            time.sleep(1.5)
            console.interrupt()
            assert "interrupting [0-6]" in console.run("echo")
            waits = console.run("waits")
            assert "cycle 0 → 1 → 0" in waits, waits
            console.quit()
        wait_no_leftovers(marker)
    finally:
        cluster.run(["scancel", job])


def job_processes_in(place, marker):
    """The pids of the job's processes (its marker in their environment)
    in a network namespace."""
    needle = ("%s=%s" % (MARK, marker)).encode()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                if needle in f.read().split(b"\0") and network_namespace(entry) == place:
                    out.append(int(entry))
        except OSError:
            continue
    return out


def stopped_on_nodes(console):
    """The deadlock job stopped at stop_here: {rank: its node}."""
    console.run("break stop_here")
    console.run("continue")
    rows = [line.split() for line in console.run("ranks").splitlines()[1:]]
    return {int(row[0]): row[1] for row in rows}


@pytest.mark.skipif(MPI != "mpich", reason="under --mpi=pmix Slurm ends the whole step when "
                    "one rank dies (test_a_ranks_node_killed_under_pmix)")
def test_a_ranks_node_killed(tmp_path, cluster):
    """Everything of the job on one node killed (its back-end, gdbs, ranks):
    under PMI-2 the step goes on; the console says which ranks are gone,
    and the ranks on the other nodes keep answering."""
    job, launch = allocation_of(cluster, 7)
    try:
        marker, piddir = new_job(tmp_path)
        with Console(launch.job(7, "deadlock"), marker, piddir, launch) as console:
            node_of = stopped_on_nodes(console)
            console.run("up")
            victim = node_of[6]
            assert victim != node_of[0]       # the tree's root: the console's one connection
            gone = sorted(r for r, n in node_of.items() if n == victim)
            for pid in job_processes_in(cluster.network_namespace(victim), marker):
                os.kill(pid, signal.SIGKILL)
            said = "its back-end on %s is gone" % victim
            deadline = time.monotonic() + 120
            while said not in console.transcript:
                assert time.monotonic() < deadline, console.transcript
                console.run("echo")
            out = console.run("print parity")
            assert "[%s] not asked: %s" % (",".join(map(str, gone)), said) in out, out
            kept = [r for r in range(7) if r not in gone]
            assert "$1 = <[%s]: 0 | [%s]: 1>" % (",".join(str(r) for r in kept if r % 2 == 0),
                                                 ",".join(str(r) for r in kept if r % 2)) in out, out
            table = console.run("ranks")
            for line in table.splitlines()[1:]:
                rank = int(line.split()[0])
                assert ("gone" in line) == (rank in gone), table
            assert "stopped (breakpoint-hit)" in table
            value = console.run("on %s print rank" % ",".join(map(str, kept)))
            assert "$2 = <%s>" % " | ".join("[%d]: %d" % (r, r) for r in kept) in value, value
            console.quit()
        wait_no_leftovers(marker)
    finally:
        cluster.run(["scancel", job])


@pytest.mark.skipif(MPI != "openmpi", reason="Open MPI's programs run under --mpi=pmix")
def test_a_ranks_node_killed_under_pmix(tmp_path, cluster):
    """Under PMIx Slurm ends the whole step when one of its ranks dies: the
    console says so ("srun ended the step"), after the ranks' ends, rather
    than blaming the back-ends' connections (they live on: a step of their
    own)."""
    job, launch = allocation_of(cluster, 7)
    try:
        marker, piddir = new_job(tmp_path)
        with Console(launch.job(7, "deadlock"), marker, piddir, launch) as console:
            victim = stopped_on_nodes(console)[6]
            for pid in job_processes_in(cluster.network_namespace(victim), marker):
                if os.path.basename(os.readlink("/proc/%d/exe" % pid)) == "job":
                    os.kill(pid, signal.SIGKILL)      # the node's ranks
            deadline = time.monotonic() + 120
            while "srun ended the step" not in console.transcript:
                assert time.monotonic() < deadline, console.transcript
                console.run("echo")
            assert "back-end" not in console.transcript.split("srun ended the step")[0], \
                console.transcript
            console.quit()
        wait_no_leftovers(marker)
    finally:
        cluster.run(["scancel", job])
