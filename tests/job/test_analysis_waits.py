"""The wait-for graph on hand-built job states: cycles and their reasons,
ranks blocked on a cycle, ANY_SOURCE as an OR, collectives, Wait calls,
ranks that exited; messages in flight (libmpireg's channel counters),
stopped and polling ranks against blocked ones, eager sends, collectives
matched by their number, RMA synchronisation, calls the model does not
know."""

import pytest

from jobdocs import INT, NO_PEER, buf, call, comm, counter, doc, intercomm, message
from mpipp.job.analysis.check import check
from mpipp.job.analysis.waits.report import Graph
from mpipp.job.analysis.world import RankState, Stop, World


def world(docs, gone=None, stops=None):
    return World({r: RankState(r, d) for r, d in docs.items()}, gone, stops)


def ssend(dest, tag, seq=None):
    return call("MPI_Ssend", peer=dest, tag=tag, bufs=[buf("buf", 4, INT)], seq=seq)


def send(dest, tag, function="MPI_Send", count=4):
    return call(function, peer=dest, tag=tag, bufs=[buf("buf", count, INT)])


def recv(source, tag, function="MPI_Recv"):
    return call(function, peer=source, tag=tag, peer_name="source", bufs=[buf("buf", 4, INT)])


BARRIER = call("MPI_Barrier")


def at_breakpoint(function="PMPI_Recv", number="1"):
    return Stop("stopped", thread=1, reason="breakpoint-hit", function=function,
                breakpoint=number)


def test_tag_mismatch_cycle_and_ranks_blocked_in_a_barrier():
    g = Graph(world({0: doc(0, 4, [ssend(1, 9)]), 1: doc(1, 4, [recv(0, 10)]),
                     2: doc(2, 4, [BARRIER]), 3: doc(3, 4, [BARRIER])}))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]
    assert g.deadlocked == [0, 1, 2, 3]
    assert g.edge(0, 1).reason == ("rank 0 sends tag 9 to 1 (MPI_Ssend); rank 1 waits for tag "
                                   "10 from 0: no matching receive")
    assert g.edge(1, 0).reason == ("rank 1 waits for tag 10 from 0; rank 0 sends tag 9 to 1 "
                                   "(MPI_Ssend): no matching send")
    doc_ = g.to_json()
    assert doc_["cycles"] == [[0, 1]] and doc_["deadlock"] and doc_["verdict"] == "deadlock"
    assert [(b["rank"], b["waits_for"]) for b in doc_["blocked"]] == [(2, "0,1"), (3, "0,1")]
    text = "\n".join(g.lines())
    assert text.startswith("deadlock: 4 ranks blocked for good, 1 cycle\n")
    assert "cycle 0 → 1 → 0" in text
    assert ("[2,3] → 0,1: is in MPI_Barrier on MPI_COMM_WORLD; rank 0 sends tag 9 to 1 "
            "(MPI_Ssend): has not arrived; rank 1 waits for tag 10 from 0: has not arrived") in text


