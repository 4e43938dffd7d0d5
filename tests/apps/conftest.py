import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gdb-python"))
sys.path.insert(0, os.path.join(HERE, "..", "job"))
sys.path.insert(0, HERE)

import gdbrun  # noqa: E402  (tests/, on the path from tests/conftest.py)


@pytest.fixture(scope="session", autouse=True)
def open_mpi_pass():
    """Debian builds LAMMPS, GROMACS, Quantum ESPRESSO and mpi4py for Open
    MPI only: they run in `make check MPI=openmpi`, on its libmpireg."""
    if gdbrun.MPI != "openmpi":
        pytest.skip("Debian's LAMMPS, GROMACS, QE and mpi4py are Open MPI programs: "
                    "make check MPI=openmpi runs them")


@pytest.fixture(scope="session", autouse=True)
def built(open_mpi_pass):
    """libmpireg is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", gdbrun.REPO, "all", "MPI=" + gdbrun.MPI], check=True,
                   capture_output=True)
