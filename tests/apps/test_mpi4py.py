"""An mpi4py job (Debian's python3-mpi4py: Open MPI) on 3 ranks under
mpipp-job: the program is /usr/bin/python3 running tests/apps/inputs/ring.py
(a ring Sendrecv of doubles, their Allreduce, a Bcast of a pickled object,
a Barrier, per turn).  Stopped inside each, recorded and replayed, attached
to."""

import os
import re

from apprun import App, Stop, check_attach, check_record_and_replay

RING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs", "ring.py")
TURN = re.compile(r"^turn \d+: .*$", re.M)

MPI4PY = App(
    "mpi4py", 3,
    lambda directory: ["/usr/bin/python3", RING, "6"],
    [Stop("MPI_Sendrecv", "pair"),
     Stop("MPI_Allreduce", "collective", skip=2),
     Stop("MPI_Bcast", "collective", skip=3),
     Stop("MPI_Barrier", "collective", skip=1)],
    lambda directory: ["/usr/bin/python3", RING, "0"],
    lambda directory, out: len(TURN.findall(out)),
    lambda directory, out: TURN.findall(out),
    "mpi4py/MPI.")


def test_stops_record_and_replay(tmp_path):
    check_record_and_replay(MPI4PY, str(tmp_path))


def test_attach(tmp_path):
    check_attach(MPI4PY, str(tmp_path))
