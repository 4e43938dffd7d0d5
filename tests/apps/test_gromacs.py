"""GROMACS (Debian's gmx_mpi: Open MPI, C++, no debug information) on 2
ranks under mpipp-job: 216 SPC waters (spc216.gro and the OPLS-AA force
field of gromacs-data), 200 steps of molecular dynamics with PME, the box
split between the ranks (domain decomposition); the run input is made by
`gmx_mpi grompp` from tests/apps/inputs.  Stopped inside its MPI calls in
the set-up and in the time steps, recorded and replayed, attached to."""

import os
import re
import subprocess

import pytest

from apprun import App, Stop, check_attach, check_record_and_replay

INPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs")
STEP = "   Step           Time"
NUMBERS = re.compile(r"^[-+.\deE ]*\d[-+.\deE ]*$", re.M)


@pytest.fixture(scope="module")
def gromacs(tmp_path_factory):
    """The App, its run input made by grompp."""
    directory = str(tmp_path_factory.mktemp("grompp"))
    tpr = os.path.join(directory, "water.tpr")
    proc = subprocess.run(["gmx_mpi", "grompp", "-f", os.path.join(INPUTS, "water.mdp"),
                           "-c", "/usr/share/gromacs/top/spc216.gro",
                           "-p", os.path.join(INPUTS, "water.top"), "-o", tpr,
                           "-po", os.path.join(directory, "mdout.mdp")],
                          capture_output=True, text=True, timeout=120, cwd=directory)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    def mdrun(directory, *more):
        # -reprod: the same results from the same input, run after run
        return ["gmx_mpi", "mdrun", "-s", tpr, "-ntomp", "1", "-nb", "cpu", "-reprod",
                "-deffnm", os.path.join(directory, "water")] + list(more)

    def log(directory):
        with open(os.path.join(directory, "water.log"), errors="replace") as f:
            return f.read()

    def results(directory, _out):
        """The final coordinates and the log's figures step by step (its
        lines of numbers: step, time, energies; not its measured times)."""
        with open(os.path.join(directory, "water.gro")) as f:
            coordinates = f.read()
        text = log(directory)
        steps = text[text.index(STEP):text.index("<======  ###############  ==>")]
        return coordinates, NUMBERS.findall(steps)

    return App(
        "gromacs", 2, mdrun,
        [Stop("MPI_Sendrecv", "pair"),                  # set-up: domain decomposition
         Stop("MPI_Allreduce", "collective", skip=5),   # compute_globals: energies
         Stop("MPI_Sendrecv", "pair", skip=200)],       # time steps: halo exchange
        lambda directory: mdrun(directory, "-nsteps", "-1"),
        lambda directory, _out: log(directory).count(STEP) if os.path.exists(
            os.path.join(directory, "water.log")) else 0,
        results, "gmx::")


def test_stops_record_and_replay(gromacs, tmp_path):
    check_record_and_replay(gromacs, str(tmp_path))


def test_attach(gromacs, tmp_path):
    check_attach(gromacs, str(tmp_path))
