import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Open MPI refuses to run as root without these (CI runs as root).
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
# Open MPI 4.1 picks its "rdma" one-sided component by default, which fails
# MPI_Win_create (MPI_ERR_WIN) without an RDMA-capable transport (a plain
# machine, a container); "pt2pt" runs RMA over point-to-point messages.
os.environ.setdefault("OMPI_MCA_osc", "pt2pt")
