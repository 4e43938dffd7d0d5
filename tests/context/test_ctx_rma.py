"""One-sided communication (testprogs/rma.c, 2 ranks, every rank doing the
same): the target side of RMA calls, windows of every flavor and their
epochs, groups, and libmpireg's own start-up probe in MPI_Init."""

import json
import os
import re

import pytest

import gdbrun

COMMANDS = [
    # MPI_Init: libmpireg's start-up probe posts its own MPI_Issend
    "mpipp calls -brief", "delete",
    "break PMPI_Get", "break PMPI_Accumulate", "break stop_here", "continue",
    # A: fence epoch, MPI_Get of this rank's own column (the target is here)
    "mpipp calls", "mpipp calls -json", "mpipp win", "bt 2", "print $mpi_call.target_count",
    "frame function main", "print win", "print grid_comm", "mpipp info grid_win",
    "continue ",
    # B: exclusive lock on the peer
    "mpipp  calls -brief", "mpipp win grid_win", "break PMPI_Wait", "continue  ",
    # C: PSCW
    "mpipp  win grid_win", "frame  function main", "print peer_group", "print all", "mpipp requests",
    "mpipp info group#2", "continue   ",
    # D: shared memory: the peer's segment is mapped here
    "mpipp  calls", "mpipp win win#2", "continue    ",
    # E: a dynamic window
    "mpipp win win#3", "mpipp win nosuch", "mpipp win win#9", "mpipp win 42", "mpipp win ",
]


@pytest.fixture(scope="module")
def outs():
    # Open MPI: allocate_shared needs its "sm" one-sided component
    return gdbrun.capture("rma", COMMANDS + ["delete "], stop="PMPI_Issend", ranks=2,
                          setup=["set breakpoint pending on"], timeout=300,
                          launcher=gdbrun.mpiexec(2, {"OMPI_MCA_osc": "sm,pt2pt"}))


def source_line(text):
    with open(os.path.join(gdbrun.REPO, "testprogs", "rma.c")) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(text)


def test_start_up_probe(outs):
    for out in outs:
        assert "inside libmpireg's start-up probe of MPI_Init" in out["mpipp calls -brief"]


def test_get_shows_and_decodes_its_target(outs):
    for rank, out in enumerate(outs):
        calls = out["mpipp calls"]
        assert re.search(r"MPI_Get\(origin_addr=0x[0-9a-f]+, origin_count=4, "
                         r"origin_datatype=MPI_DOUBLE, target_rank=%d, target_disp=2, "
                         r"target_count=1, target_datatype=vector#1, win=grid_win \[create on "
                         r"comm#1, rank %d of 2; fence epoch \(1 fence so far\)\]\)" % (rank, rank),
                         calls), calls
        assert "at testprogs/rma.c:%d" % source_line("MPI_Get(column") in calls
        # the target is this rank: column 2 of its own grid, g(i, j) = 100 r + 10 i + j
        values = re.findall(r"^      \[0\]\[(\d)\]\[0\] = (\d+)$", calls, re.M)
        assert values == [(str(i), str(100 * rank + 10 * i + 2)) for i in range(4)], calls
        call = next(t["call"] for t in json.loads(out["mpipp calls -json"])["threads"]
                    if "call" in t)
        target = call["target"]
        assert target["rank"] == rank and target["disp"] == 2 and target["count"] == 1
        assert [e["value"] for e in target["piece"]["elements"]] == \
            [100 * rank + 10 * i + 2 for i in range(4)]
        assert "target_datatype=vector#1" in out["bt 2"]
        assert out["print $mpi_call.target_count"].endswith(" = 1\n")
        win = out["mpipp win"].splitlines()
        assert win[0] == ("grid_win: create (MPI_Win_create) on comm#1 [dup of MPI_COMM_WORLD, "
                          "rank %d of 2], created at testprogs/rma.c:%d"
                          % (rank, source_line("MPI_Win_create(grid")))
        assert re.fullmatch(r"  this process: rank %d of 2, memory 0x[0-9a-f]+, 192 bytes, "
                            r"disp_unit 8" % rank, win[1])
        assert win[3] == "  epoch: fence epoch (1 fence so far)"
        assert out["print win"].split(" = ", 1)[1].strip() == (
            "grid_win [create on comm#1, rank %d of 2; fence epoch (1 fence so far)]" % rank)
        assert out["print grid_comm"].split(" = ", 1)[1].strip() == \
            "comm#1 [dup of MPI_COMM_WORLD, rank %d of 2]" % rank
        assert out["mpipp info grid_win"] == out["mpipp win"]


