"""mpipp-job inside a Slurm allocation (SLURM_JOB_ID set): the ranks start
through srun with their MPI's PMI, every rank's gdb next to it on its node,
answers merged in the tree: the job scenarios of test_job_launch.py give
what they give under mpiexec on one host."""

import os
import re
import uuid

import pytest

from jobrun import MARK, MPIPP_JOB, PROGRAM, Console, Launch, new_job, wait_no_leftovers
from test_job_launch import deadlock_session


@pytest.fixture
def allocation(cluster):
    """A Launch of mpipp-job inside a fresh allocation of 3 nodes, 4 tasks
    (as `salloc -N3 -n4` gives it: SLURM_JOB_ID), cancelled afterwards."""
    proc = cluster.run(["salloc", "-N3", "-n4", "--no-shell"])
    job = re.search(r"Granted job allocation (\d+)", proc.stderr)
    assert job, proc.stderr + cluster.log()
    try:
        yield Launch(env={"SLURM_CONF": cluster.values["SLURM_CONF"],
                          "SLURM_JOB_ID": job.group(1)}, name="slurm")
    finally:
        cluster.run(["scancel", job.group(1)])


def test_deadlock_session_in_an_allocation(tmp_path, allocation):
    transcript = deadlock_session(tmp_path, allocation)
    assert "mpipp-job: 4 ranks started" in transcript
    assert "gdbs next to the ranks on 3 hosts; answers merged in a tree" in transcript


def test_every_rank_and_its_gdb_on_its_node(tmp_path, cluster, allocation):
    """Each rank and its gdb run in the network namespace of the node the
    `ranks` table names (none in the console's), on every node; after quit
    nothing of the job is left on any node."""
    marker, piddir = new_job(tmp_path)
    with Console(allocation.job(4, "deadlock"), marker, piddir, allocation) as console:
        console.run("break stop_here")
        console.run("continue")
        table = console.run("ranks")
        rows = {int(line.split()[0]): line.split() for line in table.splitlines()[1:]}
        assert sorted(rows) == [0, 1, 2, 3], table
        assert {row[1] for row in rows.values()} == set(cluster.nodes), table
        for _rank, node, pid, gdb in (row[:4] for row in rows.values()):
            place = cluster.network_namespace(node)
            assert network_namespace(pid) == place and network_namespace(gdb) == place, table
            assert place != network_namespace("self")
        console.quit()
    wait_no_leftovers(marker)


def network_namespace(pid):
    """The identity (inode) of a process's network namespace."""
    return os.stat("/proc/%s/ns/net" % pid).st_ino


def test_a_hung_batch_job(tmp_path, cluster):
    """sbatch: the job's script runs mpipp-job --until-hang on the first
    node of the allocation, which starts the ranks through srun on all three;
    the hang is found (the deadlock, its cycle), mpipp-job exits with 124,
    and nothing of the job is left on any node."""
    marker = uuid.uuid4().hex
    script, output = tmp_path / "job.sh", tmp_path / "job.out"
    script.write_text("#!/bin/sh\n%s -nx --until-hang=3 -n 4 %s deadlock\n"
                      "echo \"mpipp-job exit status $?\"\n" % (MPIPP_JOB, PROGRAM))
    proc = cluster.run(["sbatch", "--parsable", "-N3", "-n4", "-o", str(output), str(script)],
                       env={MARK: marker})
    assert proc.returncode == 0, proc.stderr
    job = proc.stdout.strip()
    assert cluster.wait_job(job) == "COMPLETED", output.read_text()
    text = output.read_text()
    assert "mpipp-job: gdbs next to the ranks on 3 hosts" in text, text
    assert "deadlock: 4 ranks blocked for good, 1 cycle" in text, text
    assert "cycle 0 → 1 → 0" in text, text
    assert text.endswith("mpipp-job exit status 124\n"), text
    wait_no_leftovers(marker)
