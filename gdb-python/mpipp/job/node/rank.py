#!/usr/bin/python3
"""mpipp-job's per-rank launcher, and its per-node back-end's.  The launcher
(mpiexec, srun) starts one per rank, on whatever host it places the rank:

    python3 rank.py --report HOST[,HOST...]:PORT --token T --lib LIBMPIREG
                    [--gdbserver G] [--ports LOW-HIGH] -- PROGRAM [ARGS]

and, under srun, a step of its own starts one per node (--node: no
program) for the back-ends:

    python3 rank.py --node --report HOST[,HOST...]:PORT --token T

It reads its MPI rank from the launcher's environment (PMI_RANK, PMIX_RANK,
OMPI_COMM_WORLD_RANK), connects to the console (the first of the report
addresses that answers) and reports one JSON line -- token, rank (or node),
host, the port it listens on for back-ends below it -- then does what the
console answers:

* {"start": "gdbserver"}: starts PROGRAM under gdbserver (libmpireg
  preloaded through gdbserver's --wrapper, so gdbserver itself is not),
  lets gdbserver pick a free port (or one of --ports), and reports the port
  and pids; the console's gdb for this rank connects to it;
* {"start": "held"}: starts PROGRAM held before its exec (libmpireg
  preloaded) and reports its pid and the descriptor it is held on; the
  node's back-end attaches a gdb to it and lets it go on.  Then either
  {"start": "handed", "node": PID}: the rank is its node back-end's (PID),
  this launcher only stays (so mpiexec sees a live rank) until the back-end
  is gone, and the program dies with it; or {"start": "node", ...}: the
  launcher becomes its node's back-end (where the launcher cannot start
  one of its own);
* {"start": "node", ...} (a --node launcher): becomes its node's back-end
  (agent.py): the gdbs of the node's ranks, in the console's tree;
  {"start": "none"}: no rank here, nothing to do.

The report connection is the rank's lifeline until it is handed to a
back-end (a back-end's: the connection to its parent in the tree): when it
closes -- the console quit, or died -- the launcher kills gdbserver, whose
ptrace EXITKILL option kills the program (a back-end kills its ranks and
their gdbs).  gdbserver and the program die with the launcher
(PR_SET_PDEATHSIG), so nothing outlives the job.  Meanwhile it answers the
console's requests to read the running program's memory (peek.py: the
--until-hang watcher; a back-end answers them in the tree's messages), and
{"interrupt": 1} sends SIGINT to the program alone (no reply): gdbserver's
own interrupt SIGINTs the program's whole process group, its child
processes too.  (A node's back-end holds its ranks' pids: it sends the
SIGINT itself.)

Runs on compute hosts, from the same path as on the console's host: it
imports mpipp (agent.py) only for a back-end, and peek.py (next to it,
standalone too) for gdbserver's ranks.
"""

import argparse
import ctypes
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time

RANK_VARIABLES = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")
CONNECT_TIMEOUT = 60
ATTEMPT_TIMEOUT = 5
LISTENING = re.compile(rb"Listening on port (\d+)")
CREATED = re.compile(rb"Process .* created; pid = (\d+)")
PR_SET_PDEATHSIG = 1
# The console's request to interrupt the program (a line of the lifeline).
INTERRUPT = b'{"interrupt": 1}'
ADDR_NO_RANDOMIZE = 0x0040000
HANDED_POLL = 1.0
# gdbserver's own messages on its stderr (the program's stderr is relayed).
# The ptrace warning: on CPUs with AMX, gdbserver 13 fails to write back the
# XSAVE register state (its buffer predates AMX) when a gdb detaches; the
# kernel keeps the state it had, so the warning says nothing about the
# program (mpipp never changes registers).
GDBSERVER_NOISE = re.compile(rb"^(Process .* created; pid|Listening on port|Remote debugging from "
                             rb"host|Remote side has terminated|GDBserver will reopen|Detaching "
                             rb"from process|Killing process|Child exited with|Child terminated "
                             rb"with|Warning: ptrace\(regsets_store_inferior_registers\): Bad "
                             rb"address)[^\n]*\n", re.M)


def mpi_rank(environ):
    for name in RANK_VARIABLES:
        value = environ.get(name, "")
        if value.isdigit():
            return int(value)
    return None


