"""mpipp-job: debug a whole MPI job from one console.

    mpipp-job [OPTIONS] -n N [MPIEXEC OPTIONS] [--] PROGRAM [ARGS]
    mpipp-job [OPTIONS] --attach-job PID
    mpipp-job [OPTIONS] --attach PID[,PID...]
    mpipp-job [OPTIONS] --core PROGRAM CORE...

One gdb per rank (mpipp loaded), driven over GDB/MI, all asked at once.
Commands go to the ranks in focus; what they print is merged: identical
output once under [RANKS], outputs that differ in a few numbers as one line
with the values per rank group, -json outputs as one document keyed by rank
group.  Job-wide commands: stacks, calls, waits, check, rma, diff.  `help` lists
them.  Runs outside gdb: imports nothing from gdb.
"""

import codecs
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from ...model import dumpfile
from ...model.compare import Tolerance
from ...model.datatype import RECURSION_LIMIT
from ...model.datatype_json import from_json
from ...readers.errors import MpippError
from ...text.mi import quote
from ...text.ranks import RankError, format_ranks, header, parse_ranks
from ...text.tables import format_table
from ..analysis import calls as calls_table
from ..analysis import check as checks
from ..analysis import merge, progress, rma, stacks
from ..analysis.waits import Graph
from ..analysis.world import RankState, Stop, World
from ..link import wire
from ..link.session import Reactor, ask, cli, exit_status, wait_answers
from . import launch as ways_in
from .options import (HANG_SECONDS, OPTIONS_HELP, USAGE, UsageError, default_lib, parse_args,
                      reads_separate_debug)

PROMPT = "(mpipp-job) "
HISTORY = os.path.expanduser("~/.mpipp_job_history")
MAX_FRAMES = 500
DIFF_LIMIT = 1000000
RESTARTS = ("run", "r", "start", "starti")
# Execution commands gdb can run in the background: they are sent with '&'
# so every gdb keeps reading commands (ctrl-C sends -exec-interrupt); the
# console itself waits for the stops unless the user typed '&'.
BACKGROUND = ("continue", "c", "cont", "fg", "next", "n", "step", "s", "stepi", "si", "nexti",
              "ni", "finish", "fin", "until", "u")
STOP_TIMEOUT = 15
# until-hang: the default time without progress, the status of a job found
# hung (as timeout(1) gives), how many library loads to step through until
# libmpireg is in every rank.
HANG_STATUS = 124
LIBRARY_LOADS = 8
# Where the ranks' gdbs write documents for the console: memory, not a disk
# (creating a file in /tmp costs milliseconds on some machines).
SCRATCH_DIR = "/dev/shm"

# ---------------------------------------------------------------- the console

COMMANDS = {}


def command(*names):
    """Registers a console command under its names (its docstring is its help)."""
    def register(func):
        for name in names:
            COMMANDS[name] = func
        return func
    return register


