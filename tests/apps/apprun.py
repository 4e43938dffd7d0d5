"""Real applications from Debian (LAMMPS, GROMACS, Quantum ESPRESSO: Open
MPI, no debug information) and an mpi4py job under mpipp-job, as a user
runs them: no --mpi and no MPIPP_MPI, the program named as on the command
line.

An App says how to run it short (argv), where to stop (Stop: a breakpoint
on a PMPI_ entry point, the nth time it is reached, and the MPI call every
rank must then be seen inside), how to run it long (for --attach-job) and
what its results are (what must be the same under record and replay).

`stops_session` runs one -batch console through every stop, asking the
ANALYSES at each between echo markers, so that each answer can be read
apart; `check_no_false_verdict` holds every answer to what a healthy job
must give: every rank inside the call named, `waits` "no deadlock", `check`
no errors and the collective or pair it stands in checked.
"""

import json
import os
import re
import subprocess
import time

import gdbrun
from jobrun import Launch, batch, new_job, wait_no_leftovers
from mpipp.job.analysis import callkinds
from mpipp.text.ranks import format_ranks, parse_ranks

MPIPP = os.path.join(gdbrun.REPO, "scripts", "mpipp")
LIB = os.path.join(gdbrun.BUILD, "libmpireg.so")
# The console as a user starts it: make check exports MPIPP_MPI and
# MPIPP_MPIEXEC, which would name the MPI for it; without them only the
# program can (no --mpi either).
AS_A_USER = Launch(prefix=["env", "-u", "MPIPP_MPI", "-u", "MPIPP_MPIEXEC"], name="as a user")
# What is asked at every stop; all but `stacks` must be the same under
# record and replay (stacks also shows Open MPI's progress thread, which is
# wherever its poll loop happens to be).
ANALYSES = ("calls", "waits", "waits -json", "check", "check -json", "stacks")
COMPARED = ("calls", "waits", "waits -json", "check", "check -json")
ANSWER = re.compile(r"@@(\d+) ([^@]+)@@\n(.*?)@@end@@\n", re.S)


class Stop:
    """Stop in PMPI_<call> the (skip+1)th time each rank reaches it; every
    rank is then inside MPI_<call>, a collective (kind "collective") or a
    send/receive (kind "pair")."""

    def __init__(self, call, kind, skip=0):
        self.call, self.kind, self.skip = call, kind, skip

    def commands(self, number):
        out = ["break P%s" % self.call]
        if self.skip:
            out.append("ignore %d %d" % (number, self.skip))
        return out + ["continue"]


class App:
    """name: what the tests call it; n: ranks; argv(directory): the short
    run; long_argv(directory): a run that goes on until killed (attach);
    progress(directory, out): how far a long run got (a count that grows),
    from its directory and rank 0's output; results(directory, out): what
    the run computed; frames: what `stacks` names of the application
    wherever it stops (None for a program without symbols)."""

    def __init__(self, name, n, argv, stops, long_argv, progress, results, frames):
        self.name, self.n, self.argv, self.stops = name, n, argv, stops
        self.long_argv, self.progress, self.results = long_argv, progress, results
        self.frames = frames


def script(app):
    """The console's commands: every stop, the ANALYSES at each between
    markers, then on to the end."""
    lines = []
    for number, stop in enumerate(app.stops, 1):
        lines += stop.commands(number)
        for command in ANALYSES:
            lines += ["echo @@%d %s@@\\n" % (number, command), command, "echo @@end@@\\n"]
        lines.append("delete")
    return lines + ["continue", "quit"]


class Session:
    """One console run: its output, answers[(stop number, command)], and
    what rank 0 printed (program)."""

    def __init__(self, out, program):
        self.out, self.program = out, program
        self.answers = {(int(n), command): text for n, command, text in ANSWER.findall(out)}

    def compared(self):
        return {key: text for key, text in self.answers.items() if key[1] in COMPARED}


