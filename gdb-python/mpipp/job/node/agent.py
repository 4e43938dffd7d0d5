"""mpipp-job's back-end next to a rank: its gdb runs on the rank's host, and
only MI text crosses the network (debuggers next to the ranks).

rank.py, started by mpiexec beside the rank, hands over to serve() once the
console has said where this back-end sits in the tree (tree.py).  The
back-end then

* starts the program stopped (it is the program's parent, so the program
  ends with it) and a gdb with mpipp that attaches to it natively: memory
  reads are system calls, not remote-protocol round trips;
* takes commands from its parent (the console, or another back-end),
  passes them to its children, runs them in its own gdb, and sends up one
  message with the answers merged by group (tree.merge);
* passes up what its gdb reports on its own (stops, exits, a gdb that
  died), after any answer that was pending, so the console sees each rank's
  answer before the stop that followed it;
* reads its running rank's memory when the console asks (the until-hang
  watcher: peek.py), without its gdb, and passes the reads up with its
  children's;
* ends its rank, its gdb and its children's connections when its parent's
  connection closes (the console quit or died): nothing outlives the job.

A gdb that dies leaves its rank stopped (SIGSTOP from here: gdb attached,
so the kernel detached and resumed it); `reconnect` attaches a new gdb.
"""

import ctypes
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
ADDR_NO_RANDOMIZE = 0x0040000
SCRATCH_PARENT = "/dev/shm"


class StartError(Exception):
    pass


def no_randomization():
    """Addresses the same on every rank (as gdb and gdbserver start programs),
    so their outputs merge."""
    try:
        ctypes.CDLL(None, use_errno=True).personality(ADDR_NO_RANDOMIZE)
    except (OSError, AttributeError):
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


def exit_results(status):
    """What gdb's *stopped record says of an exit with this wait status."""
    if os.WIFSIGNALED(status):
        return {"reason": "exited-signalled",
                "signal-name": signal.Signals(os.WTERMSIG(status)).name}
    code = os.WEXITSTATUS(status)
    return {"reason": "exited", "exit-code": "%o" % code} if code else \
        {"reason": "exited-normally"}


class StoppedStart:
    """The program as a child of this process, held before its exec until
    go(): gdb attaches to the child first (auto-solib-add off: nothing of
    this Python is read), then follows it through the exec into the program,
    before the dynamic loader runs -- where gdbserver would have stopped it.
    (A fork of our own: subprocess would wait for the exec.)"""

    def __init__(self, program, preload, on_exec):
        hold, release = os.pipe()
        env = dict(os.environ, LD_PRELOAD=preload)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(release)
                on_exec()
                no_randomization()
                os.read(hold, 1)
                os.close(hold)
                os.execvpe(program[0], program, env)
            except BaseException:      # not a second copy of this back-end
                os._exit(127)
        os.close(hold)
        self.release = release
        self.returncode = None

    def go(self):
        os.write(self.release, b"x")
        os.close(self.release)

    def poll(self):
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = self.pid, 0
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self):
        while self.poll() is None:
            time.sleep(0.05)
        return self.returncode


class Pending:
    """A command on its way: the groups gathered so far, who still owes one."""

    def __init__(self, ident, own, waiting):
        self.ident, self.own, self.waiting = ident, own, waiting
        self.groups = []


class PendingPeek:
    """A peek on its way: the ranks read so far, who still owes theirs."""

    def __init__(self, data, waiting):
        self.data, self.waiting = data, waiting


