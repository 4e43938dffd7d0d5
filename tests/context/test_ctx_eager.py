"""Requests MPI completes when they are posted (testprogs/ctx_eager, 2 ranks):
an eager Isend to rank 1, an Isend to and an Irecv from MPI_PROC_NULL, two
Rputs to MPI_PROC_NULL.  MPI hands several of them the same handle, so none
may be listed as pending or described as another call; only the Irecv from
rank 1 is pending.  Also `break MPI_Isend`, which stops twice per call
(libmpireg's wrapper, then MPI's own MPI_Isend): `mpipp calls` is right at
both stops."""

import json
import re

import pytest

import gdbrun

DONE = "completed when it was posted"

COMMANDS = [
    "break MPI_Isend", "continue", "mpipp calls -brief", "mpipp calls -json",
    "continue ", " mpipp calls -brief",
    "delete", "break stop_eager", "continue  ",
    "print reqs[0]", "print reqs[1]", "print reqs[2]", "print reqs[3]", "print reqs[4]",
    "print reqs[5]", "mpipp requests", "mpipp requests -json -all",
    "mpipp request reqs[0]", "mpipp request reqs[3]", "mpipp request reqs[5]",
    "break PMPI_Waitall", "continue   ", "mpipp  calls -brief",
]


@pytest.fixture(scope="module")
def out():
    ranks = gdbrun.capture("ctx_eager", COMMANDS, stop="main", ranks=2,
                           launcher=gdbrun.mpiexec(2))
    return ranks[0]


def test_completed_requests_are_never_pending_nor_another_call(out):
    for k in (0, 1, 2, 4, 5):
        text = out["print reqs[%d]" % k]
        assert DONE in text and "MPI_" not in text, (k, text)
    assert re.search(r"= 0x[0-9a-f]+ <MPI_Irecv\(buf=0x[0-9a-f]+, count=1, datatype=MPI_INT, "
                     r"source=1, tag=13, comm=MPI_COMM_WORLD\) pending>", out["print reqs[3]"])


def test_only_the_receive_from_rank_1_is_listed(out):
    text = out["mpipp requests"]
    listed = [l for l in text.splitlines() if l.startswith("request ")]
    assert len(listed) == 1 and "MPI_Irecv(" in listed[0] and "source=1, tag=13" in listed[0]
    doc = json.loads(out["mpipp requests -json -all"])
    assert [(r["function"], r["args"]["tag"]) for r in doc["requests"]] == [("MPI_Irecv", "13")]


def test_request_command(out):
    for k in (0, 5):
        err = out["mpipp request reqs[%d]" % k]
        assert isinstance(err, gdbrun.GdbFailure) and DONE in err, err
    assert "buf = MPI_INT × 1 at 0x" in out["mpipp request reqs[3]"]


def test_waitall_waits_only_for_the_pending_receive(out):
    text = out["mpipp  calls -brief"]
    assert "MPI_Waitall(count=6, requests=0x" in text
    waits = [l for l in text.splitlines() if "waits for" in l]
    assert len(waits) == 1 and "waits for [3] request 0x" in waits[0], text
    assert "MPI_Irecv(" in waits[0] and "tag=13" in waits[0]


def test_calls_at_both_stops_of_break_mpi_isend(out):
    wrapper = out["mpipp calls -brief"].splitlines()[0]
    assert re.search(r"^thread 1 \(LWP \d+\): MPI_Isend\(buf=0x[0-9a-f]+, count=1, "
                     r"datatype=MPI_INT, dest=1, tag=12, comm=MPI_COMM_WORLD, request=0x[0-9a-f]+\),"
                     r" in libmpireg's wrapper outside MPI \('break PMPI_Isend'", wrapper), wrapper
    doc = json.loads(out["mpipp calls -json"])
    assert doc["threads"][0]["in_wrapper"]["args"]["tag"] == "12"
    inside = out[" mpipp calls -brief"].splitlines()[0]
    assert re.search(r"^thread 1 \(LWP \d+\): MPI_Isend\(buf=0x[0-9a-f]+, count=1, "
                     r"datatype=MPI_INT, dest=1, tag=12, comm=MPI_COMM_WORLD\)$", inside), inside
    for text in (out["mpipp calls -brief"], out[" mpipp calls -brief"]):
        assert "at testprogs/ctx_eager.c:%d" % source_line("MPI_Isend(&payload, 1, MPI_INT, 1") \
            in text


def source_line(text):
    with open("%s/testprogs/ctx_eager.c" % gdbrun.REPO) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(text)
