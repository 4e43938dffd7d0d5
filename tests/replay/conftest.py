import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gdb-python"))
sys.path.insert(0, os.path.join(HERE, "..", "job"))
sys.path.insert(0, HERE)

from gdbrun import REPO  # noqa: E402
import replayrun  # noqa: E402

# Recorded runs tried for an order of the kind a test needs (the delays
# make it likely, the load of a shared machine may not: with 8, a loaded
# make check once found no hang).  A run that does not hang takes a second.
ATTEMPTS = 24


@pytest.fixture(scope="session")
def built():
    """Everything the MPI tests run is built (a no-op after `make`)."""
    subprocess.run(["make", "-s", "-C", REPO, "all"], check=True, capture_output=True)


@pytest.fixture(scope="session")
def hang_record(built, tmp_path_factory):
    """(directory, the master's line) of a recorded run in a wrong order: a
    wrong sum, and a worker left without its STOP.  The job is killed once
    every rank is blocked for good (the record is cut there), as a user
    kills a hung job -- recording in a loop until the bug shows."""
    directory = str(tmp_path_factory.mktemp("hang") / "record")
    for seed in range(1, 1 + ATTEMPTS):
        output, _ = replayrun.run_until(["master", seed], replayrun.master_settled,
                                        MPIPP_RECORD=directory)
        line, fields = replayrun.master_line(output)
        if fields and replayrun.hangs(fields):
            return directory, line
    pytest.fail("no recorded run of %d hung" % ATTEMPTS)


@pytest.fixture(scope="session")
def good_record(built, tmp_path_factory):
    """(directory, the master's line) of a recorded run in the right order
    (SEED 0's delays make it likely): a right sum, and the job ends."""
    directory = str(tmp_path_factory.mktemp("good") / "record")
    for _ in range(ATTEMPTS):
        # a loaded machine can still reorder the answers: such a run hangs by
        # design, and is ended once it has settled into its hang
        output, ended = replayrun.run_until(["master", 0], settled_in_a_hang,
                                            MPIPP_RECORD=directory)
        line, fields = replayrun.master_line(output)
        if ended and fields and fields["sum"] == fields["right"] and \
                not replayrun.hangs(fields):
            return directory, line
    pytest.fail("no recorded run of %d took the answers in order" % ATTEMPTS)


def settled_in_a_hang(output):
    _line, fields = replayrun.master_line(output)
    return bool(fields) and replayrun.hangs(fields) and replayrun.master_settled(output)
