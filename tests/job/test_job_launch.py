"""mpipp-job launching real jobs (-n N: mpiexec starts every rank under
gdbserver).  One job per scenario, many console commands per job; after
`quit` no process of the job may remain.  The scenarios take a Launch:
test_multihost.py runs them again across hosts."""

import json
import os
import signal
import time

from jobrun import LOCAL, Console, batch, new_job, wait_files, wait_no_leftovers


def test_deadlock_session_interactive_with_ctrl_c(tmp_path):
    deadlock_session(tmp_path, LOCAL)


def deadlock_session(tmp_path, launch):
    """Four ranks: 0 and 1 deadlock on a tag mismatch, 2 and 3 wait in a
    barrier.  Values that differ by rank parity are grouped; ctrl-C
    interrupts the hung job; `waits` explains the deadlock.  Returns the
    transcript."""
    marker, piddir = new_job(tmp_path)
    with Console(launch.job(4, "deadlock"), marker, piddir, launch) as console:
        console.run("break stop_here")
        stop = console.run("continue")
        assert "[0-3]" in stop and "stop_here ()" in stop
        console.run("up")
        merged = console.run("print parity")
        assert "$1 = <[0,2]: 0 | [1,3]: 1>" in merged
        console.run("merge groups")
        grouped = console.run("print parity")
        assert "[0,2]\n$2 = 0\n[1,3]\n$2 = 1\n" in grouped
        console.run("merge numbers")
        whole = console.run("print vals")
        assert "{0, 1, 2, <[0,2]: 100 | [1,3]: 101>, 4, 5, <[0]: 0 | [1]: 1 | [2]: 2 | [3]: 3>, 7}" \
            in whole
        diff = console.run("diff 0-3 vals_t vals 8")
        assert diff.splitlines()[:3] == ["[3] = <[0,2]: 100 | [1,3]: 101>",
                                         "[6] = <[0]: 0 | [1]: 1 | [2]: 2 | [3]: 3>",
                                         "2 of 8 elements differ across ranks 0-3"]
        assert "(not in an MPI call)" in console.run("calls")
        tree = console.run("stacks")
        assert "[0-3] main at testprogs/job.c:" in tree
        assert "    [0-3] stop_here at testprogs/job.c:" in tree
        assert "[1,3]\n$4 = 1\n" in console.run("on 1,3 print parity")
        # Into the deadlock; ctrl-C once every rank is blocking.
        console.send("continue")
        wait_files(piddir, "blocking", 4)
        console.read_until("Continuing.")
        time.sleep(1.5)
        console.interrupt()
        stopped = console.run("echo")
        assert "interrupting [0-3]" in stopped
        assert stopped.count("interrupted in ") >= 1
        waits = console.run("waits")
        assert "deadlock: 4 ranks blocked for good, 1 cycle" in waits
        assert "cycle 0 → 1 → 0" in waits
        assert ("0 → 1: rank 0 sends tag 9 to 1 (MPI_Ssend); rank 1 waits for tag 10 from 0: "
                "no matching receive") in waits
        assert "[2,3] → 0,1: is in MPI_Barrier on MPI_COMM_WORLD" in waits
        doc = json.loads(console.run("waits -json"))
        assert doc["cycles"] == [[0, 1]]
        assert {(e["from"], e["to"]) for e in doc["edges"] if e["in_cycle"]} == {(0, 1), (1, 0)}
        assert [(b["rank"], b["waits_for"]) for b in doc["blocked"]] == [(2, "0,1"),
                                                                         (3, "0,1")]
        table = console.run("calls").splitlines()
        assert table[0].split() == ["ranks", "call", "peer", "tag", "comm", "datatype",
                                    "signature"]
        assert table[1].split() == ["0", "MPI_Ssend", "dest=1", "9", "MPI_COMM_WORLD",
                                    "MPI_INT", "MPI_INT×4"]
        assert table[2].split() == ["1", "MPI_Recv", "source=0", "10", "MPI_COMM_WORLD",
                                    "MPI_INT", "MPI_INT×4"]
        assert table[3].split()[:2] == ["2,3", "MPI_Barrier"]
        calls_doc = json.loads(console.run("calls -json"))
        assert [g["ranks"] for g in calls_doc["groups"]] == ["0", "1", "2,3"]
        assert "check: 1 collective, 0 send/receive pairs: no errors" in console.run("check")
        contexts = json.loads(console.run("mpipp context -json"))
        assert sorted(contexts) == ["0", "1", "2", "3"]
        assert contexts["2"]["rank"] == 2 and contexts["2"]["size"] == 4
        comms = console.run("on 2 mpipp comms")
        assert "MPI_COMM_WORLD  4     2     0-3" in comms
        console.quit()
    wait_no_leftovers(marker)
    return console.transcript


def test_check_names_the_rank_and_the_path(tmp_path):
    check_session(tmp_path, LOCAL)