class Console:
    def __init__(self, job, out=sys.stdout, scratch=None):
        self.job, self.out = job, out
        self.scratch = scratch     # a directory for the documents ranks write
        self.focus = job.ranks
        self.numbers = True
        self.done = False
        self.status = 0            # what mpipp-job exits with (until-hang sets it)

    # -- output -----------------------------------------------------------

    def write(self, text):
        if text:
            self.out.write(text if text.endswith("\n") else text + "\n")
            self.out.flush()

    def write_groups(self, groups):
        self.write(merge.render(groups, self.numbers))

    def report_events(self):
        """Print what ranks did on their own since the last command."""
        events = self.job.reactor.take_events()
        if not events:
            return
        stops = [(e.rank, describe_stop(e.results) if interrupted(e.results) or not e.text
                  else e.text) for e in events if e.kind == "stopped"]
        ends = [(e.rank, e.text) for e in events if e.kind != "stopped"]
        self.write_groups(merge.group((r, t, t, None) for r, t in stops))
        self.write_groups(merge.group((r, t, t, None) for r, t in ends))

    # -- sessions -----------------------------------------------------------

    def sessions(self, ranks, running_ok=False, verb="asked"):
        """Live sessions among ranks; a note for those that cannot answer."""
        out, skipped = [], {}
        for rank in ranks:
            s = self.job.sessions.get(rank)
            if s is None:
                skipped.setdefault("not connected", []).append(rank)
            elif not s.live:
                skipped.setdefault(s.why or s.state, []).append(rank)
            elif s.state == "running" and not running_ok:
                skipped.setdefault("running (interrupt first, or wait)", []).append(rank)
            else:
                out.append(s)
        for why, ranks_ in sorted(skipped.items(), key=lambda kv: kv[1][0]):
            self.write("%s not %s: %s" % (header(ranks_), verb, why))
        return out

    def wait(self, answers):
        """Wait for answers; ctrl-C makes the busy gdbs give up the command."""
        try:
            wait_answers(self.job.reactor, answers)
        except KeyboardInterrupt:
            self.give_up(answers)

    def give_up(self, answers):
        for s in self.job.sessions.values():
            if s.pending:
                s.interrupt()
        wait_answers(self.job.reactor, answers, STOP_TIMEOUT)

    def as_completed(self, answers):
        """(rank, answer) of {rank: answer}, each as soon as it is complete,
        so the console works on the first answers while the others come."""
        pending = dict(answers)
        while pending:
            try:
                self.job.reactor.wait(lambda: any(a.done for a in pending.values()))
            except KeyboardInterrupt:
                self.give_up(list(pending.values()))
            for rank in [r for r, a in pending.items() if a.done]:
                del pending[rank]
                yield rank, answers[rank]     # (ranks asked down the tree: its group's)

    def wait_stopped(self, sessions, timeout=None):
        """Wait until none of sessions runs; ctrl-C interrupts them."""
        reactor = self.job.reactor
        try:
            done = reactor.wait(lambda: all(s.state != "running" for s in sessions), timeout)
        except KeyboardInterrupt:
            self.write("interrupting %s" % header([s.rank for s in sessions
                                                   if s.state == "running"]))
            self.interrupt(sessions)
            return
        if not done:
            self.write("%s still running" % header([s.rank for s in sessions
                                                    if s.state == "running"]))
        self.report_events()

    def interrupt(self, sessions):
        running = [s for s in sessions if s.state == "running"]
        for s in running:
            s.interrupt()
        self.job.reactor.wait(lambda: all(s.state != "running" for s in running), STOP_TIMEOUT)
        self.report_events()

    def show(self, arg, to_json, lines):
        """A job-wide report: its JSON document with -json, else its lines."""
        if arg not in ("", "-json"):
            raise ValueError("unknown argument %r (the only option is -json)" % arg)
        self.write(json.dumps(to_json()) if arg == "-json" else "\n".join(lines()))

    def ask_files(self, sessions, command, what, wait=True):
        """Ask every session the MI command command(FILE), which writes a
        document to FILE: gdb's own output is slow for large documents.
        Returns (answers, {rank: file path}); document() reads each.  Ranks
        whose gdbs run next to them write on their own hosts, and the
        documents come up the tree with the answers."""
        if self.job.fleet is not None:
            answers = self.job.fleet.ask(sessions, command(wire.DOCUMENT), document=True)
            paths = {}
        else:
            paths = {s.rank: os.path.join(self.scratch, "%s.%d" % (what, s.rank))
                     for s in sessions}
            for path in paths.values():
                if os.path.exists(path):
                    os.unlink(path)
            answers = ask(sessions, lambda s: command(paths[s.rank]))
        if wait:
            self.wait(answers.values())
        return answers, paths

    @staticmethod
    def document(rank, answer, paths):
        """The text of the document rank wrote for ask_files (None: none)."""
        if rank not in paths:
            return answer.document
        try:
            with open(paths[rank]) as f:
                return f.read()
        except OSError:
            return None

    def dump_file(self, rank, answer, paths):
        """The file of the dump rank wrote for ask_files (dumps are read as
        streams: one that came up the tree is written here first)."""
        if rank in paths:
            return paths[rank]
        if answer.document is None:
            raise OSError("no dump")
        path = os.path.join(self.scratch, "dump.%d" % rank)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(answer.document)
        return path

    def answers_groups(self, answers):
        shared = getattr(answers, "groups", None)     # answers merged down the tree
        if shared is not None:
            return merge.group_sets((ranks, a.digest, a.output, None) for ranks, a in shared)
        return merge.group((r, a.digest, a.output, None) for r, a in answers.items())

    def answers_json(self, answers):
        """{"0,2": document, ...} of a -json command, or None when some rank's
        console output is not one JSON document."""
        return merge.merge_json(merge.group(
            (r, a.digest, a.text, None if a.ok else (a.error or "no answer"))
            for r, a in answers.items()))

    # -- running commands ---------------------------------------------------

    def execute(self, line, focus=None):
        """Run one console line on the ranks in focus (or `focus`)."""
        line = line.strip()
        self.report_events()
        if not line or line.startswith("#"):
            return
        word, _, rest = line.partition(" ")
        handler = COMMANDS.get(word)
        saved = self.focus
        if focus is not None:
            self.focus = focus
        try:
            if handler is not None:
                handler(self, rest.strip())
            else:
                self.forward(line)
        except (RankError, ValueError) as err:
            self.write("mpipp-job: %s" % err)
        except (OSError, MpippError) as err:
            self.write("mpipp-job: %s failed: %s" % (word, err))
        finally:
            self.focus = saved

    def forward(self, line):
        """A gdb or mpipp command: to every rank in focus, output merged."""
        if line.split()[0] in RESTARTS and self.job.mode != "core":
            self.write("mpipp-job: the ranks already run under mpiexec: use continue")
            return
        sessions = self.sessions(self.focus)
        if not sessions:
            return
        background = line.split()[0] in BACKGROUND and not line.endswith("&")
        answers = ask(sessions, cli(line + " &" if background else line))
        self.wait(answers.values())
        doc = self.answers_json(answers) if "-json" in line.split() else None
        if doc is not None:
            self.write(json.dumps(doc))
        else:
            self.write_groups(self.answers_groups(answers))
        resumed = [s for s in sessions if answers[s.rank].cls == "running"]
        if resumed and not line.endswith("&"):
            self.wait_stopped(resumed)

    def contexts(self, ranks):
        """World of the ranks' `mpipp context -json` documents, with how
        each rank came to be stopped."""
        states, gone, stops = {}, {}, {}
        for rank in ranks:
            s = self.job.sessions.get(rank)
            if s is not None and s.state == "exited":
                gone[rank] = s.why
            elif s is None or not s.live or s.state == "running":
                states[rank] = RankState(rank, None, s.why or s.state if s else "not connected")
        sessions = self.sessions([r for r in ranks if r not in gone and r not in states],
                                 verb="analysed")
        answers, paths = self.ask_files(
            sessions, lambda path: "-mpipp-context-json " + quote(path), "context", wait=False)
        for rank, answer in self.as_completed(answers):
            if not answer.ok:
                states[rank] = RankState(rank, None, (answer.error or "no answer").strip())
                continue
            try:
                states[rank] = RankState(rank, json.loads(self.document(rank, answer, paths)))
            except (TypeError, ValueError):
                states[rank] = RankState(rank, None, "unreadable answer")
            stops[rank] = Stop.from_mi(self.job.sessions[rank].stop, self.job.mode == "core")
        return World(states, gone, stops)


