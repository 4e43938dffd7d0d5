"""Rank sets, merged outputs (identical groups, differing values, JSON),
STAT-style stack trees and the MI parser: all gdb-free."""

import json

import pytest

from mpipp.job.analysis import merge, stacks
from mpipp.job.analysis.stacks import describe_stop
from mpipp.text import mi
from mpipp.text.ranks import RankError, format_ranks, header, parse_ranks
from mpipp.text.tables import format_table


def test_rank_sets():
    assert parse_ranks("0-3") == [0, 1, 2, 3]
    assert parse_ranks("0,2,5-7") == [0, 2, 5, 6, 7]
    assert parse_ranks("all", range(4)) == [0, 1, 2, 3]
    assert format_ranks([0, 2, 5, 6, 7]) == "0,2,5-7"
    assert format_ranks([1, 3, 4, 5, 6, 7]) == "1,3-7"
    assert header([2, 0]) == "[0,2]"
    for bad in ("", "a", "3-1", "1-", "-2"):
        with pytest.raises(RankError):
            parse_ranks(bad)
    with pytest.raises(RankError, match="no rank 9 in this job"):
        parse_ranks("1,9", range(4))


def outputs(texts):
    return [(rank, text, text, None) for rank, text in texts.items()]


def test_identical_outputs_print_once_ordered_by_lowest_rank():
    groups = merge.group(outputs({3: "b\n", 0: "a\n", 2: "a\n", 1: "b\n"}))
    assert [(g.ranks, g.text) for g in groups] == [([0, 2], "a\n"), ([1, 3], "b\n")]
    assert merge.render(groups, numbers=False) == "[0,2]\na\n[1,3]\nb\n"


