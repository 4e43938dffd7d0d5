"""The cluster every Slurm test stands on (scripts/slurm-cluster): three idle
nodes, steps across them, both MPIs' programs launched by srun with their
PMI, an allocation and a step inside it."""

import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# The PMI each MPI's programs need from srun (Debian's builds).
PMI = {"mpich": "pmi2", "openmpi": "pmix"}


def succeeded(proc, cluster):
    assert proc.returncode == 0, "%s\n%s\n%s" % (proc.stdout, proc.stderr, cluster.log())
    return proc.stdout


def test_three_idle_nodes(cluster):
    out = succeeded(cluster.run(["sinfo", "-h", "-N", "-o", "%N %t"]), cluster)
    assert sorted(out.split()) == sorted(cluster.nodes + ["idle"] * 3)


def test_a_step_on_every_node(cluster):
    out = succeeded(cluster.run(["srun", "-N3", "hostname"]), cluster)
    assert sorted(out.split()) == sorted(cluster.nodes)


@pytest.fixture(scope="module", params=sorted(PMI))
def hello(request, tmp_path_factory):
    """(MPI, the hello program built with that MPI)."""
    mpi = request.param
    program = str(tmp_path_factory.mktemp("hello") / ("hello-" + mpi))
    subprocess.run(["mpicc." + mpi, "-o", program, os.path.join(HERE, "hello.c")], check=True)
    return mpi, program


def test_mpi_program_across_nodes(cluster, hello):
    """4 ranks on 3 nodes, srun --mpi=PMI: every rank reports, from the node
    Slurm put it on, after a collective over all of them."""
    mpi, program = hello
    out = succeeded(cluster.run(["srun", "--mpi=" + PMI[mpi], "-N3", "-n4", "-l", program]),
                    cluster)
    lines = re.findall(r"^(\d+): rank (\d+) of 4 on (\S+): sum 6$", out, re.M)
    assert sorted(int(rank) for _, rank, _ in lines) == [0, 1, 2, 3], out
    # srun -l prefixes each line with the task that wrote it: rank == task.
    assert all(task == rank for task, rank, _ in lines), out
    assert {node for _, _, node in lines} == set(cluster.nodes), out


def test_allocation_then_step(cluster):
    """salloc -N3: the command runs here with SLURM_JOB_ID set, and srun in it
    runs a step of that job on its three nodes."""
    script = 'echo "job $SLURM_JOB_ID"; srun sh -c \'echo "step on $(hostname) of $SLURM_JOB_ID"\''
    proc = cluster.run(["salloc", "-N3", "sh", "-c", script])
    out = succeeded(proc, cluster)
    job = re.search(r"^job (\d+)$", out, re.M)
    assert job, out
    steps = re.findall(r"^step on (\S+) of (\d+)$", out, re.M)
    assert sorted(node for node, _ in steps) == sorted(cluster.nodes), out
    assert {jobid for _, jobid in steps} == {job.group(1)}, out
    assert "Granted job allocation %s" % job.group(1) in proc.stderr
