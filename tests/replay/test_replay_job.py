"""Record and replay under the job console: `mpipp-job --replay DIR` runs
the recorded hang again, where `waits`, `stacks`, `check` and `calls` see
it as any hang; `mpipp-job --record DIR` records the job it launches; a
directory no rank can replay is one line, before anything starts."""

import re
import subprocess

import pytest

import gdbrun
from jobrun import MPIPP_JOB, Console, new_job, wait_no_leftovers
from recwriter import message, write
from replayrun import PROGRAM, master_line, mpipp


def test_a_replayed_hang_under_the_job_console(hang_record, tmp_path):
    directory, recorded = hang_record
    fields = master_line(recorded)[1]
    stopped = set(fields["stops"].split(","))
    waiting = sorted(set("123") - stopped)
    marker, piddir = new_job(tmp_path)
    with Console(["--replay", directory, "-n", "4", PROGRAM, "master", "7"], marker,
                 piddir) as console:
        console.run("continue &")
        for _ in range(4):  # every rank replayed its record and went on into the hang
            console.read_until("goes on unreplayed")
        console.run("shell sleep 1")
        console.run("interrupt")
        assert recorded in console.transcript
        waits = console.run("waits")
        assert "deadlock: 4 ranks blocked for good" in waits, waits
        for worker in waiting:  # the workers never stopped wait for rank 0
            assert re.search(r"(\[|\b)%s\b.*waits for any tag from 0" % worker, waits), waits
        assert "is in MPI_Barrier on MPI_COMM_WORLD" in waits
        stacks = console.run("stacks")
        assert "worker at testprogs/replay.c:" in stacks and "MPI_Barrier" in stacks
        assert "no errors" in console.run("check")
        calls = console.run("calls")
        assert re.search(r"^%s\s+MPI_Recv\s+source=0\s+MPI_ANY_TAG" % ",".join(waiting), calls,
                         re.M), calls
        console.quit()
    wait_no_leftovers(marker)


def test_the_job_console_records(built, tmp_path):
    directory = str(tmp_path / "record")
    marker, piddir = new_job(tmp_path)
    with Console(["--record", directory, "-n", "4", PROGRAM, "race", "1"], marker,
                 piddir) as console:
        console.run("continue")
        assert "exited normally" in console.transcript
        console.quit()
    wait_no_leftovers(marker)
    summary = mpipp("record", directory)[1]
    assert summary.count("closed at MPI_Finalize") == 4, summary
    assert mpipp("races", directory)[1].splitlines()[-1].startswith("1 race: ")


def bad_directories(tmp_path):
    """(directory, the line's end) of records no 2-rank job can replay."""
    not_record = tmp_path / "garbage"
    not_record.mkdir()
    (not_record / "rank.0").write_bytes(b"not a record at all, " * 4)
    (not_record / "rank.1").write_bytes(b"not a record at all, " * 4)
    other_size = str(tmp_path / "three")
    for r in range(3):
        write(other_size, r, 3, [message("SEND", (r + 1) % 3, 5)])
    other_run = str(tmp_path / "mixed")
    write(other_run, 0, 2, [], job=1)
    write(other_run, 1, 2, [], job=2)
    return [(str(tmp_path / "none"), ": No such file or directory"),
            (str(tmp_path), ": it holds no record (no rank.N files)"),
            (str(not_record), ": rank.0 is not an mpipp record"),
            (other_size, " with 2 ranks: it is a record of 3"),
            (other_run, ": rank.1 is from another run")]


@pytest.mark.parametrize("front", ["mpipp-job", "mpipp-gdb"])
def test_a_directory_no_rank_can_replay_is_one_line(built, tmp_path, front):
    """Missing, empty, not records, another number of ranks, another run:
    one line and exit, batch or not, before any rank starts (a -batch
    session once waited forever)."""
    for directory, end in bad_directories(tmp_path):
        if front == "mpipp-job":
            cmd = [MPIPP_JOB, "--replay", directory, "-n", "2", PROGRAM, "race", "1"]
        elif "with 2 ranks" in end:  # mpipp-gdb runs one process: MPI_Init tells
            continue
        else:
            cmd = [gdbrun.MPIPP_GDB, "--replay", directory, "-nx", "-batch", "-ex", "run",
                   "--args", PROGRAM, "race", "1"]
        for batch in ([], ["-batch"]) if front == "mpipp-job" else ([],):
            proc = subprocess.run(cmd[:1] + batch + cmd[1:], capture_output=True, text=True,
                                  timeout=300, stdin=subprocess.DEVNULL)
            assert proc.returncode == 1, (cmd, proc.stdout, proc.stderr)
            assert proc.stderr == "%s: cannot replay %s%s\n" % (front, directory, end), \
                proc.stderr
            assert proc.stdout == "", proc.stdout
