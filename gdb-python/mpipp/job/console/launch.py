"""The ways into a job: launch it, attach to it, or open its core files.
Each gives a Job: one Session (gdb with mpipp) per rank, keyed by MPI rank.

* launch: the launcher (mpiexec, or srun inside a Slurm allocation) starts
  rank.py on every rank's host; each reports (rank, host) back to a TCP
  socket this console listens on.  Then either every rank's gdb runs next
  to it (near -- the default when some rank runs on another host: each
  launcher starts its rank held; one back-end per host, agent.py, attaches
  a gdb to each of the host's ranks, in a tree over the hosts whose root
  this console talks to, fleet.py; the back-ends are srun's step of their
  own inside a Slurm allocation, else the first rank's launcher on each
  host), or here: each launcher starts its rank under gdbserver and reports
  its port, and one gdb per rank here connects with `target
  extended-remote HOST:PORT`.  The report connection (near: the tree's)
  stays open as the rank's lifeline.
* attach-job: the ranks are the descendants of a PID (mpiexec or any
  ancestor) that carry an MPI rank in their environment (PMI_RANK,
  PMIX_RANK, OMPI_COMM_WORLD_RANK) and map an MPI library.
* attach: the given PIDs; rank from the environment or, failing that, from
  the process's memory (libmpireg's MPI_COMM_WORLD record).
* core: PROGRAM CORE...; the rank is read from each core's memory.
"""

import contextlib
import fcntl
import json
import os
import re
import secrets
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

from ...text.ranks import format_ranks
from ..link import fleet as fleets
from ..link import tree, wire
from ..link.session import (GDB_SETTINGS, Session, ask, cli, describe_status, gdb_environment,
                            wait_answers)
from ..node.rank import RANK_VARIABLES, mpi_rank

RANK_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "node",
                           "rank.py")
SIOCGIFADDR = 0x8915
QUIT_TIMEOUT = 10
CONNECT_TIMEOUT = 60


class JobError(Exception):
    """The job could not be started or joined (one-line message)."""


class Job:
    """Sessions by rank, and what must be cleaned up at the end."""

    def __init__(self, mode, reactor):
        self.mode, self.reactor = mode, reactor
        self.sessions = {}
        self.mpiexec = None      # the launcher's process: mpiexec, or srun
        self.backends = None     # srun's step of the nodes' back-ends
        self.step_end_told = False   # the console said srun ended the ranks' step
        self.lifelines = []
        self.lifeline_of = {}    # rank -> its launcher's lifeline (launch: peek.py requests)
        self.info = {}           # rank -> {"host", "pid", "where"}
        self.setup = None
        self.targets = {}        # rank -> (gdb file arguments, MI commands to connect, label)
        self.fleet = None        # the ranks' gdbs run next to them (fleet.py)
        self.tree = None         # then: {"fanout", "depth", "hosts"} of their tree
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
        if self.fleet is not None:
            # the back-ends end their ranks and gdbs when the tree's root
            # connection closes; killing the ranks first lets them end
            # cleanly (attached ranks: detaching leaves them as they were)
            wait_answers(self.reactor, ask(live, cli("detach" if self.mode == "attach"
                                                     else "kill")).values(), QUIT_TIMEOUT)
            self.fleet.close()
        elif self.mode == "launch":
            wait_answers(self.reactor, ask(live, cli("kill")).values(), QUIT_TIMEOUT)
            wait_answers(self.reactor, ask([s for s in self.sessions.values()
                                            if s.state not in ("dead", "closed")],
                                           cli("monitor exit")).values(), QUIT_TIMEOUT)
        elif self.mode == "attach":
            wait_answers(self.reactor, ask(live, cli("detach")).values(), QUIT_TIMEOUT)
        if self.fleet is None:
            for s in self.sessions.values():
                if s.state not in ("dead", "closed"):
                    s.send("-gdb-exit")
            deadline = time.monotonic() + QUIT_TIMEOUT
            for s in self.sessions.values():
                _reap(s.proc, deadline)
        for line in self.lifelines:
            line.close()
        for launcher in (self.mpiexec, self.backends):
            if launcher is not None:
                _reap(launcher, time.monotonic() + QUIT_TIMEOUT, group=True)

    def abort(self):
        """Kill everything at once (the console itself is going down)."""
        self.closed = True
        if self.fleet is not None:
            self.fleet.close()
        else:
            for s in self.sessions.values():
                _kill(s.proc.pid)
        for line in self.lifelines:
            line.close()
        for launcher in (self.mpiexec, self.backends):
            if launcher is not None and launcher.poll() is None:
                try:
                    os.killpg(launcher.pid, signal.SIGKILL)
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
    """What every gdb needs: the mpipp-gdb script, -nx, whether it reads
    separate debug files (options.reads_separate_debug), the environment."""

    def __init__(self, mpipp_gdb, lib, nx=False, separate_debug=True):
        self.mpipp_gdb, self.lib, self.nx = mpipp_gdb, lib, nx
        self.separate_debug = separate_debug
        self.env = gdb_environment(lib)

    def argv(self, *files):
        # an empty debug-file-directory, set before any file is read: gdb
        # still finds a debug link beside its library, not /usr/lib/debug's
        lean = [] if self.separate_debug else ["-iex", "set debug-file-directory"]
        return [self.mpipp_gdb] + (["-nx"] if self.nx else []) + lean + \
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
    if job.fleet is not None:
        return job.fleet.reconnect(ranks)
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

