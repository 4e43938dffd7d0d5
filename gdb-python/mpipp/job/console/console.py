"""The console: the ranks' sessions, what it prints, and how one line
runs -- on the console's own commands (commands.py) or, for anything else,
on the gdb of every rank in focus, their outputs merged."""

import json
import os
import signal
import socket
import subprocess
import sys

from ...readers.errors import MpippError
from ...text.mi import quote
from ...text.ranks import RankError, header
from ..analysis import merge
from ..analysis.stacks import describe_stop, interrupted
from ..analysis.world import RankState, Stop, World
from ..link import wire
from ..link.session import ask, cli, describe_status, wait_answers
from ..node import rank as rank_launcher
from . import ends

RESTARTS = ("run", "r", "start", "starti")
# Execution commands gdb can run in the background: they are sent with '&'
# so every gdb keeps reading commands (ctrl-C interrupts them: interrupt_rank);
# the console itself waits for the stops unless the user typed '&'.
BACKGROUND = ("continue", "c", "cont", "fg", "next", "n", "step", "s", "stepi", "si", "nexti",
              "ni", "finish", "fin", "until", "u")
STOP_TIMEOUT = 15
# seconds for srun to end once every rank of its step is gone
STEP_END_WAIT = 5


class Console:
    """One console over a job: `commands` are its own ({name: function
    (console, argument)}; any other line goes to gdb)."""

    def __init__(self, job, out=sys.stdout, scratch=None, commands=None):
        self.job, self.out = job, out
        self.scratch = scratch     # a directory for the documents ranks write
        self.commands = commands or {}
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
        if ends:
            self.step_ended()

    def step_ended(self):
        """Once every rank ended, killed, and srun with them: say it was
        srun that ended the step (under --mpi=pmix Slurm ends every rank
        when one dies), not the ranks' back-ends or their connections."""
        launcher, sessions = self.job.mpiexec, self.job.sessions.values()
        if self.job.step_end_told or launcher is None or \
                os.path.basename(str(launcher.args[0])) != "srun" or \
                any(s.live for s in sessions) or \
                not any("signal" in (s.stop or {}).get("reason", "") for s in sessions):
            return
        try:
            status = launcher.wait(timeout=STEP_END_WAIT)
        except subprocess.TimeoutExpired:
            return
        self.job.step_end_told = True
        self.write("mpipp-job: srun ended the step (%s): Slurm ended every rank"
                   % describe_status(status))

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
        """Wait until none of sessions runs; ctrl-C interrupts them.  When
        one dies (ends.deaths) the others are interrupted: under the
        console its launcher does not see it die, and the job would wait
        for it for ever."""
        reactor = self.job.reactor

        def settled():
            return all(s.state != "running" for s in sessions) or bool(ends.deaths(sessions))
        try:
            done = reactor.wait(settled, timeout)
        except KeyboardInterrupt:
            self.write("interrupting %s" % header([s.rank for s in sessions
                                                   if s.state == "running"]))
            self.interrupt(sessions)
            return
        running = [s.rank for s in sessions if s.state == "running"]
        if done and running:
            self.report_events()
            self.write("mpipp-job: %s; interrupting %s" % (ends.line(ends.deaths(sessions)),
                                                           header(running)))
            self.interrupt(sessions)
            return
        if not done:
            self.write("%s still running" % header(running))
        self.report_events()

    def interrupt(self, sessions):
        running = [s for s in sessions if s.state == "running"]
        for s in running:
            self.interrupt_rank(s)
        self.job.reactor.wait(lambda: all(s.state != "running" for s in running), STOP_TIMEOUT)
        self.report_events()

    def interrupt_rank(self, session):
        """Stop a running rank.  gdb's interrupt (gdbserver's, or a gdb's
        next to the rank) sends SIGINT to the rank's whole process group,
        so the program's own child processes get it too, and most die of
        it.  So SIGINT goes to the rank alone: from its launcher, where the
        console launched it under gdbserver, or from the console, to a rank
        on this host; its gdb reports the stop as its own interrupt would.
        Elsewhere the interrupt goes to the rank's node's back-end, which
        sends the SIGINT to the rank alone itself (node/agent.py)."""
        info = self.job.info.get(session.rank, {})
        lifeline = self.job.lifeline_of.get(session.rank)
        try:
            if lifeline is not None:
                lifeline.sendall(rank_launcher.INTERRUPT + b"\n")
                return
            if info.get("pid") and info.get("host") == socket.gethostname():
                os.kill(info["pid"], signal.SIGINT)
                return
        except OSError:
            pass
        session.interrupt()

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
        handler = self.commands.get(word)
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
