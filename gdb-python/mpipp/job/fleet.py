"""The console's side of debuggers next to the ranks (gdb-free).

With `--debuggers near` (the default when ranks run on other hosts), every
rank's gdb runs on the rank's host under its back-end (agent.py), and the
back-ends form a tree (tree.py) whose root holds the console's one
connection.  Here each rank is a RemoteSession -- what the console knows of
it: state, last stop, answers pending -- so the console's commands work on
them as on gdbs of its own; a command for many ranks goes down the tree
once, and its answers come back merged, one per group of identical answers.
The Reactor's thread reads the connection and completes answers and events.
"""

from . import wire
from .ranks import format_ranks, parse_ranks
from .session import Answer, Event, exit_description


class RemoteProcess:
    """A gdb on another host: its pid there, nothing to signal from here."""

    def __init__(self, pid):
        self.pid = pid


class RemoteSession:
    """One rank whose gdb runs next to it.  Same states as Session."""

    def __init__(self, rank, fleet, info):
        self.rank, self.fleet = rank, fleet
        self.label = "%s %s" % (info["host"], info.get("where", ""))
        self.proc = RemoteProcess(info.get("gdb"))
        self.state = "stopped"
        self.why = ""
        self.stop = {}
        self.pending = []

    @property
    def live(self):
        return self.state in ("stopped", "running")

    def send(self, command):
        return self.fleet.ask([self], command)[self.rank]

    def interrupt(self):
        if self.state == "running":
            return self.send("-exec-interrupt")
        if self.pending:
            self.fleet.signal([self])
        return None


class Fleet:
    """The connection to the tree's root, and every RemoteSession."""

    def __init__(self, link, reactor):
        self.link, self.reactor = link, reactor
        self.sessions = {}
        self.requests = {}       # id -> {rank: Answer}
        self.serial = 0

    def attach(self):
        self.reactor.watch(self.link.fd, self._readable)

    # -- down ----------------------------------------------------------------

    def ask(self, sessions, command, document=False, kind="ask"):
        """{rank: Answer} of command on sessions, sent down the tree once.
        document: command writes a file (wire.DOCUMENT stands for its
        name), whose contents come back as each answer's document."""
        with self.reactor.lock:
            self.serial += 1
            ident = self.serial
            answers, ranks = {}, []
            for s in sessions:
                answer = answers[s.rank] = Answer(s.rank, command, ident)
                if s.state in ("dead", "closed") and kind == "ask" or self.link.closed:
                    answer.finish(None, error="gdb is gone (%s)" % (s.why or s.state))
                    continue
                s.pending.append(answer)
                ranks.append(s.rank)
            if ranks:
                self.requests[ident] = {r: answers[r] for r in ranks}
        if ranks:
            self.link.send({"t": kind, "id": ident, "ranks": format_ranks(ranks),
                            "cmd": command, "document": document})
        return answers

    def signal(self, sessions):
        """SIGINT the gdbs of sessions (a command they are busy with gives up)."""
        self.link.send({"t": "signal", "ranks": format_ranks(s.rank for s in sessions)})

    def reconnect(self, ranks):
        """A new gdb next to each of ranks whose gdb died; {rank: error}."""
        answers = self.ask([self.sessions[r] for r in ranks], "", kind="reconnect")
        self.reactor.wait(lambda: all(a.done for a in answers.values()))
        failed = {}
        for rank, answer in answers.items():
            if answer.ok:
                session = self.sessions[rank]
                session.state, session.why, session.stop = "stopped", "", {}
                session.proc = RemoteProcess(answer.results.get("gdb"))
            else:
                failed[rank] = answer.error or "no answer"
        return failed

    def close(self):
        """The back-ends end their ranks and gdbs when this closes."""
        self.link.close()

    # -- up (the reactor's thread, lock held) ----------------------------------

    def _readable(self):
        messages = self.link.receive()
        if messages is None:
            self.reactor.unwatch(self.link.fd)
            self._lost()
            return
        for message in messages:
            kind = message.get("t")
            if kind == "answer":
                self._answer(message)
            elif kind == "events":
                for event in message["events"]:
                    self._event(event)

    def _answer(self, message):
        answers = self.requests.pop(message.get("id"), {})
        for g in message["groups"]:
            template = Answer(None, None)
            template.chunks, template.console_chunks = [g["output"] or ""], [g["text"] or ""]
            template.finish(g["cls"], g["results"], g["error"])
            template.document = g.get("document")
            for rank in parse_ranks(g["ranks"]):
                answer = answers.get(rank)
                session = self.sessions.get(rank)
                if answer is None or session is None:
                    continue
                answer.copy_from(template)
                if answer in session.pending:
                    session.pending.remove(answer)
                if g.get("dead"):
                    session.state, session.why = "dead", g["dead"]
                elif template.cls == "running":
                    session.state = "running"
                elif template.cls == "exit":
                    session.state = "closed"

    def _event(self, event):
        session = self.sessions.get(event["rank"])
        if session is None:
            return
        kind, results = event["kind"], event.get("results") or {}
        if kind == "stopped":
            session.state, session.stop = "stopped", results
        elif kind == "exited":
            session.state, session.why = "exited", exit_description(results)
        else:
            session.state, session.why = "dead", event["text"]
        self.reactor.events.append(Event(session.rank, kind, event["text"], results))

    def _lost(self):
        why = "the connection to the ranks' back-ends closed"
        for answers in self.requests.values():
            for answer in answers.values():
                if not answer.done:
                    answer.finish(None, error=why)
        self.requests = {}
        for session in self.sessions.values():
            session.pending = []
            if session.state not in ("exited", "closed"):
                session.state, session.why = "dead", why
                self.reactor.events.append(Event(session.rank, "dead", why))
