"""The ways into a job: launch it, attach to it, or open its core files.
Each gives a Job: one Session (gdb with mpipp) per rank, keyed by MPI rank.

* launch: mpiexec starts rank.py on every rank's host; each starts its rank
  under gdbserver and reports (rank, host, port) back to a TCP socket this
  console listens on; one gdb per rank then connects with `target
  extended-remote HOST:PORT`.  The report connection stays open as the
  rank's lifeline (see rank.py).
* attach-job: the ranks are the descendants of a PID (mpiexec or any
  ancestor) that carry an MPI rank in their environment (PMI_RANK,
  PMIX_RANK, OMPI_COMM_WORLD_RANK) and map an MPI library.
* attach: the given PIDs; rank from the environment or, failing that, from
  the process's memory (libmpireg's MPI_COMM_WORLD record).
* core: PROGRAM CORE...; the rank is read from each core's memory.
"""

import json
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import time

from .rank import RANK_VARIABLES, mpi_rank
from .session import Session, ask, cli, describe_status, wait_answers

RANK_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank.py")
GDB_SETTINGS = ("mi-async on", "pagination off", "confirm off", "breakpoint pending on",
                "width 0", "height 0", "print thread-events off", "print inferior-events off")
QUIT_TIMEOUT = 10
CONNECT_TIMEOUT = 60


class JobError(Exception):
    """The job could not be started or joined (one-line message)."""