def interrupted(results):
    return results.get("reason") == "signal-received" and results.get("signal-name") == "SIGINT"


def describe_stop(results):
    """'interrupted in poll from libc.so.6', 'stopped (breakpoint-hit) in f at x.c:3'."""
    function, location = stacks.frame_key(results.get("frame") or {})
    where = function + stacks.where_text(location)
    if interrupted(results):
        return "interrupted in " + where
    reason = results.get("reason")
    if reason == "signal-received":
        reason = "signal %s" % results.get("signal-name", "?")
    return "stopped%s in %s" % (" (%s)" % reason if reason else "", where)


# ---------------------------------------------------------------- commands

@command("focus")
def cmd_focus(console, arg):
    """focus [RANKS]: show or set the ranks commands go to (0-3, 0,2,5-7, all)."""
    if arg:
        console.focus = parse_ranks(arg, console.job.ranks)
    console.write("focus %s" % header(console.focus))


@command("on")
def cmd_on(console, arg):
    """on RANKS COMMAND: run one command on RANKS only."""
    ranks, _, rest = arg.partition(" ")
    if not rest.strip():
        raise ValueError("usage: on RANKS COMMAND")
    console.execute(rest, focus=parse_ranks(ranks, console.job.ranks))


@command("ranks", "status")
def cmd_ranks(console, arg):
    """ranks: every rank's host, process, gdb (its pid and target) and state."""
    rows = [("rank", "host", "pid", "gdb", "target", "state")]
    for rank in console.job.ranks:
        s = console.job.sessions[rank]
        info = console.job.info.get(rank, {})
        if s.state == "stopped" and s.stop:
            state = describe_stop(s.stop)
        else:
            state = s.why or s.state
        rows.append((str(rank), str(info.get("host") or "-"), str(info.get("pid") or "-"),
                     str(s.proc.pid), s.label, state))
    console.write("\n".join(format_table(rows)))