def test_a_rank_in_finalize_waits_for_everybody_but_those_that_exited_normally():
    g = Graph(world({0: doc(0, 2, [call("MPI_Finalize")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edge(1, 0).reason == ("rank 1 waits for tag 3 from 0; rank 0 is in MPI_Finalize "
                                   "on MPI_COMM_WORLD: it will never call MPI again")
    g = Graph(world({1: doc(1, 2, [call("MPI_Finalize")])}, gone={0: "exited normally"}))
    assert g.verdict == "no deadlock"
    g = Graph(world({1: doc(1, 2, [call("MPI_Finalize")])}, gone={0: "killed by SIGSEGV"}))
    assert g.verdict == "deadlock" and g.deadlocked == [1]


def test_file_open_is_collective_over_its_communicator():
    g = Graph(world({0: doc(0, 2, [call("MPI_File_open")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.startswith("rank 0 is in MPI_File_open on MPI_COMM_WORLD")


@pytest.mark.parametrize("function", ["MPI_File_write_all", "MPI_File_read_at_all_c",
                                      "MPI_File_write_ordered_begin", "MPI_File_set_view",
                                      "MPI_File_close"])
def test_collective_file_calls_are_collective_over_the_files_communicator(function):
    g = Graph(world({0: doc(0, 2, [call(function)]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.startswith("rank 0 is in %s on MPI_COMM_WORLD" % function)


def test_independent_file_calls_wait_for_nobody():
    g = Graph(world({0: doc(0, 2, [call("MPI_File_write_at")]), 1: doc(1, 2, [recv(0, 3)])}))
    assert g.cycles == [] and g.verdict == "no deadlock"


def test_matching_pair_is_no_deadlock():
    g = Graph(world({0: doc(0, 2, [ssend(1, 9)]), 1: doc(1, 2, [recv(0, 9)])}))
    assert g.deadlocked == [] and g.cycles == []
    assert g.lines()[0] == "no deadlock yet: every rank can progress (ranks 0,1)"


def test_any_source_is_released_by_any_sender():
    docs = {0: doc(0, 3, [recv(-2, -1)]), 1: doc(1, 3, [recv(0, 5)]), 2: doc(2, 3, [None])}
    g = Graph(world(docs))
    assert g.deadlocked == []           # rank 2 is running: it may still send to 0
    docs[2] = doc(2, 3, [recv(1, 5)])
    g = Graph(world(docs))
    assert g.deadlocked == [0, 1, 2]
    assert g.cycles == [[0, 1]]          # 1 needs 0, 0 needs any of 1, 2
    assert g.edge(0, 1).reason == ("rank 0 waits for any tag from any rank; rank 1 waits for "
                                   "tag 5 from 0: no matching send")
    doc_ = g.to_json()
    assert doc_["group_waits"] == [{"from": 0, "group": 0, "what": "waits for any tag from any "
                                    "rank", "function": "MPI_Recv"}]
    assert doc_["groups"] == {"0": {"mode": "any", "members": "0-2"}}


def test_any_source_everywhere_is_one_group_not_ranks_squared():
    n = 64
    g = Graph(world({r: doc(r, n, [recv(-2, 1)]) for r in range(n)}))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]] and len(g.deadlocked) == n
    assert len(g.groups) == 1
    text = g.lines()
    assert text[:2] == ["deadlock: 64 ranks blocked for good, 1 cycle", "cycle 0 → 1 → 0"]
    assert ("  [2-63] → any of 0-63: waits for tag 1 from any rank; ranks 0-63: no matching "
            "send") in text


def test_any_tag_and_posted_request_match():
    g = Graph(world({0: doc(0, 2, [ssend(1, 9)]),
                     1: doc(1, 2, [call("MPI_Wait")], requests=[recv(0, -1)], waits=[0])}))
    assert g.deadlocked == []


def test_waitall_on_unmatched_requests():
    irecv = call("MPI_Irecv", peer=1, peer_name="source", tag=3, bufs=[buf("buf", 1, INT)])
    g = Graph(world({0: doc(0, 2, [call("MPI_Waitall")], requests=[irecv], waits=[0]),
                     1: doc(1, 2, [BARRIER])}))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.startswith("rank 0 waits for tag 3 from 1 (MPI_Irecv)")
    assert g.edge(1, 0).reason.endswith("has not arrived")


def test_rank_that_exited_blocks_its_peers_without_a_cycle():
    g = Graph(world({0: doc(0, 2, [recv(1, 4)])}, gone={1: "exited with code 0"}))
    assert g.deadlocked == [0] and g.cycles == []
    assert "[0] → 1: waits for tag 4 from 1; rank 1 exited with code 0: it will never send" in \
        "\n".join(g.lines())


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
    assert "on rows" in g.edge(0, 1).reason


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
    sends = call("MPI_Ssend", comm=inter["handle"], peer=0, tag=7, bufs=[buf("buf", 4, INT)])
    receive = call("MPI_Recv", comm=inter["handle"], peer=0, tag=7, peer_name="source",
                   bufs=[buf("buf", 4, INT)])
    calls = {0: [sends], 1: [None], 2: [receive], 3: [None]}
    g = Graph(world({r: doc(r, 4, calls[r], comms=[intercomm(r, [0, 1], [2, 3])])
                     for r in range(4)}))
    assert g.deadlocked == [] and g.cycles == []


# -- messages in flight -------------------------------------------------------

def blacs(stops=None):
    """ScaLAPACK/BLACS, 4 ranks: every rank's Isend completed (eagerly)
    before it receives; the receives form the cycle 0 → 2 → 3 → 1 → 0."""
    sources = {0: 2, 2: 3, 3: 1, 1: 0}
    dests = {v: k for k, v in sources.items()}
    return world({r: doc(r, 4, [recv(sources[r], 9976)],
                         channels=[message(dests[r], 9976, sent=1),
                                   message(sources[r], 9976, received=0)])
                  for r in range(4)}, stops=stops)


def test_messages_in_flight_release_their_receives():
    g = Graph(blacs({r: at_breakpoint() for r in range(4)}))
    assert g.verdict == "no deadlock" and g.cycles == []
    text = g.lines()
    assert text[0] == "no deadlock yet: every rank can progress (ranks 0-3)"
    assert "  2 → 0 tag 9976 on MPI_COMM_WORLD: 1 message, for rank 0's MPI_Recv" in text
    assert "  [0-3] stopped at breakpoint 1, entry of MPI_Recv" in text
    assert {(m["from"], m["to"]) for m in g.to_json()["in_flight"]} == {(2, 0), (3, 2), (1, 3),
                                                                          (0, 1)}


def test_received_messages_are_not_in_flight():
    g = Graph(world({r: doc(r, 2, [recv(1 - r, 5)], channels=[message(1 - r, 5, sent=3,
                                                                       received=3)])
                     for r in range(2)}))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]


def test_a_message_in_flight_goes_to_the_receive_posted_first():
    """Rank 1 posted an Irecv from 0 before its Recv from 0: the one message
    in flight completes the Irecv, not the Recv."""
    irecv = call("MPI_Irecv", peer=0, peer_name="source", tag=5, bufs=[buf("buf", 1, INT)])
    docs = {0: doc(0, 2, [recv(1, 6)], channels=[message(1, 5, sent=1)]),
            1: doc(1, 2, [recv(0, 5)], requests=[irecv])}
    g = Graph(world(docs))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]
    docs[0] = doc(0, 2, [recv(1, 6)], channels=[message(1, 5, sent=2)])
    assert Graph(world(docs)).verdict == "no deadlock"


def test_a_wildcard_receive_counts_messages_from_every_sender():
    docs = {0: doc(0, 3, [recv(-2, 4)]),
            1: doc(1, 3, [recv(0, 1)], channels=[message(0, 4, sent=1)]),
            2: doc(2, 3, [recv(0, 1)])}
    assert Graph(world(docs)).verdict == "no deadlock"
    docs[0] = doc(0, 3, [recv(-2, 4)], channels=[message(1, 4, received=1)])
    assert Graph(world(docs)).verdict == "deadlock"


def test_a_synchronous_send_the_receiver_already_matched_is_returning():
    g = Graph(world({0: doc(0, 2, [ssend(1, 5, seq=1)]),
                     1: doc(1, 2, [BARRIER], channels=[message(0, 5, received=1)])}))
    assert g.verdict == "no deadlock"


def test_a_sender_without_counts_is_never_called_deadlocked():
    """Rank 0 freed the communicator (its counts are gone) or its table of
    channels was full: its messages may be in flight."""
    rows = 0x84000002
    g = Graph(world({0: doc(0, 2, [recv(1, 1)]),
                     1: doc(1, 2, [recv(0, 1, "MPI_Recv")], comms=[comm(rows, "rows", [0, 1], 1)])}))
    assert g.verdict == "deadlock"
    on_rows = call("MPI_Recv", comm=rows, peer=0, tag=1, peer_name="source")
    g = Graph(world({0: doc(0, 2, [recv(1, 1)]),
                     1: doc(1, 2, [on_rows], comms=[comm(rows, "rows", [0, 1], 1)])}))
    assert g.verdict == "no deadlock"
    g = Graph(world({0: doc(0, 2, [recv(1, 1)], unrecorded=1), 1: doc(1, 2, [recv(0, 1)])}))
    assert g.verdict == "no deadlock"


# -- stopped, polling, eager --------------------------------------------------

def test_ranks_stopped_before_their_calls_block_would_deadlock():
    docs = {0: doc(0, 2, [ssend(1, 9)]), 1: doc(1, 2, [recv(0, 10)])}
    g = Graph(world(docs, stops={1: at_breakpoint()}))
    assert g.verdict == "would deadlock" and g.cycles == [[0, 1]]
    text = g.lines()
    assert text[0] == "would deadlock if every rank continued: 2 ranks, 1 cycle"
    assert text[1] == "  (rank 1 is stopped before its call blocked)"
    assert "  [1] stopped at breakpoint 1, entry of MPI_Recv" in text
    assert g.to_json()["stopped"] == {"1": "stopped at breakpoint 1, entry of MPI_Recv"}


def test_a_breakpoint_outside_mpi_is_no_deadlock_yet():
    stop = Stop("stopped", thread=1, reason="breakpoint-hit", function="compute")
    g = Graph(world({0: doc(0, 2, [None]), 1: doc(1, 2, [recv(0, 10)])}, stops={0: stop}))
    assert g.verdict == "no deadlock"
    assert g.to_json()["stopped"] == {"0": "stopped at breakpoint ?, in compute"}


def test_the_other_threads_of_a_stopped_rank_are_blocked():
    stop = Stop("stopped", thread=2, reason="breakpoint-hit", function="compute")
    g = Graph(world({0: doc(0, 2, [recv(1, 3), recv(1, 4)]), 1: doc(1, 2, [recv(0, 5)])},
                    stops={0: stop}))
    assert g.verdict == "would deadlock"    # thread 2 (stopped) would block too
    assert g.to_json()["stopped"] == {"0": "stopped at breakpoint ?, in compute"}


def test_standard_sends_depend_on_the_eager_threshold():
    docs = {r: doc(r, 2, [send(1 - r, 1)]) for r in range(2)}
    g = Graph(world(docs, stops={r: at_breakpoint("PMPI_Send") for r in range(2)}))
    text = g.lines()
    assert text[0] == ("would deadlock if every rank continued, unless the MPI sends "
                       "standard-mode messages eagerly: 2 ranks, 1 cycle")
    assert ("  depends on the MPI's eager threshold: rank 0 MPI_Send of 16 bytes, rank 1 "
            "MPI_Send of 16 bytes would complete without their receives if sent eagerly") in text
    assert g.to_json()["eager"] == ["rank 0 MPI_Send of 16 bytes", "rank 1 MPI_Send of 16 bytes"]
    g = Graph(world(docs))                  # interrupted inside MPI_Send: not sent eagerly
    assert g.verdict == "deadlock"
    docs = {r: doc(r, 2, [send(1 - r, 1, "MPI_Bsend")]) for r in range(2)}
    assert Graph(world(docs)).verdict == "no deadlock"


def test_a_rank_polling_with_test_waits_for_its_request():
    irecv = call("MPI_Irecv", peer=1, peer_name="source", tag=3, bufs=[buf("buf", 1, INT)])
    docs = {0: doc(0, 2, [call("MPI_Test")], requests=[irecv], waits=[0], polling=[0]),
            1: doc(1, 2, [recv(0, 4)])}
    g = Graph(world(docs))
    assert g.verdict == "would deadlock" and g.cycles == [[0, 1]]
    text = g.lines()
    assert "  (rank 0 is polling)" in text
    assert "  [0] polls with MPI_Test (its last call, which found nothing)" in text
    docs[0]["threads"][0].update(polling=False, in_mpi=True)   # one Test, inside MPI
    assert Graph(world(docs)).verdict == "no deadlock"


def test_a_rank_polling_with_iprobe():
    probe = call("MPI_Iprobe", peer=1, tag=3, peer_name="source")
    g = Graph(world({0: doc(0, 2, [probe], polling=[0]), 1: doc(1, 2, [recv(0, 4)])}))
    assert g.verdict == "would deadlock" and g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.startswith("rank 0 probes for tag 3 from 1 (MPI_Iprobe)")


# -- collectives by their number ----------------------------------------------

def bcast(seq, root=0):
    return call("MPI_Bcast", peer=root, peer_name="root", seq=seq,
                bufs=[buf("buffer", 1, INT)])


def test_a_root_that_left_its_bcast_has_arrived():
    """The root's Bcast returned (it issued one collective); rank 1 is in
    it, the root waits for a message from 1: no deadlock."""
    docs = {0: doc(0, 2, [recv(1, 1)], channels=[counter("collectives", sent=1)]),
            1: doc(1, 2, [bcast(1)])}
    assert Graph(world(docs)).verdict == "no deadlock"
    docs[0] = doc(0, 2, [recv(1, 1)])                 # it did not: a deadlock
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(1, 0).reason.endswith(": has not arrived")


def test_different_collectives_at_the_same_point_deadlock():
    g = Graph(world({0: doc(0, 2, [bcast(2)], channels=[counter("collectives", sent=1)]),
                     1: doc(1, 2, [call("MPI_Barrier", seq=2)],
                            channels=[counter("collectives", sent=1)])}))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.endswith("is in MPI_Barrier on MPI_COMM_WORLD: different "
                                        "collectives at that point: 0 MPI_Bcast; 1 MPI_Barrier")


# -- one verdict: what check finds wrong in a collective blocks it for good -----

COLLECTIVES = [counter("collectives", sent=0)]


def reduce_(root, seq=1, op="MPI_SUM"):
    return call("MPI_Reduce", peer=root, peer_name="root", seq=seq, op=op,
                bufs=[buf("sendbuf", 1, INT), buf("recvbuf", 1, INT)])


def test_ranks_in_one_reduce_with_different_roots_are_blocked_for_good():
    g = Graph(world({r: doc(r, 2, [reduce_(r)], channels=COLLECTIVES) for r in range(2)}))
    assert g.verdict == "deadlock" and g.deadlocked == [0, 1] and g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason == (
        "rank 0 is in MPI_Reduce on MPI_COMM_WORLD; rank 1 is in MPI_Reduce on MPI_COMM_WORLD: "
        "ranks disagree on the root: 0 root 0; 1 root 1")
    twin = Graph(world({r: doc(r, 2, [reduce_(0)], channels=COLLECTIVES) for r in range(2)}))
    assert twin.verdict == "no deadlock"


def test_ranks_in_one_reduction_with_different_ops_are_no_deadlock():
    """MPICH and Open MPI both complete an MPI_Allreduce or MPI_Reduce whose
    ranks give different ops (with wrong data): check's error, no hang."""
    docs = {r: doc(r, 2, [reduce_(0, op="MPI_MAX" if r else "MPI_SUM")], channels=COLLECTIVES)
            for r in range(2)}
    assert Graph(world(docs)).verdict == "no deadlock"
    assert [f.message for f in check(world(docs)).errors] == [
        "MPI_Reduce on MPI_COMM_WORLD: ranks disagree on the op: 0 op MPI_SUM; 1 op MPI_MAX"]


def test_a_nonblocking_and_a_blocking_collective_at_the_same_number():
    """Rank 0 waits on its MPI_Ibarrier (the first collective on the
    communicator: counted when posted), rank 1 is in MPI_Scatter, its first:
    one collective, two kinds."""
    scatter = call("MPI_Scatter", peer=0, peer_name="root",
                   bufs=[buf("sendbuf", 1, INT), buf("recvbuf", 1, INT)])
    docs = {0: doc(0, 2, [call("MPI_Wait")], requests=[call("MPI_Ibarrier", seq=1)], waits=[0],
                   channels=[counter("collectives", sent=1)]),
            1: doc(1, 2, [scatter], channels=COLLECTIVES)}
    g = Graph(world(docs))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason == (
        "rank 0 is in MPI_Ibarrier on MPI_COMM_WORLD; rank 1 is in MPI_Scatter on "
        "MPI_COMM_WORLD: different collectives at that point: 0 MPI_Ibarrier; 1 MPI_Scatter")
    assert check(world(docs)).errors[0].message == (
        "different collectives on MPI_COMM_WORLD: 0 MPI_Ibarrier; 1 MPI_Scatter")


def test_nonblocking_collectives_are_matched_by_issue_order():
    """Both ranks in MPI_Wait: rank 0 on an MPI_Iallreduce, rank 1 on an
    MPI_Ibcast, each its first collective on MPI_COMM_WORLD."""
    def waiting_on(rank, function, seq=1):
        return doc(rank, 2, [call("MPI_Wait")], requests=[call(function, seq=seq)], waits=[0],
                   channels=[counter("collectives", sent=seq)])
    g = Graph(world({0: waiting_on(0, "MPI_Iallreduce"), 1: waiting_on(1, "MPI_Ibcast")}))
    assert g.verdict == "deadlock" and g.deadlocked == [0, 1]
    assert "different collectives at that point: 0 MPI_Iallreduce; 1 MPI_Ibcast" in \
        g.edge(0, 1).reason
    twin = Graph(world({r: waiting_on(r, "MPI_Iallreduce") for r in range(2)}))
    assert twin.verdict == "no deadlock"


def test_disagreeing_ranks_stopped_at_their_calls():
    """Stopped at the entry of their calls (a breakpoint), the ranks have
    not blocked yet.  Different collectives never match: 'would deadlock'.
    Different roots hang some collectives and not others (MPI_Bcast sent
    eagerly both ways returns): no verdict until the ranks are found
    blocked inside."""
    stops = {r: at_breakpoint("PMPI_Reduce") for r in range(2)}
    g = Graph(world({0: doc(0, 2, [reduce_(0)], channels=COLLECTIVES),
                     1: doc(1, 2, [call("MPI_Barrier", seq=1)], channels=COLLECTIVES)},
                    stops=stops))
    assert g.verdict == "would deadlock" and g.deadlocked == [0, 1]
    g = Graph(world({r: doc(r, 2, [reduce_(r)], channels=COLLECTIVES) for r in range(2)},
                    stops=stops))
    assert g.verdict == "no deadlock"


def test_a_peer_in_finalize_never_sends():
    """Rank 1 is in MPI_Finalize, stopped at its entry: rank 0's receive
    from it is blocked for good all the same."""
    g = Graph(world({0: doc(0, 2, [recv(1, 3)]), 1: doc(1, 2, [call("MPI_Finalize")])},
                    stops={1: at_breakpoint("PMPI_Finalize")}))
    assert g.verdict == "deadlock" and g.deadlocked == [0]
    text = g.lines()
    assert text[0] == "deadlock: 1 rank blocked for good, 0 cycles"
    assert "blocked:" in text
    assert ("  [0] → 1: waits for tag 3 from 1; rank 1 is in MPI_Finalize on MPI_COMM_WORLD: "
            "it will never call MPI again") in text
    # its twin: the send came before MPI_Finalize, it is in flight
    twin = Graph(world({0: doc(0, 2, [recv(1, 3)]),
                        1: doc(1, 2, [call("MPI_Finalize")], channels=[message(0, 3, sent=1)])}))
    assert twin.verdict == "no deadlock"


def test_a_send_to_a_rank_in_finalize():
    """A synchronous send never completes; a standard one does when the MPI
    sends it eagerly: the verdict says it depends on that."""
    g = Graph(world({0: doc(0, 2, [ssend(1, 3)]), 1: doc(1, 2, [call("MPI_Finalize")])},
                    stops={1: at_breakpoint("PMPI_Finalize")}))
    assert g.verdict == "deadlock" and g.deadlocked == [0]
    g = Graph(world({0: doc(0, 2, [send(1, 3)]), 1: doc(1, 2, [call("MPI_Finalize")])},
                    stops={1: at_breakpoint("PMPI_Finalize")}))
    assert g.verdict == "would deadlock" and g.eager_saved == [0, 1]
    assert g.edge(0, 1).reason.endswith("rank 1 is in MPI_Finalize on MPI_COMM_WORLD: it will "
                                        "never call MPI again")


def test_a_root_in_finalize_never_arrives():
    docs = {0: doc(0, 2, [bcast(1, root=1)], channels=COLLECTIVES),
            1: doc(1, 2, [call("MPI_Finalize")], channels=COLLECTIVES)}
    g = Graph(world(docs))
    assert g.verdict == "deadlock" and g.deadlocked == [0, 1]
    assert g.edge(0, 1).reason == ("rank 0 is in MPI_Bcast on MPI_COMM_WORLD; rank 1 is in "
                                   "MPI_Finalize on MPI_COMM_WORLD: it will never call MPI again")
    assert check(world(docs)).notes == ["MPI_Bcast on MPI_COMM_WORLD (root 1): not checked: the "
                                        "root is in MPI_Finalize (rank 0 is in it)"]


def test_a_collective_with_a_member_gone_is_blocked_for_good():
    allreduce = call("MPI_Allreduce", seq=1, op="MPI_SUM",
                     bufs=[buf("sendbuf", 1, INT), buf("recvbuf", 1, INT)])
    g = Graph(world({0: doc(0, 2, [allreduce], channels=COLLECTIVES)},
                    gone={1: "exited normally"}))
    assert g.verdict == "deadlock" and g.deadlocked == [0]
    text = g.lines()
    assert "blocked on ranks that exited:" in text
    assert "  [0] → 1: is in MPI_Allreduce on MPI_COMM_WORLD; rank 1 exited normally: it will " \
        "never arrive" in text


def test_an_ended_job_is_said_to_have_ended():
    g = Graph(world({}, gone={0: "exited normally", 1: "exited with code 3"}))
    assert g.verdict == "no deadlock" and g.to_json()["ended"]
    assert g.lines()[0] == "no deadlock: the job has ended (every rank exited)"


def test_a_nonblocking_collective_waits_for_every_member():
    ibarrier = call("MPI_Ibarrier", seq=1)
    docs = {0: doc(0, 2, [call("MPI_Wait")], requests=[ibarrier], waits=[0],
                   channels=[counter("collectives", sent=1)]),
            1: doc(1, 2, [recv(0, 1)])}
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.startswith("rank 0 is in MPI_Ibarrier on MPI_COMM_WORLD")
    docs[1] = doc(1, 2, [recv(0, 1)], requests=[call("MPI_Ibarrier", seq=1)],
                  channels=[counter("collectives", sent=1)])
    assert Graph(world(docs)).verdict == "no deadlock"  # 1 posted it: 0 goes on, may send


def test_comm_create_group_waits_for_its_group():
    g = Graph(world({0: doc(0, 3, [call("MPI_Comm_create_group", group=[0, 1], tag=1)]),
                     1: doc(1, 3, [recv(0, 1)]), 2: doc(2, 3, [recv(0, 2)])}))
    assert g.cycles == [[0, 1]] and g.deadlocked == [0, 1, 2]


# -- RMA ----------------------------------------------------------------------

WIN = 0xa0000000


def test_a_fence_waits_for_the_windows_group():
    fence = call("MPI_Win_fence", seq=1, win=WIN)
    docs = {0: doc(0, 2, [fence], channels=[counter("fences", handle=WIN, scope=0x44000000)]),
            1: doc(1, 2, [recv(0, 1)], channels=[counter("fences", handle=WIN,
                                                         scope=0x44000000)])}
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.endswith("has not reached the fence")
    docs[1] = doc(1, 2, [recv(0, 1)], channels=[counter("fences", sent=1, handle=WIN,
                                                        scope=0x44000000)])
    assert Graph(world(docs)).verdict == "no deadlock"   # 1 passed the fence


def test_a_lock_waits_for_its_holders():
    """Rank 0 holds an exclusive lock on rank 2's window and waits for a
    message from 1; rank 1 waits in MPI_Win_unlock for that lock."""
    held = counter("locks_exclusive", sent=1, handle=WIN, peer=2, scope=0x44000000)
    mine = counter("locks_exclusive", sent=1, handle=WIN, peer=2, scope=0x44000000)
    docs = {0: doc(0, 3, [recv(1, 1)], channels=[held]),
            1: doc(1, 3, [call("MPI_Win_unlock", peer=2, win=WIN, group=[2])], channels=[mine]),
            2: doc(2, 3, [None])}
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(1, 0).reason.endswith("holds an exclusive lock on rank 2's window")
    docs[0] = doc(0, 3, [recv(1, 1)], channels=[counter("locks_exclusive", sent=1, received=1,
                                                        handle=WIN, peer=2, scope=0x44000000)])
    assert Graph(world(docs)).verdict == "no deadlock"   # 0 unlocked


def test_pscw_epochs_wait_for_their_peers():
    starts = counter("starts", sent=1, handle=WIN, peer=1, scope=0x44000000)
    docs = {0: doc(0, 2, [call("MPI_Win_complete", win=WIN, group=[1])], channels=[starts]),
            1: doc(1, 2, [recv(0, 1)], channels=[counter("posts", handle=WIN, peer=0,
                                                         scope=0x44000000)])}
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(0, 1).reason.endswith("has not posted this epoch (MPI_Win_post)")
    posts = counter("posts", sent=1, handle=WIN, peer=0, scope=0x44000000)
    docs = {0: doc(0, 2, [recv(1, 1)], channels=[counter("starts", sent=1, handle=WIN, peer=1,
                                                         scope=0x44000000)]),
            1: doc(1, 2, [call("MPI_Win_wait", win=WIN, group=[0])], channels=[posts])}
    g = Graph(world(docs))
    assert g.cycles == [[0, 1]]
    assert g.edge(1, 0).reason.endswith(
        "has not completed its access epoch (MPI_Win_complete)")


def test_calls_the_model_does_not_know_are_named():
    g = Graph(world({0: doc(0, 2, [call("MPI_Intercomm_create")]), 1: doc(1, 2, [recv(0, 1)])}))
    assert g.verdict == "no deadlock"
    assert "not modelled: rank 0 is in MPI_Intercomm_create (taken as able to complete)" in \
        g.lines()
    assert g.to_json()["unmodelled"] == {"0": ["MPI_Intercomm_create"]}


def test_no_peer_constant_reads_as_none():
    state = RankState(0, doc(0, 1, [None], channels=[counter("collectives", sent=3)]))
    assert state.counter(0x44000000, None, "collectives").sent == 3 and NO_PEER < 0


def test_ranks_free_now_that_would_deadlock_if_continued_are_said_too():
    """Ranks 0 and 1 are blocked for good; ranks 2 and 3, stopped at their
    receives, would deadlock too if they continued."""
    docs = {0: doc(0, 4, [recv(1, 1)]), 1: doc(1, 4, [recv(0, 1)]),
            2: doc(2, 4, [recv(3, 1)]), 3: doc(3, 4, [recv(2, 1)])}
    g = Graph(world(docs, stops={2: at_breakpoint(), 3: at_breakpoint()}))
    assert g.verdict == "deadlock" and g.deadlocked == [0, 1] and g.also == [2, 3]
    assert "would also deadlock if every rank continued: ranks 2,3" in g.lines()


def test_a_blocking_call_is_the_next_of_its_channel():
    """libmpireg counts a blocking send once it has left MPI: while rank 0
    is in its MPI_Ssend it is message 3 of the channel (2 counted), which
    rank 1 has already received: the send is returning."""
    g = Graph(world({0: doc(0, 2, [ssend(1, 5)], channels=[message(1, 5, sent=2)]),
                     1: doc(1, 2, [BARRIER], channels=[message(0, 5, received=3)])}))
    assert g.verdict == "no deadlock"
    g = Graph(world({0: doc(0, 2, [ssend(1, 5)], channels=[message(1, 5, sent=3)]),
                     1: doc(1, 2, [BARRIER], channels=[message(0, 5, received=3)])}))
    assert g.verdict == "deadlock" and g.cycles == [[0, 1]]


def test_a_rank_stopped_while_libmpireg_rewrites_a_slot_is_torn():
    """The slot of a thread stopped between two polls is torn: its call
    cannot be read, so the rank is marked (until-hang runs it on a moment
    and stops it again rather than judge it able to progress)."""
    whole = doc(0, 2, calls=[recv(1, 3)])
    torn = doc(0, 2, calls=[None])
    torn["threads"][0]["torn"] = True
    assert not RankState(0, whole).torn
    assert RankState(0, torn).torn
