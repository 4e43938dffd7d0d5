"""The wait-for graph on hand-built job states: cycles and their reasons,
ranks blocked on a cycle, ANY_SOURCE as an OR, collectives, Wait calls,
ranks that exited."""

import pytest

from jobdocs import INT, buf, call, comm, doc, intercomm
from mpipp.job.waits import Graph
from mpipp.job.world import RankState, World


def world(docs, gone=None):
    return World({r: RankState(r, d) for r, d in docs.items()}, gone)


def ssend(dest, tag):
    return call("MPI_Ssend", peer=dest, tag=tag, bufs=[buf("buf", 4, INT)])


def recv(source, tag):
    return call("MPI_Recv", peer=source, tag=tag, peer_name="source", bufs=[buf("buf", 4, INT)])


BARRIER = call("MPI_Barrier")


def test_tag_mismatch_cycle_and_ranks_blocked_in_a_barrier():
    g = Graph(world({0: doc(0, 4, [ssend(1, 9)]), 1: doc(1, 4, [recv(0, 10)]),
                     2: doc(2, 4, [BARRIER]), 3: doc(3, 4, [BARRIER])}))
    assert g.cycles == [[0, 1]]
    assert g.deadlocked == [0, 1, 2, 3]
    assert g.edges[(0, 1)].reason == ("rank 0 sends tag 9 to 1; rank 1 waits for tag 10 from 0: "
                                      "no matching receive")
    assert g.edges[(1, 0)].reason == ("rank 1 waits for tag 10 from 0; rank 0 sends tag 9 to 1: "
                                      "no matching send")
    doc_ = g.to_json()
    assert doc_["cycles"] == [[0, 1]]
    assert [(b["rank"], b["waits_for"]) for b in doc_["blocked"]] == [(2, [0, 1]), (3, [0, 1])]
    text = "\n".join(g.lines())
    assert "cycle 0 → 1 → 0" in text
    assert ("[2,3] → 0,1: is in MPI_Barrier on MPI_COMM_WORLD; rank 0 sends tag 9 to 1: has not "
            "arrived; rank 1 waits for tag 10 from 0: has not arrived") in text