def test_differing_numbers_become_one_line():
    groups = merge.group(outputs({0: "$1 = 0\n", 1: "$1 = 1\n", 2: "$1 = 0\n", 3: "$1 = 1\n"}))
    assert merge.render(groups) == "[0-3]\n$1 = <[0,2]: 0 | [1,3]: 1>\n"
    text = {r: "x = %d, y = %d, n = 4\n" % (r % 2, r // 2) for r in range(4)}
    assert merge.render(merge.group(outputs(text))) == \
        "[0-3]\nx = <[0,2]: 0 | [1,3]: 1>, y = <[0,1]: 0 | [2,3]: 1>, n = 4\n"


def test_outputs_differing_in_words_or_many_numbers_stay_apart():
    groups = merge.group(outputs({0: "in main\n", 1: "in foo\n"}))
    assert merge.render(groups) == "[0]\nin main\n[1]\nin foo\n"
    many = {r: " ".join(str(r * k) for k in range(1, 7)) + "\n" for r in range(2)}
    assert merge.render(merge.group(outputs(many))).count("[") == 2


def test_errors_are_shown_and_json_is_merged():
    groups = merge.group([(0, "k", '{"a": 1}\n', None), (1, "k", '{"a": 1}\n', None),
                          (2, "e", "", "No symbol x")])
    assert json.loads(json.dumps(merge.merge_json(groups))) == {
        "0,1": {"a": 1}, "2": {"error": "No symbol x"}}
    groups = merge.group(outputs({0: "$1 = 2\n", 1: "No symbol x\n"}))
    assert merge.render(groups) == "[0]\n$1 = 2\n[1]\nNo symbol x\n"
    assert merge.merge_json(merge.group(outputs({0: "not json"}))) is None


def test_diff_of_one_buffer_on_several_ranks():
    import struct
    import dtypes as M
    from mpipp.model.compare import Tolerance

    def records(r):
        return [("[0][0]", "MPI_INT", struct.pack("<i", 1).hex()),
                ("[0][1]", "MPI_DOUBLE", struct.pack("<d", 0.0 if r % 2 else -0.0).hex()),
                ("[0][2]", "MPI_DOUBLE", struct.pack("<d", 1.0 + r * 1e-9).hex()),
                ("[0][3]", "MPI_INT", struct.pack("<i", r // 2).hex())]
    basics = {r: {"MPI_INT": M.INT, "MPI_DOUBLE": M.DOUBLE} for r in range(4)}
    streams = {r: records(r) for r in range(4)}
    lines, total, differ, note = merge.differing_elements(streams, basics)
    assert (total, differ, note) == (4, 2, None)
    assert lines == ["[0][2] = <[0]: 1 | [1]: 1.0000000010000001 | [2]: 1.0000000019999999 | "
                     "[3]: 1.000000003>", "[0][3] = <[0,1]: 0 | [2,3]: 1>"]
    lines = merge.differing_elements(streams, basics, Tolerance(1e-6, 0))[0]
    assert lines == ["[0][3] = <[0,1]: 0 | [2,3]: 1>"]
    assert merge.differing_elements(streams, basics, limit=2)[3] == \
        "first 2 elements compared"
    streams[3] = records(3)[:2]
    assert merge.differing_elements(streams, basics)[0][-1] == \
        "[0][3] = <[0,1]: 0 | [2]: 1 | [3]: (none)>"
    streams[3] = [("[0][0][0]", "MPI_INT", "01000000")]
    assert merge.differing_elements(streams, basics)[3] == \
        "layouts differ at element 0: [0][0] on 0-2; [0][0][0] on 3"


def comms_text(rank):
    """`mpipp comms` as rank writes it (format_table: its own widths)."""
    return "\n".join(format_table([
        ("handle", "name", "size", "rank", "world ranks", "what"),
        ("0x44000001", "MPI_COMM_SELF", "1", "0", str(rank), "-"),
        ("0x44000000", "MPI_COMM_WORLD", "12", str(rank), "0-11", "-")])) + "\n"


def test_tables_stay_aligned_around_cells_that_differ():
    groups = merge.group(outputs({r: comms_text(r) for r in (0, 1, 10)}))
    lines = merge.render(groups).splitlines()
    ranks = "<[0]: 0 | [1]: 1 | [10]: 10>"
    assert lines == ["[0,1,10]"] + format_table([
        ("handle", "name", "size", "rank", "world ranks", "what"),
        ("0x44000001", "MPI_COMM_SELF", "1", "0", ranks, "-"),
        ("0x44000000", "MPI_COMM_WORLD", "12", ranks, "0-11", "-")])
    assert lines[3].index(ranks) == lines[1].index("rank ")


def frame(func, file=None, line=None, lib=None):
    f = {"func": func}
    if file:
        f.update(file=file, line=str(line))
    if lib:
        f["from"] = lib
    return f


def test_stack_tree_merges_by_function_with_lines_per_group():
    main = lambda line: frame("main", "job.c", line)  # noqa: E731
    tree = stacks.build({
        0: [[frame("poll", lib="libmpich.so"), frame("MPI_Ssend", "w.c", 5), main(30)]],
        1: [[frame("poll", lib="libmpich.so"), frame("MPI_Recv", "w.c", 9), main(33)]],
        2: [[frame("MPI_Barrier", "w.c", 7), main(40)], [frame("start_thread")]],
        3: [[frame("MPI_Barrier", "w.c", 7), main(40)]],
    })
    assert stacks.render(tree) == [
        "[0-3] main at job.c:<[0]: 30 | [1]: 33 | [2,3]: 40>",
        "  [0] MPI_Ssend at w.c:5",
        "    [0] poll from libmpich.so",
        "  [1] MPI_Recv at w.c:9",
        "    [1] poll from libmpich.so",
        "  [2,3] MPI_Barrier at w.c:7",
        "[2] start_thread",
    ]
    doc = stacks.to_json(tree)
    assert doc[0]["ranks"] == "0-3" and doc[0]["children"][2]["ranks"] == "2,3"


def helper_thread(lib):
    """An Open MPI helper thread as Debian's libraries show it: an unknown
    function of lib under start_thread, in libevent's loop."""
    return [frame("epoll_wait", "epoll_wait.c", 30),
            frame("??", lib="libevent_core-2.1.so.7"),
            frame("event_base_loop", lib="libevent_core-2.1.so.7"),
            {"addr": "0x7ffff7a1b2c3", "func": "??", "from": lib},
            frame("start_thread", "pthread_create.c", 442), frame("clone3", "clone3.S", 81)]


def test_threads_of_a_rank_are_never_merged():
    main = [frame("PMPI_Sendrecv", lib="libmpi.so.40"), frame("main", "lmp.cpp", 9)]
    tree = stacks.build({r: [main, helper_thread("libopen-pal.so.40"), helper_thread("libpmix.so.2")]
                         for r in (0, 1)})
    lines = stacks.render(tree)
    assert lines == [
        "[0,1] main at lmp.cpp:9",
        "  [0,1] PMPI_Sendrecv from libmpi.so.40",
        "[0,1] clone3 at clone3.S:81",
        "  [0,1] start_thread at pthread_create.c:442",
        "    [0,1] ?? from libopen-pal.so.40",
        "      [0,1] event_base_loop from libevent_core-2.1.so.7",
        "        [0,1] ?? from libevent_core-2.1.so.7",
        "          [0,1] epoll_wait at epoll_wait.c:30",
        "[0,1] clone3 at clone3.S:81",
        "  [0,1] start_thread at pthread_create.c:442",
        "    [0,1] ?? from libpmix.so.2",
        "      [0,1] event_base_loop from libevent_core-2.1.so.7",
        "        [0,1] ?? from libevent_core-2.1.so.7",
        "          [0,1] epoll_wait at epoll_wait.c:30",
    ]
    assert len(stacks.to_json(tree)) == 3


def test_threads_alike_are_counted_and_lines_kept_per_thread():
    worker = lambda line: [frame("poll", lib="libc.so.6"),  # noqa: E731
                           frame("worker", "job.c", line), frame("start_thread", "p.c", 4)]
    tree = stacks.build({0: [worker(10), worker(10), worker(12)],
                         1: [worker(10), worker(12), worker(10)]})
    assert stacks.render(tree) == [
        "[0,1] start_thread at p.c:4  (2 threads on each rank)",
        "  [0,1] worker at job.c:10",
        "    [0,1] poll from libc.so.6",
        "[0,1] start_thread at p.c:4",
        "  [0,1] worker at job.c:12",
        "    [0,1] poll from libc.so.6",
    ]


def test_long_cxx_names_are_shortened_in_text_only():
    name = ("void ddSendrecv<gmx::BasicVector<float> >(gmx_domdec_t const*, int, int, "
            "gmx::ArrayRef<gmx::BasicVector<float> >, gmx::ArrayRef<gmx::BasicVector<float> >)")
    tree = stacks.build({0: [[frame("PMPI_Sendrecv", lib="libmpi.so.40"),
                              frame(name, lib="libgromacs_mpi.so.7")]]})
    assert stacks.render(tree) == ["[0] void ddSendrecv<…>(…) from libgromacs_mpi.so.7",
                                   "  [0] PMPI_Sendrecv from libmpi.so.40"]
    assert stacks.to_json(tree)[0]["function"] == name
    assert describe_stop({"reason": "breakpoint-hit", "frame": frame(name, lib="libg.so")}) == \
        "stopped (breakpoint-hit) in void ddSendrecv<…>(…) from libg.so"


def test_stops_are_described_like_stack_frames():
    sigint = {"reason": "signal-received", "signal-name": "SIGINT"}
    assert describe_stop(dict(sigint, frame=frame("poll", lib="libc.so.6"))) == \
        "interrupted in poll from libc.so.6"
    assert describe_stop({"reason": "breakpoint-hit", "frame": frame("f", "x.c", 3)}) == \
        "stopped (breakpoint-hit) in f at x.c:3"
    assert describe_stop({"reason": "signal-received", "signal-name": "SIGSEGV",
                          "frame": {"addr": "0x0"}}) == "stopped (signal SIGSEGV) in 0x0"


def test_mi_records():
    r = mi.parse(b'5^done,stack=[frame={level="0",func="main",args=[]},frame={level="1"}]')
    assert (r.kind, r.token, r.cls) == ("result", 5, "done")
    assert r.results["stack"][0]["frame"]["func"] == "main"
    assert r.results["stack"][0]["frame"]["args"] == []
    r = mi.parse(b'*stopped,reason="exited",exit-code="03"')
    assert (r.kind, r.cls, r.results["exit-code"]) == ("exec", "stopped", "03")
    assert mi.parse(b'~"MPI_INT\\303\\2273 \\"q\\"\\n"').text == 'MPI_INT×3 "q"\n'
    assert mi.parse(b"rank 0 says hi").kind == "text"
    assert mi.parse(b"(gdb) ").kind == "prompt"
    assert mi.parse(b'12^error,msg="bad \\"x\\""').results["msg"] == 'bad "x"'
    assert mi.quote('print "a\\b"') == '"print \\"a\\\\b\\""'