@command("stacks")
def cmd_stacks(console, arg):
    """stacks [-json]: every thread's backtrace on the ranks in focus, merged
    into one tree (STAT-style): each frame with the ranks that pass through it."""
    sessions = console.sessions(console.focus)
    threads = ask(sessions, "-thread-info")
    console.wait(threads.values())
    ids = {s.rank: [t["id"] for t in threads[s.rank].results.get("threads", [])]
           if threads[s.rank].ok else [] for s in sessions}
    # one question per thread id, to every rank that has that thread
    by_id = {}
    for s in sessions:
        for i in ids[s.rank]:
            by_id.setdefault(i, []).append(s)
    asked = {i: ask(having, "-stack-list-frames --thread %s 0 %d" % (i, MAX_FRAMES - 1))
             for i, having in by_id.items()}
    console.wait([a for answers in asked.values() for a in answers.values()])
    frames = {rank: [asked[i][rank] for i in ids[rank]] for rank in ids}
    tree = stacks.build({rank: [[f["frame"] for f in a.results.get("stack", [])]
                                for a in answers if a.ok]
                         for rank, answers in frames.items()})
    console.show(arg, lambda: {"stacks": stacks.to_json(tree)},
                 lambda: stacks.render(tree) or ["no stacks"])


@command("calls")
def cmd_calls(console, arg):
    """calls [-json]: one table of what the ranks in focus are doing in MPI,
    a row per rank group: call, peer or root, tag, communicator, datatypes
    and the signature of the data."""
    world = console.contexts(console.focus)
    console.show(arg, lambda: calls_table.to_json(world), lambda: calls_table.render(world))


@command("waits")
def cmd_waits(console, arg):
    """waits [-json]: the wait-for graph of the whole job from every rank's
    current call, pending requests and messages in flight.  The first line
    is the verdict: 'deadlock: ... blocked for good' (every rank on a cycle
    waits inside MPI), 'would deadlock if every rank continued' (some are
    stopped before their call blocked, or polling) or 'no deadlock yet';
    then each cycle (0 → 1 → 0) with the reason of every edge, the ranks
    blocked on it, messages in flight, ranks stopped or polling, calls not
    modelled (docs/job.md)."""
    graph = Graph(console.contexts(console.job.ranks))
    console.show(arg, graph.to_json, graph.lines)


@command("check")
def cmd_check(console, arg):
    """check [-json]: type-signature checks across the whole job: collectives
    against the root (or every peer) and on the same op, receives against the
    messages that will reach them (pending sends and messages in flight);
    mismatches named by type-tree path on both sides."""
    report = checks.check(console.contexts(console.job.ranks))
    console.show(arg, report.to_json, report.lines)


@command("until-hang")
def cmd_until_hang(console, arg):
    """until-hang [SECONDS]: run the job and watch it without stopping it
    (libmpireg's count of completed MPI calls, read from each rank's memory).
    When every live rank has been inside MPI for SECONDS (default 30) without
    completing a call, stop the job and print `waits` and `check`; a hang
    ends the watch (mpipp-job then exits with 124), a slow job without a
    deadlock goes on.  Also ends when the job ends (mpipp-job exits with its
    status) or a rank stops by itself (a breakpoint; a signal: mpipp-job exits
    with 128 + its number)."""
    try:
        seconds = float(arg) if arg else HANG_SECONDS
    except ValueError:
        raise ValueError("usage: until-hang [SECONDS]") from None
    if not 0 < seconds < float("inf"):
        raise ValueError("until-hang: SECONDS must be a positive number")
    job = console.job
    if job.mode == "core":
        raise ValueError("until-hang: core files do not run")
    sessions = console.sessions(job.ranks, running_ok=True, verb="watched")
    console.interrupt(sessions)
    watched = watch_targets(console, [s for s in sessions if s.live])
    if not watched:
        console.write("until-hang: no rank can be watched")
        return
    console.write("until-hang: watching %s (no MPI call completed for %g s: a hang)"
                  % (header(sorted(watched)), seconds))
    watch = progress.HangWatch(seconds)
    interval = min(0.5, max(0.05, seconds / 20))
    resume(console)
    while True:
        time.sleep(interval)
        live = [r for r in watched if job.sessions[r].state == "running"]
        if any(job.sessions[r].state == "stopped" for r in watched) or not live:
            ended(console, watched)
            return
        now = time.monotonic()
        for rank, sample in progress.sample_all({r: watched[r] for r in live}).items():
            watch.update(rank, sample, now)
        if not watch.hung(live, now):
            continue
        console.write("until-hang: ranks %s completed no MPI call for %g s: stopping them"
                      % (format_ranks(live), seconds))
        console.interrupt([job.sessions[r] for r in live])
        world = console.contexts(job.ranks)
        graph = Graph(world)
        console.write("\n".join(graph.lines()))
        console.write("\n".join(checks.check(world).lines()))
        if graph.verdict != "no deadlock":
            console.status = HANG_STATUS
            return
        console.write("until-hang: no deadlock: the job goes on")
        watch.reset()
        resume(console)


