"""mpipp-job's back-end on a node: the gdbs of the node's ranks run there,
and only MI text crosses the network (debuggers next to the ranks).

One back-end per node, whatever the number of ranks there: started by
srun once per node (a step of its own, `--overlap`, as the tool daemons of
parallel debuggers are), or, where the launcher cannot start one, by the
launcher of the node's first rank (rank.py).  It hands over to serve() once
the console has said which ranks it holds -- {rank: {"pid", "hold"}}: each
rank's process, held before its exec by its launcher (rank.py) until this
back-end's gdb is attached, or (no "hold") running, to attach to -- and
where it sits in the tree (tree.py).  The back-end then

* attaches one gdb with mpipp to each of its ranks natively (memory reads
  are system calls, not remote-protocol round trips), all at once, and
  leads the held ones through their exec;
* takes commands from its parent (the console, or another back-end),
  passes them to its children, runs them in its ranks' gdbs, and sends up
  one message with the answers merged by group (tree.merge);
* passes up what its gdbs report on their own (stops, exits, a gdb that
  died), after any answer that was pending, so the console sees each rank's
  answer before the stop that followed it;
* reads its running ranks' memory when the console asks (the until-hang
  watcher: peek.py), without gdb, and passes the reads up with its
  children's;
* ends its ranks, its gdbs and its children's connections when its
  parent's connection closes (the console quit or died): nothing outlives
  the job -- except ranks it attached to ("detach": true, --attach-job),
  which it detaches: they run on as they were.

A gdb that dies leaves its rank stopped (SIGSTOP from here: gdb attached,
so the kernel detached and resumed it); `reconnect` attaches a new gdb.
"""

import os
import shutil
import signal
import socket
import sys
import tempfile
import time

from ...text.ranks import parse_ranks
from ..link import tree, wire
from ..link.session import GDB_SETTINGS, Reactor, Session, cli, exit_description, gdb_environment
from . import peek

START_TIMEOUT = 120
DETACH_TIMEOUT = 10
SCRATCH_PARENT = "/dev/shm"


class StartError(Exception):
    pass


def zombie_status(pid):
    """The wait status of a process that ended and was not reaped yet, else
    None (/proc/PID/stat: state, and exit_code, field 52)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] != b"Z" or len(fields) < 50:
        return None
    return int(fields[49])


def alive(pid):
    """The process runs (or is stopped): not gone, not a zombie."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def exit_results(status):
    """What gdb's *stopped record says of an exit with this wait status."""
    if os.WIFSIGNALED(status):
        return {"reason": "exited-signalled",
                "signal-name": signal.Signals(os.WTERMSIG(status)).name}
    code = os.WEXITSTATUS(status)
    return {"reason": "exited", "exit-code": "%o" % code} if code else \
        {"reason": "exited-normally"}


