"""The job console on a job whose ranks have threads and child processes
of their own (testprogs/family.c): `interrupt` stops the ranks and spares
their children; `stacks` never merges two threads of a rank, nor unknown
functions of two libraries (Open MPI's helper threads); `calls` and
$mpi_call name the buffers alike (the MPI standard's names); long C++
names are shortened in `stacks` (testprogs/cxxsite.cpp), whole in -json."""

import json
import re
import time

import pytest

import gdbrun
from jobrun import Console, batch, new_job, wait_files, wait_no_leftovers

GROUP = re.compile(r"<([^<>]*)>")
RANKS = re.compile(r"\[([\d,-]+)\]: ")


def process_state(pid):
    """The state letter of a process (Z: dead, not reaped), or None once gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def overlapping_groups(lines):
    """The lines of a stacks tree where one rank stands in two groups of a
    <[ranks]: where | ...> cell (two threads of one rank merged)."""
    out = []
    for line in lines:
        for cell in GROUP.findall(line):
            ranks = [set(ranks_of(r)) for r in RANKS.findall(cell)]
            if sum(len(r) for r in ranks) != len(set().union(*ranks)):
                out.append(line)
    return out


def ranks_of(text):
    out = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


WAITING = re.compile(r"\] worker at testprogs/family\.c:\d+\n +\[0,1\] \S*pause")


def stopped_in_sendrecv(console):
    """Interrupt the running job until both ranks stand in MPI_Sendrecv
    with their workers in pause() (a rank, or a thread, may be caught on
    its way there)."""
    for _ in range(10):
        console.run("interrupt")
        if console.run("calls").count("MPI_Sendrecv") == 2 and \
                WAITING.search(console.run("stacks")):
            return
        console.run("continue &")
        time.sleep(0.5)
    raise AssertionError("the ranks never stood in MPI_Sendrecv:\n" + console.transcript)


@pytest.mark.parametrize("debuggers", ["here", "near"])
def test_threads_calls_and_an_interrupt_that_spares_child_processes(tmp_path, debuggers):
    """The ranks' gdbs on the console's host (gdbserver beside each rank,
    interrupted by its launcher) or next to the ranks (back-ends, on this
    host: interrupted by the console)."""
    marker, piddir = new_job(tmp_path)
    args = ["--debuggers", debuggers, "-n", "2", "--", gdbrun.program("family")]
    with Console(args, marker, piddir) as console:
        console.run("continue &")
        children = wait_files(piddir, "child", 2)
        wait_files(piddir, "blocking", 2)
        stopped_in_sendrecv(console)
        # the console's interrupt reached the ranks alone: their children live
        for pid in children.values():
            assert process_state(pid) not in (None, "Z"), (pid, console.transcript)

        tree = console.run("stacks").splitlines()
        assert overlapping_groups(tree) == [], "\n".join(tree)
        worker = next(k for k, line in enumerate(tree) if "worker at testprogs/family.c:" in line)
        top = next(line for line in reversed(tree[:worker]) if not line.startswith(" "))
        assert top.endswith("(2 threads on each rank)"), "\n".join(tree)
        assert tree[worker].startswith("    [0,1] worker at"), "\n".join(tree)
        main = next(line for line in tree if " main at testprogs/family.c:" in line)
        assert main.startswith("[0,1] main at"), "\n".join(tree)

        calls = console.run("calls").splitlines()
        assert calls[0].split() == ["ranks", "call", "peer", "tag", "comm", "datatype",
                                    "signature"]
        for rank, line in zip("01", calls[1:]):
            assert line.split()[:2] == [rank, "MPI_Sendrecv"], calls
            assert "sendbuf: MPI_INT, recvbuf: MPI_INT" in line, calls
        # $mpi_call's fields are the names `calls` shows
        assert "$1 = 1" in console.run("print $mpi_call.sendbuf == &outbox && "
                                       "$mpi_call.recvbuf == &inbox")
        assert "$2 = 1" in console.run("print $mpi_call.recvcount")
        assert "$3 = MPI_INT" in console.run("print $mpi_call.sendtype")
        console.quit()
    wait_no_leftovers(marker)


def test_stacks_shorten_long_cxx_names_and_json_keeps_them(tmp_path):
    marker, piddir = new_job(tmp_path)
    out = batch(["-ex", "break PMPI_Barrier", "-ex", "continue", "-ex", "stacks",
                 "-ex", "echo @@json\\n", "-ex", "stacks -json",
                 "-n", "2", "--", gdbrun.program("cxxsite")], marker, piddir)
    text, _, doc = out.partition("@@json\n")
    share = [line for line in text.splitlines() if "::share(" in line]
    assert len(share) == 1 and share[0].startswith("  [0,1] mpipp_test::Exchange<…>::share("), text
    assert len(share[0]) < 100 and "std::__cxx11" not in share[0], share
    tree = json.loads(doc.strip().splitlines()[-1])["stacks"]
    main = next(t for t in tree if t["function"] == "main")
    assert main["children"][0]["function"].startswith(
        "mpipp_test::Exchange<std::__cxx11::basic_string<char, std::char_traits<char>, ")
    wait_no_leftovers(marker)
