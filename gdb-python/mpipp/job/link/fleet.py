"""The console's side of debuggers next to the ranks (gdb-free).

With `--debuggers near` (the default when ranks run on other hosts), every
rank's gdb runs on the rank's host under its host's back-end (agent.py,
one per host), and the back-ends form a tree (tree.py) whose root holds the console's one
connection.  Here each rank is a RemoteSession -- what the console knows of
it: state, last stop, answers pending -- so the console's commands work on
them as on gdbs of its own; a command for many ranks goes down the tree
once, and its answers come back merged, one per group of identical answers.
The Reactor's thread reads the connection and completes answers and events.
The until-hang watcher's reads of the running ranks' memory (peek) go down
the same tree: each back-end reads its ranks on its host.
"""

from ...text.ranks import format_ranks, parse_ranks
from . import tree
from .session import Answer, Event, exit_description
from .wire import from_hex


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

    @property
    def live(self):
        return self.state in ("stopped", "running")

    @property
    def pending(self):
        """The answers this rank still owes."""
        return [asked[self.rank] for asked in self.fleet.requests.values()
                if self.rank in asked]

    def send(self, command):
        return self.fleet.ask([self], command)[self.rank]

    def interrupt(self):
        if self.state == "running":
            return self.send("-exec-interrupt")
        if self.pending:
            self.fleet.signal([self])
        return None


class Asked(dict):
    """{rank: Answer} of one command asked down the tree.  Ranks whose
    answers are identical share one Answer, and `groups` lists them once
    complete ([(ranks, Answer)]), so the console's cost per answer does not
    grow with the ranks that gave it."""

    groups = None


class Fleet:
    """The connection to the tree's root, and every RemoteSession."""

    def __init__(self, link, reactor):
        self.link, self.reactor = link, reactor
        self.sessions = {}
        self.requests = {}       # id -> Asked, until its answer came
        self.peeks = {}          # id -> {rank: data} of a peek, None until it came
        self.serial = 0
        self._ranks_text = (None, None)   # the last rank list asked, written down

    def attach(self):
        self.reactor.watch(self.link.fd, self._readable)

    # -- down ----------------------------------------------------------------

    def ask(self, sessions, command, document=False, kind="ask"):
        """{rank: Answer} of command on sessions, sent down the tree once.
        document: command writes a file (wire.DOCUMENT stands for its
        name), whose contents come back as each answer's document."""
        gone = [s for s in sessions if kind == "ask" and s.state in ("dead", "closed")
                or self.link.closed]
        with self.reactor.lock:
            self.serial += 1
            ident = self.serial
            asked = Asked()
            for s in gone:
                asked[s.rank] = Answer(s.rank, command, ident)
                asked[s.rank].finish(None, error="gdb is gone (%s)" % (s.why or s.state))
            ranks = [s.rank for s in sessions if s.rank not in asked]
            if ranks:
                asked.update(dict.fromkeys(ranks, Answer(None, command, ident)))
                self.requests[ident] = asked
        if ranks and not self.link.send({"t": kind, "id": ident, "ranks": self._ranks(ranks),
                                         "cmd": command, "document": document}):
            with self.reactor.lock:
                self.reactor.unwatch(self.link.fd)
                self._lost()
        return asked

    def _ranks(self, ranks):
        key = tuple(ranks)
        if self._ranks_text[0] != key:
            self._ranks_text = (key, format_ranks(ranks))
        return self._ranks_text[1]

    def peek(self, ranges, timeout):
        """{rank: [bytes or None]} of {rank: [(address, length)]}: each
        rank's back-end reads its memory on its host without stopping it
        (progress.py).  Ranks whose back-end did not answer within timeout,
        or is gone, are left out."""
        with self.reactor.lock:
            self.serial += 1
            ident = self.serial
            self.peeks[ident] = None
        sent = self.link.send({"t": "peek", "id": ident,
                               "ranges": {str(r): v for r, v in ranges.items()}})
        if sent:
            self.reactor.wait(lambda: self.peeks[ident] is not None, timeout)
        with self.reactor.lock:
            data = self.peeks.pop(ident) or {}
        return {int(r): from_hex(d) for r, d in data.items() if d is not None}

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
            elif kind == "peeked":
                if message.get("id") in self.peeks:
                    self.peeks[message["id"]] = message.get("data") or {}
            elif kind == "events":
                for event in message["events"]:
                    self._event(event)

    def _answer(self, message):
        asked = self.requests.pop(message.get("id"), None)
        if asked is None:
            return
        placeholder = next(iter(asked.values()))
        groups = []
        for g in sorted(message["groups"], key=lambda g: -len(g["ranks"])):
            answer = Answer(None, placeholder.command)
            answer.chunks, answer.console_chunks = [g["output"] or ""], [tree.text(g) or ""]
            answer.finish(g["cls"], g["results"], g["error"])
            answer.document = g.get("document")
            ranks = parse_ranks(g["ranks"])
            if not groups:          # the largest group completes what every rank holds
                placeholder.copy_from(answer)
                answer = placeholder
            else:
                asked.update(dict.fromkeys(ranks, answer))
            groups.append((ranks, answer))
            self._states(ranks, g)
        missing = len(asked) - sum(len(ranks) for ranks, _a in groups)
        if missing:
            covered = {r for ranks, _a in groups for r in ranks}
            lost = Answer(None, placeholder.command)
            lost.finish(None, error="no answer from its back-end")
            ranks = [r for r in asked if r not in covered]
            asked.update(dict.fromkeys(ranks, lost))
            groups.append((ranks, lost))
        asked.groups = sorted(groups, key=lambda item: item[0][0])

    def _states(self, ranks, g):
        """What an answer says of its ranks' states."""
        if g.get("dead"):
            state, why = "dead", g["dead"]
        elif g["cls"] == "running":
            state, why = "running", None
        elif g["cls"] == "exit":
            state, why = "closed", None
        else:
            return
        for rank in ranks:
            session = self.sessions.get(rank)
            if session is not None:
                session.state = state
                if why is not None:
                    session.why = why

    def _event(self, event):
        session = self.sessions.get(event["rank"])
        if session is None:
            return
        kind, results = event["kind"], event.get("results") or {}
        if kind == "stopped":
            session.state, session.stop = "stopped", results
        elif kind == "exited":
            session.state, session.stop = "exited", results
            session.why = exit_description(results)
        else:
            session.state, session.why = "dead", event["text"]
        self.reactor.events.append(Event(session.rank, kind, event["text"], results))

    def _lost(self):
        why = "the connection to the ranks' back-ends closed"
        for asked in self.requests.values():
            for answer in set(asked.values()):
                if not answer.done:
                    answer.finish(None, error=why)
        self.requests = {}
        for ident in self.peeks:
            self.peeks[ident] = self.peeks[ident] or {}
        for session in self.sessions.values():
            if session.state not in ("exited", "closed"):
                session.state, session.why = "dead", why
                self.reactor.events.append(Event(session.rank, "dead", why))