def report_hosts(opts, hosts=None):
    """The addresses ranks may report to, best first (each rank connects to
    the first that answers from its host): --host alone when given; else the
    address this host reaches each of the ranks' hosts from (hosts; by
    default those named to mpiexec, the nodes of the Slurm allocation srun
    launches in), this host's name, and every address of this host's
    interfaces."""
    if opts.host:
        return [opts.host]
    out = []
    if hosts is None:
        hosts = slurm_node_addresses() if opts.launcher == "srun" else \
            named_hosts(opts.mpiexec_args)
    for name in hosts:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect((name, 9))     # no packet: only the route is looked up
                out.append(probe.getsockname()[0])
        except OSError:
            continue
    out.append(socket.gethostname())
    out += [a for a in interface_addresses() if not a.startswith("127.")] + ["127.0.0.1"]
    return list(dict.fromkeys(out))


# mpiexec options that name hosts (MPICH's Hydra, Open MPI): NAME[:SLOTS],...
HOST_OPTIONS = ("-hosts", "-host", "--host", "-H")


def named_hosts(args):
    names = []
    for k, word in enumerate(args[:-1]):
        if word in HOST_OPTIONS:
            names += [h.split(":")[0] for h in args[k + 1].split(",") if h]
    return list(dict.fromkeys(names))


def slurm_node_addresses(nodes=None):
    """The addresses of Slurm nodes (their NodeAddr: the console's host may
    not resolve the nodes' names), [] when Slurm cannot say.  The nodes:
    those given, else the allocation's: $SLURM_JOB_NODELIST (salloc,
    sbatch), else the job's as squeue sees it (only $SLURM_JOB_ID given)."""
    nodes = nodes or os.environ.get("SLURM_JOB_NODELIST") or \
        slurm(["squeue", "-h", "-j", os.environ.get("SLURM_JOB_ID", ""), "-o", "%N"],
              quiet=True).strip()
    if not nodes:
        return []
    out = slurm(["scontrol", "show", "node", "-o", nodes], quiet=True)
    return list(dict.fromkeys(re.findall(r"\bNodeAddr=(\S+)", out)))


