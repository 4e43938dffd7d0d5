"""The corpus of deadlocks and type mismatches (testprogs/corpus.c), one
family of MPI calls per case, each with its correct twin, on real 3-rank
jobs: every rank stops at the entry of the calls under test (breakpoints
`PMPI_X if armed`), `waits -json` and `check -json` are read, the faulty
variant's calls are skipped (gdb `return 1` from the PMPI frame) and the
twin runs.  The expected verdicts are below: every faulty variant that
deadlocks gives its cycle with the reason of each edge ("would deadlock if
every rank continued": the ranks are stopped before their calls block);
every twin gives "no deadlock yet" and no check error; every mismatch is
found with its path, and no false one.  Each job then ends with a faulty
variant run for real: interrupted, it is "blocked for good" (or, for
MPI_Finalize, a twin that ends the job).  Two jobs per MPI."""

import json

import gdbrun
from jobrun import Console, new_job, wait_files, wait_no_leftovers

CORPUS = gdbrun.program("corpus")
ARMED = ("Ssend", "Recv", "Send", "Rsend", "Wait", "Waitall", "Waitany", "Waitsome", "Test",
         "Iprobe", "Sendrecv", "Sendrecv_replace", "Probe", "Mprobe", "Barrier", "Bcast",
         "Allreduce", "Reduce", "Gather", "Alltoallv", "Neighbor_allgather", "Comm_dup",
         "Comm_split", "Comm_create", "Comm_create_group", "Win_fence", "Win_lock", "Win_start",
         "Win_wait", "Finalize")


class Faulty:
    """What `waits` and `check` must say of a case's faulty variant: its
    cycle through `ranks` (None: no deadlock) with, per edge, texts its
    reason contains; whether it depends on the eager threshold; the check
    errors (texts each contains, in order); the ranks that poll."""

    def __init__(self, ranks=2, cycle=None, edges=None, eager=False, errors=(), polling=()):
        self.ranks, self.cycle, self.edges, self.eager = ranks, cycle, edges or {}, eager
        self.errors, self.polling = errors, polling


NO_SEND, NO_RECEIVE, NOT_ARRIVED = "no matching send", "no matching receive", "has not arrived"

