"""Pending requests, `mpipp request`, handle printers, buffers in context,
Alltoallw with per-peer datatypes, core files (testprogs/ctx_requests).

The two Isends to this rank match receives already posted: MPI completes
them at once (MPICH hands out its builtin send request, Open MPI
ompi_request_empty), so they are not pending and never listed as such."""

import json
import os
import re
import tempfile

import pytest

import gdbrun

COMMANDS = [
    "mpipp requests", "mpipp requests -json", "mpipp requests -all",
    "mpipp request reqs[0]", "mpipp request -json reqs[1]", "mpipp request &reqs[1]",
    "mpipp request reqs[3]",
    "mpipp request persist_req", "mpipp request world", "mpipp request nosuch",
    "mpipp calls",
    "print reqs[0]", "print reqs[2]", "print persist_req", "print dup_comm", "print world",
    "print my_op", "print sum_op", "print rbuf", "print row_ptr", "print rints", "print ints",
    "print text",
    "set mpipp context off", "print  rbuf", "set mpipp context on",
    "set breakpoint pending on", "break PMPI_Waitall", "continue  ", " mpipp calls -brief",
    "delete 2",
    "break stop_done", "continue",
    "mpipp requests -json -all", "print  reqs[0]", "print   rbuf",
    "break PMPI_Alltoallw", "cont",
    "mpipp calls -brief", "mpipp calls -json",
    "break PMPI_Allreduce", "c", "mpipp  calls -brief",
    "break PMPI_Pack", "continue 1", "mpipp   calls -brief",
]


def source_line(text):
    """Line number of the first line of testprogs/ctx_requests.c holding text."""
    with open(os.path.join(gdbrun.REPO, "testprogs", "ctx_requests.c")) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(text)


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("ctx_requests", COMMANDS, stop="stop_pending")


def test_requests_lists_every_pending_operation(out):
    text = out["mpipp requests"]
    lines = [l for l in text.splitlines() if l.startswith("request ")]
    assert len(lines) == 2, text
    assert "MPI_Irecv(buf=0x" in lines[0] and "datatype=row_t" in lines[0]
    assert "source=0, tag=5, comm=dup_comm [dup of MPI_COMM_WORLD, rank 0 of 1]) pending" \
        in lines[0]
    assert "datatype=pair_t, source=MPI_ANY_SOURCE, tag=6, comm=MPI_COMM_WORLD" in lines[1]
    assert "MPI_Isend" not in text  # completed at once
    irecv = source_line("MPI_Irecv(rbuf")
    assert "posted at testprogs/ctx_requests.c:%d, by thread 1" % irecv in text
    assert "MPI_Send_init" not in text  # inactive persistent: only with -all
    assert "MPI_Send_init(" in out["mpipp requests -all"]
    assert "persistent, inactive" in out["mpipp requests -all"]
    doc = json.loads(out["mpipp requests -json"])
    assert [r["function"] for r in doc["requests"]] == ["MPI_Irecv", "MPI_Irecv"]
    assert doc["requests"][0]["args"]["datatype"] == "row_t"
    assert doc["requests"][0]["site"].endswith("ctx_requests.c:%d" % irecv)


def test_request_decodes_its_buffer(out):
    text = out["mpipp request reqs[0]"]
    assert "buf = row_t × 2 at 0x" in text
    assert "[1][5] = 15" in text  # the self-send already matched: rows copied in
    doc = json.loads(out["mpipp request -json reqs[1]"])
    assert doc["function"] == "MPI_Irecv"
    assert doc["call"]["buffers"][0]["pieces"][0]["datatype"] == "pair_t"
    irecv = out["mpipp request &reqs[1]"]  # the Isend of ints[0, 2, 3, 5] matched it
    assert "[0][0][0] = 100" in irecv and "[0][1][0] = 102" in irecv
    assert "[1][0][0] = 103" in irecv and "[1][1][0] = 105" in irecv
    done = out["mpipp request reqs[3]"]
    assert isinstance(done, gdbrun.GdbFailure) and "completed when it was posted" in done
    assert "persistent, inactive" in out["mpipp request persist_req"]


def test_request_errors_are_one_line(out):
    assert isinstance(out["mpipp request world"], gdbrun.GdbFailure)
    assert "not a pending request" in out["mpipp request world"]
    assert isinstance(out["mpipp request nosuch"], gdbrun.GdbFailure)
    assert "\n" not in out["mpipp request nosuch"].strip()


