"""The program's MPI found (no --mpi), and ranks that die said so.

* A program of the other MPI than the one under test (make check's
  MPIPP_MPI names the one under test, the old default) runs under
  mpipp-job and mpipp-gdb with no --mpi: mpipp-gdb given it by its name on
  PATH; an mpi4py job (python3 SCRIPT: Debian's mpi4py is Open MPI's).
* --mpi naming the other MPI than the program's: one line, status 2,
  nothing started.
* A rank killed, one stopped by SIGSEGV, an MPI_Abort: -batch exits with
  the rank's status and one line says which rank died and how; the other
  ranks are interrupted, none is left "running".
"""

import os
import re
import subprocess

import pytest

import gdbrun
from jobrun import MPIPP_JOB, check_output, environment, new_job, wait_no_leftovers

OTHER = {"mpich": "openmpi", "openmpi": "mpich"}[gdbrun.MPI]
TITLES = {"mpich": "MPICH", "openmpi": "Open MPI"}


def clean_make_env():
    """The environment of a make of the other MPI (nothing of make check's)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MPIPP_BUILD", "MPIPP_MPI",
                         "MPIPP_MPIEXEC")}


@pytest.fixture(scope="module")
def other_program():
    """testprogs/ends built by the other MPI, and that MPI's libmpireg
    where mpipp-job and mpipp-gdb look for it (build/OTHER)."""
    done = subprocess.run(["make", "-C", gdbrun.REPO, "MPI=" + OTHER, "lib",
                           "build/%s/testprogs/ends" % OTHER], env=clean_make_env(),
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
    return os.path.join(gdbrun.REPO, "build", OTHER, "testprogs", "ends")


def job(args, tmp_path, env=None, timeout=300):
    """(status, output) of a -batch console; no process of it outlives it."""
    marker, piddir = new_job(tmp_path)
    proc = subprocess.run([MPIPP_JOB, "-nx", "-batch"] + list(args), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env=environment(marker, piddir, env))
    out = proc.stdout + proc.stderr
    check_output(out)
    wait_no_leftovers(marker)
    return proc.returncode, out


def test_a_program_of_the_other_mpi_runs_without_mpi(other_program, tmp_path):
    status, out = job(["-ex", "break MPI_Barrier", "-ex", "continue", "-ex", "calls",
                       "-ex", "delete", "-ex", "continue", "-n", "2", other_program], tmp_path)
    assert status == 0, out
    assert "SIGSEGV" not in out, out
    assert "MPI_Barrier" in out.split("Breakpoint 1")[-1], out
    assert "rank 0 got 1" in out and "rank 1 got 0" in out, out
    assert "exited normally" in out, out


def test_the_other_mpi_named_is_one_line_before_anything_starts(other_program, tmp_path):
    status, out = job(["--mpi", gdbrun.MPI, "-n", "2", other_program], tmp_path)
    assert status == 2, out
    assert out == ("mpipp-job: --mpi %s, but ends uses %s (ends -> %s): leave out --mpi, or "
                   "say --mpi %s\n" % (gdbrun.MPI, TITLES[OTHER], out.split(" -> ")[1]
                                       .split(")")[0], OTHER)), out
    assert "usage" not in out


def test_mpipp_gdb_finds_a_program_on_path_by_its_name(other_program):
    env = dict(os.environ, PATH=os.path.dirname(other_program) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run([gdbrun.MPIPP_GDB, "-nx", "-batch", "-ex", "break MPI_Barrier",
                           "-ex", "run", "-ex", "info sharedlibrary libmpireg",
                           "--args", "ends", "wait"], capture_output=True, text=True,
                          timeout=300, env=env)
    out = proc.stdout + proc.stderr
    assert "SIGSEGV" not in out, out
    # stopped in libmpireg's wrapper, which names the communicator
    assert re.search(r"Breakpoint 1(\.\d+)?, MPI_Barrier \(comm=MPI_COMM_WORLD \[rank 0 of 1\]\)",
                     out), out
    assert os.path.join("build", OTHER, "libmpireg.so") in out, out


MPI4PY_SCRIPT = """\
from mpi4py import MPI
world = MPI.COMM_WORLD
got = world.sendrecv(world.rank, dest=(world.rank + 1) % world.size,
                     source=(world.rank - 1) % world.size)
world.Barrier()
print("python rank %d got %d" % (world.rank, got), flush=True)
"""


def test_an_mpi4py_job_gets_its_mpis_library(tmp_path):
    """python3 SCRIPT: the MPI is mpi4py's (Debian's: Open MPI), whatever
    MPIPP_MPI says; the wrappers see the script's calls."""
    assert subprocess.run(["make", "-C", gdbrun.REPO, "MPI=openmpi", "lib"],
                          env=clean_make_env(), capture_output=True,
                          timeout=1200).returncode == 0
    script = tmp_path / "ring.py"
    script.write_text(MPI4PY_SCRIPT)
    status, out = job(["-ex", "break PMPI_Barrier", "-ex", "continue", "-ex", "calls",
                       "-ex", "delete", "-ex", "continue", "-n", "2", "/usr/bin/python3",
                       str(script)], tmp_path, env={"MPIPP_MPI": "mpich"})
    assert status == 0, out
    assert "MPI_Barrier" in out.split("Breakpoint 1")[-1], out
    assert "python rank 0 got 1" in out and "python rank 1 got 0" in out, out


@pytest.mark.parametrize("mode, status, line", [
    ("kill", 137, "mpipp-job: rank 1 died: killed by SIGKILL"),
    ("segv", 139, "mpipp-job: rank 1 died: stopped by SIGSEGV (Segmentation fault) in main"),
])
def test_a_rank_that_dies_ends_batch_with_its_status(tmp_path, mode, status, line):
    got, out = job(["-ex", "continue", "-ex", "ranks", "-n", "2", gdbrun.program("ends"), mode,
                    "1"], tmp_path)
    assert got == status, out
    assert out.rstrip().splitlines()[-1] == line, out
    assert line + "; interrupting [0]" in out, out
    ranks = out.split("rank  host")[1]
    assert "running" not in ranks and "interrupted in" in ranks, out


def test_an_aborted_job_is_seen_gone(tmp_path):
    """MPI_Abort: mpiexec ends the ranks (with their gdbservers, under
    MPICH): the console says so, interrupt has nothing left to stop, and
    -batch exits with the abort's code."""
    got, out = job(["-ex", "continue", "-ex", "ranks", "-ex", "interrupt", "-n", "2",
                    gdbrun.program("ends"), "abort", "1"], tmp_path)
    assert got == 3, out
    assert "mpipp-job: rank" in out and " died: " in out, out
    ranks = out.split("rank  host")[1]
    assert "running" not in ranks, out
    assert "still running" not in out, out