CASES = {
    "ssend_tags": Faulty(cycle=[0, 1], edges={
        (0, 1): ("rank 0 sends tag 9 to 1", "(MPI_Ssend)", "waits for tag 10 from 0", NO_RECEIVE),
        (1, 0): ("rank 1 waits for tag 10 from 0", NO_SEND)}),
    "recv_recv": Faulty(cycle=[0, 1], edges={(0, 1): ("waits for tag 1 from 1", NO_SEND),
                                             (1, 0): ("waits for tag 1 from 0", NO_SEND)}),
    # 8 MiB both ways: by rendezvous, but the verdict cannot know the threshold
    "send_send": Faulty(cycle=[0, 1], eager=True, edges={
        (0, 1): ("rank 0 sends tag 1 to 1", "rank 1 sends tag 1 to 0", NO_RECEIVE)}),
    # the buffered messages are in flight, with the wrong tags
    "bsend": Faulty(cycle=[0, 1], edges={(0, 1): ("waits for tag 2 from 1", NO_SEND)}),
    "rsend": Faulty(cycle=[0, 1], eager=True, edges={
        (0, 1): ("(MPI_Rsend)", "waits for tag 6 from 0", NO_RECEIVE)}),
    "isend_wait": Faulty(cycle=[0, 1], edges={
        (0, 1): ("sends tag 1 to 1", "(MPI_Issend)", NO_RECEIVE),
        (1, 0): ("waits for tag 2 from 0", "(MPI_Irecv)", NO_SEND)}),
    "persistent": Faulty(cycle=[0, 1], edges={(0, 1): ("(MPI_Ssend_init)", NO_RECEIVE),
                                              (1, 0): ("(MPI_Recv_init)", NO_SEND)}),
    "sendrecv": Faulty(cycle=[0, 1], edges={
        (0, 1): ("waits for tag 2 from 1", "(MPI_Sendrecv)", NO_RECEIVE)}),
    # rank 1's send matches rank 0's receive: eagerly sent, rank 0 goes on
    "sendrecv_replace": Faulty(cycle=[0, 1], eager=True, edges={
        (1, 0): ("waits for tag 3 from 0", "(MPI_Sendrecv_replace)", NO_SEND)}),
    "probe": Faulty(cycle=[0, 1], edges={(0, 1): ("probes for tag 7 from 1", "(MPI_Probe)",
                                                  NO_SEND)}),
    "mprobe": Faulty(cycle=[0, 1], edges={(0, 1): ("probes for tag 7 from 1", "(MPI_Mprobe)",
                                                   NO_SEND)}),
    # tag 1 is in flight: only the receive of tag 2 waits
    "waitall": Faulty(cycle=[0, 1], edges={(0, 1): ("waits for tag 2 from 1", NO_SEND)}),
    "waitany": Faulty(cycle=[0, 1], edges={(1, 0): ("(MPI_Waitany)", NO_SEND)}),
    "waitsome": Faulty(cycle=[0, 1], edges={(1, 0): ("(MPI_Waitsome)", NO_SEND)}),
    "test_spin": Faulty(cycle=[0, 1], polling=[0], edges={(1, 0): ("(MPI_Test)", NO_SEND)}),
    "iprobe_spin": Faulty(cycle=[0, 1], polling=[0], edges={
        (0, 1): ("probes for tag 7 from 1", "(MPI_Iprobe)", NO_SEND)}),
    "any_source": Faulty(ranks=3, cycle=[0, 1], edges={
        (0, 1): ("waits for tag 5 from any rank", NO_SEND)}),
    "any_tag": Faulty(cycle=[0, 1], edges={(0, 1): ("waits for any tag from 1", NO_SEND)}),
    # the message went to MPI_PROC_NULL
    "proc_null": Faulty(cycle=[0, 1], edges={(1, 0): ("waits for tag 1 from 0", NO_SEND)}),
    "intercomm": Faulty(cycle=[0, 1], edges={(0, 1): ("waits for tag 1 from 1", NO_SEND)}),
    "pair_type": Faulty(errors=[("MPI_Ssend rank 0 → MPI_Recv rank 1 (tag 5",
                                 "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT")]),
    # checked against the message in flight (the Isend completed)
    "inflight_type": Faulty(errors=[("message in flight rank 0 → MPI_Recv rank 1 (tag 6",
                                     "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT")]),
    "allreduce_op": Faulty(ranks=3, errors=[("MPI_Allreduce", "ranks disagree on the op: "
                                             "0,2 op MPI_SUM; 1 op MPI_MAX")]),
    "reduce_type": Faulty(ranks=3, errors=[("MPI_Reduce", "(root 0): rank 2 [0] MPI_FLOAT vs "
                                            "rank 0 [0] MPI_INT")]),
    "gather_count": Faulty(ranks=3, errors=[("MPI_Gather", "(root 0): rank 1 has 1 element, "
                                             "rank 0 2: rank 0 [1] MPI_INT has no counterpart "
                                             "on rank 1")]),
    "alltoallv": Faulty(ranks=3, errors=[("MPI_Alltoallv", "rank 1 has 2 elements, rank 2 only "
                                          "1: rank 1 [1] MPI_INT has no counterpart on rank 2")]),
    "barrier": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Barrier", NOT_ARRIVED)}),
    "bcast_root": Faulty(cycle=[0, 1], edges={(1, 0): ("is in MPI_Bcast", NOT_ARRIVED)}),
    "coll_order": Faulty(cycle=[0, 1], edges={
        (0, 1): ("is in MPI_Bcast", "is in MPI_Barrier",
                 "different collectives at that point: 0 MPI_Bcast; 1 MPI_Barrier")},
        errors=[("different collectives on", "0 MPI_Bcast; 1 MPI_Barrier")]),
    "ibarrier": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Ibarrier", NOT_ARRIVED)}),
    "persistent_coll": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Barrier_init",
                                                            NOT_ARRIVED)}),
    "neighbor": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Neighbor_allgather",
                                                     NOT_ARRIVED)}),
    "comm_dup": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Comm_dup", NOT_ARRIVED)}),
    "comm_split": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Comm_split", NOT_ARRIVED)}),
    "comm_create": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Comm_create", NOT_ARRIVED)}),
    "comm_create_group": Faulty(cycle=[0, 1], edges={
        (0, 1): ("is in MPI_Comm_create_group with ranks 0,1", NOT_ARRIVED)}),
    "fence": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Win_fence",
                                                  "has not reached the fence")}),
    "lock": Faulty(ranks=3, cycle=[0, 1], edges={
        (1, 0): ("is in MPI_Win_lock", "holds an exclusive lock on rank 2's window")}),
    "pscw": Faulty(cycle=[0, 1], edges={(0, 1): ("is in MPI_Win_start",
                                                 "has not posted this epoch (MPI_Win_post)")}),
    "finalize": Faulty(ranks=3, cycle=[0, 1], edges={(0, 1): ("is in MPI_Finalize",
                                                              NOT_ARRIVED)}),
}
POINT_TO_POINT = ["ssend_tags", "recv_recv", "send_send", "bsend", "rsend", "isend_wait",
                  "persistent", "sendrecv", "sendrecv_replace", "probe", "mprobe", "waitall",
                  "waitany", "waitsome", "test_spin", "iprobe_spin", "any_source", "any_tag",
                  "proc_null", "intercomm", "pair_type", "inflight_type", "allreduce_op",
                  "reduce_type", "gather_count", "alltoallv", "finalize"]
