"""One gdb per rank, driven over GDB/MI, all asked in parallel.

A Session owns one gdb process (mpipp loaded, MI on its stdin/stdout).
`send(command)` writes one MI command with a fresh token and returns its
Answer at once; the Reactor -- one thread reading every gdb's output with
select() -- parses records (mi.py) and fills answers and events in.  So
asking N ranks is N writes and one wait, whatever N is.

What a gdb prints outside an answer (the stop text of a `continue`, a rank
that exits, a gdb that dies) becomes an Event on its session, reported by
the console before its next prompt.  A gdb that dies ends its session only:
its pending answers complete with an error and every other session goes on.
"""

import hashlib
import os
import selectors
import signal
import subprocess
import threading
import time

from ...text import mi

READ_CHUNK = 1 << 16
STDERR_TAIL = 2000
_mi_log = []


def mi_log():
    """The file MPIPP_JOB_LOG names, where every MI line sent and received
    goes (for debugging the console), or None: opened by the first session,
    never at import."""
    if not _mi_log:
        path = os.environ.get("MPIPP_JOB_LOG")
        _mi_log.append(open(path, "a", buffering=1) if path else None)
    return _mi_log[0]

EXIT_REASONS = ("exited-normally", "exited", "exited-signalled")
# How a rank ended that vanished with its gdbserver, no exit status told.
VANISHED = "gone with its gdbserver (no exit status: killed by its launcher?)"
# What every rank's gdb is set to before it connects.
GDB_SETTINGS = ("mi-async on", "pagination off", "confirm off", "breakpoint pending on",
                "width 0", "height 0", "print thread-events off", "print inferior-events off")


def gdb_environment(lib):
    """The environment of a rank's gdb (mpipp-gdb): the libmpireg to preload,
    and no MI relay: the console reads no variable objects."""
    return dict(os.environ, MPIPP_LIB=lib, MPIPP_MI_RELAY="off")


class Answer:
    """What one gdb said in reply to one command.  `cls` is MI's result
    class ("done", "running", "error", "connected", "exit") or None when the
    gdb died first; `text` is its console output (what a -json command
    prints), `output` everything it printed in order, error included;
    `digest` identifies the output for merging (computed once, when the
    answer completes, by the reader thread)."""

    __slots__ = ("rank", "command", "token", "cls", "results", "chunks", "console_chunks",
                 "error", "done", "text", "output", "digest", "document")

    def __init__(self, rank, command, token=None):
        self.rank, self.command, self.token = rank, command, token
        self.cls, self.results, self.error = None, {}, None
        self.chunks, self.console_chunks = [], []
        self.done = False
        self.text = self.output = ""
        self.digest = None
        self.document = None     # a document the command wrote (debuggers next to the ranks)

    @property
    def ok(self):
        return self.done and self.cls != "error" and self.cls is not None

    def add(self, text, console):
        self.chunks.append(text)
        if console:
            self.console_chunks.append(text)

    def finish(self, cls, results=None, error=None):
        self.cls, self.results, self.error = cls, results or {}, error
        self.text = "".join(self.console_chunks)
        output = "".join(self.chunks)
        if error is not None and not output.rstrip().endswith(error.strip()):
            output += ("" if not output or output.endswith("\n") else "\n") + error + "\n"
        self.output = output
        self.chunks = self.console_chunks = None
        self.digest = hashlib.blake2b(output.encode("utf-8", "surrogateescape"),
                                      digest_size=16).digest()
        self.done = True

    def copy_from(self, other):
        """Complete as other did (another rank's identical answer)."""
        self.cls, self.results, self.error = other.cls, other.results, other.error
        self.text, self.output, self.digest = other.text, other.output, other.digest
        self.document = other.document
        self.chunks = self.console_chunks = None
        self.done = True


class Event:
    """Something a rank did on its own: kind "stopped", "exited" or "dead"."""

    __slots__ = ("rank", "kind", "text", "results")

    def __init__(self, rank, kind, text, results=None):
        self.rank, self.kind, self.text, self.results = rank, kind, text, results or {}


def exit_description(results):
    """'exited normally', 'exited with code 3', 'killed by SIGKILL'."""
    reason = results.get("reason")
    if reason == "vanished":
        return VANISHED
    if reason == "exited-signalled":
        return "killed by %s" % results.get("signal-name", "a signal")
    if reason == "exited":
        return "exited with code %d" % int(results.get("exit-code", "0"), 8)
    return "exited normally"


def exit_status(results):
    """The status a shell would see of a process that ended so: its exit
    code, or 128 + the number of the signal that killed it."""
    reason = results.get("reason")
    if reason == "exited-signalled":
        try:
            return 128 + signal.Signals[results.get("signal-name", "")].value
        except KeyError:
            return 128
    return int(results.get("exit-code", "0"), 8) if reason == "exited" else 0


# Signals that stop a rank because it faulted or aborted: delivered, they
# end it (a handler, such as Open MPI's backtrace printer, ends it too).
FATAL_SIGNALS = ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGSYS")


