"""Record and replay on real MPI jobs (testprogs/replay, the MPI under
test): a master/worker bug that shows only for some arrival orders comes
back on every replay whatever the delays; every call where MPI chooses
(Waitany, Testsome, Iprobe loops, ANY_TAG, persistent and matched
receives, sub-communicators) replays as recorded; a changed program or
rank count stops with one line; races are found offline."""

import json
import os
import re
import subprocess

import pytest

import replayrun
from replayrun import master_line, mpipp, outcomes, run, run_until

REPLAYS = 20


def test_a_hang_recorded_once_comes_back_on_every_replay(hang_record):
    """The record was cut when the job was killed: every replay, with other
    delays each time, reproduces the wrong sum, the STOPs sent to the wrong
    workers, and then every rank goes past the end of the record into the
    same hang."""
    directory, recorded = hang_record
    status, summary = mpipp("record", directory)
    assert status == 0 and summary.count("not closed: the rank was killed") == 4, summary
    for seed in range(REPLAYS):
        output, ended = run_until(["master", seed], lambda out: out.count("goes on unreplayed") == 4
                                  and master_line(out)[0], MPIPP_REPLAY=directory)
        assert not ended and master_line(output)[0] == recorded, (seed, output)
        assert "diverged" not in output, output


def test_a_good_record_replays_in_order_whatever_the_delays(good_record):
    directory, recorded = good_record
    status, summary = mpipp("record", directory)
    assert status == 0 and summary.count("closed at MPI_Finalize") == 4, summary
    for seed in range(1, 1 + REPLAYS):
        status, output = run(["master", seed], MPIPP_REPLAY=directory)
        assert status == 0 and master_line(output)[0] == recorded, (seed, output)


@pytest.fixture(scope="module")
def patterns(built, tmp_path_factory):
    """(directory, outcomes) of `replay patterns 5` recorded."""
    directory = str(tmp_path_factory.mktemp("patterns") / "record")
    status, output = run(["patterns", 5], MPIPP_RECORD=directory)
    assert status == 0, output
    return directory, outcomes(output)


@pytest.mark.parametrize("seed", [7, 0])
def test_every_choice_replays_as_recorded(patterns, seed):
    """Waitany order, Testsome groups and how many times it found nothing,
    an Iprobe polling loop with ANY_TAG, a persistent wildcard receive,
    Mprobe/Improbe, Testany and Waitsome, ANY_SOURCE on a Comm_split
    communicator, Sendrecv: the same lines with other delays."""
    directory, recorded = patterns
    assert len(recorded) == 8 and any("misses" in line for line in recorded), recorded
    status, output = run(["patterns", seed], MPIPP_REPLAY=directory)
    assert status == 0 and outcomes(output) == recorded, output


def test_the_record_is_compact_and_says_what_each_rank_did(patterns):
    directory, recorded = patterns
    status, text = mpipp("record", directory, "-json")
    assert status == 0, text
    doc = json.loads(text)
    rank0 = doc["ranks"][0]
    misses = sum(int(n) for n in re.findall(r"after (\d+) misses", " ".join(recorded)))
    polls = rank0["counts"]["MISS"]
    assert polls >= misses and rank0["state"] == "closed"
    # every polling loop is one word however long it ran
    assert rank0["bytes"] < 64 + 8 * 200, rank0
    status, text = mpipp("record", directory, "-events")
    assert "MPI_Waitany of 3 requests" in text and "unsuccessful MPI_Iprobe calls" in text
    assert "on communicator #1 (world ranks 0,1,2)" in text
    assert re.search(r"at replay\.c:\d+", text), text