class Job:
    """Sessions by rank, and what must be cleaned up at the end."""

    def __init__(self, mode, reactor):
        self.mode, self.reactor = mode, reactor
        self.sessions = {}
        self.mpiexec = None
        self.lifelines = []
        self.lifeline_of = {}    # rank -> its launcher's lifeline (launch: peek.py requests)
        self.info = {}           # rank -> {"host", "pid", "where"}
        self.setup = None
        self.targets = {}        # rank -> (gdb file arguments, MI commands to connect, label)
        self.closed = False

    @property
    def ranks(self):
        return sorted(self.sessions)

    def close(self):
        """End the job cleanly: launched ranks are killed, attached ones
        detached; every gdb, gdbserver and launcher ends; mpiexec is waited for."""
        if self.closed:
            return
        self.closed = True
        sys.stdout.flush()
        self.reactor.muted = True
        live = [s for s in self.sessions.values() if s.live]
        running = [s for s in live if s.state == "running"]
        for s in running:
            s.interrupt()
        self.reactor.wait(lambda: all(s.state != "running" for s in running), QUIT_TIMEOUT)
        if self.mode == "launch":
            wait_answers(self.reactor, ask(live, cli("kill")).values(), QUIT_TIMEOUT)
            wait_answers(self.reactor, ask([s for s in self.sessions.values()
                                            if s.state not in ("dead", "closed")],
                                           cli("monitor exit")).values(), QUIT_TIMEOUT)
        elif self.mode == "attach":
            wait_answers(self.reactor, ask(live, cli("detach")).values(), QUIT_TIMEOUT)
        for s in self.sessions.values():
            if s.state not in ("dead", "closed"):
                s.send("-gdb-exit")
        deadline = time.monotonic() + QUIT_TIMEOUT
        for s in self.sessions.values():
            _reap(s.proc, deadline)
        for line in self.lifelines:
            line.close()
        if self.mpiexec is not None:
            _reap(self.mpiexec, time.monotonic() + QUIT_TIMEOUT, group=True)

    def abort(self):
        """Kill everything at once (the console itself is going down)."""
        self.closed = True
        for s in self.sessions.values():
            _kill(s.proc.pid)
        for line in self.lifelines:
            line.close()
        if self.mpiexec is not None and self.mpiexec.poll() is None:
            try:
                os.killpg(self.mpiexec.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _kill(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _reap(proc, deadline, group=False):
    """Wait for a child until deadline, then terminate it (its process
    group too), then kill it."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            try:
                (os.killpg if group else os.kill)(proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            return
        except subprocess.TimeoutExpired:
            deadline = time.monotonic() + 3


# -- gdb sessions -----------------------------------------------------------

class Setup:
    """What every gdb needs: the mpipp-gdb script, -nx, the environment."""

    def __init__(self, mpipp_gdb, lib, nx=False):
        self.mpipp_gdb, self.lib, self.nx = mpipp_gdb, lib, nx
        # The console reads no variable objects: its gdbs need no MI relay.
        self.env = dict(os.environ, MPIPP_LIB=lib, MPIPP_MI_RELAY="off")

    def argv(self, *files):
        return [self.mpipp_gdb] + (["-nx"] if self.nx else []) + \
            ["-q", "--interpreter=mi3"] + list(files)


def start_sessions(job, setup, targets):
    """targets: [(rank, gdb file arguments, [MI commands to connect], label)].
    Starts every gdb, connects them in parallel; returns {rank: error}."""
    job.setup = setup
    started = []
    for rank, files, commands, label in targets:
        job.targets[rank] = (files, commands, label)
        job.sessions[rank] = Session(rank, setup.argv(*files), job.reactor, label, setup.env)
        started.append(job.sessions[rank])
    answers = []
    for rank, _files, commands, _label in targets:
        session = job.sessions[rank]
        answers += [(rank, session.send("-gdb-set " + s)) for s in GDB_SETTINGS]
        answers += [(rank, session.send(c)) for c in commands]
    wait_answers(job.reactor, [a for _r, a in answers])
    # An attach in MI's asynchronous mode answers before the process stops.
    job.reactor.wait(lambda: all(s.state != "running" for s in started), CONNECT_TIMEOUT)
    failed = {}
    for rank, answer in answers:
        if not answer.ok and rank not in failed:
            failed[rank] = answer.error or "no answer"
    for rank in failed:
        session = job.sessions.pop(rank)
        _kill(session.proc.pid)
    return failed


def reconnect(job, ranks):
    """A new gdb for each of ranks, connected as the first was (to its
    gdbserver, its process or its core); returns {rank: error}."""
    for rank in ranks:
        old = job.sessions.get(rank)
        if old is not None and old.proc.poll() is None:
            _kill(old.proc.pid)
    return start_sessions(job, job.setup, [(r,) + job.targets[r] for r in ranks])


def identify_ranks(job):
    """Re-key sessions by the MPI rank read from each process's memory
    (libmpireg's MPI_COMM_WORLD record); [warnings] when that is not possible."""
    answers = ask(list(job.sessions.values()), cli("mpipp context -json"))
    wait_answers(job.reactor, answers.values())
    found, warnings = {}, []
    for key, answer in answers.items():
        try:
            rank = json.loads(answer.text)["rank"] if answer.ok else None
        except (ValueError, KeyError, TypeError):
            rank = None
        if rank is None or rank in found.values():
            warnings.append("%s: MPI rank not readable from memory (%s); numbered %d by its "
                            "place on the command line" % (job.sessions[key].label,
                                                          (answer.error or "before MPI_Init?")
                                                          .strip(), key))
            continue
        found[key] = rank
    if len(found) == len(answers):
        job.sessions = {found[k]: s for k, s in job.sessions.items()}
        job.info = {found[k]: v for k, v in job.info.items()}
        job.targets = {found[k]: v for k, v in job.targets.items()}
        for rank, session in job.sessions.items():
            session.rank = rank
    elif found:
        warnings.append("ranks kept in command-line order: not every rank could be read")
    return warnings


# -- launch ------------------------------------------------------------------

def report_host(name=None):
    """The address ranks report to (this host as the compute nodes see it)."""
    if name:
        return name
    host = socket.gethostname()
    try:
        socket.gethostbyname(host)
        return host
    except OSError:
        return "127.0.0.1"


def mpiexec_command(opts, address, token):
    cmd = [opts.mpiexec]
    if opts.mpi == "openmpi" and not any("oversubscribe" in a for a in opts.mpiexec_args):
        cmd.append("--oversubscribe")
    cmd += ["-n", str(opts.n)] + opts.mpiexec_args
    cmd += [sys.executable, RANK_SCRIPT, "--report", address, "--token", token,
            "--lib", opts.lib, "--gdbserver", opts.gdbserver]
    if opts.ports:
        cmd += ["--ports", opts.ports]
    return cmd + ["--", opts.program] + opts.args


def mpiexec_env(opts):
    env = dict(os.environ)
    for name, directory in (("MPIPP_RECORD", opts.record), ("MPIPP_REPLAY", opts.replay)):
        if directory:
            env[name] = directory
    if opts.mpi == "openmpi" and os.geteuid() == 0:
        # Open MPI refuses to start as root without both.
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def collect_reports(listener, mpiexec, n, token, timeout):
    """{rank: (report, peer address, socket)} once all n ranks reported."""
    deadline = time.monotonic() + timeout
    pending, reports = {}, {}
    while len(reports) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise JobError("only %d of %d ranks reported within %d s (see mpiexec's messages "
                           "above; --timeout to wait longer)" % (len(reports), n, timeout))
        if mpiexec.poll() is not None:
            raise JobError("mpiexec exited (%s) before every rank reported"
                           % describe_status(mpiexec.returncode))
        ready, _, _ = select.select([listener] + list(pending), [], [], min(left, 0.2))
        for sock in ready:
            if sock is listener:
                conn, peer = listener.accept()
                pending[conn] = [b"", peer]
                continue
            data = sock.recv(65536)
            pending[sock][0] += data
            if not data or b"\n" in pending[sock][0]:
                raw, peer = pending.pop(sock)
                report = _parse_report(raw, token)
                if report is None:
                    sock.close()
                    continue
                if "error" in report:
                    raise JobError("rank %s: %s" % (report.get("rank"), report["error"]))
                rank = report.get("rank")
                if not isinstance(rank, int) or not 0 <= rank < n or rank in reports:
                    raise JobError("a launcher reported rank %r (expected 0..%d, each once): "
                                   "is PMI_RANK set by this mpiexec?" % (rank, n - 1))
                reports[rank] = (report, peer[0], sock)
    return reports


def _parse_report(raw, token):
    try:
        report = json.loads(raw.split(b"\n", 1)[0])
    except ValueError:
        return None
    return report if isinstance(report, dict) and report.get("token") == token else None


def launch(opts, setup, reactor):
    job = Job("launch", reactor)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("", opts.report_port))
    listener.listen(max(128, opts.n))
    token = secrets.token_hex(16)
    address = "%s:%d" % (report_host(opts.host), listener.getsockname()[1])
    try:
        job.mpiexec = subprocess.Popen(mpiexec_command(opts, address, token),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=mpiexec_env(opts),
                                       start_new_session=True)
    except OSError as err:
        raise JobError("cannot run %s: %s" % (opts.mpiexec, err)) from None
    # The program's output reaches the console through mpiexec; at quit the
    # launcher's complaints about ranks killed without MPI_Finalize do not.
    reactor.relay(job.mpiexec.stdout, sys.stdout.fileno())
    reactor.relay(job.mpiexec.stderr, sys.stderr.fileno())
    try:
        reports = collect_reports(listener, job.mpiexec, opts.n, token, opts.timeout)
    except BaseException:
        job.abort()
        raise
    finally:
        listener.close()
    here = socket.gethostname()
    program = opts.program if os.path.isfile(opts.program) else None
    targets = []
    for rank, (report, peer, sock) in sorted(reports.items()):
        job.lifelines.append(sock)
        job.lifeline_of[rank] = sock
        local = report.get("host") == here
        connect = []
        sysroot = opts.sysroot if opts.sysroot is not None else ("" if local else None)
        if sysroot is not None:
            connect.append("-gdb-set sysroot %s" % sysroot)
        connect.append("-target-select extended-remote %s:%d" % (peer, report["port"]))
        job.info[rank] = {"host": report.get("host"), "pid": report.get("pid"),
                          "where": "%s:%d" % (peer, report["port"])}
        targets.append((rank, [program] if program and (local or opts.sysroot == "") else [],
                        connect, job.info[rank]["where"]))
    failed = start_sessions(job, setup, targets)
    return job, ["rank %d: cannot connect to gdbserver: %s" % (r, e) for r, e in failed.items()]


# -- attach ------------------------------------------------------------------

def _proc(pid, name):
    with open("/proc/%d/%s" % (pid, name), "rb") as f:
        return f.read()


def process_table():
    """{pid: parent pid} of every process."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = _proc(int(entry), "stat")
            except OSError:
                continue
            out[int(entry)] = int(stat.rsplit(b")", 1)[1].split()[1])
    return out


def environment(pid):
    try:
        raw = _proc(pid, "environ")
    except OSError:
        return {}
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode("utf-8", "replace"): v.decode("utf-8", "replace") for k, v in pairs}


def maps_mpi(pid):
    try:
        return b"/libmpi" in _proc(pid, "maps")
    except OSError:
        return False


def job_processes(root):
    """{rank: pid} of the MPI processes below root (breadth first, so the
    topmost process carrying a rank wins over its own children)."""
    parents = process_table()
    if root not in parents:
        raise JobError("no process %d" % root)
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    order, queue = [], [root]
    for pid in queue:
        kids = sorted(children.get(pid, ()))
        order.extend(kids)
        queue.extend(kids)
    found = {}
    for prefer_mpi in (True, False):
        for pid in order:
            rank = mpi_rank(environment(pid))
            if rank is not None and rank not in found and (maps_mpi(pid) or not prefer_mpi):
                found[rank] = pid
        if found:
            break
    if not found:
        raise JobError("no process below %d has an MPI rank in its environment (%s)"
                       % (root, ", ".join(RANK_VARIABLES)))
    return found


def attach(pids, setup, reactor, ranks=None):
    """Attach to {rank: pid}; ranks unknown (None) are read from memory."""
    job = Job("attach", reactor)
    if ranks is None:
        by_env = {pid: mpi_rank(environment(pid)) for pid in pids}
        known = all(r is not None for r in by_env.values()) and \
            len(set(by_env.values())) == len(pids)
        ranks = {by_env[p]: p for p in pids} if known else dict(enumerate(pids))
    else:
        known = True
    targets = []
    for rank, pid in sorted(ranks.items()):
        job.info[rank] = {"host": socket.gethostname(), "pid": pid, "where": "pid %d" % pid}
        targets.append((rank, [], ["-target-attach %d" % pid], "pid %d" % pid))
    failed = start_sessions(job, setup, targets)
    warnings = ["rank %d (pid %d): cannot attach: %s" % (r, ranks[r], e)
                for r, e in failed.items()]
    if not known:
        warnings += identify_ranks(job)
    return job, warnings


def cores(program, files, setup, reactor):
    job = Job("core", reactor)
    targets = []
    for k, core in enumerate(files):
        job.info[k] = {"host": "-", "pid": None, "where": core}
        targets.append((k, [program], ["-target-select core %s" % core], core))
    failed = start_sessions(job, setup, targets)
    warnings = ["%s: cannot open: %s" % (files[r], e) for r, e in failed.items()]
    return job, warnings + identify_ranks(job)


def find_gdbserver(name):
    path = shutil.which(name)
    if path is None:
        raise JobError("%s not found (Debian package gdbserver)" % name)
    return path