COLLECTIVES_RMA = ["barrier", "bcast_root", "coll_order", "ibarrier"] + \
    (["persistent_coll"] if gdbrun.MPI == "mpich" else []) + \
    ["neighbor", "comm_dup", "comm_split", "comm_create", "comm_create_group", "fence", "lock",
     "pscw"]


def faulty_problems(name, expect, waits, check):
    """What differs from the expected verdict of a faulty variant."""
    out = []
    participants = set(range(expect.ranks))
    errors = [e["message"] for e in check["errors"]]
    if len(errors) != len(expect.errors) or any(
            not all(text in error for text in texts) for error, texts in zip(errors, expect.errors)):
        out.append("%s: check errors %s, expected %s" % (name, errors, expect.errors))
    stopped = {int(r) for r, text in waits["stopped"].items() if "in idle" not in text} | \
        {int(r) for r in waits["polling"]}
    if stopped != participants:
        out.append("%s: stopped %s, expected ranks %s" % (name, waits["stopped"], participants))
    if sorted(int(r) for r in waits["polling"]) != list(expect.polling):
        out.append("%s: polling %s, expected %s" % (name, waits["polling"], expect.polling))
    if expect.cycle is None:
        if waits["verdict"] != "no deadlock":
            out.append("%s: %s, expected no deadlock" % (name, waits["verdict"]))
        return out
    if waits["verdict"] != "would deadlock" or waits["cycles"] != [expect.cycle]:
        out.append("%s: %s with cycles %s, expected would deadlock with %s"
                   % (name, waits["verdict"], waits["cycles"], expect.cycle))
    if bool(waits["eager"]) != expect.eager:
        out.append("%s: eager-dependent %s, expected %s" % (name, waits["eager"], expect.eager))
    if not set(waits["deadlocked"]) <= participants:
        out.append("%s: deadlocked %s outside the case" % (name, waits["deadlocked"]))
    reasons = {(e["from"], e["to"]): e["reason"] for e in waits["edges"] if e["in_cycle"]}
    for edge, texts in expect.edges.items():
        missing = [t for t in texts if t not in reasons.get(edge, "")]
        if missing:
            out.append("%s: edge %s is %r, lacks %s" % (name, edge, reasons.get(edge), missing))
    return out


