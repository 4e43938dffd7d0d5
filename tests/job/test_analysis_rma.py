"""job/analysis/rma.py (gdb-free): the target region of every rank's one-sided
operations, found in the target rank's document (the window on the same
communicator, created in the same order) and decoded from its bytes."""

import struct

from jobdocs import DOUBLE, WORLD, call, doc
from mpipp.job.analysis import rma
from mpipp.job.analysis.world import RankState, World

DUP = 0x84000001


def window(handle, serial, base, flavor="create", comm=DUP):
    return {"handle": handle, "label": "win#%d" % serial, "serial": serial, "comm": comm,
            "flavor": flavor, "base": base, "size": 64, "disp_unit": 8, "rank": 0,
            "members": [0, 1], "regions": []}


def rank_doc(rank, calls, wins):
    d = doc(rank, 2, calls, comms=[{"handle": DUP, "name": None, "size": 2, "rank": rank,
                                    "remote_size": 0, "members": [0, 1],
                                    "remote_members": None, "creator": "MPI_Comm_dup",
                                    "parent": WORLD, "predefined": False}])
    d["wins"] = wins
    return d


def get(target, disp, win):
    c = call("MPI_Get", comm=DUP, peer=target, peer_name="target_rank")
    c.update(win=win, target={"rank": target, "disp": disp, "count": 2, "datatype": DOUBLE,
                              "type": "MPI_DOUBLE"})
    return c


def test_target_is_the_window_created_in_the_same_order_on_the_target():
    # rank 0 gets from rank 1's second window on the dup; rank 1's handles differ
    w0 = [window(0xa1, 1, 0x1000), window(0xa2, 2, 0x2000)]
    w1 = [window(0xb1, 3, 0x5000), window(0xb2, 7, 0x6000),
          window(0xb3, 9, 0x7000, comm=WORLD)]
    world = World({0: RankState(0, rank_doc(0, [get(1, 3, 0xa2)], w0)),
                   1: RankState(1, rank_doc(1, [None], w1))})
    (t,) = rma.targets(world, [0, 1])
    assert (t.origin, t.target, t.error, t.count) == (0, 1, None, 2)
    assert t.address == 0x6000 + 3 * 8
    assert rma.span(t.datatype, t.count) == (0, 16)
    data = struct.pack("<2d", 1.5, -2.0)
    assert list(rma.decode_lines(t, data, 0, None)) == ["[0] = 1.5", "[1] = -2"]
    assert rma.heading(t) == ("rank 0: MPI_Get, target rank 1 of win#2, disp 3: MPI_DOUBLE × 2 "
                              "at 0x6018 on rank 1")


def test_what_cannot_be_found_is_said():
    w0 = [window(0xa1, 1, 0x1000, flavor="dynamic")]
    world = World({0: RankState(0, rank_doc(0, [get(1, 0x1008, 0xa1), get(5, 0, 0xa1),
                                                get(1, 0, 0xdead)], w0)),
                   1: RankState(1, rank_doc(1, [None], []))})
    found = rma.targets(world, [0])
    assert [t.error for t in found] == ["rank 1 has no matching window",
                                        "target rank 5 is not in the window's group",
                                        "its window is not recorded"]