def test_a_changed_program_stops_with_one_line_for_the_debugger(patterns):
    """Rank 2 sends another tag: it stops there, in mpipp_replay_diverged,
    where gdb finds it waiting."""
    directory, _ = patterns
    output, _ = run_until(["patterns", 3, "changed"], lambda out: "diverged" in out,
                          MPIPP_REPLAY=directory)
    lines = [line for line in output.splitlines() if "mpipp replay" in line]
    assert len(lines) == 1, output
    assert re.match(r"mpipp replay: rank 2 diverged at step \d+: MPI_Send\(dest=0, tag=61, "
                    r"communicator #1\) but the record has a send \(dest 0, tag 60, "
                    r"communicator #1\); stopped in mpipp_replay_diverged\(\)$", lines[0]), lines


def test_a_diverged_rank_waits_in_mpipp_replay_diverged(patterns):
    directory, _ = patterns
    proc = subprocess.Popen(replayrun.command(["patterns", 3, "changed"],
                                              MPIPP_REPLAY=directory),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, text=True)
    try:
        output = ""
        while "diverged" not in output:
            line = proc.stdout.readline()
            assert line, output
            output += line
        pid = replayrun.pids(output)[2]
        gdb = subprocess.run(["gdb", "-nx", "-batch", "-p", str(pid), "-ex", "bt"],
                             capture_output=True, text=True, timeout=120).stdout
        assert re.search(r"mpipp_replay_diverged \(line=(line@entry=)?0x[0-9a-f]+ \"mpipp replay: rank 2 "
                         r"diverged at step", gdb), gdb
        assert re.search(r"in (P?MPI_Send|split) ", gdb), gdb
    finally:
        replayrun.gdbrun.stop_job(proc)
        proc.stdout.close()


def test_another_number_of_ranks_stops_at_mpi_init(patterns):
    """Refused at MPI_Init: one line and the job ends (no rank waits for a
    debugger: there is nothing to see yet)."""
    directory, _ = patterns
    status, output = run(["patterns", 3], nprocs=3, MPIPP_REPLAY=directory)
    assert status != 0
    assert re.search(r"^mpipp replay: rank \d cannot replay: MPI_Init with 3 ranks but the "
                     r"record \S+/rank\.\d is of rank \d of 4 ranks; the job is aborted$",
                     output, re.M), output


@pytest.mark.parametrize("mode,races", [("race", 1), ("ordered", 0)])
def test_races(built, tmp_path, mode, races):
    """Ranks 1 and 2 race to rank 0's ANY_SOURCE receive; when rank 2 sends
    only after rank 0 told it that it received rank 1's message, nothing
    races (though both receives are wildcards)."""
    directory = str(tmp_path / "record")
    status, output = run([mode, 1], MPIPP_RECORD=directory)
    assert status == 0, output
    status, text = mpipp("races", directory)
    assert status == 0, text
    if not races:
        assert text.splitlines()[-1] == ("no races: 0 of 2 wildcard receives and probes could "
                                         "have matched another message"), text
        return
    first = re.search(r"race from (\d) then (\d)", output).group(1)
    other = "2" if first == "1" else "1"
    assert re.match(r"rank 0, step 1: MPI_Recv\(MPI_ANY_SOURCE, tag 5, MPI_COMM_WORLD\) at "
                    r"replay\.c:\d+\n"
                    r"    received rank %s's message \(its step 1: send, tag 5 at replay\.c:\d+\)\n"
                    r"    could have received rank %s's message \(its step 1: send, tag 5 at "
                    r"replay\.c:\d+\)\n"
                    r"1 race: 1 of 2 wildcard receives and probes could have matched another "
                    r"message\n$" % (first, other), text), text
    doc = json.loads(mpipp("races", directory, "-json")[1])
    race = doc["races"][0]
    assert (race["received"]["rank"], race["could_have_received"][0]["rank"]) == (int(first),
                                                                                  int(other))
    assert race["site"]["function"] == "race" and race["received"]["site"]["function"] == "race"