def twin_problems(name, waits, check):
    out = []
    if waits["verdict"] != "no deadlock":
        out.append("%s twin: %s %s" % (name, waits["verdict"], waits["cycles"]))
    if check["errors"]:
        out.append("%s twin: check errors %s" % (name, [e["message"] for e in check["errors"]]))
    return out


def run_corpus(tmp_path, cases, tail=None):
    """Runs the cases (and a faulty variant for real, `tail`) in one job;
    returns (the problems found, the console's last waits -json)."""
    marker, piddir = new_job(tmp_path)
    problems, last = [], None
    args = ["-n", "3", CORPUS] + cases + (["real:" + tail] if tail else [])
    with Console(args, marker, piddir) as console:
        console.run("break idle")
        for function in ARMED:
            console.run("break PMPI_%s if armed" % function)
        for name in cases:
            expect = CASES[name]
            for twin in (False, True):
                console.run("continue")
                waits = json.loads(console.run("waits -json"))
                check = json.loads(console.run("check -json"))
                if twin:
                    problems += twin_problems(name, waits, check)
                else:
                    problems += faulty_problems(name, expect, waits, check)
                    console.run("set var escape = 1")
                    console.run("on %s return (int) 1" % ",".join(map(str, range(expect.ranks))))
        if tail:
            console.run("delete")
            console.run("continue &")
            wait_files(piddir, "blocking", CASES[tail].ranks)
            console.run("shell sleep 1")
            console.run("interrupt")
            last = json.loads(console.run("waits -json"))
        else:
            assert "exited normally" in console.run("continue")    # the finalize twin
        console.quit()
    wait_no_leftovers(marker)
    return problems, last


def test_corpus_point_to_point_and_type_checks(tmp_path):
    problems, _ = run_corpus(tmp_path, POINT_TO_POINT)
    assert problems == []


def test_corpus_collectives_communicators_rma(tmp_path):
    problems, last = run_corpus(tmp_path, COLLECTIVES_RMA, tail="barrier")
    assert problems == []
    # for real: rank 0 waits in MPI_Barrier, rank 1 in MPI_Recv from 0, both inside MPI
    assert last["verdict"] == "deadlock" and last["cycles"] == [[0, 1]], last
    assert last["stopped"] == {} and last["eager"] == []


def test_the_jobs_run_every_case():
    left_out = set(CASES) - set(POINT_TO_POINT + COLLECTIVES_RMA)
    assert left_out == (set() if gdbrun.MPI == "mpich" else {"persistent_coll"})  # MPI-4 only


def test_blacs_receives_with_their_messages_in_flight_are_no_deadlock(tmp_path):
    """ScaLAPACK/BLACS (testprogs/blacs): 4 ranks stopped at PMPI_Recv
    breakpoints form the cycle of receives 0 → 2 → 3 → 1 → 0, but every
    message was sent (eagerly: the senders' Isends completed through
    Testall).  No deadlock, each message named; the job completes."""
    marker, piddir = new_job(tmp_path)
    with Console(["-n", "4", gdbrun.program("blacs")], marker, piddir) as console:
        console.run("break PMPI_Recv")
        console.run("continue")
        waits = console.run("waits").splitlines()
        assert waits[0] == "no deadlock yet: every rank can progress (ranks 0-3)"
        for sender, receiver in ((2, 0), (0, 1), (3, 2), (1, 3)):
            assert any(line.startswith("  %d → %d tag 9976 on " % (sender, receiver)) and
                       line.endswith(": 1 message, for rank %d's MPI_Recv" % receiver)
                       for line in waits), waits
        assert "  [0-3] stopped at breakpoint 1, entry of MPI_Recv" in waits
        doc = json.loads(console.run("waits -json"))
        assert doc["cycles"] == [] and doc["deadlocked"] == [] and len(doc["in_flight"]) == 4
        assert console.run("check") == "check: 0 collectives, 4 send/receive pairs: no errors\n"
        # (a rank's blank lines, relayed as they come, may follow the exit)
        assert console.run("continue").rstrip("\n").endswith("[0-3]\nexited normally")
        assert "rank 0 got 20" in console.transcript
        console.quit()
    wait_no_leftovers(marker)
