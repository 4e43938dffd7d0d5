"""LAMMPS (Debian's lmp: Open MPI, C++, no debug information) on 2 ranks
under mpipp-job, running the melt example of lammps-examples (250 steps of
a Lennard-Jones liquid, 4000 atoms): stopped inside its MPI calls in the
set-up and in the time-step loop, recorded and replayed, and attached to
while it runs."""

import os
import re

from apprun import App, Stop, check_attach, check_record_and_replay

MELT = "/usr/share/lammps/examples/melt/in.melt"
LONG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs", "melt-long.lmp")
THERMO = re.compile(r"^\s+\d+\s+-?\d+\.\d+\s+-?\d+\.\d+.*$", re.M)


def thermo(directory, out):
    """The thermodynamic output, step by step: what the run computed."""
    return THERMO.findall(out)


LAMMPS = App(
    "lammps", 2,
    lambda directory: ["lmp", "-in", MELT, "-log", "none"],
    [Stop("MPI_Allreduce", "collective"),       # create_atoms: atoms counted
     Stop("MPI_Sendrecv", "pair"),              # set-up: the first exchange
     Stop("MPI_Send", "pair", skip=300),        # time steps: forward_comm
     Stop("MPI_Wait", "pair", skip=300)],       # ... and its MPI_Irecv
    lambda directory: ["lmp", "-in", LONG, "-log", "none"],
    lambda directory, out: len(THERMO.findall(out)),
    thermo, "LAMMPS_NS::")


def test_stops_record_and_replay(tmp_path):
    check_record_and_replay(LAMMPS, str(tmp_path))


def test_attach(tmp_path):
    check_attach(LAMMPS, str(tmp_path))
