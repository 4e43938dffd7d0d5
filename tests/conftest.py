import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Open MPI refuses to run as root without these (CI runs as root).
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
