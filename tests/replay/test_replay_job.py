"""Record and replay under the job console: `mpipp-job --replay DIR` runs
the recorded hang again, where `waits`, `stacks`, `check` and `calls` see
it as any hang; `mpipp-job --record DIR` records the job it launches."""

import re

from jobrun import Console, new_job, wait_no_leftovers
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