def test_any_tag_receives_do_not_race_beside_an_any_source_race(built, tmp_path):
    """Rank 0 probes and receives rank 1's three messages with MPI_ANY_TAG
    (MPI's non-overtaking rule leaves each one message: no race), then
    takes ranks 2's and 3's with MPI_ANY_SOURCE: one race."""
    directory = str(tmp_path / "record")
    status, output = run(["anytag", 3], MPIPP_RECORD=directory)
    assert status == 0, output
    m = re.search(r"anytag probed 11, got 11 12 13; race from (\d) then (\d)", output)
    assert m, output
    status, text = mpipp("races", directory)
    assert status == 0, text
    assert re.match(r"rank 0, step 6: MPI_Recv\(MPI_ANY_SOURCE, tag MPI_ANY_TAG, MPI_COMM_WORLD\) "
                    r"at replay\.c:\d+\n"
                    r"    received rank %s's message \(its step 1: send, tag %d at "
                    r"replay\.c:\d+\)\n"
                    r"    could have received rank %s's message \(its step 1: send, tag %d at "
                    r"replay\.c:\d+\)\n"
                    r"1 race: 1 of 6 wildcard receives and probes could have matched another "
                    r"message\n$" % (m.group(1), 20 + int(m.group(1)), m.group(2),
                                      20 + int(m.group(2))), text), text


def test_a_loop_of_wildcard_receives_replays_from_its_repeat(built, tmp_path):
    """20 turns of two MPI_ANY_SOURCE requests, rank 2 late: the record
    keeps the alike turns as a REPEAT; replayed with rank 1 late instead,
    every turn -- those the REPEAT counts too -- takes the recorded order
    (unreplayed, rank 2 would come first)."""
    directory = str(tmp_path / "record")
    status, output = run(["turns", 20, 2], nprocs=3, MPIPP_RECORD=directory)
    assert status == 0, output
    recorded = re.search(r"turns first (\d+)", output).group(1)
    doc = json.loads(mpipp("record", directory, "-json", "-events")[1])
    runs = [e for e in doc["ranks"][0]["events"] if e["kind"] == "REPEAT"]
    assert runs and any(e["kind"] == "IRECV" and e["flags"]
                        for e in doc["ranks"][0]["events"]), doc
    status, output = run(["turns", 20, 1], nprocs=3, MPIPP_REPLAY=directory)
    assert status == 0 and "turns first %s" % recorded in output, (recorded, output)