def resume(console):
    """Every stopped rank runs on, in the background."""
    sessions = [s for s in console.job.sessions.values() if s.state == "stopped"]
    console.wait(ask(sessions, "-exec-continue").values())


def ended(console, watched):
    """The watch ends because ranks stopped by themselves or the job ended:
    say so; the job's status is the first failing rank's (a rank stopped by
    a signal fails as that signal would have killed it)."""
    console.report_events()
    sessions = [console.job.sessions[r] for r in sorted(watched)]
    if all(s.state == "exited" for s in sessions):
        console.status = next((exit_status(s.stop) for s in sessions if exit_status(s.stop)), 0)
        console.write("until-hang: the job ended (status %d)" % console.status)
        return
    stopped = [s for s in sessions if s.state == "stopped"]
    console.status = next((signal_status(s.stop) for s in stopped if signal_status(s.stop)), 0)
    console.write("until-hang: %s stopped: watch again with until-hang" % header(
        [s.rank for s in stopped]))


def signal_status(results):
    """128 + the number of the signal a rank stopped by (not the console's
    SIGINT), as a shell sees a process it killed; else 0."""
    if results.get("reason") != "signal-received" or interrupted(results):
        return 0
    try:
        return 128 + signal.Signals[results.get("signal-name", "")].value
    except KeyError:
        return 128


def watch_targets(console, sessions):
    """{rank: (progress.Layout, reader)} of the ranks whose progress can be
    read while they run: on the rank's host, their launcher (launched ranks,
    gdbs here) or their back-end (gdbs next to the ranks) reads it; or this
    process does (ranks attached on this host).  A rank that has not loaded
    libmpireg yet (stopped before main) is run to its library loads first."""
    job = console.job
    tree = progress.TreeReader(job.fleet) if job.fleet is not None else None
    for _load in range(LIBRARY_LOADS):
        missing = _without_progress(console, sessions)
        if not missing:
            break
        ask(missing, cli("set stop-on-solib-events 1"))
        console.wait(ask(missing, "-exec-continue").values())
        job.reactor.wait(lambda: all(s.state != "running" for s in missing), STOP_TIMEOUT)
        job.reactor.take_events()            # the library loads: not news
        console.wait(ask(missing, cli("set stop-on-solib-events 0")).values())
    world = console.contexts([s.rank for s in sessions])
    out = {}
    for s in sessions:
        state = world.state(s.rank)
        layout = (state.doc.get("progress") if state is not None else None)
        if layout is None:
            console.write("%s not watched: libmpireg's progress counters are not readable"
                          % header([s.rank]))
        elif tree is not None:
            out[s.rank] = (progress.Layout(layout), tree.of(s.rank))
        elif s.rank in job.lifeline_of:
            out[s.rank] = (progress.Layout(layout), progress.LifelineReader(job.lifeline_of[s.rank]))
        elif job.mode == "attach" and job.info.get(s.rank, {}).get("pid"):
            out[s.rank] = (progress.Layout(layout), progress.ProcReader(job.info[s.rank]["pid"]))
    return out


def _without_progress(console, sessions):
    """The sessions whose rank has not loaded libmpireg yet, asked all at
    once (with the gdbs next to the ranks: one question down the tree)."""
    answers = ask(sessions, cli("python import mpipp.views as v; "
                                "print(int(v.context.find() is not None))"))
    wait_answers(console.job.reactor, answers.values(), STOP_TIMEOUT)
    return [s for s in sessions
            if not (answers[s.rank].ok and answers[s.rank].text.strip() == "1")]


RMA_READ_MAX = 1 << 20      # bytes read of one target region
RMA_LINES = 200             # elements shown of one target region


