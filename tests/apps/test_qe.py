"""Quantum ESPRESSO (Debian's pw.x: Open MPI, Fortran, no debug
information) on 2 ranks under mpipp-job: bulk silicon (2 atoms, the
Si.pz-vbc.UPF pseudopotential quantum-espresso-data ships, a 12 Ry cut-off,
2x2x2 k-points), one self-consistent calculation of a few seconds; its MPI
calls are made from Fortran (use mpi, through Open MPI's Fortran
bindings).  Stopped inside them: every rank is seen in the collective,
`check` checks it; recorded and replayed; attached to during a molecular
dynamics run of the same cell."""

import os
import re

from apprun import App, Stop, check_attach, check_record_and_replay

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs", "si.pw")
ENERGY = re.compile(r"^\s*!?\s*total energy\s+=.*$", re.M)


def pw_input(directory, calculation):
    """The input for calculation ('scf' or 'md'), its outdir in directory."""
    path = os.path.join(directory, "si-%s.in" % calculation)
    with open(TEMPLATE) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("@CALCULATION@", calculation)
                .replace("@OUTDIR@", os.path.join(directory, "out")))
    return ["pw.x", "-in", path]


QE = App(
    "qe", 2,
    lambda directory: pw_input(directory, "scf"),
    [Stop("MPI_Bcast", "collective"),           # the input read by rank 0, broadcast
     Stop("MPI_Alltoall", "collective"),        # the first parallel FFT
     Stop("MPI_Allreduce", "collective", skip=20)],     # the SCF iterations
    lambda directory: pw_input(directory, "md"),
    lambda directory, out: len(re.findall(r"^!", out, re.M)),
    lambda directory, out: ENERGY.findall(out),
    # pw.x has no symbols: `stacks` shows its frames as gdb's `??`
    None)


def test_stops_record_and_replay(tmp_path):
    check_record_and_replay(QE, str(tmp_path))


def test_attach(tmp_path):
    check_attach(QE, str(tmp_path))