def stops_session(app, directory, options=()):
    """The app's short run under a -batch console (options: --record DIR,
    --replay DIR), through every stop to the end."""
    os.makedirs(directory, exist_ok=True)
    commands = os.path.join(directory, "commands")
    with open(commands, "w") as f:
        f.write("\n".join(script(app)) + "\n")
    marker, piddir = new_job(directory)
    # The ranks' output goes to files (Open MPI's mpiexec option), not
    # between the console's answers, where it would arrive when mpiexec
    # forwards it.
    output = os.path.join(directory, "output")
    out = batch(list(options) + ["-x", commands, "-n", str(app.n),
                                 "--output-filename", output + ":nocopy", "--"] +
                app.argv(directory), marker, piddir, timeout=240, launch=AS_A_USER)
    wait_no_leftovers(marker)
    session = Session(out, rank_output(output))
    assert "exited normally" in out, out[-3000:]
    assert len(session.answers) == len(app.stops) * len(ANALYSES), out[-3000:]
    return session


def rank_output(output, rank=0):
    """What a rank printed, from mpiexec --output-filename OUTPUT's files
    (OUTPUT/JOB/rank.N/stdout)."""
    jobs = os.listdir(output)
    assert len(jobs) == 1, jobs
    with open(os.path.join(output, jobs[0], "rank.%d" % rank, "stdout"), errors="replace") as f:
        return f.read()


def calls_rows(text):
    """{rank: call} from a `calls` table (its first line is the heading)."""
    rows = {}
    for line in text.splitlines()[1:]:
        if line[:1].isspace():      # what a wait waits for, under its row
            continue
        ranks, _, rest = line.partition(" ")
        call = rest.split()[0] if rest.split() else ""
        if rest.strip().startswith("(not in an MPI call)"):
            call = "(not in an MPI call)"
        for rank in parse_ranks(ranks):
            rows[rank] = call
    return rows


STACK_FRAME = re.compile(r"^\s*\[([-\d,]+)\] (\S+)", re.M)


COMMUNICATION = (callkinds.SENDS | callkinds.RECEIVES | callkinds.SENDRECVS | callkinds.PROBES |
                 callkinds.WAIT_ALL | callkinds.WAIT_ANY | callkinds.COLLECTIVES)


def communicates(function):
    """Whether function (MPI_Allreduce, PMPI_Isend, pmpi_allreduce__ of the
    Fortran bindings) sends, receives, waits or is a collective: not
    MPI_Wtime, MPI_Comm_rank, whose calls `calls` need not show."""
    found = re.match(r"p?mpi_(\w+?)_*$", function, re.I)
    if not found:
        return False
    base = found.group(1).lower()
    if base.startswith("i") and base[1:] in callkinds.NONBLOCKING_BASES:
        base = base[1:]
    return base in COMMUNICATION


def ranks_communicating(stacks):
    """The ranks that `stacks` shows inside an MPI function that
    communicates (C or Fortran, the MPI_ or the PMPI_ name)."""
    ranks = set()
    for members, function in STACK_FRAME.findall(stacks):
        if communicates(function):
            ranks.update(parse_ranks(members))
    return ranks


def assert_no_deadlock_said(text):
    """No line but -json documents says "deadlock" other than as "no
    deadlock yet"."""
    for line in text.splitlines():
        if not line.startswith("{"):
            assert "deadlock" not in line.replace("no deadlock yet", ""), text


def check_no_false_verdict(app, session):
    """Every stop: every rank in the call named, no deadlock, no check error,
    the collective or the pairs it stands in looked at."""
    everyone = format_ranks(range(app.n))
    for number, stop in enumerate(app.stops, 1):
        answer = lambda command: session.answers[(number, command)]  # noqa: E731
        where = "stop %d (%s):\n" % (number, stop.call)
        assert calls_rows(answer("calls")) == {r: stop.call for r in range(app.n)}, \
            where + answer("calls")
        assert answer("waits").startswith(
            "no deadlock yet: every rank can progress (ranks %s)" % everyone), \
            where + answer("waits")
        assert json.loads(answer("waits -json"))["verdict"] == "no deadlock", where
        checked = json.loads(answer("check -json"))
        assert checked["errors"] == [], where + answer("check")
        assert answer("check").endswith(": no errors\n"), where + answer("check")
        if stop.kind == "collective":
            assert checked["checked"]["collectives"] == 1, where + answer("check")
        else:
            assert checked["checked"]["pairs"] >= 1, where + answer("check")
        assert app.frames is None or app.frames in answer("stacks"), where + answer("stacks")
        assert stop.call in answer("stacks"), where + answer("stacks")
    assert_no_deadlock_said(session.out + session.program)


