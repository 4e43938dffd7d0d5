"""Cross-rank type checks on hand-built job states: collectives against the
root or every peer, v variants per peer, send/receive pairs as prefixes,
with the type-tree path of the first differing element on both sides."""

import dtypes as M
from jobdocs import CONSTANTS, DOUBLE, INT, TYPES, buf, call, doc, intercomm, message
from mpipp.job.analysis.check import check
from mpipp.job.analysis.world import RankState, World

PARTICLE, WIRE = 0x8c000001, 0x8c000002
STRUCTS = dict(TYPES) | {PARTICLE: M.struct([1, 2], [0, 8], [M.INT, M.DOUBLE]),
                          WIRE: M.struct([2, 1], [0, 8], [M.INT, M.DOUBLE])}


def world(docs):
    return World({r: RankState(r, d) for r, d in docs.items()})


def bcast(count, datatype=INT, root=0):
    return call("MPI_Bcast", peer=root, peer_name="root", bufs=[buf("buffer", count, datatype)])


def messages(w):
    report = check(w)
    return [f.message for f in report.errors], {"collectives": report.collectives,
                                                "pairs": report.pairs}


def test_bcast_count_mismatch_names_rank_and_path():
    w = world({r: doc(r, 4, [bcast(3 if r == 2 else 4)]) for r in range(4)})
    found, counts = messages(w)
    assert counts == {"collectives": 1, "pairs": 0}
    assert found == ["MPI_Bcast on MPI_COMM_WORLD (root 0): rank 2 has 3 elements, rank 0 4: "
                     "rank 0 [3] MPI_INT has no counterpart on rank 2"]


def test_bcast_type_mismatch_and_root_disagreement():
    w = world({r: doc(r, 2, [bcast(2, DOUBLE if r else INT)]) for r in range(2)})
    assert messages(w)[0] == ["MPI_Bcast on MPI_COMM_WORLD (root 0): rank 1 [0] MPI_DOUBLE vs "
                              "rank 0 [0] MPI_INT"]
    w = world({r: doc(r, 2, [bcast(2, root=r)]) for r in range(2)})
    assert messages(w)[0] == ["MPI_Bcast on MPI_COMM_WORLD: ranks disagree on the root: "
                              "0 root 0; 1 root 1"]


def test_rooted_collective_waits_for_its_root():
    w = world({r: doc(r, 4, [bcast(3 if r == 2 else 4) if r >= 2 else None]) for r in range(4)})
    report = check(w)
    assert report.errors == []
    assert report.notes == ["MPI_Bcast on MPI_COMM_WORLD (root 0): not checked: the root has not "
                            "arrived (ranks 2,3 are in it)"]
    assert list(report.lines())[-1].startswith("  note: MPI_Bcast")


def test_different_collectives_on_one_communicator():
    w = world({0: doc(0, 2, [bcast(1)]), 1: doc(1, 2, [call("MPI_Barrier")])})
    assert messages(w)[0] == ["different collectives on MPI_COMM_WORLD: 0 MPI_Bcast; "
                              "1 MPI_Barrier"]


def test_gather_blocks_against_the_root():
    def gather(r, count):
        bufs = [buf("sendbuf", count, INT)]
        if r == 0:
            bufs.append(buf("recvbuf", 2 * 3, INT, count_name="recvcount*size"))
        return call("MPI_Gather", peer=0, peer_name="root", bufs=bufs)
    w = world({r: doc(r, 3, [gather(r, 1 if r == 1 else 2)]) for r in range(3)})
    assert messages(w)[0] == ["MPI_Gather on MPI_COMM_WORLD (root 0): rank 1 has 1 element, "
                              "rank 0 2: rank 0 [1] MPI_INT has no counterpart on rank 1"]


def test_alltoallv_per_peer_counts():
    def a2av(r):
        send = [[p, 1 if (r, p) != (1, 0) else 2, p, INT] for p in range(2)]
        recv = [[p, 1, p, INT] for p in range(2)]
        return call("MPI_Alltoallv", bufs=[buf("sendbuf", None, None, peers=send),
                                           buf("recvbuf", None, None, peers=recv)])
    w = world({r: doc(r, 2, [a2av(r)]) for r in range(2)})
    assert messages(w)[0] == ["MPI_Alltoallv on MPI_COMM_WORLD: rank 1 has 2 elements, rank 0 "
                              "only 1: rank 1 [1] MPI_INT has no counterpart on rank 0"]


