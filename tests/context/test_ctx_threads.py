"""MPI_THREAD_MULTIPLE: `mpipp calls` shows the call of every thread (one in
MPI_Recv with a derived type, one in MPI_Probe, main not in MPI)."""

import json
import re

import gdbrun

COMMANDS = ["mpipp calls", "mpipp calls -json", "print grid", "print &grid[1][1]",
            "print &grid[1][2]", "frame function main", "info locals"]


def test_every_thread_in_mpi_is_shown():
    out = gdbrun.capture("ctx_threads", COMMANDS)
    text = out["mpipp calls"]
    assert re.search(r"^thread 1 \(LWP \d+\): not inside an MPI call$", text, re.M)
    recv = re.search(r"^thread (\d+) \(LWP \d+\): MPI_Recv\(buf=0x[0-9a-f]+, count=1, "
                     r"datatype=col_t, source=0, tag=11, comm=MPI_COMM_WORLD\)$", text, re.M)
    probe = re.search(r"^thread (\d+) \(LWP \d+\): MPI_Probe\(source=0, tag=22, "
                      r"comm=MPI_COMM_WORLD\)$", text, re.M)
    assert recv and probe, text
    assert recv.group(1) != probe.group(1)
    for path, value in (("[0][0][0]", 1), ("[0][1][0]", 5), ("[0][2][0]", 9), ("[0][3][0]", 13)):
        assert "%s = %d" % (path, value) in text
    doc = json.loads(out["mpipp calls -json"])
    funcs = sorted(t["call"]["function"] for t in doc["threads"] if t["in_mpi"])
    assert funcs == ["MPI_Probe", "MPI_Recv"]
    # the column buffer starts at grid[0][1]; grid[1][1] is element [0][1][0]
    assert "<" not in out["print grid"]  # sub-arrays are not annotated
    assert "points at [0][1][0] (MPI_INT) +0 of buf of MPI_Recv in thread" in \
        out["print &grid[1][1]"]
    assert "<points" not in out["print &grid[1][2]"]  # a gap of the vector