def test_handle_printers(out):
    assert re.search(r"= 0x[0-9a-f]+ <MPI_Irecv\(buf=0x[0-9a-f]+, count=2, datatype=row_t, "
                     r"source=0, tag=5, comm=dup_comm \[dup of MPI_COMM_WORLD, rank 0 of 1\]\) pending>",
                     out["print reqs[0]"])
    assert re.search(r"= 0x[0-9a-f]+ <completed when it was posted: MPI gives this handle to "
                     r"every request it completes at once>", out["print reqs[2]"])
    assert "MPI_Send_init(" in out["print persist_req"]
    assert out["print dup_comm"].endswith("= dup_comm [dup of MPI_COMM_WORLD, rank 0 of 1]\n")
    assert out["print world"].endswith("= MPI_COMM_WORLD [rank 0 of 1]\n")
    assert out["print my_op"].endswith("= user op my_sum (commutative)\n")
    assert out["print sum_op"].endswith("= MPI_SUM\n")


def test_buffers_in_context(out):
    text = out["print rbuf"]
    assert "<buf of pending MPI_Irecv request 0x" in text and "row_t × 2>" in text
    assert "[1][5] = " in text
    assert "points at [1][2] (MPI_DOUBLE) +0 of buf of pending MPI_Irecv" in out["print row_ptr"]
    assert "[0][1][0] = 102" in out["print rints"]  # pair_t picks ints 0, 2, 3, 5
    assert "<" not in out["print ints"]  # the buffer of an Isend completed at once
    assert "<" not in out["print text"].split("=", 1)[1].replace('"hello', "")  # not a buffer
    assert "pending" not in out["print  rbuf"]  # set mpipp context off


def test_waitall_lists_the_requests_it_waits_for(out):
    text = out[" mpipp calls -brief"]
    assert re.search(r"^thread 1 \(LWP \d+\): MPI_Waitall\(count=4, requests=0x[0-9a-f]+\)$",
                     text, re.M), text
    waits = [l for l in text.splitlines() if "waits for" in l]
    assert len(waits) == 2
    assert "waits for [0] request 0x" in waits[0] and "MPI_Irecv(" in waits[0]
    assert "waits for [1] request 0x" in waits[1] and "MPI_Irecv(" in waits[1]


def test_after_waitall_requests_are_gone(out):
    doc = json.loads(out["mpipp requests -json -all"])
    assert [r["function"] for r in doc["requests"]] == ["MPI_Send_init"]
    assert out["print  reqs[0]"].endswith("= MPI_REQUEST_NULL\n")
    assert "<buf of" not in out["print   rbuf"]


def test_alltoallw_shows_every_peer_datatype(out):
    text = out["mpipp calls -brief"]
    line = [l for l in text.splitlines() if "MPI_Alltoallw(" in l][0]
    assert "sendcounts=[2], sdispls=[0], sendtypes=[row_t]" in line
    assert "recvcounts=[2], rdispls=[0], recvtypes=[row_t], comm=MPI_COMM_WORLD" in line
    doc = json.loads(out["mpipp calls -json"])
    call = [t for t in doc["threads"] if t["in_mpi"]][0]["call"]
    pieces = call["buffers"][0]["pieces"]
    assert pieces[0]["label"] == "sendbuf peer 0" and pieces[0]["datatype"] == "row_t"
    assert [e["value"] for e in pieces[0]["elements"]][:3] == [0, 1, 2]
    assert "MPI_Allreduce(sendbuf=0x" in out["mpipp  calls -brief"]
    assert "op=user op my_sum" in out["mpipp  calls -brief"]


def test_pack_names_its_parameters(out):
    line = [l for l in out["mpipp   calls -brief"].splitlines() if "MPI_Pack(" in l][0]
    assert re.search(r"MPI_Pack\(inbuf=0x[0-9a-f]+, incount=1, datatype=row_t, outbuf=0x[0-9a-f]+, "
                     r"outsize=256, packed=MPI_PACKED, comm=MPI_COMM_WORLD\)", line), line


def test_core_file():
    with tempfile.TemporaryDirectory() as tmp:
        core = os.path.join(tmp, "core")
        gdbrun.run(["-ex", "break stop_pending", "-ex", "run", "-ex", "gcore %s" % core,
                    "-ex", "kill", gdbrun.program("ctx_requests")])
        assert os.path.exists(core)
        proc = gdbrun.run(["-ex", "mpipp requests", "-ex", "print dup_comm", "-ex", "print rbuf",
                           gdbrun.program("ctx_requests"), core])
        assert proc.stdout.count("pending\n") == 2, proc.stdout + proc.stderr
        assert "dup_comm [dup of MPI_COMM_WORLD, rank 0 of 1]" in proc.stdout
        assert "<buf of pending MPI_Irecv" in proc.stdout