def test_send_receive_pair_paths_on_both_sides():
    send = call("MPI_Ssend", peer=1, tag=5, bufs=[buf("buf", 1, PARTICLE)])
    recv = call("MPI_Recv", peer=0, peer_name="source", tag=5, bufs=[buf("buf", 2, WIRE)])
    w = world({0: doc(0, 2, [send], types=STRUCTS), 1: doc(1, 2, [recv], types=STRUCTS)})
    found, counts = messages(w)
    assert counts["pairs"] == 1
    assert found == ["MPI_Ssend rank 0 → MPI_Recv rank 1 (tag 5, MPI_COMM_WORLD): "
                     "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT"]


def test_prefix_is_fine_and_truncation_is_not():
    def pair(scount, rcount):
        send = call("MPI_Send", peer=1, tag=5, bufs=[buf("buf", scount, INT)])
        irecv = call("MPI_Irecv", peer=-2, peer_name="source", tag=-1,
                     bufs=[buf("buf", rcount, INT)])
        return world({0: doc(0, 2, [send]), 1: doc(1, 2, [call("MPI_Wait")],
                                                  requests=[irecv], waits=[0])})
    assert messages(pair(3, 4)) == ([], {"collectives": 0, "pairs": 1})
    assert messages(pair(4, 3))[0] == [
        "MPI_Send rank 0 → MPI_Irecv rank 1 (tag 5, MPI_COMM_WORLD): rank 0 has 4 elements, "
        "rank 1 only 3: rank 0 [3] MPI_INT has no counterpart on rank 1"]


def test_intercommunicator_collectives_are_not_checked():
    """A Bcast over an intercommunicator from rank 0 of group {0,1} to group
    {2,3}: rank 1 passes MPI_PROC_NULL and a count MPI ignores; no error."""
    inter = intercomm(0, [0, 1], [2, 3])["handle"]

    def rank_doc(rank):
        root = {0: CONSTANTS["MPI_ROOT"], 1: CONSTANTS["MPI_PROC_NULL"]}.get(rank, 0)
        bcast = call("MPI_Bcast", comm=inter, peer=root, peer_name="root",
                     bufs=[buf("buffer", 0 if rank == 1 else 4, INT)])
        return doc(rank, 4, [bcast], comms=[intercomm(rank, [0, 1], [2, 3])])

    report = check(world({r: rank_doc(r) for r in range(4)}))
    assert report.errors == []
    assert report.notes == ["MPI_Bcast on inter: collectives on an intercommunicator are not "
                            "checked (ranks 0-3 are in it)"]


# -- messages in flight, message order, numbered collectives, ops ------------

def test_a_message_in_flight_is_checked_against_the_receive_it_will_match():
    """Rank 0's eager send of one particle_t returned (libmpireg keeps the
    last message of each channel); rank 1's receive of two wire_t gets it."""
    w = world({0: doc(0, 2, [None], types=STRUCTS,
                      channels=[message(1, 5, sent=1, datatype=PARTICLE, count=1)]),
               1: doc(1, 2, [call("MPI_Recv", peer=0, peer_name="source", tag=5,
                                  bufs=[buf("buf", 2, WIRE)])], types=STRUCTS)})
    found, counts = messages(w)
    assert counts["pairs"] == 1
    assert found == ["message in flight rank 0 → MPI_Recv rank 1 (tag 5, MPI_COMM_WORLD): "
                     "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT"]


def test_a_receive_gets_the_first_message_of_its_channel():
    """Rank 0 sent an int (in flight, the first message) and now sends a
    double on the same channel; rank 1's receive of an int gets the first:
    no error (pairing it with the double would be a false alarm)."""
    first = message(1, 5, sent=1, datatype=INT, count=1)
    w = world({0: doc(0, 2, [call("MPI_Ssend", peer=1, tag=5, seq=2,
                                  bufs=[buf("buf", 1, DOUBLE)])], channels=[first]),
               1: doc(1, 2, [call("MPI_Recv", peer=0, peer_name="source", tag=5,
                                  bufs=[buf("buf", 1, INT)])])})
    assert messages(w) == ([], {"collectives": 0, "pairs": 1})
    irecv = call("MPI_Irecv", peer=0, peer_name="source", tag=5, bufs=[buf("buf", 1, INT)])
    w = world({0: doc(0, 2, [call("MPI_Ssend", peer=1, tag=5, seq=2,
                                  bufs=[buf("buf", 1, DOUBLE)])], channels=[first]),
               1: doc(1, 2, [call("MPI_Recv", peer=0, peer_name="source", tag=5,
                                  bufs=[buf("buf", 1, INT)])], requests=[irecv])})
    found, counts = messages(w)                  # the Irecv takes the int, the Recv the double
    assert counts["pairs"] == 2
    assert found == ["MPI_Ssend rank 0 → MPI_Recv rank 1 (tag 5, MPI_COMM_WORLD): rank 0 [0] "
                     "MPI_DOUBLE vs rank 1 [0] MPI_INT"]