def death(results):
    """(status, how) when a *stopped record (or VANISHED's) says the rank
    died or is about to: killed by a signal, exited with a failing code,
    stopped by a fatal signal, gone with its gdbserver; else None.  status:
    what a shell would see (None: not known)."""
    reason = results.get("reason")
    if reason == "exited-signalled" or reason == "exited" and exit_status(results):
        return exit_status(results), exit_description(results)
    if reason == "vanished":
        return None, VANISHED
    name = results.get("signal-name", "")
    if reason == "signal-received" and name in FATAL_SIGNALS:
        where = (results.get("frame") or {}).get("func")
        return 128 + signal.Signals[name].value, "stopped by %s (%s)%s" % (
            name, results.get("signal-meaning", ""), " in " + where if where else "")
    return None


class Session:
    """One gdb for one rank.  state: "stopped", "running", "exited" (no
    process any more), "dead" (the gdb itself is gone) or "closed"."""

    fleet = None     # a gdb of this process's own (fleet.RemoteSession: one next to its rank)

    def __init__(self, rank, argv, reactor, label="", env=None):
        self.rank, self.label, self.reactor = rank, label, reactor
        self.state = "stopped"
        self.why = ""            # how it exited or died
        self.stop = {}           # results of the last *stopped record
        self.vanishing = False   # the process exited; whether gdb says how is not known yet
        self.pending = []        # answers in the order their commands were sent
        self.async_chunks = []   # console output outside any answer (stop text)
        self.stderr_tail = b""
        self.buffers = {}        # fd -> partial line
        self.token = 0
        self.log = mi_log()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, start_new_session=True)
        reactor.add(self)

    @property
    def live(self):
        """True while the gdb runs and has a process to debug."""
        return self.state in ("stopped", "running")

    def send(self, command):
        """Write one MI command; returns its Answer (completed by the reactor)."""
        with self.reactor.lock:
            self.token += 1
            answer = Answer(self.rank, command, self.token)
            if self.state in ("dead", "closed"):
                answer.finish(None, error="gdb is gone (%s)" % (self.why or self.state))
                return answer
            self.pending.append(answer)
        if self.log:
            self.log.write("%d> %d%s\n" % (self.rank, answer.token, command))
        try:
            self.proc.stdin.write(b"%d%s\n" % (answer.token, command.encode("utf-8")))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            with self.reactor.lock:
                self.reactor.gone(self)
        return answer

    def interrupt(self):
        """Stop a running process (MI, asynchronous); for a gdb busy in a
        command, SIGINT makes the command give up ("Quit")."""
        if self.state == "running":
            return self.send("-exec-interrupt")
        if self.pending and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        return None

    # -- called by the reactor, lock held ---------------------------------

    def feed(self, line):
        if self.log:
            self.log.write("%d< %s\n" % (self.rank, line.decode("utf-8", "replace")))
        record = mi.parse(line)
        kind = record.kind
        if kind in ("console", "target", "log", "text"):
            if self.pending:
                self.pending[0].add(record.text if kind != "text" else record.text + "\n",
                                    kind == "console")
            elif kind != "log":
                self.async_chunks.append(record.text if kind != "text" else record.text + "\n")
            return
        if kind == "result":
            answer = self._take(record.token)
            if answer is not None:
                error = record.results.get("msg") if record.cls == "error" else None
                answer.finish(record.cls, record.results, error)
                if record.cls == "exit":
                    self.state = "closed"
                elif record.cls == "running":
                    # gdb answers ^running before its *running: a waiter
                    # woken by the answer must not see the last stop
                    self.state = "running"
            self.reactor.changed.notify_all()
        elif kind == "notify" and record.cls == "thread-group-exited":
            # without an exit code, a *stopped saying how may follow before
            # gdb's prompt (a rank killed by a signal), or none (_vanished)
            self.vanishing = self.state == "running" and "exit-code" not in record.results
        elif kind == "prompt" and self.vanishing:
            self._vanished()
        elif kind == "exec":
            if record.cls == "running":
                self.state = "running"
            elif record.cls == "stopped":
                self._stopped(record.results)
            self.reactor.changed.notify_all()

    def _take(self, token):
        for k, answer in enumerate(self.pending):
            if answer.token == token:
                del self.pending[k]
                return answer
        return None

    def _vanished(self):
        """The process is gone and gdb's prompt came with no *stopped saying
        how: the process and its gdbserver were killed together (mpiexec
        ending an aborted job), and nothing else tells the session so."""
        self.vanishing = False
        if self.state != "running":
            return
        self.state = "exited"
        self.stop = {"reason": "vanished"}
        self.why = exit_description(self.stop)
        self.reactor.events.append(Event(self.rank, "exited", self.why, self.stop))
        self.reactor.changed.notify_all()

    def _stopped(self, results):
        self.vanishing = False
        text = "".join(self.async_chunks)
        self.async_chunks = []
        self.stop = results
        if results.get("reason") in EXIT_REASONS:
            self.state = "exited"
            self.why = exit_description(results)
            self.reactor.events.append(Event(self.rank, "exited", self.why, results))
        else:
            self.state = "stopped"
            self.reactor.events.append(Event(self.rank, "stopped", text, results))