def slurm(argv, quiet=False):
    """What a Slurm client prints; when it cannot run or fails, a JobError
    with its words (quiet: "" instead)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=CONNECT_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as err:
        if quiet:
            return ""
        raise JobError("cannot run %s: %s" % (argv[0], err)) from None
    if proc.returncode != 0:
        if quiet:
            return ""
        raise JobError("%s: %s" % (" ".join(argv[:2]), (proc.stderr.strip() or
                                                        "exit status %d" % proc.returncode)
                                   .splitlines()[-1]))
    return proc.stdout


def interface_addresses():
    """The IPv4 address of each interface of this host."""
    out = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _index, name in socket.if_nameindex():
            try:
                raw = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, struct.pack("256s",
                                                                         name.encode()[:15]))
            except OSError:
                continue
            out.append(socket.inet_ntoa(raw[20:24]))
    return out


# The PMI srun offers each MPI's programs (Debian's builds: MPICH's PMI-2
# client, Open MPI's PMIx).
SRUN_PMI = {"mpich": "pmi2", "openmpi": "pmix"}


def launcher_command(opts, address, token):
    """The launcher's command line: rank.py in place of every rank."""
    if opts.launcher == "srun":
        cmd = ["srun"]
        if not any(a == "--mpi" or a.startswith("--mpi=") for a in opts.mpiexec_args):
            cmd.append("--mpi=" + SRUN_PMI[opts.mpi])
    else:
        cmd = [opts.mpiexec]
        if opts.mpi == "openmpi" and not any("oversubscribe" in a for a in opts.mpiexec_args):
            cmd.append("--oversubscribe")
    cmd += ["-n", str(opts.n)] + opts.mpiexec_args
    cmd += [sys.executable, RANK_SCRIPT, "--report", address, "--token", token,
            "--lib", opts.lib, "--gdbserver", opts.gdbserver]
    if opts.ports:
        cmd += ["--ports", opts.ports]
    return cmd + ["--", opts.program] + opts.args


# The name of the back-ends' steps, which attach never takes for the job's.
BACKEND_STEP_NAME = "mpipp-backends"
# One back-end per node, started by Slurm itself as parallel debuggers
# start their tool daemons (HPE's CTI, behind gdb4hpc): a step beside the
# job's, sharing its nodes (--overlap), one task per node, no PMI, no CPU
# binding, no memory of its own to claim.
BACKEND_STEP = ["--overlap", "--ntasks-per-node=1", "--mpi=none", "--cpu-bind=no",
                "--mem-per-cpu=0", "--job-name=" + BACKEND_STEP_NAME]


def backends_command(opts, address, token):
    """srun's command line for one back-end (rank.py --node) on every node
    of the allocation, or None where the launcher cannot start them (no
    allocation to start a step in: then the first rank's launcher on each
    host becomes its back-end)."""
    job = os.environ.get("SLURM_JOB_ID")
    if opts.launcher != "srun" or not job:
        return None
    nodes = os.environ.get("SLURM_JOB_NUM_NODES") or \
        slurm(["squeue", "-h", "-j", job, "-o", "%D"], quiet=True).strip()
    if not nodes.isdigit():
        return None
    return ["srun", "--jobid", job, "-N", nodes, "-n", nodes] + BACKEND_STEP + \
        [sys.executable, RANK_SCRIPT, "--node", "--report", address, "--token", token]


def launcher_env(opts):
    env = dict(os.environ)
    for name, directory in (("MPIPP_RECORD", opts.record), ("MPIPP_REPLAY", opts.replay)):
        if directory:
            env[name] = directory
    if opts.record:  # the run's name, so that no rank broadcasts one inside MPI_Init
        env["MPIPP_RECORD_RUN"] = "%x" % (secrets.randbits(63) | 1)
    if opts.mpi == "openmpi" and os.geteuid() == 0:
        # Open MPI refuses to start as root without both.
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


