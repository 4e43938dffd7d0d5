import subprocess

import pytest

from gdbrun import REPO


@pytest.fixture(scope="session", autouse=True)
def built():
    """Everything the tests run is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", REPO, "all"], check=True, capture_output=True)