@command("rma")
def cmd_rma(console, arg):
    """rma [-json]: every one-sided operation of the ranks in focus (the RMA
    calls their threads are in, their pending Rput/Rget/...): the target
    rank and window, and the target region -- read from the target rank's
    memory -- decoded through the target datatype."""
    if arg not in ("", "-json"):
        raise ValueError("unknown argument %r (the only option is -json)" % arg)
    world = console.contexts(console.job.ranks)
    found = rma.targets(world, console.focus)
    reads = {}
    for k, t in enumerate(found):
        if t.error is None and t.target in console.job.sessions:
            lo, hi = rma.span(t.datatype, t.count)
            if 0 < hi - lo <= RMA_READ_MAX:
                reads[k] = (lo, console.job.sessions[t.target].send(
                    "-data-read-memory-bytes 0x%x %d" % (t.address + lo, hi - lo)))
    console.wait([answer for _lo, answer in reads.values()])
    lines, doc = [], []
    for k, t in enumerate(found):
        entry = {"origin": t.origin, "function": t.op.function, "target": t.target,
                 "address": t.address, "error": t.error, "elements": None}
        lines.append(rma.heading(t) + (": " + t.error if t.error else ""))
        if k in reads:
            lo, answer = reads[k]
            memory = answer.results.get("memory") if answer.ok else None
            if not memory:
                entry["error"] = "rank %d could not read it: %s" % (t.target, answer.error)
                lines.append("  <%s>" % entry["error"])
            else:
                data = bytes.fromhex(memory[0].get("contents", ""))
                entry["elements"] = list(rma.decode_lines(t, data, lo, RMA_LINES))
                lines.extend("  " + line for line in entry["elements"])
        doc.append(entry)
    console.show(arg, lambda: {"rma": doc},
                 lambda: lines or ["no one-sided operation in the ranks in focus"])


@command("diff")
def cmd_diff(console, arg):
    """diff [-rtol X] [-atol X] RANKS TYPE ADDR [COUNT]: decode the same
    buffer on several ranks (TYPE, ADDR, COUNT evaluated on each) and print
    only the elements, by path, whose values differ (compared as mpipp diff
    compares: floats as numbers, within the tolerances given)."""
    words = arg.split()
    tol = {"-rtol": 0.0, "-atol": 0.0}
    while words and words[0] in tol:
        if len(words) < 2:
            raise ValueError("%s needs a number" % words[0])
        tol[words[0]] = float(words[1])
        if not 0 <= tol[words[0]] < float("inf"):
            raise ValueError("%s %s: not a finite number >= 0" % (words[0], words[1]))
        words = words[2:]
    if len(words) < 3:
        raise ValueError("usage: diff [-rtol X] [-atol X] RANKS TYPE ADDR [COUNT]")
    sessions = console.sessions(parse_ranks(words[0], console.job.ranks))
    exports, export_paths = console.ask_files(
        sessions, lambda path: cli("mpipp export %s %s" % (words[1], path)), "export")
    dumps, dump_paths = console.ask_files(
        sessions, lambda path: cli("mpipp dump -json %s %s" % (" ".join(words[1:]), path)), "dump")
    basics, streams, failed = {}, {}, {}
    with contextlib.ExitStack() as files:
        for s in sessions:
            rank = s.rank
            try:
                basics[rank] = basic_types(json.loads(console.document(rank, exports[rank],
                                                                      export_paths)))
                streams[rank] = files.enter_context(dumpfile.open_dump(
                    console.dump_file(rank, dumps[rank], dump_paths))).records()
            except (OSError, TypeError, ValueError, MpippError):
                failed[rank] = exports[rank] if not exports[rank].ok else dumps[rank]
        if failed:
            console.write_groups(console.answers_groups(failed))
        if len(streams) < 2:
            console.write("diff: fewer than two ranks decoded the buffer")
            return
        lines, total, differ, note = merge.differing_elements(
            streams, basics, Tolerance(tol["-rtol"], tol["-atol"]), DIFF_LIMIT)
    console.write("\n".join(lines))
    console.write("%d of %d element%s differ across ranks %s%s" % (
        differ, total, "" if total == 1 else "s", format_ranks(streams),
        " (%s)" % note if note else ""))


def basic_types(export):
    """{type name: basic Datatype} of the leaves of an `mpipp export` document."""
    return {leaf.display_name: leaf for leaf in _leaves(from_json(export))}


def _leaves(dt):
    stack, seen = [dt], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.is_leaf:
            yield node
        stack.extend(node.children or ())


