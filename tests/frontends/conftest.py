import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from gdbrun import REPO  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def built():
    """Everything the tests run is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", REPO, "all"], check=True, capture_output=True)