def die_with_parent():
    """In the child before exec: SIGKILL when the launcher goes away."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def no_randomization():
    """Addresses the same on every rank (as gdb and gdbserver start programs),
    so their outputs merge."""
    try:
        ctypes.CDLL(None, use_errno=True).personality(ADDR_NO_RANDOMIZE)
    except (OSError, AttributeError):
        pass


def start_held(opts):
    """PROGRAM as a child of this launcher, held before its exec: it reads
    one byte from a pipe, which its node's back-end writes once its gdb is
    attached (through /proc/PID/fd/HOLD: agent.release), then gdb follows it
    through the exec, before the dynamic loader runs.  (A fork of our own:
    subprocess would wait for the exec.)  Returns (pid, hold descriptor,
    the pipe's other end, kept open so the child does not read its end)."""
    preload = opts.lib + (":" + os.environ["LD_PRELOAD"] if os.environ.get("LD_PRELOAD") else "")
    env = dict(os.environ, LD_PRELOAD=preload)
    hold, keep = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(keep)
            die_with_parent()
            no_randomization()
            os.read(hold, 1)
            os.close(hold)
            os.execvpe(opts.program[0], opts.program, env)
        except BaseException:      # not a second copy of this launcher
            os._exit(127)
    return pid, hold, keep


def wait_handed(pid, node):
    """The rank is its back-end's (pid node, on this host): stay, as the
    launcher sees its rank, until the back-end is gone; the program dies
    with this launcher (PR_SET_PDEATHSIG).  Waited for by tail (coreutils:
    `tail --pid`), this launcher's place taken by a program a tenth of the
    size of Python's (a node holds one per rank); by Python where tail is
    missing."""
    try:
        os.execvp("tail", ["tail", "--pid=%d" % node, "-f", "/dev/null"])
    except OSError:
        pass
    while True:
        try:
            os.kill(node, 0)
        except ProcessLookupError:
            kill(pid)
            return 0
        except PermissionError:
            pass
        time.sleep(HANDED_POLL)


def connect(address):
    """A connection to the first of HOST[,HOST...]:PORT that answers (the
    console offers every address it has: which one reaches it from here is
    for this host to find out)."""
    hosts, _, port = address.rpartition(":")
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        for host in hosts.split(","):
            try:
                return socket.create_connection((host, int(port)), timeout=ATTEMPT_TIMEOUT)
            except OSError:
                continue
        if time.monotonic() > deadline:
            raise OSError("cannot reach the console at %s" % address)
        time.sleep(0.2)


def listen(ports):
    """A socket for the back-ends below this one in the tree (a port of
    --ports, else any)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    for port in port_candidates(ports):
        try:
            sock.bind(("", port))
            break
        except OSError:
            continue
    sock.listen(128)
    return sock


def instruction(lifeline, data=b""):
    """The console's one-line answer to the report: what to start."""
    while b"\n" not in data:
        chunk = lifeline.recv(4096)
        if not chunk:
            return None, b""
        data += chunk
    line, _, rest = data.partition(b"\n")
    try:
        return json.loads(line), rest
    except ValueError:
        return None, b""


def port_candidates(spec):
    """':0' (gdbserver picks a free port) or each port of LOW-HIGH in turn."""
    if not spec:
        return [0]
    low, _, high = spec.partition("-")
    return list(range(int(low), int(high or low) + 1))


def start_gdbserver(opts, port):
    preload = opts.lib + (":" + os.environ["LD_PRELOAD"] if os.environ.get("LD_PRELOAD") else "")
    cmd = [opts.gdbserver, "--wrapper", "env", "LD_PRELOAD=" + preload, "--",
           ":%d" % port] + opts.program
    # close_fds=False: MPICH's PMI reaches the rank through inherited descriptors.
    return subprocess.Popen(cmd, stderr=subprocess.PIPE, close_fds=False,
                            preexec_fn=die_with_parent)


def wait_listening(server):
    """(port, program pid) once gdbserver listens, or (None, its messages)."""
    seen = b""
    pid = None
    while True:
        line = server.stderr.readline()
        if not line:
            server.wait()
            return None, seen.decode("utf-8", "replace").strip()
        seen += line
        created = CREATED.search(line)
        if created:
            pid = int(created.group(1))
        listening = LISTENING.search(line)
        if listening:
            return int(listening.group(1)), pid


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def interrupt(pid):
    """SIGINT to the program alone: gdbserver reports the stop to the
    console's gdb as its own interrupt would."""
    try:
        if pid:
            os.kill(pid, signal.SIGINT)
    except (ProcessLookupError, PermissionError):
        pass


def supervise(server, lifeline, program_pid):
    """Relay gdbserver's messages and answer the console's requests until
    it closes the lifeline."""
    from peek import answer  # next to this script (launch.py imports this module too)
    streams = [server.stderr, lifeline]
    pending = b""
    while True:
        ready, _, _ = select.select(streams, [], [])
        if lifeline in ready:
            try:
                data = lifeline.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            *requests, pending = (pending + data).split(b"\n")
            for request in requests:
                if request == INTERRUPT:
                    interrupt(program_pid)
                else:
                    lifeline.sendall(answer(request, program_pid))
        if server.stderr in ready:
            data = os.read(server.stderr.fileno(), 65536)
            if data:
                os.write(2, GDBSERVER_NOISE.sub(b"", data))
            else:
                streams.remove(server.stderr)
    if server.poll() is None:
        kill(server.pid)
        if program_pid:
            kill(program_pid)
    server.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mpipp-job rank launcher")
    parser.add_argument("--report", required=True, help="HOST:PORT of the console")
    parser.add_argument("--token", required=True)
    parser.add_argument("--node", action="store_true", help="a node's back-end, no rank")
    parser.add_argument("--lib", help="libmpireg.so to preload")
    parser.add_argument("--gdbserver", default="gdbserver")
    parser.add_argument("--ports", default="", help="LOW-HIGH: gdbserver ports to try")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    opts = parser.parse_args(argv)
    if opts.program[:1] == ["--"]:
        opts.program = opts.program[1:]
    rank = None if opts.node else mpi_rank(os.environ)
    listener = listen(opts.ports)
    host = socket.gethostname()
    try:
        lifeline = connect(opts.report)
    except OSError as err:
        sys.stderr.write("mpipp-job %s (%s on %s): %s\n"
                         % ("back-end" if opts.node else "rank launcher",
                            "node" if opts.node else "rank %s" % rank, host, err))
        return 1
    lifeline.settimeout(None)
    report = {"token": opts.token, "host": host, "launcher": os.getpid(),
              "listen": listener.getsockname()[1]}
    report.update({"node": host} if opts.node else {"rank": rank})
    lifeline.sendall((json.dumps(report) + "\n").encode())
    start, rest = instruction(lifeline)
    if start is None or start.get("start") == "none":
        return 0 if opts.node else 1
    if start.get("start") == "node":
        return node(opts.token, host, start, lifeline, rest, listener)
    if start.get("start") == "held":
        return held(opts, rank, host, lifeline, rest, listener)
    listener.close()
    report = {"token": opts.token, "rank": rank}
    for port in port_candidates(opts.ports):
        server = start_gdbserver(opts, port)
        port, pid = wait_listening(server)
        if port is not None:
            break
    if port is None:
        report["error"] = "gdbserver did not start: %s" % pid
        lifeline.sendall((json.dumps(report) + "\n").encode())
        return 1
    report.update(port=port, pid=pid, gdbserver=server.pid)
    lifeline.sendall((json.dumps(report) + "\n").encode())
    signal.signal(signal.SIGTERM, lambda *_: lifeline.shutdown(socket.SHUT_RDWR))
    supervise(server, lifeline, pid)
    return 0


def held(opts, rank, host, lifeline, rest, listener):
    """The program started held, its pid reported; then handed to the
    node's back-end, or this launcher becomes it."""
    pid, hold, keep = start_held(opts)
    lifeline.sendall((json.dumps({"token": opts.token, "rank": rank, "pid": pid,
                                  "hold": hold}) + "\n").encode())
    lifeline.setblocking(True)
    start, rest = instruction(lifeline, rest)
    if start is not None and start.get("start") == "node":
        return node(opts.token, host, start, lifeline, rest, listener)
    listener.close()
    lifeline.close()
    if start is None or start.get("start") != "handed":
        kill(pid)             # the console is gone before a back-end took the rank
        return 1
    signal.signal(signal.SIGTERM, lambda *_: (kill(pid), sys.exit(143)))
    os.set_inheritable(keep, True)      # the program reads its end until released
    return wait_handed(pid, start["node"])


def node(token, host, setup, lifeline, rest, listener):
    """Become the node's back-end (agent.py), from mpipp beside this file."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    from mpipp.job.link import wire
    from mpipp.job.node import agent
    report_link = wire.Link(lifeline)
    report_link.partial = rest
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return agent.serve(token, host, setup, report_link, listener)


if __name__ == "__main__":
    sys.exit(main())