def test_lock_and_accumulate(outs):
    for rank, out in enumerate(outs):
        peer = 1 - rank
        assert re.search(r"MPI_Accumulate\(origin_addr=0x[0-9a-f]+, origin_count=2, "
                         r"origin_datatype=MPI_DOUBLE, target_rank=%d, target_disp=0, "
                         r"target_count=1, target_datatype=contiguous#2, op=MPI_SUM, "
                         r"win=grid_win \[create on comm#1, rank %d of 2; exclusive lock on rank "
                         r"%d\]\)" % (peer, rank, peer), out["mpipp  calls -brief"])
        assert "  epoch: exclusive lock on rank %d" % peer in out["mpipp win grid_win"]


def test_pscw_and_groups(outs):
    for rank, out in enumerate(outs):
        peer = 1 - rank
        assert ("  epoch: access epoch to rank %d (MPI_Win_start, group#2); exposure epoch for "
                "rank %d (MPI_Win_post, group#2)" % (peer, peer)) in out["mpipp  win grid_win"]
        assert out["print peer_group"].split(" = ", 1)[1].strip() == (
            "group#2 [incl of group#1, 1 rank (world %d), not a member]" % peer)
        assert out["print all"].split(" = ", 1)[1].strip() == (
            "group#1 [group of comm#1, 2 ranks (world 0,1), rank %d]" % rank)
        assert re.search(r"MPI_Rget\(.*target_rank=%d, target_disp=18, target_count=6, "
                         r"target_datatype=MPI_DOUBLE, win=grid_win" % peer,
                         out["mpipp requests"]), out["mpipp requests"]
        assert out["mpipp info group#2"].splitlines()[1].startswith(
            "  handle 0x")


def test_shared_window_target_is_mapped_here(outs):
    for rank, out in enumerate(outs):
        peer = 1 - rank
        calls = out["mpipp  calls"]
        assert "win=win#2 [allocate_shared on comm#2, rank %d of 2; fence epoch" % rank in calls
        assert "comm#2 [split of MPI_COMM_WORLD (MPI_COMM_TYPE_SHARED), rank %d of 2]" % rank \
            in out["mpipp win win#2"]
        values = re.findall(r"^      \[0\]\[(\d)\]\[0\] = (\d+)$", calls, re.M)
        assert values == [(str(k), str(1000 * peer + 2 * k)) for k in range(4)], calls
        win = out["mpipp win win#2"]
        assert "  memory of every rank, mapped here:" in win
        assert re.search(r"    rank %d: 0x[0-9a-f]+, 64 bytes, disp_unit 8" % peer, win)


def test_dynamic_window_and_errors(outs):
    out = outs[0]
    win = out["mpipp win win#3"]
    assert "win#3: dynamic (MPI_Win_create_dynamic) on MPI_COMM_WORLD [rank 0 of 2]" in win
    assert "displacements are addresses (dynamic window)" in win
    assert re.search(r"  attached regions:\n    0x[0-9a-f]+, 48 bytes, disp_unit 1", win)
    errors = {"mpipp win nosuch": 'No symbol "nosuch"', "mpipp win win#9":
              "no window is labelled win#9", "mpipp win 42": "(0x2a) is not a window",
              "mpipp win ": "the selected thread is not in an MPI call on a window"}
    for command, message in errors.items():
        text = out[command]
        assert isinstance(text, gdbrun.GdbFailure) and message in text, (command, text)