def test_sites_without_debug_information_are_named_as_the_console_names_them(built, tmp_path):
    """ScaLAPACK's BLACS (testprogs/libs/blacs: no debug information in
    libscalapack) sends and receives from its own functions: the record
    names them by function and library, offline, as the live console does
    (`BI_Srecv in libscalapack-mpich.so.2.2`; the program's own calls stay
    file:line: test_races)."""
    library_program = "libs/blacs"
    program = replayrun.gdbrun.program(library_program)
    if not os.path.exists(program):
        pytest.skip("libscalapack-%s-dev is not installed (scripts/install-deps installs it)"
                    % replayrun.gdbrun.MPI)
    directory = str(tmp_path / "record")
    env = dict(LD_PRELOAD=replayrun.LIB, MPIPP_RECORD=directory)
    proc = subprocess.run(replayrun.gdbrun.mpiexec(2, env) + [program], capture_output=True,
                          text=True, timeout=replayrun.TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    status, text = mpipp("record", directory, "-events")
    assert status == 0, text
    library = r"libscalapack-%s\.so\.\d+(\.\d+)*" % replayrun.gdbrun.MPI
    assert re.search(r"^  step \d+: send to 1, tag 9976 on communicator #\d+ \(world ranks 0,1\) "
                     r"at BI_Asend in %s$" % library, text, re.M), text
    assert re.search(r"^  step \d+: MPI_Recv \(source 0, tag 9976\) matched source 0, tag 9976 on "
                     r"communicator #\d+ \(world ranks 0,1\) at BI_Srecv in %s$" % library, text,
                     re.M), text
    assert re.search(r"^  step 1: collective \(all\) on MPI_COMM_WORLD at Cblacs_gridmap in %s$"
                     % library, text, re.M), text
    doc = json.loads(mpipp("record", directory, "-json", "-events")[1])
    assert "at BI_Srecv in libscalapack" in doc["ranks"][1]["events"][4]["text"], doc


def test_a_second_thread_ends_the_record_with_a_message(built, tmp_path):
    directory = str(tmp_path / "record")
    status, output = run(["threads", 1], nprocs=2, MPIPP_RECORD=directory)
    assert status == 0, output
    assert re.search(r"^mpipp record: rank 0: a second thread calls MPI_Recv at step \d+: a rank "
                     r"is recorded from one thread only, the record ends here$", output, re.M), output
    summary = mpipp("record", directory)[1]
    assert "rank 0: " in summary and "ended where a second thread called MPI" in summary


@pytest.mark.parametrize("other", [False, True])
def test_a_killed_rank_leaves_every_event_and_no_more(built, tmp_path, other):
    """A loop whose events a REPEAT counts, then one more turn begun -- the
    same calls, or another tag, which ends the repetition -- and the rank
    kills itself: its record ends right after its last event (none lost
    with the recurrence in progress; no word a repetition took back read as
    an event)."""
    directory = str(tmp_path / "record")
    status, output = run(["killed", 50] + (["other"] if other else []), nprocs=1,
                         MPIPP_RECORD=directory)
    assert status != 0 and "rank 0: killed after 50 turns" in output, output
    rank0 = json.loads(mpipp("record", directory, "-json")[1])["ranks"][0]
    assert rank0["state"] == "open" and rank0["steps"] == 5 * 50 + (1 if other else 2), rank0
    assert rank0["bytes"] < 64 + 8 * 30, rank0
    last = [line for line in mpipp("record", directory, "-events")[1].splitlines()
            if line.startswith("  step ")][-1]
    assert re.match(r"  step %d: %s on MPI_COMM_WORLD at replay\.c:\d+" % (
        rank0["steps"], r"receive request \(source 0, tag 97\)" if other
        else r"send to 0, tag 95"), last), last


def test_mpipp_gdb_records_replays_and_stops_where_the_program_leaves_the_record(built, tmp_path):
    """scripts/mpipp-gdb --record DIR records the program gdb runs; --replay
    DIR replays it, and stops at the breakpoint it sets on
    mpipp_replay_diverged when the program leaves the record (here: one
    MPI_Iprobe fewer than recorded)."""
    directory = str(tmp_path / "record")

    def gdb(option, polls, *commands):
        proc = subprocess.run([replayrun.gdbrun.MPIPP_GDB, option, directory, "-nx", "-batch",
                               "-ex", "run", *commands, "--args", replayrun.PROGRAM, "poll",
                               str(polls)], capture_output=True, text=True,
                              timeout=replayrun.TIMEOUT, stdin=subprocess.DEVNULL)
        output = proc.stdout + proc.stderr
        assert "Traceback" not in output and "Python Exception" not in output, output
        return output

    output = gdb("--record", 1000)
    assert "polled 1000 times" in output and "exited normally" in output, output
    doc = json.loads(mpipp("record", directory, "-json")[1])
    assert doc["ranks"][0]["counts"] == {"MISS": 1000} and doc["ranks"][0]["state"] == "closed"
    output = gdb("--replay", 1000)
    assert "exited normally" in output and "mpipp replay" not in output, output
    output = gdb("--replay", 999, "-ex", "bt 1")
    assert re.search(r"hit Breakpoint 1, mpipp_replay_diverged \(line=.*\"mpipp replay: rank 0 "
                     r"diverged at step 1000: MPI_Finalize but the record has 1 more "
                     r"unsuccessful MPI_Iprobe call; stopped in mpipp_replay_diverged\(\)\"",
                     output), output