class Reports:
    """The ranks' launchers: what each reported, on which connection."""

    def __init__(self, launcher, name, n, token, timeout, address, expected=None):
        """address: where the console listens, as the ranks were told;
        expected: the ranks that report (default 0..n-1)."""
        self.launcher, self.name, self.n, self.token = launcher, name, n, token
        self.address = address
        self.expected = set(range(n) if expected is None else expected)
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.reports = {}        # rank -> report
        self.peers = {}          # rank -> the address its connection came from
        self.socks = {}          # rank -> socket
        self.nodes = {}          # host -> (report, peer, socket) of a node's back-end
        self.pending = {}        # socket -> [data, peer] of a report not complete yet

    def left(self, what, done=None):
        """Seconds left to wait for every rank to have done what; a JobError
        when none are, or mpiexec exited."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise JobError("%s of %d ranks %s within %d s (see %s's messages above; the "
                           "console listened at %s: --host ADDRESS for one the ranks' hosts "
                           "reach; --timeout to wait longer)"
                           % ("not all" if done is None else "only %d" % done, self.n, what,
                              self.timeout, self.name, self.address))
        if self.launcher.poll() is not None:
            raise JobError("%s exited (%s) before every rank %s"
                           % (self.name, describe_status(self.launcher.returncode), what))
        return left

    def collect(self, listener, hosts=None, what="had a back-end on its node"):
        """Every rank's first report: {rank: report}.  hosts ({host:
        ranks}): wait instead for the reports of the back-ends of these
        hosts (srun's step), the ranks counted as what."""
        while (len(self.reports) < self.n) if hosts is None else \
                not set(hosts) <= set(self.nodes):
            left = self.left("reported", len(self.reports)) if hosts is None else \
                self.left(what, sum(len(ranks) for host, ranks in hosts.items()
                                    if host in self.nodes))
            ready, _, _ = select.select([listener] + list(self.pending), [], [], min(left, 0.2))
            for sock in ready:
                if sock is listener:
                    conn, peer = listener.accept()
                    self.pending[conn] = [b"", peer]
                    continue
                data = sock.recv(65536)
                self.pending[sock][0] += data
                if not data or b"\n" in self.pending[sock][0]:
                    raw, peer = self.pending.pop(sock)
                    self._took(self._parse(raw), peer, sock)
        return self.reports

    def _took(self, report, peer, sock):
        """A report read: a rank's, or a node back-end's."""
        if report is None:
            sock.close()
            return
        if "node" in report:
            self.nodes[report["node"]] = (report, peer[0], sock)
            return
        rank = report.get("rank")
        if rank not in self.expected or rank in self.reports:
            raise JobError("a launcher reported rank %r (expected %s, each once): "
                           "is PMI_RANK set by this %s?"
                           % (rank, format_ranks(self.expected), self.name))
        self.reports[rank], self.peers[rank], self.socks[rank] = report, peer[0], sock

    def replies(self, what="started gdbserver"):
        """Every rank's second line (after its instruction): {rank: reply}."""
        pending = {self.socks[r]: [b"", r] for r in self.socks}
        out = {}
        while pending:
            left = self.left(what, len(out))
            ready, _, _ = select.select(list(pending), [], [], min(left, 0.2))
            for sock in ready:
                data = sock.recv(65536)
                pending[sock][0] += data
                if not data or b"\n" in pending[sock][0]:
                    raw, rank = pending.pop(sock)
                    reply = self._parse(raw) or {"error": "the launcher closed its connection"}
                    if "error" in reply:
                        raise JobError("rank %d: %s" % (rank, reply["error"]))
                    out[rank] = reply
        return out

    def _parse(self, raw):
        try:
            report = json.loads(raw.split(b"\n", 1)[0])
        except ValueError:
            return None
        return report if isinstance(report, dict) and report.get("token") == self.token else None

    def instruct(self, rank, message):
        instruct(self.socks[rank], message)

    def close(self):
        for sock in self.socks.values():
            sock.close()
        self.close_nodes()

    def close_nodes(self):
        """The connections of back-ends not placed in the tree, and of
        reports not read: closed (a back-end without a place ends)."""
        for sock in list(self.pending) + [sock for _r, _p, sock in self.nodes.values()]:
            sock.close()
        self.pending, self.nodes = {}, {}


def instruct(sock, message):
    sock.sendall((json.dumps(message) + "\n").encode())


def report_listener(port, ranks):
    """The socket the ranks' launchers and back-ends report to."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("", port))
    listener.listen(max(128, ranks))
    return listener


def start_launcher(command, reactor, env=None):
    """A launcher's process (mpiexec, srun; the back-ends' srun step), its
    output relayed: the program's reaches the console through it; at quit
    the launcher's complaints about ranks killed without MPI_Finalize do
    not."""
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as err:
        raise JobError("cannot run %s: %s" % (command[0], err)) from None
    reactor.relay(process.stdout, sys.stdout.fileno())
    reactor.relay(process.stderr, sys.stderr.fileno())
    return process


@contextlib.contextmanager
def starting(job, reports, listener):
    """A start that fails leaves nothing: the job aborted, its reports
    closed; the listener and the back-ends left unused end either way."""
    try:
        yield
    except BaseException:
        job.abort()
        reports.close()
        raise
    finally:
        listener.close()
        reports.close_nodes()


def launch(opts, setup, reactor):
    job = Job("launch", reactor)
    listener = report_listener(opts.report_port, opts.n)
    token = secrets.token_hex(16)
    address = "%s:%d" % (",".join(report_hosts(opts)), listener.getsockname()[1])
    command = launcher_command(opts, address, token)
    job.mpiexec = start_launcher(command, reactor, launcher_env(opts))
    reports = Reports(job.mpiexec, os.path.basename(command[0]), opts.n, token, opts.timeout,
                      address)
    with starting(job, reports, listener):
        here = socket.gethostname()
        near = opts.debuggers == "near"
        if near or opts.debuggers == "auto":
            step = backends_command(opts, address, token)
            job.backends = step and start_launcher(step, reactor)
        reports.collect(listener)
        near = near or opts.debuggers == "auto" and any(
            r.get("host") != here for r in reports.reports.values())
        if near:
            return start_near(job, reports, setup, opts, listener)
        return job, start_here(job, reports, setup, opts)


def start_here(job, reports, setup, opts):
    """Every rank's gdb on this host, connected to the gdbserver its
    launcher starts; returns warnings."""
    for rank in reports.socks:
        reports.instruct(rank, {"start": "gdbserver"})
    replies = reports.replies()
    here = socket.gethostname()
    program = opts.program if os.path.isfile(opts.program) else None
    targets = []
    for rank, reply in sorted(replies.items()):
        report, peer = reports.reports[rank], reports.peers[rank]
        job.lifelines.append(reports.socks[rank])
        job.lifeline_of[rank] = reports.socks[rank]
        local = report.get("host") == here
        connect = []
        sysroot = opts.sysroot if opts.sysroot is not None else ("" if local else None)
        if sysroot is not None:
            connect.append("-gdb-set sysroot %s" % sysroot)
        connect.append("-target-select extended-remote %s:%d" % (peer, reply["port"]))
        job.info[rank] = {"host": report.get("host"), "pid": reply.get("pid"),
                          "where": "%s:%d" % (peer, reply["port"])}
        targets.append((rank, [program] if program and (local or opts.sysroot == "") else [],
                        connect, job.info[rank]["where"]))
    failed = start_sessions(job, setup, targets)
    return ["rank %d: cannot connect to gdbserver: %s" % (r, e) for r, e in failed.items()]


def start_near(job, reports, setup, opts, listener):
    """Every rank's gdb next to it, in its node's back-end: every rank
    started held, the back-ends (srun's step, else the first rank's launcher
    on each host) placed in the tree over the nodes and told which ranks
    they hold; wait for the root to say the whole tree is ready.  Returns
    (job, warnings)."""
    for rank in reports.socks:
        reports.instruct(rank, {"start": "held"})
    held = reports.replies("started held")
    by_host = {}
    for rank in sorted(reports.reports):
        by_host.setdefault(reports.reports[rank]["host"], []).append(rank)
    if job.backends is not None:
        reports.collect(listener, hosts=by_host)
        nodes = {host: reports.nodes.pop(host) for host in by_host}
    else:      # each host's first rank's launcher becomes its back-end
        nodes = {host: (reports.reports[ranks[0]], reports.peers[ranks[0]],
                        reports.socks[ranks[0]]) for host, ranks in by_host.items()}
    for _report, _peer, sock in reports.nodes.values():
        instruct(sock, {"start": "none"})       # a node of the allocation without ranks
    parents = place_nodes(nodes, {host: {str(r): {"pid": held[r]["pid"], "hold": held[r]["hold"]}
                                         for r in ranks} for host, ranks in by_host.items()},
                          setup, opts)
    backends = {sock: report["launcher"] for report, _peer, sock in nodes.values()}
    for rank, sock in reports.socks.items():
        if sock not in backends:
            host = reports.reports[rank]["host"]
            instruct(sock, {"start": "handed", "node": nodes[host][0]["launcher"]})
    return wait_tree(job, reports, nodes, parents, opts)


def place_nodes(nodes, ranks, setup, opts, **more):
    """Tell each node's back-end (nodes: {host: (report, peer, socket)})
    its ranks ({host: {"R": {"pid", "hold"?}}}) and its place in the tree
    over the nodes; more: added to every instruction.  Returns the tree
    ({host: parent host or None})."""
    parents = tree.layout(ranks, opts.fanout)
    below = tree.children(parents)
    for host, parent in parents.items():
        instruct(nodes[host][2], dict(more, **{
            "start": "node", "children": len(below[host]), "gdb": setup.argv(),
            "lib": setup.lib, "ranks": ranks[host],
            "parent": None if parent is None else "%s:%d" % (nodes[parent][1],
                                                             nodes[parent][0]["listen"])}))
    return parents


def wait_tree(job, reports, nodes, parents, opts):
    """The tree's root connection kept, every other closed; wait for the
    root's "ready" and make the console's fleet of it.  Returns (job,
    warnings)."""
    root = next(host for host, parent in parents.items() if parent is None)
    link = wire.Link(nodes[root][2])
    for sock in list(reports.socks.values()) + [sock for _r, _p, sock in nodes.values()]:
        if sock is not link.sock:
            sock.close()      # each back-end now hangs on its parent, each rank on its back-end
    reports.socks, reports.nodes = {}, {}
    infos = _wait_ready(link, reports)
    fleet = job.fleet = fleets.Fleet(link, job.reactor)
    warnings = []
    for info in sorted(infos, key=lambda i: i["rank"]):
        rank = info["rank"]
        job.info[rank] = {"host": info["host"], "pid": info.get("pid"),
                          "where": info.get("where", "-")}
        if "error" in info:
            warnings.append("rank %d on %s: %s" % (rank, info["host"], info["error"]))
            continue
        job.sessions[rank] = fleet.sessions[rank] = fleets.RemoteSession(rank, fleet, info)
    fleet.attach()
    job.tree = {"fanout": opts.fanout, "depth": tree.depth(parents), "hosts": len(parents)}
    return job, warnings


def _wait_ready(link, reports):
    """The root's "ready": every rank's host, pid and gdb (or error)."""
    while True:
        ready, _, _ = select.select([link.sock], [], [], min(reports.left("had its gdb ready"),
                                                             0.2))
        messages = link.receive() if ready else []
        if messages is None:
            raise JobError("the ranks' back-ends closed the connection before they were "
                           "ready (see %s's messages above)" % reports.name)
        for message in messages:
            if message.get("t") == "ready":
                return message["ranks"]



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


def descendants(root):
    """The processes below root, breadth first; None when root is no process."""
    parents = process_table()
    if root not in parents:
        return None
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    order, queue = [], [root]
    for pid in queue:
        kids = sorted(children.get(pid, ()))
        order.extend(kids)
        queue.extend(kids)
    return order


def job_processes(root):
    """{rank: pid} of the MPI processes below root (breadth first, so the
    topmost process carrying a rank wins over its own children)."""
    order = descendants(root)
    if order is None:
        raise JobError("no process %d" % root)
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