def kill(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def interrupt(pid):
    """SIGINT to the rank alone: gdb's interrupt would send it to the
    rank's whole process group, the program's child processes too (most die
    of it); gdb reports the stop as its own interrupt would."""
    kill(pid, signal.SIGINT)


def stopped(pid):
    """The process is stopped (state T), as a job attached to may be."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"T"
    except (OSError, IndexError):
        return False


def release(pid, hold):
    """Let a held process go on to its exec: its launcher (rank.py) holds it
    reading the pipe on its descriptor hold, which /proc opens for writing
    from here too."""
    fd = os.open("/proc/%d/fd/%d" % (pid, hold), os.O_WRONLY)
    try:
        os.write(fd, b"x")
    finally:
        os.close(fd)


class Rank:
    """One of the node's ranks: its process (held or running) and its gdb."""

    def __init__(self, rank, host, pid, hold):
        self.rank, self.pid, self.hold = rank, pid, hold
        self.session = None
        self.dead_seen = False    # its gdb's death was seen to
        self.exit_seen = False    # its end was passed up
        self.info = {"rank": rank, "host": host, "pid": pid}
        self.was_stopped = hold is None and stopped(pid)    # attached to while stopped


class Pending:
    """A command on its way: the groups gathered so far, who still owes one
    (own: {rank: Answer} of this node's gdbs)."""

    def __init__(self, ident, own, waiting):
        self.ident, self.own, self.waiting = ident, own, waiting
        self.groups = []


class PendingPeek:
    """A peek on its way: the ranks read so far, who still owes theirs."""

    def __init__(self, data, waiting):
        self.data, self.waiting = data, waiting


class Agent:
    def __init__(self, token, host, setup):
        """setup: the console's instruction (the ranks to hold, the gdb
        command line, the library gdb preloads, the number of children, the
        parent's address)."""
        self.token, self.host, self.setup = token, host, setup
        self.reactor = Reactor(thread=False)
        self.parent = None
        self.children = {}        # Link -> [ranks below it] (None until it is ready)
        self.accepted = []        # connections accepted, not read yet
        self.strangers = []       # connections that have not said hello
        self.inbox = []           # (link, messages or None) read by the reactor
        self.requests = {}        # id -> Pending
        self.peeks = {}           # id -> PendingPeek
        self.held = []            # events waiting for pending answers to go up first
        self.ready_sent = False
        self.ended = False
        self.ranks = {int(r): Rank(int(r), host, p["pid"], p.get("hold"))
                      for r, p in sorted((setup.get("ranks") or {}).items(),
                                         key=lambda item: int(item[0]))}
        parent = SCRATCH_PARENT if os.access(SCRATCH_PARENT, os.W_OK) else None
        self.scratch = tempfile.mkdtemp(prefix="mpipp-agent-%d-" % os.getpid(), dir=parent)

    # -- links ---------------------------------------------------------------

    def watch(self, link):
        def readable():
            messages = link.receive()
            self.inbox.append((link, messages))
            if messages is None:
                self.reactor.unwatch(link.fd)
        self.reactor.watch(link.fd, readable)

    def listen(self, listener):
        def accept():          # (the reactor's lock is held: watched in step())
            try:
                conn, _peer = listener.accept()
            except OSError:
                return
            self.accepted.append(wire.Link(conn))
        self.reactor.watch(listener.fileno(), accept)

    def connect_parent(self, report_link):
        """The console's report connection is the root's parent; every other
        back-end connects to its parent's listener and says who it is."""
        if self.setup.get("parent") is None:
            self.parent = report_link
        else:
            host, _, port = self.setup["parent"].rpartition(":")
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                try:
                    sock = socket.create_connection((host, int(port)), timeout=10)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            sock.settimeout(None)
            self.parent = wire.Link(sock)
            self.parent.send({"t": "hello", "node": self.host, "token": self.token})
            report_link.close()
        self.watch(self.parent)

    # -- the ranks and their gdbs ----------------------------------------------

    def start(self):
        """A gdb attached to every rank of the node, all at once."""
        try:
            self.start_gdbs(list(self.ranks.values()))
        except OSError as err:
            for r in self.ranks.values():
                r.info.setdefault("error", str(err))

    def start_gdbs(self, ranks):
        """gdbs attached to ranks; the held ones led through their exec to
        the dynamic loader's first event (a catchpoint would take breakpoint
        number 1 from the user), where gdbserver would have stopped them.
        A rank that fails gets its error in its info."""
        env = gdb_environment(self.setup["lib"])
        for r in ranks:
            held = r.hold is not None
            argv = list(self.setup["gdb"]) + ["-q", "--interpreter=mi3", "-iex",
                                              "set auto-solib-add %s" % ("off" if held else "on")]
            r.session = Session(r.rank, argv, self.reactor, "pid %d" % r.pid, env)
        ranks = self.wait_steps(self.send_steps({
            r: ["-gdb-set " + s for s in GDB_SETTINGS] + ["-target-attach %d" % r.pid]
            for r in ranks}))
        held = [r for r in ranks if r.hold is not None]
        sent = self.send_steps({r: ["-gdb-set stop-on-solib-events 1",
                                    "-gdb-set auto-solib-add on", "-exec-continue"]
                                for r in held})
        for r in held:
            try:
                release(r.pid, r.hold)
            except OSError as err:
                self.failed(r, "cannot release the held process: %s" % err)
        for r in self.wait_steps(sent):
            if r.session.stop.get("reason") != "solib-event":
                self.failed(r, "gdb did not follow the program's start (stopped: %s)"
                            % r.session.stop.get("reason", r.session.why or "?"))
        self.wait_steps(self.send_steps({r: ["-gdb-set stop-on-solib-events 0"]
                                         for r in held if r.session is not None}))
        self.reactor.events.clear()
        for r in ranks:
            if r.session is not None:
                r.info.update(gdb=r.session.proc.pid, where="pid %d" % r.pid)

    @staticmethod
    def send_steps(steps):
        """{rank: [Answer]} of each rank's commands ({rank: [command]}), sent."""
        return {r: [r.session.send(c) for c in commands] for r, commands in steps.items()}

    def wait_steps(self, sent):
        """Wait for the answers sent and for the programs to stop; a rank
        whose gdb failed gets its error (failed()).  Returns the ranks left."""
        sent = {r: answers for r, answers in sent.items() if r.session is not None}
        deadline = time.monotonic() + START_TIMEOUT
        while not all(all(a.done for a in answers) and r.session.state != "running"
                      for r, answers in sent.items()):
            if time.monotonic() > deadline:
                break
            self.reactor.poll(0.2)
        left = []
        for r, answers in sent.items():
            failed = [a for a in answers if not a.done or not a.ok]
            if failed:
                self.failed(r, "gdb: %s" % (failed[0].error or "no answer").strip())
            elif r.session.state == "running":
                self.failed(r, "gdb did not attach within %d s" % START_TIMEOUT)
            else:
                left.append(r)
        return left

    def failed(self, r, why):
        """A rank whose gdb could not start: its error said when the
        console asks; its gdb ends."""
        if "error" not in r.info:
            r.info["error"] = why
        if r.session is not None and r.session.proc.poll() is None:
            kill(r.session.proc.pid)
        r.session = None

    def check_programs(self):
        """A program killed while gdb holds it stopped is a zombie gdb does
        not notice (gdb attached: it is not the parent, and waits only for
        what it resumed); say it ended, and have gdb let go of it."""
        for r in self.ranks.values():
            if r.exit_seen or r.session is None:
                continue
            status = zombie_status(r.pid)
            if status is None:
                continue
            r.exit_seen = True
            results = exit_results(status)
            r.session.state, r.session.why = "exited", exit_description(results)
            self.held.append({"rank": r.rank, "kind": "exited", "text": r.session.why,
                              "results": results})
            r.session.send(cli("kill"))

    def reconnect(self, r):
        """A new gdb for a rank whose gdb died: (cls, error)."""
        if r.session is not None and r.session.state != "dead":
            return "error", "its gdb is alive"
        if not alive(r.pid):
            return "error", "its process is gone"
        r.info.pop("error", None)
        r.hold = None
        self.start_gdbs([r])
        if r.session is None:
            return "error", r.info.get("error", "no gdb")
        r.dead_seen = False
        return "done", None

    # -- the loop --------------------------------------------------------------

    def run(self, report_link, listener):
        self.listen(listener)
        self.connect_parent(report_link)
        while not self.ended:
            self.reactor.poll(1.0)
            self.step()
        self.end()

    def step(self):
        for link in self.accepted:
            self.strangers.append(link)
            self.watch(link)
        self.accepted = []
        inbox, self.inbox = self.inbox, []
        for link, messages in inbox:
            if messages is None:
                self.lost(link)
                continue
            for message in messages:
                self.handle(link, message)
        for event in self.reactor.take_events():
            r = self.ranks.get(event.rank)
            if event.kind == "exited" and r is not None:
                if r.exit_seen:
                    continue
                r.exit_seen = True
            self.held.append({"rank": event.rank, "kind": event.kind, "text": event.text,
                              "results": event.results})
        self.check_programs()
        for r in self.ranks.values():
            if r.session is not None and r.session.state == "dead" and not r.dead_seen:
                r.dead_seen = True
                if alive(r.pid):
                    kill(r.pid, signal.SIGSTOP)     # wait, stopped, for a new gdb
        self.send_ready()
        for pending in list(self.requests.values()):
            if not pending.waiting and all(a.done for a in pending.own.values()):
                self.answer(pending)
        for ident, pending in list(self.peeks.items()):
            if not pending.waiting:
                del self.peeks[ident]
                self.parent.send({"t": "peeked", "id": ident, "data": pending.data})
        if self.held and not self.requests:
            self.parent.send({"t": "events", "events": self.held})
            self.held = []
        for link in [c for c in self.children if c.closed]:      # a send failed
            self.reactor.unwatch(link.fd)
            self.lost(link)
        if self.parent.closed:
            self.ended = True

    def handle(self, link, message):
        kind = message.get("t")
        if link is self.parent:
            if kind in ("ask", "reconnect"):
                self.ask(message)
            elif kind == "peek":
                self.peek(message)
            elif kind == "signal":
                self.signal(message)
            return
        if link in self.strangers:
            if kind == "hello" and message.get("token") == self.token:
                self.strangers.remove(link)
                self.children[link] = None
            else:
                self.strangers.remove(link)
                link.close()
            return
        if kind == "ready":
            self.children[link] = message["ranks"]
        elif kind == "answer":
            pending = self.requests.get(message.get("id"))
            if pending is not None:
                pending.groups += message["groups"]
                pending.waiting.discard(link)
        elif kind == "events":
            self.held += message["events"]
        elif kind == "peeked":
            pending = self.peeks.get(message.get("id"))
            if pending is not None:
                pending.data.update(message.get("data") or {})
                pending.waiting.discard(link)

    def below(self, link, ranks):
        subtree = self.children.get(link) or ()
        return any(info["rank"] in ranks for info in subtree)

    def ask(self, message):
        ranks = set(parse_ranks(message["ranks"]))
        waiting = set()
        for link in self.children:
            if self.below(link, ranks) and link.send(message):
                waiting.add(link)
        own = {r.rank: self.run_own(r, message) for r in self.ranks.values() if r.rank in ranks}
        self.requests[message["id"]] = Pending(message["id"], own, waiting)

    def peek(self, message):
        """Pass a peek to the children with ranks of it below them; read
        this node's ranks' memory now (their processes, stopped or running:
        /proc)."""
        wanted = message.get("ranges") or {}
        waiting = set()
        for link, infos in self.children.items():
            subset = {str(i["rank"]): wanted[str(i["rank"])] for i in infos or ()
                      if str(i["rank"]) in wanted}
            if subset and link.send({"t": "peek", "id": message["id"], "ranges": subset}):
                waiting.add(link)
        data = {}
        for r in self.ranks.values():
            own = wanted.get(str(r.rank))
            if own is not None:
                try:
                    data[str(r.rank)] = peek.read_hex(r.pid, peek.ranges_of(own))
                except (ValueError, TypeError):
                    data[str(r.rank)] = None
        self.peeks[message["id"]] = PendingPeek(data, waiting)

    def run_own(self, r, message):
        if message["t"] == "reconnect":
            cls, error = self.reconnect(r)
            answer = _Done(cls, error)
            if cls == "done":
                answer.results = {"gdb": r.session.proc.pid}
            return answer
        if r.session is None:
            return _Done("error", r.info.get("error", "no gdb"))
        if r.session.state == "dead":     # the console asked before it heard
            return _Done("error", r.session.why)
        command = message["cmd"]
        if command == "-exec-interrupt" and r.session.state == "running":
            interrupt(r.pid)
            return _Done("done", None)
        if message.get("document"):
            path = os.path.join(self.scratch, "document.%d.%d" % (message["id"], r.rank))
            if os.path.exists(path):
                os.unlink(path)
            command = command.replace(wire.DOCUMENT, path)
            answer = r.session.send(command)
            answer.document = path
            return answer
        return r.session.send(command)

    def signal(self, message):
        ranks = set(parse_ranks(message["ranks"]))
        for link in self.children:
            if self.below(link, ranks):
                link.send(message)
        for r in self.ranks.values():
            if r.rank in ranks and r.session is not None and r.session.pending:
                if r.session.state == "running":
                    interrupt(r.pid)
                else:
                    r.session.interrupt()

    def answer(self, pending):
        groups = pending.groups + [tree.group([rank], self.own_fields(self.ranks[rank], a))
                                   for rank, a in pending.own.items()]
        del self.requests[pending.ident]
        self.parent.send({"t": "answer", "id": pending.ident, "groups": tree.merge(groups)})

    def own_fields(self, r, answer):
        document = None
        if answer.document is not None:
            try:
                with open(answer.document, encoding="utf-8", errors="surrogateescape") as f:
                    document = f.read()
                os.unlink(answer.document)
            except OSError:
                document = None
        # a gdb that died with answers owed says so in them (no event, as
        # with the console's own gdbs): the console learns it with them
        dead = r.session.why if r.session is not None and r.session.state == "dead" else None
        return {"cls": answer.cls, "output": answer.output, "text": answer.text,
                "error": answer.error, "results": answer.results, "document": document,
                "dead": dead}

    def send_ready(self):
        if self.ready_sent or self.strangers or len(self.children) < self.setup["children"] \
                or any(ranks is None for ranks in self.children.values()):
            return
        infos = [r.info for r in self.ranks.values()] + \
            [i for ranks in self.children.values() for i in ranks]
        self.ready_sent = self.parent.send({"t": "ready", "ranks": infos})

    def lost(self, link):
        """A connection closed: the parent's ends everything; a child's, its
        ranks answer with an error from now on."""
        if link is self.parent:
            self.ended = True
            return
        if link in self.strangers:
            self.strangers.remove(link)
            return
        by_host = {}
        for info in self.children.pop(link, None) or ():
            by_host.setdefault(info["host"], []).append(info["rank"])
        for pending in self.peeks.values():
            pending.waiting.discard(link)
        owing = [p for p in self.requests.values() if link in p.waiting]
        for pending in owing:
            pending.waiting.discard(link)
        for host, ranks in by_host.items():
            why = "its back-end on %s is gone (the connection closed)" % host
            for pending in owing:
                pending.groups.append(tree.group(ranks, {"cls": None, "output": why + "\n",
                                                         "text": "", "error": why,
                                                         "dead": why}))
            self.held += [{"rank": r, "kind": "dead", "text": why, "results": {}}
                          for r in ranks]

    def end(self):
        """Everything this back-end started ends: its children's back-ends
        (their connections close), its ranks (their launchers end with
        them), its gdbs."""
        for link in list(self.children) + self.strangers:
            link.close()
        if self.parent is not None:
            self.parent.close()
        if self.setup.get("detach"):
            self.detach()
        else:
            for r in self.ranks.values():
                kill(r.pid)
        for r in self.ranks.values():
            if r.session is not None and r.session.proc.poll() is None:
                kill(r.session.proc.pid)
                r.session.proc.wait()
        if self.setup.get("detach"):
            for r in self.ranks.values():
                if not r.was_stopped and stopped(r.pid):
                    kill(r.pid, signal.SIGCONT)  # its gdb went before it could detach
        shutil.rmtree(self.scratch, ignore_errors=True)

    def detach(self):
        """Ranks this back-end attached to (--attach-job) are left as they
        were: each gdb still attached stops its rank and detaches."""
        live = [r for r in self.ranks.values() if r.session is not None and alive(r.pid) and
                r.session.state not in ("dead", "closed", "exited")]
        for r in live:
            if r.session.state == "running":
                interrupt(r.pid)
        deadline = time.monotonic() + DETACH_TIMEOUT
        answers = {}
        while time.monotonic() < deadline:
            for r in live:
                if r.rank not in answers and r.session.state not in ("running", "dead"):
                    answers[r.rank] = r.session.send("-target-detach")
            if len(answers) == len(live) and all(a.done for a in answers.values()):
                break
            self.reactor.poll(0.2)


class _Done:
    """An answer given here, without gdb."""

    def __init__(self, cls, error):
        self.cls, self.error, self.done = cls, error, True
        self.results, self.text, self.document = {}, "", None
        self.output = "" if error is None else error + "\n"


def serve(token, host, setup, report_link, listener):
    """Be the node's back-end until the parent's connection closes; returns
    the exit status."""
    agent = Agent(token, host, setup)
    try:
        agent.start()
        agent.run(report_link, listener)
    except OSError as err:
        sys.stderr.write("mpipp-job back-end on %s: cannot reach its parent %s: %s\n"
                         % (host, setup.get("parent"), err))
        return 1
    finally:
        if not agent.ended:
            agent.end()
    return 0