def record_summary(directory, n):
    """`mpipp record DIR`: every rank recorded steps and closed its record."""
    proc = subprocess.run([MPIPP, "record", directory], capture_output=True, text=True,
                          timeout=300)
    summary = proc.stdout + proc.stderr
    assert proc.returncode == 0, summary
    for rank in range(n):
        found = re.search(r"^rank %d: (\d+) steps .*closed at MPI_Finalize$" % rank, summary,
                          re.M)
        assert found and int(found.group(1)) > 0, summary
    return summary


def check_record_and_replay(app, directory):
    """The stops under --record, then under --replay of that record: the
    same answers at every stop, the same results, no divergence."""
    record = os.path.join(directory, "record")
    recorded = stops_session(app, os.path.join(directory, "recording"), ["--record", record])
    check_no_false_verdict(app, recorded)
    record_summary(record, app.n)
    replayed = stops_session(app, os.path.join(directory, "replaying"), ["--replay", record])
    assert "diverged" not in replayed.out and "unreplayed" not in replayed.out, replayed.out
    assert replayed.compared() == recorded.compared()
    check_no_false_verdict(app, replayed)
    results = app.results(os.path.join(directory, "recording"), recorded.program)
    assert results, recorded.program
    assert app.results(os.path.join(directory, "replaying"), replayed.program) == results


def wait_progress(app, directory, out_path, beyond, proc, timeout=300):
    """The long run's progress once it passed `beyond`."""
    deadline = time.monotonic() + timeout
    while True:
        with open(out_path, errors="replace") as f:
            done = app.progress(directory, f.read())
        if done > beyond:
            return done
        assert proc.poll() is None, "the job ended:\n" + open(out_path).read()[-3000:]
        assert time.monotonic() < deadline, "no progress:\n" + open(out_path).read()[-3000:]
        time.sleep(0.2)


def check_attach(app, directory):
    """The long run under plain mpiexec (libmpireg preloaded), reached with
    --attach-job wherever it is: the ranks found, no false verdict, the
    application's frames in `stacks`; quit detaches and the job goes on."""
    os.makedirs(directory, exist_ok=True)
    out_path = os.path.join(directory, "job.out")
    with open(out_path, "w") as out:
        proc = subprocess.Popen(gdbrun.mpiexec(app.n, {"LD_PRELOAD": LIB}) +
                                app.long_argv(directory), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                cwd=directory)
    try:
        wait_progress(app, directory, out_path, 1, proc)
        marker, piddir = new_job(directory)
        text = batch(["-ex", "ranks", "-ex", "calls", "-ex", "waits", "-ex", "waits -json",
                      "-ex", "check -json", "-ex", "stacks", "-ex", "quit",
                      "--attach-job", str(proc.pid)], marker, piddir, launch=AS_A_USER)
        wait_no_leftovers(marker)
        assert "mpipp-job: %d ranks attached (%s)" % (app.n, format_ranks(range(app.n))) \
            in text, text
        lines = text.splitlines()
        heading = [k for k, line in enumerate(lines) if line.split()[:2] == ["ranks", "call"]]
        assert len(heading) == 1, text
        table = "\n".join(lines[heading[0]:])
        table = table.split("\nno deadlock yet", 1)[0]
        rows = calls_rows(table)
        assert sorted(rows) == list(range(app.n)), text
        assert all(c.startswith("MPI_") or c == "(not in an MPI call)" for c in rows.values()), \
            text
        # a rank whose stack is inside a communicating MPI function is seen
        # in an MPI call
        stacks = text[text.index('{"errors"'):]
        assert {r for r, call in rows.items() if call == "(not in an MPI call)"} & \
            ranks_communicating(stacks) == set(), text
        assert "no deadlock yet: every rank can progress" in text, text
        assert_no_deadlock_said(text)
        docs = [json.loads(l) for l in lines if l.startswith("{")]
        assert [d["verdict"] for d in docs if "verdict" in d] == ["no deadlock"], text
        assert [d["errors"] for d in docs if "errors" in d] == [[]], text
        assert app.frames is None or app.frames in text, text
        # detached, not stopped: the job goes on
        with open(out_path, errors="replace") as f:
            reached = app.progress(directory, f.read())
        wait_progress(app, directory, out_path, reached, proc)
    finally:
        gdbrun.stop_job(proc)