class Reactor:
    """The one thread that reads every session's gdb (thread=False: no
    thread; the owner calls poll())."""

    def __init__(self, thread=True):
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.events = []
        self.selector = selectors.DefaultSelector()
        self.sessions = []
        self.muted = True
        self.wakeup_r, self.wakeup_w = os.pipe()
        self.selector.register(self.wakeup_r, selectors.EVENT_READ, None)
        if thread:
            threading.Thread(target=self._loop, name="mpipp-job reader", daemon=True).start()

    def add(self, session):
        with self.lock:
            self.sessions.append(session)
            for stream in (session.proc.stdout, session.proc.stderr):
                os.set_blocking(stream.fileno(), False)
                session.buffers[stream.fileno()] = b""
                self.selector.register(stream.fileno(), selectors.EVENT_READ,
                                       (session, stream is session.proc.stderr))
        os.write(self.wakeup_w, b"x")

    def relay(self, stream, out_fd):
        """Copy what a child (mpiexec) prints to out_fd, until muted."""
        self.muted = False
        os.set_blocking(stream.fileno(), False)
        with self.lock:
            self.selector.register(stream.fileno(), selectors.EVENT_READ, out_fd)
        os.write(self.wakeup_w, b"x")

    def _relay(self, fd, out_fd):
        """(The reader thread: an exception here would end it, and every
        wait for the gdbs after it would hang.)"""
        try:
            data = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.selector.unregister(fd)
        elif not self.muted:
            try:
                os.write(out_fd, data)
            except OSError:      # the console's output is gone (a closed pipe): drain only
                self.muted = True

    def watch(self, fd, callback):
        """Call callback() (lock held) whenever fd is readable, until unwatch(fd)."""
        with self.lock:
            self.selector.register(fd, selectors.EVENT_READ, callback)
        os.write(self.wakeup_w, b"x")

    def unwatch(self, fd):
        """(lock held, or from a callback)"""
        try:
            self.selector.unregister(fd)
        except (KeyError, ValueError):
            pass

    def _loop(self):
        while True:
            self.poll()

    def poll(self, timeout=None):
        """Read what is ready (waiting up to timeout seconds for something)."""
        for key, _mask in self.selector.select(timeout):
            if key.data is None:
                os.read(self.wakeup_r, 4096)
                continue
            if isinstance(key.data, int):
                self._relay(key.fd, key.data)
                continue
            if callable(key.data):
                with self.lock:
                    key.data()
                    self.changed.notify_all()
                continue
            session, is_stderr = key.data
            try:
                data = os.read(key.fd, READ_CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            with self.lock:
                if is_stderr:
                    self._stderr(session, key.fd, data)
                else:
                    self._stdout(session, key.fd, data)

    def _stderr(self, session, fd, data):
        if not data:
            self.selector.unregister(fd)
            return
        session.stderr_tail = (session.stderr_tail + data)[-STDERR_TAIL:]

    def _stdout(self, session, fd, data):
        if not data:
            self.selector.unregister(fd)
            self.gone(session)
            return
        lines = (session.buffers[fd] + data).split(b"\n")
        session.buffers[fd] = lines.pop()
        for line in lines:
            session.feed(line)

    def gone(self, session):
        """The gdb's output ended (lock held): finish what it owed."""
        if session.state in ("dead", "closed"):
            return
        try:
            status = session.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            status = None
        tail = session.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        why = "gdb died" + (" (%s)" % describe_status(status) if status is not None else "")
        if tail:
            why += ": " + tail[-1]
        session.why = why
        session.state = "dead"
        for answer in session.pending:
            answer.finish(None, error=why)
        if not session.pending:      # else the answers say it
            self.events.append(Event(session.rank, "dead", why))
        session.pending = []
        self.changed.notify_all()

    def wait(self, done, timeout=None, poll=0.2):
        """Wait until done() (called with the lock held) is true; False on
        timeout.  Interruptible: KeyboardInterrupt reaches the caller."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.lock:
            while not done():
                left = poll if deadline is None else min(poll, deadline - time.monotonic())
                if left <= 0:
                    return False
                self.changed.wait(left)
        return True

    def take_events(self):
        with self.lock:
            events, self.events = self.events, []
        return events


def describe_status(status):
    if status < 0:
        try:
            return "killed by %s" % signal.Signals(-status).name
        except ValueError:
            return "signal %d" % -status
    return "exit status %d" % status


def cli(command):
    """The MI command that runs a CLI command as the user typed it."""
    return "-interpreter-exec console " + mi.quote(command)


def ask(sessions, command):
    """Send an MI command (a string, or a function of the session giving
    one) to every session; returns {rank: Answer} without waiting.  Ranks
    whose gdbs run next to them get one command down the tree, whatever
    their number."""
    if sessions and sessions[0].fleet is not None and isinstance(command, str):
        return sessions[0].fleet.ask(sessions, command)
    return {s.rank: s.send(command if isinstance(command, str) else command(s))
            for s in sessions}


def wait_answers(reactor, answers, timeout=None):
    answers = set(answers)      # ranks asked down the tree share their answers
    return reactor.wait(lambda: all(a.done for a in answers), timeout)