def check_session(tmp_path, launch):
    """Mismatched signatures: a send/receive pair (checked while both sides
    stand at the MPI entry points) and a Bcast with a short count on rank 2.
    Commands come from a -x file.  Returns the console's output."""
    marker, piddir = new_job(tmp_path)
    script = tmp_path / "commands"
    script.write_text("\n".join([
        "break PMPI_Ssend", "break PMPI_Recv", "break PMPI_Bcast", "continue",
        "check", "check -json", "calls",
        "on 0,1 continue", "check", "frame function mismatch",
        "mpipp match particle_t 1 wire_t 2", "quit"]) + "\n")
    out = batch(["-x", str(script)] + launch.job(4, "mismatch"), marker, piddir, launch=launch)
    assert ("MPI_Ssend rank 0 → MPI_Recv rank 1 (tag 5, MPI_COMM_WORLD): rank 0 [0][1][0] "
            "MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT") in out
    doc = json.loads([l for l in out.splitlines() if l.startswith('{"errors"')][0])
    assert [e["ranks"] for e in doc["errors"]] == [[0, 1]]
    assert ("MPI_Bcast on MPI_COMM_WORLD (root 0): rank 2 has 3 elements, rank 0 4: rank 0 [3] "
            "MPI_INT has no counterpart on rank 2") in out
    assert "[0-3]\nmismatch at element 1: [0][1][0] MPI_DOUBLE vs [0][0][1] MPI_INT\n" in out
    wait_no_leftovers(marker)
    return out


def test_rank_killed_and_gdb_killed_mid_session(tmp_path):
    deaths_session(tmp_path, LOCAL)


def deaths_session(tmp_path, launch):
    """Killing one rank's gdb and another rank's process is reported; the
    other ranks keep answering; quit still leaves nothing behind.  Returns
    the `ranks` table of the start."""
    marker, piddir = new_job(tmp_path)
    with Console(launch.job(4, "deadlock"), marker, piddir, launch) as console:
        console.run("break stop_here")
        console.run("continue")
        console.run("up")
        started = wait_files(piddir, "started", 4)
        table = console.run("ranks")
        rows = {int(l.split()[0]): l.split() for l in table.splitlines()[1:]}
        assert {r: int(rows[r][2]) for r in rows} == started
        # the gdb column is gdb itself: no MI relay between it and the console
        assert {os.path.basename(os.readlink("/proc/%s/exe" % rows[r][3])) for r in rows} \
            == {"gdb"}, table
        os.kill(int(rows[1][3]), signal.SIGKILL)        # rank 1's gdb
        os.kill(started[2], signal.SIGKILL)             # rank 2 itself
        out = console.run("print parity")
        assert "[1]\ngdb died (killed by SIGKILL)\n" in out
        assert "[3]\n$1 = 1\n" in out
        out = console.run("print rank")
        assert out.startswith("[1] not asked: gdb died (killed by SIGKILL)\n")
        console.run("continue &")
        console.run("shell sleep 1")
        console.run("interrupt")
        assert "[2]\nkilled by SIGKILL\n" in console.transcript
        rows = {int(l.split()[0]): l for l in console.run("ranks").splitlines()[1:]}
        assert rows[1].endswith("gdb died (killed by SIGKILL)")
        assert rows[2].endswith("killed by SIGKILL")
        assert "interrupted in" in rows[0] and "interrupted in" in rows[3]
        waits = console.run("waits")
        assert "blocked on ranks that exited:" in waits
        assert "[3] → 2: is in MPI_Barrier on MPI_COMM_WORLD; rank 2 killed by SIGKILL: it " \
            "will never arrive" in waits
        assert "[1] state unknown: gdb died (killed by SIGKILL)" in waits
        # a new gdb for rank 1: its process waited, stopped, for a new
        # connection (a gdb next to its rank was attached: the rank ran on
        # until its back-end stopped it, maybe into its MPI_Recv)
        assert console.run("reconnect") == "[1] reconnected\n"
        assert "rank 1 of 4 in MPI_COMM_WORLD" in console.run("on 1 mpipp context")
        waits = console.run("waits")
        assert "state unknown" not in waits
        assert "rank 2 killed by SIGKILL: it will never arrive" in waits
        console.quit()
    wait_no_leftovers(marker)
    return table


def test_sixteen_ranks_oversubscribed(tmp_path):
    marker, piddir = new_job(tmp_path)
    out = batch(["-ex", "break stop_here", "-ex", "continue", "-ex", "up",
                 "-ex", "merge groups", "-ex", "print parity", "-ex", "calls", "-ex", "quit",
                 ] + LOCAL.job(16, "deadlock"), marker, piddir, timeout=600)
    assert "mpipp-job: 16 ranks started" in out
    assert "[0,2,4,6,8,10,12,14]\n$1 = 0\n[1,3,5,7,9,11,13,15]\n$1 = 1\n" in out
    assert "0-15   (not in an MPI call)" in out
    wait_no_leftovers(marker)


def test_console_killed_leaves_nothing_behind(tmp_path):
    """If the console itself dies (SIGKILL: no cleanup of its own), the
    launchers' lifelines close and every rank, gdbserver and gdb ends."""
    marker, piddir = new_job(tmp_path)
    with Console(LOCAL.job(2, "deadlock"), marker, piddir) as console:
        console.run("break stop_here")
        assert "stop_here ()" in console.run("continue")
        console.proc.kill()
        console.proc.wait()
    wait_no_leftovers(marker)


def test_separate_debug_files_off_and_by_default(tmp_path):
    """--separate-debug off: every rank's gdb, here or next to its rank,
    reads no separate debug file (an empty debug-file-directory); by default
    a job of a few ranks keeps gdb's own."""
    shown = "The directory where separate debug symbols are searched for is"
    for options, directory in ((["--separate-debug", "off", "--debuggers", "near"], '""'),
                               (["--separate-debug", "off", "--debuggers", "here"], '""'),
                               ([], '"/usr/lib/debug"')):
        marker, piddir = new_job(tmp_path / (options[-1] if options else "default"))
        out = batch(options + ["-ex", "show debug-file-directory"] + LOCAL.job(2, "deadlock"),
                    marker, piddir)
        assert "[0,1]\n%s %s.\n" % (shown, directory) in out, out
        wait_no_leftovers(marker)