def test_a_wildcard_receive_with_several_candidates_is_not_guessed():
    recv = call("MPI_Recv", peer=-2, peer_name="source", tag=5, bufs=[buf("buf", 1, INT)])
    w = world({0: doc(0, 3, [recv]),
               1: doc(1, 3, [None], channels=[message(0, 5, sent=1, datatype=DOUBLE, count=1)]),
               2: doc(2, 3, [None], channels=[message(0, 5, sent=1, datatype=INT, count=1)])})
    report = check(w)
    assert report.errors == [] and report.pairs == 0
    assert report.notes == ["rank 0's MPI_Recv (waits for tag 5 from any rank): which message it "
                            "gets depends on the order they arrive (from 1,2); later receives on "
                            "MPI_COMM_WORLD not checked"]


def test_mrecv_gets_the_message_its_probe_matched():
    mrecv = call("MPI_Mrecv", peer=0, peer_name="source", tag=7, seq=1,
                 bufs=[buf("buf", 1, DOUBLE)])
    w = world({0: doc(0, 2, [None], channels=[message(1, 7, sent=1, datatype=INT, count=1)]),
               1: doc(1, 2, [mrecv], channels=[message(0, 7, received=1)])})
    assert messages(w)[0] == ["message in flight rank 0 → MPI_Mrecv rank 1 (tag 7, "
                              "MPI_COMM_WORLD): rank 0 [0] MPI_INT vs rank 1 [0] MPI_DOUBLE"]


def test_numbered_collectives_nonblocking_and_blocking_are_compared():
    """Rank 0 posted Ibcast #1 (4 ints) and is in Bcast #2; rank 1 is in
    Bcast #1 with 3 ints: #1 is compared across the two, #2 waits."""
    ibcast = call("MPI_Ibcast", peer=0, peer_name="root", seq=1, bufs=[buf("buffer", 4, INT)])
    w = world({0: doc(0, 2, [call("MPI_Bcast", peer=0, peer_name="root", seq=2,
                                  bufs=[buf("buffer", 1, INT)])], requests=[ibcast]),
               1: doc(1, 2, [call("MPI_Bcast", peer=0, peer_name="root", seq=1,
                                  bufs=[buf("buffer", 3, INT)])])})
    found, counts = messages(w)
    assert counts["collectives"] == 2
    assert found == ["MPI_Ibcast on MPI_COMM_WORLD (root 0): rank 1 has 3 elements, rank 0 4: "
                     "rank 0 [3] MPI_INT has no counterpart on rank 1"]


def test_reductions_must_agree_on_the_op():
    def allreduce(op):
        return call("MPI_Allreduce", seq=1, op=op, bufs=[buf("sendbuf", 1, INT),
                                                         buf("recvbuf", 1, INT)])
    w = world({r: doc(r, 3, [allreduce("MPI_MAX" if r == 1 else "MPI_SUM")]) for r in range(3)})
    assert messages(w)[0] == ["MPI_Allreduce on MPI_COMM_WORLD: ranks disagree on the op: "
                              "0,2 op MPI_SUM; 1 op MPI_MAX"]
    w = world({r: doc(r, 2, [allreduce("user op my_sum" if r else "MPI_SUM")]) for r in range(2)})
    assert len(messages(w)[0]) == 1
    w = world({r: doc(r, 2, [allreduce("0x98000000" if r else "MPI_SUM")]) for r in range(2)})
    assert messages(w)[0] == []                 # an op gdb cannot name is not compared


def test_root_only_arguments_are_taken_from_the_root():
    """Scatter: only the root's sendbuf counts; a non-root's garbage sendbuf
    is no error."""
    def scatter(r):
        bufs = [buf("sendbuf", 2 * 3 if r == 0 else 99, DOUBLE if r else INT,
                    count_name="sendcount*size"), buf("recvbuf", 2, INT)]
        return call("MPI_Scatter", peer=0, peer_name="root", seq=1, bufs=bufs)
    assert messages(world({r: doc(r, 3, [scatter(r)]) for r in range(3)}))[0] == []