@command("reconnect")
def cmd_reconnect(console, arg):
    """reconnect [RANKS]: a new gdb for ranks whose gdb died (all such ranks
    by default), connected as the first was; breakpoints are not carried over."""
    job = console.job
    ranks = parse_ranks(arg, job.ranks) if arg else \
        [r for r, s in sorted(job.sessions.items()) if s.state == "dead"]
    if not ranks:
        console.write("no gdb died")
        return
    failed = ways_in.reconnect(job, ranks)
    job.reactor.take_events()
    for rank, error in sorted(failed.items()):
        console.write("%s cannot reconnect: %s" % (header([rank]), error))
    done = [r for r in ranks if r not in failed]
    if done:
        console.write("%s reconnected" % header(done))


@command("interrupt")
def cmd_interrupt(console, arg):
    """interrupt: stop every running rank in focus (like ctrl-C)."""
    console.interrupt(console.sessions(console.focus, running_ok=True))


@command("wait")
def cmd_wait(console, arg):
    """wait [SECONDS]: wait until every rank in focus has stopped (or SECONDS pass)."""
    console.wait_stopped(console.sessions(console.focus, running_ok=True),
                         float(arg) if arg else None)


@command("time")
def cmd_time(console, arg):
    """time COMMAND: run COMMAND, then print how long it took (wall clock)."""
    if not arg:
        raise ValueError("usage: time COMMAND")
    start = time.perf_counter()
    console.execute(arg)
    console.write("time: %.6f s" % (time.perf_counter() - start))


@command("shell", "!")
def cmd_shell(console, arg):
    """shell COMMAND (or ! COMMAND): run a shell command here."""
    console.out.flush()
    subprocess.run(arg, shell=True, stdout=console.out, stderr=subprocess.STDOUT)


@command("echo")
def cmd_echo(console, arg):
    """echo TEXT: print TEXT (C escapes such as \\n understood)."""
    console.out.write(codecs.escape_decode(arg.encode())[0].decode("utf-8", "replace"))
    console.out.flush()


@command("merge")
def cmd_merge(console, arg):
    """merge numbers|groups: outputs that differ in a few numbers shown as one
    line with the values per rank group (numbers, the default), or each rank
    group apart (groups)."""
    if arg not in ("numbers", "groups"):
        raise ValueError("usage: merge numbers|groups")
    console.numbers = arg == "numbers"


@command("quit", "q", "exit")
def cmd_quit(console, arg):
    """quit: end the session: launched ranks are killed, attached ranks
    detached, every gdb and gdbserver ends."""
    console.done = True


@command("help")
def cmd_help(console, arg):
    """help [COMMAND]: the console's commands; anything else is sent to gdb."""
    if arg and arg.split()[0] in COMMANDS:
        console.write(COMMANDS[arg.split()[0]].__doc__)
        return
    if arg:
        console.forward("help " + arg)
        return
    seen = []
    for func in COMMANDS.values():
        if func not in seen:
            seen.append(func)
    console.write("Console commands (anything else goes to the gdb of every rank in focus):\n" +
                  "\n".join("  " + f.__doc__.split("\n")[0] for f in seen))


# ---------------------------------------------------------------- input

def complete_with_gdb(console, text, line):
    """Completions of a gdb command line, asked of the first rank in focus."""
    sessions = [s for s in (console.job.sessions.get(r) for r in console.focus)
                if s is not None and s.live and s.state == "stopped"]
    if not sessions:
        return []
    answer = sessions[0].send("-complete " + quote(line))
    wait_answers(console.job.reactor, [answer], 5)
    if not answer.ok:
        return []
    prefix = line[:len(line) - len(text)]
    return [m[len(prefix):] for m in answer.results.get("matches", []) if m.startswith(prefix)]


def setup_readline(console):
    import readline
    try:
        readline.read_history_file(HISTORY)
    except OSError:
        pass
    readline.set_completer_delims(" \t\n")

    def completer(text, state):
        if state == 0:
            line = readline.get_line_buffer()[:readline.get_endidx()]
            if " " not in line.lstrip():
                builtins = [c for c in COMMANDS if c.startswith(text)]
                completer.matches = sorted(set(builtins + complete_with_gdb(console, text, line)))
            else:
                completer.matches = complete_with_gdb(console, text, line)
            if len(completer.matches) == 1:     # Python's readline appends nothing itself
                completer.matches = [completer.matches[0] + " "]
        return completer.matches[state] if state < len(completer.matches) else None
    completer.matches = []
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")
    return readline


