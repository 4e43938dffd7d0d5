"""The `calls` table on hand-built job states: one row per rank group,
peers and tags by name, datatypes and signatures, requests a Wait waits for."""

import dtypes as M
from jobdocs import INT, TYPES, buf, call, doc
from mpipp.job.analysis import calls
from mpipp.job.analysis.world import RankState, World

ROW = 0x8c000003
ROW_TYPES = dict(TYPES) | {ROW: M.contiguous(6, M.DOUBLE, name="row_t")}


def table(docs, gone=None):
    w = World({r: RankState(r, d) for r, d in docs.items()}, gone)
    return [line.split("  ") for line in calls.render(w)], calls.to_json(w)


def cells(line):
    return [c.strip() for c in line if c.strip()]


def test_rows_grouped_by_rank_with_names_and_signatures():
    irecv = call("MPI_Irecv", peer=-2, peer_name="source", tag=-1,
                 bufs=[buf("buf", 2, ROW, name="row_t")])
    sendrecv = call("MPI_Sendrecv", peer=1, tag=3, peer2=0, tag2=4,
                    bufs=[buf("sendbuf", 1, INT), buf("recvbuf", 1, INT)])
    docs = {0: doc(0, 4, [call("MPI_Wait")], requests=[irecv], waits=[0], types=ROW_TYPES),
            1: doc(1, 4, [sendrecv]), 2: doc(2, 4, [None]), 3: doc(3, 4, [None])}
    rows, as_json = table(docs, gone=None)
    assert cells(rows[0]) == ["ranks", "call", "peer", "tag", "comm", "datatype", "signature"]
    assert cells(rows[1])[:2] == ["0", "MPI_Wait"]
    assert cells(rows[2]) == ["waits for MPI_Irecv", "source=MPI_ANY_SOURCE", "MPI_ANY_TAG",
                              "MPI_COMM_WORLD", "row_t", "MPI_DOUBLE×12"]
    assert cells(rows[3]) == ["1", "MPI_Sendrecv", "dest=1, source=0", "3/4", "MPI_COMM_WORLD",
                              "sendbuf: MPI_INT, recvbuf: MPI_INT",
                              "sendbuf: MPI_INT×1; recvbuf: MPI_INT×1"]
    assert cells(rows[4]) == ["2,3", "(not in an MPI call)"]
    assert [g["ranks"] for g in as_json["groups"]] == ["0", "1", "2,3"]
    assert as_json["groups"][0]["calls"][1]["signature"] == "MPI_DOUBLE×12"


def test_ranks_gone_or_unknown():
    w = World({0: RankState(0, None, "gdb died")}, {1: "exited with code 3"})
    lines = calls.render(w)
    assert lines[1].split("  ")[0] == "0" and "(no context: gdb died)" in lines[1]
    assert "(exited with code 3)" in lines[2]


def test_names_are_worded_from_the_documents_data_as_the_ranks_gdbs_word_them():
    """A document that says how each communicator was made (serial,
    creator, parent, how) and a datatype handle with no type: named as
    `mpipp context` names them in each rank's gdb."""
    null = 0x0c000000
    split = {"handle": 0x84000002, "name": None, "serial": 2, "size": 2, "rank": 0,
             "remote_size": 0, "members": [0, 1], "remote_members": None,
             "creator": "MPI_Comm_split", "parent": 0x44000000, "how_name": "color", "how": 1,
             "predefined": False}
    bcast = call("MPI_Bcast", comm=0x84000002, peer=0, peer_name="root",
                 bufs=[buf("buffer", 1, null)])
    docs = {r: doc(r, 2, [bcast], comms=[dict(split, rank=r)]) for r in (0, 1)}
    for d in docs.values():
        d["constants"] = dict(d["constants"], MPI_DATATYPE_NULL=null)
    rows, _doc = table(docs)
    assert cells(rows[1])[4:6] == ["comm#2 [split of MPI_COMM_WORLD (color 1), 2 ranks]",
                                   "MPI_DATATYPE_NULL"]
