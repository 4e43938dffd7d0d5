"""libmpireg's own MPI calls are not the program's: a user's breakpoint on
MPI_Wait or PMPI_Wait first stops in the program's own call (it stopped
inside MPI_Init, in libmpireg's request probe)."""

import re

import pytest

import gdbrun


@pytest.mark.parametrize("where", ["PMPI_Wait", "MPI_Wait"])
def test_the_first_wait_stop_is_the_programs_own(where):
    proc = gdbrun.run(["-ex", "set breakpoint pending on", "-ex", "break %s" % where,
                       "-ex", "run", "-ex", "bt", gdbrun.program("ends")], timeout=300)
    out = proc.stdout + proc.stderr
    frames = re.findall(r"^#\d+ .*$", out, re.M)
    assert frames, out
    assert any(re.search(r" main \(.*\) at testprogs/ends\.c:\d+$", f) for f in frames), out
    assert not any("mpireg_" in f or "MPI_Init" in f for f in frames), out
