import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# the gdb-free package and the unit tests' datatype builders (dtypes.py)
sys.path.insert(0, os.path.join(HERE, "..", "..", "gdb-python"))
sys.path.insert(0, os.path.join(HERE, "..", "unit"))

from gdbrun import REPO  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def built():
    """Everything the tests run is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", REPO, "all"], check=True, capture_output=True)