def interactive(console):
    readline = setup_readline(console) if sys.stdin.isatty() else None
    try:
        while not console.done:
            try:
                line = input(PROMPT) if readline else sys.stdin.readline()
            except KeyboardInterrupt:
                console.write("Quit")
                continue
            except EOFError:
                break
            if readline is None and not line:
                break
            try:
                console.execute(line)
            except KeyboardInterrupt:
                console.write("Quit")
    finally:
        if readline is not None:
            try:
                readline.write_history_file(HISTORY)
            except OSError:
                pass


# ---------------------------------------------------------------- main

def make_scratch():
    """This console's scratch directory, mpipp-job-PID-*; those of consoles
    that died without cleaning up are removed."""
    parent = SCRATCH_DIR if os.access(SCRATCH_DIR, os.W_OK) else tempfile.gettempdir()
    for name in os.listdir(parent):
        owner = name.split("-")[2] if name.startswith("mpipp-job-") else ""
        if owner.isdigit() and not os.path.exists("/proc/%s" % owner):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix="mpipp-job-%d-" % os.getpid(), dir=parent)


def open_job(opts, reactor):
    mpipp_gdb = os.environ.get("MPIPP_GDB_SCRIPT", "mpipp-gdb")
    opts.lib = default_lib(opts.mpi)
    if not os.path.isfile(opts.lib):
        raise ways_in.JobError("libmpireg for %s not found%s (build it with make MPI=%s, install "
                               "libmpireg-%s, or set MPIPP_LIB)"
                               % (opts.mpi, opts.lib and " at " + opts.lib, opts.mpi, opts.mpi))
    processes = ways_in.job_processes(opts.pids[0]) if opts.mode == "attach-job" else None
    ranks = {"launch": opts.n, "attach-job": len(processes or ()), "attach": len(opts.pids),
             "core": len(opts.cores)}[opts.mode]
    setup = ways_in.Setup(mpipp_gdb, opts.lib, opts.nx,
                          reads_separate_debug(opts.separate_debug, ranks))
    if opts.mode == "launch":
        ways_in.find_gdbserver(opts.gdbserver)
        return ways_in.launch(opts, setup, reactor)
    if opts.mode == "attach-job":
        return ways_in.attach(None, setup, reactor, processes)
    if opts.mode == "attach":
        return ways_in.attach(opts.pids, setup, reactor)
    return ways_in.cores(opts.program, opts.cores, setup, reactor)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # the console's own process: the model's walks of the types ranks
    # describe (checks) get the depth they need for the whole session
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        opts = parse_args(argv)
    except UsageError as err:
        if err.args[0]:
            sys.stderr.write("mpipp-job: %s\n" % err.args[0])
        sys.stderr.write("usage:\n%s\n\n%s\n" % (USAGE, OPTIONS_HELP))
        return 2 if err.args[0] else 0
    reactor = Reactor()
    job = None
    scratch = make_scratch()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    try:
        job, warnings = open_job(opts, reactor)
        for warning in warnings:
            sys.stderr.write("mpipp-job: %s\n" % warning)
        if not job.sessions:
            sys.stderr.write("mpipp-job: no rank could be reached\n")
            return 1
        console = Console(job, scratch=scratch)
        reactor.take_events()   # the stops of connecting: the banner says where they are
        console.write("mpipp-job: %d rank%s %s (%s); focus %s" % (
            len(job.ranks), "" if len(job.ranks) == 1 else "s",
            {"launch": "started, stopped before main", "attach": "attached",
             "core": "from core files"}[job.mode], format_ranks(job.ranks),
            header(console.focus)))
        if job.tree is not None:
            console.write("mpipp-job: gdbs next to the ranks on %d host%s; answers merged in a "
                          "tree of fan-out %d, depth %d" % (
                              job.tree["hosts"], "" if job.tree["hosts"] == 1 else "s",
                              job.tree["fanout"], job.tree["depth"]))
        commands = opts.commands + (["until-hang %r" % opts.until_hang]
                                    if opts.until_hang is not None else [])
        for line in commands:
            if console.done:
                break
            console.execute(line)
        if not opts.batch and not console.done:
            interactive(console)
        console.report_events()
        return console.status
    except (ways_in.JobError, OSError) as err:
        sys.stderr.write("mpipp-job: %s\n" % err)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("mpipp-job: interrupted\n")
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)    # ending the job is not interrupted
        try:
            if job is not None:
                try:
                    job.close()
                except BaseException:
                    job.abort()
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