def test_a_rank_in_finalize_waits_for_everybody():
    g = Graph(world({0: doc(0, 2, [call("MPI_Finalize")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edges[(1, 0)].reason == ("rank 1 waits for tag 3 from 0; rank 0 is in MPI_Finalize "
                                      "on MPI_COMM_WORLD: no matching send")


def test_file_open_is_collective_over_its_communicator():
    g = Graph(world({0: doc(0, 2, [call("MPI_File_open")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edges[(0, 1)].reason.startswith("rank 0 is in MPI_File_open on MPI_COMM_WORLD")


@pytest.mark.parametrize("function", ["MPI_File_write_all", "MPI_File_read_at_all_c",
                                      "MPI_File_write_ordered_begin", "MPI_File_set_view",
                                      "MPI_File_close"])
def test_collective_file_calls_are_collective_over_the_files_communicator(function):
    g = Graph(world({0: doc(0, 2, [call(function)]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edges[(0, 1)].reason.startswith("rank 0 is in %s on MPI_COMM_WORLD" % function)


def test_independent_file_calls_wait_for_nobody():
    g = Graph(world({0: doc(0, 2, [call("MPI_File_write_at")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [] and (0, 1) not in g.edges


def test_matching_pair_is_no_deadlock():
    g = Graph(world({0: doc(0, 2, [ssend(1, 9)]), 1: doc(1, 2, [recv(0, 9)])}))
    assert g.deadlocked == [] and g.cycles == []
    assert g.lines()[0].startswith("no deadlock")


def test_any_source_is_released_by_any_sender():
    docs = {0: doc(0, 3, [recv(-2, -1)]), 1: doc(1, 3, [recv(0, 5)]), 2: doc(2, 3, [None])}
    g = Graph(world(docs))
    assert g.deadlocked == []           # rank 2 is running: it may still send to 0
    docs[2] = doc(2, 3, [recv(1, 5)])
    g = Graph(world(docs))
    assert g.deadlocked == [0, 1, 2]
    assert g.cycles == [[0, 1]]          # 1 needs 0, 0 needs any of 1, 2


def test_any_tag_and_posted_request_match():
    g = Graph(world({0: doc(0, 2, [ssend(1, 9)]),
                     1: doc(1, 2, [call("MPI_Wait")], requests=[recv(0, -1)], waits=[0])}))
    assert g.deadlocked == []


def test_waitall_on_unmatched_requests():
    irecv = call("MPI_Irecv", peer=1, peer_name="source", tag=3, bufs=[buf("buf", 1, INT)])
    g = Graph(world({0: doc(0, 2, [call("MPI_Waitall")], requests=[irecv], waits=[0]),
                     1: doc(1, 2, [BARRIER])}))
    assert g.cycles == [[0, 1]]
    assert "MPI_Irecv" not in g.edges[(0, 1)].reason
    assert g.edges[(0, 1)].reason.startswith("rank 0 waits for tag 3 from 1")
    assert g.edges[(1, 0)].reason.endswith("has not arrived")


def test_rank_that_exited_blocks_its_peers_without_a_cycle():
    g = Graph(world({0: doc(0, 2, [recv(1, 4)])}, gone={1: "exited with code 0"}))
    assert g.deadlocked == [0] and g.cycles == []
    assert "rank 1 exited with code 0: it will never send" in g.edges[(0, 1)].reason
    assert "[0] → 1: waits for tag 4 from 1; rank 1 exited" in "\n".join(g.lines())


def test_collective_on_a_sub_communicator_waits_for_its_members_only():
    rows = 0x84000002
    sub = {r: comm(rows, "rows", [0, 1], r) for r in (0, 1)}
    g = Graph(world({0: doc(0, 3, [call("MPI_Allreduce", comm=rows)], comms=[sub[0]]),
                     1: doc(1, 3, [ssend(2, 1)], comms=[sub[1]]),
                     2: doc(2, 3, [None])}))
    assert g.deadlocked == []            # 2 runs: it may receive, then 1 joins
    g = Graph(world({0: doc(0, 3, [call("MPI_Allreduce", comm=rows)], comms=[sub[0]]),
                     1: doc(1, 3, [ssend(2, 1)], comms=[sub[1]]),
                     2: doc(2, 3, [BARRIER])}))
    assert g.cycles == [[0, 1, 2]]
    assert "on rows" in g.edges[(0, 1)].reason


def test_multithreaded_rank_is_free_while_one_thread_runs():
    g = Graph(world({0: doc(0, 2, [recv(1, 1), None]), 1: doc(1, 2, [recv(0, 1)])}))
    assert g.deadlocked == []



def test_unknown_state_is_not_called_a_deadlock():
    g = Graph(World({0: RankState(0, doc(0, 2, [recv(1, 1)])),
                     1: RankState(1, None, "gdb died")}))
    assert g.deadlocked == []


def test_point_to_point_across_an_intercommunicator():
    """Groups {0,1} and {2,3} of an intercommunicator: rank 0 sends to
    remote rank 0 (world 2), which waits for it: no deadlock, though each
    group names the intercommunicator from its own side."""
    inter = intercomm(0, [0, 1], [2, 3])
    send = call("MPI_Ssend", comm=inter["handle"], peer=0, tag=7, bufs=[buf("buf", 4, INT)])
    receive = call("MPI_Recv", comm=inter["handle"], peer=0, tag=7, peer_name="source",
                   bufs=[buf("buf", 4, INT)])
    calls = {0: [send], 1: [None], 2: [receive], 3: [None]}
    g = Graph(world({r: doc(r, 4, calls[r], comms=[intercomm(r, [0, 1], [2, 3])])
                     for r in range(4)}))
    assert g.deadlocked == [] and g.cycles == []