class Agent:
    def __init__(self, rank, token, host, setup):
        """setup: the console's instruction (the gdb command line, the
        library to preload, the number of children, the parent's address)."""
        self.rank, self.token, self.host, self.setup = rank, token, host, setup
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
        self.dead_seen = False    # this gdb's death was seen to
        self.exit_seen = False    # the program's end was passed up
        self.ended = False
        self.program = self.session = None
        self.info = {"rank": rank, "host": host}
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
            self.parent.send({"t": "hello", "rank": self.rank, "token": self.token})
            report_link.close()
        self.watch(self.parent)

    # -- the rank and its gdb ------------------------------------------------

    def start(self, program, lib, on_exec):
        preload = lib + (":" + os.environ["LD_PRELOAD"] if os.environ.get("LD_PRELOAD") else "")
        try:
            held = self.program = StoppedStart(program, preload, on_exec)
            self.info["pid"] = self.program.pid
            self.start_gdb(held)
        except (StartError, OSError) as err:
            self.info["error"] = str(err)

    def start_gdb(self, held=None):
        """A gdb attached to the program; when it is held before its exec
        (a StoppedStart), led through the exec."""
        argv = list(self.setup["gdb"]) + ["-q", "--interpreter=mi3", "-iex",
                                          "set auto-solib-add %s" % ("off" if held else "on")]
        session = Session(self.rank, argv, self.reactor, "pid %d" % self.program.pid,
                          gdb_environment(self.setup["lib"]))
        self.session = session
        steps = ["-gdb-set " + s for s in GDB_SETTINGS] + ["-target-attach %d" % self.program.pid]
        self.run_steps(steps)
        if held is not None:
            # through the exec to the dynamic loader's first event (a catchpoint
            # would take breakpoint number 1 from the user)
            self.run_steps(["-gdb-set stop-on-solib-events 1", "-gdb-set auto-solib-add on"])
            answer = session.send("-exec-continue")
            held.go()
            self.run_steps([], [answer])
            if session.stop.get("reason") != "solib-event":
                raise StartError("gdb did not follow the program's start (stopped: %s)"
                                 % session.stop.get("reason", session.why or "?"))
            self.run_steps(["-gdb-set stop-on-solib-events 0"])
        self.reactor.events.clear()
        self.info.update(gdb=session.proc.pid, where="pid %d" % self.program.pid)

    def run_steps(self, commands, answers=()):
        """Send commands, wait for them (and answers) and for the program to stop."""
        answers = list(answers) + [self.session.send(c) for c in commands]
        deadline = time.monotonic() + START_TIMEOUT
        while not (all(a.done for a in answers) and self.session.state != "running"):
            if time.monotonic() > deadline:
                raise StartError("gdb did not attach within %d s" % START_TIMEOUT)
            self.reactor.poll(0.2)
        failed = [a for a in answers if not a.ok]
        if failed:
            raise StartError("gdb: %s" % (failed[0].error or "no answer").strip())

    def check_program(self):
        """A program killed while gdb holds it stopped is a zombie gdb does
        not notice (gdb attached: it is not the parent, and waits only for
        what it resumed); say it ended, and have gdb let go of it."""
        if self.exit_seen or self.program is None or self.session is None:
            return
        status = zombie_status(self.program.pid)
        if status is None:
            return
        self.exit_seen = True
        results = exit_results(status)
        self.session.state, self.session.why = "exited", exit_description(results)
        self.held.append({"rank": self.rank, "kind": "exited", "text": self.session.why,
                          "results": results})
        self.session.send(cli("kill"))

    def reconnect(self):
        """A new gdb for a rank whose gdb died: (cls, error)."""
        if self.session is not None and self.session.state != "dead":
            return "error", "its gdb is alive"
        if self.program is None or self.program.poll() is not None:
            return "error", "its process is gone"
        try:
            self.start_gdb()
        except (StartError, OSError) as err:
            return "error", str(err)
        self.dead_seen = False
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
            if event.kind == "exited":
                if self.exit_seen:
                    continue
                self.exit_seen = True
            self.held.append({"rank": event.rank, "kind": event.kind, "text": event.text,
                              "results": event.results})
        self.check_program()
        if self.session is not None and self.session.state == "dead" and not self.dead_seen:
            self.dead_seen = True
            if self.program.poll() is None:
                os.kill(self.program.pid, signal.SIGSTOP)     # wait, stopped, for a new gdb
        self.send_ready()
        for pending in list(self.requests.values()):
            if not pending.waiting and (pending.own is None or pending.own.done):
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
        own = None
        if self.rank in ranks:
            own = self.run_own(message)
        self.requests[message["id"]] = Pending(message["id"], own, waiting)

    def peek(self, message):
        """Pass a peek to the children with ranks of it below them; read
        this rank's memory now (its process, stopped or running: /proc)."""
        wanted = message.get("ranges") or {}
        waiting = set()
        for link, infos in self.children.items():
            subset = {str(i["rank"]): wanted[str(i["rank"])] for i in infos or ()
                      if str(i["rank"]) in wanted}
            if subset and link.send({"t": "peek", "id": message["id"], "ranges": subset}):
                waiting.add(link)
        data = {}
        own = wanted.get(str(self.rank))
        if own is not None:
            try:
                pid = self.program.pid if self.program is not None else None
                data[str(self.rank)] = peek.read_hex(pid, peek.ranges_of(own))
            except (ValueError, TypeError):
                data[str(self.rank)] = None
        self.peeks[message["id"]] = PendingPeek(data, waiting)

    def run_own(self, message):
        if message["t"] == "reconnect":
            cls, error = self.reconnect()
            answer = _Done(cls, error)
            if cls == "done":
                answer.results = {"gdb": self.session.proc.pid}
            return answer
        if self.session is None:
            return _Done("error", self.info.get("error", "no gdb"))
        if self.session.state == "dead":     # the console asked before it heard
            return _Done("error", self.session.why)
        command = message["cmd"]
        if message.get("document"):
            path = os.path.join(self.scratch, "document.%d" % message["id"])
            if os.path.exists(path):
                os.unlink(path)
            command = command.replace(wire.DOCUMENT, path)
            answer = self.session.send(command)
            answer.document = path
            return answer
        return self.session.send(command)

    def signal(self, message):
        ranks = set(parse_ranks(message["ranks"]))
        for link in self.children:
            if self.below(link, ranks):
                link.send(message)
        if self.rank in ranks and self.session is not None and self.session.pending:
            self.session.interrupt()

    def answer(self, pending):
        groups = pending.groups
        if pending.own is not None:
            groups = groups + [tree.group([self.rank], self.own_fields(pending.own))]
        del self.requests[pending.ident]
        self.parent.send({"t": "answer", "id": pending.ident, "groups": tree.merge(groups)})

    def own_fields(self, answer):
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
        dead = self.session.why if self.session is not None and \
            self.session.state == "dead" else None
        return {"cls": answer.cls, "output": answer.output, "text": answer.text,
                "error": answer.error, "results": answer.results, "document": document,
                "dead": dead}

    def send_ready(self):
        if self.ready_sent or self.strangers or len(self.children) < self.setup["children"] \
                or any(ranks is None for ranks in self.children.values()):
            return
        infos = [self.info] + [i for ranks in self.children.values() for i in ranks]
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
        infos = self.children.pop(link, None) or ()
        ranks = [i["rank"] for i in infos]
        for pending in self.peeks.values():
            pending.waiting.discard(link)
        if not ranks:
            return
        # the host of the subtree's top back-end: the one whose connection closed
        why = "its back-end is gone (the connection from %s closed)" % infos[0]["host"]
        for pending in self.requests.values():
            if link in pending.waiting:
                pending.waiting.discard(link)
                pending.groups.append(tree.group(ranks, {"cls": None, "output": why + "\n",
                                                         "text": "", "error": why}))
        self.held += [{"rank": r, "kind": "dead", "text": why, "results": {}} for r in ranks]

    def end(self):
        """Everything this back-end started ends: its children's back-ends
        (their connections close), its rank, its gdb."""
        for link in list(self.children) + self.strangers:
            link.close()
        if self.parent is not None:
            self.parent.close()
        for proc in (self.program, self.session.proc if self.session else None):
            if proc is not None and proc.poll() is None:
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)


class _Done:
    """An answer given here, without gdb."""

    def __init__(self, cls, error):
        self.cls, self.error, self.done = cls, error, True
        self.results, self.text, self.document = {}, "", None
        self.output = "" if error is None else error + "\n"


def serve(rank, token, host, setup, report_link, listener, program, on_exec):
    """Be rank's back-end until the parent's connection closes; returns
    the exit status."""
    agent = Agent(rank, token, host, setup)
    try:
        agent.start(program, setup["lib"], on_exec)
        agent.run(report_link, listener)
    except OSError as err:
        sys.stderr.write("mpipp-job back-end of rank %s on %s: cannot reach its parent %s: %s\n"
                         % (rank, host, setup.get("parent"), err))
        return 1
    finally:
        if not agent.ended:
            agent.end()
    return 0
