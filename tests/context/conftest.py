import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "frontends"))

from gdbrun import REPO  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def built():
    """Everything the tests run is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", REPO, "all"], check=True, capture_output=True)
