#!/usr/bin/python3
"""mpipp-job's per-rank launcher: mpiexec starts one per rank, on whatever
host it places the rank.

    python3 rank.py --report HOST[,HOST...]:PORT --token T --lib LIBMPIREG
                    [--gdbserver G] [--ports LOW-HIGH] -- PROGRAM [ARGS]

It reads its MPI rank from the launcher's environment (PMI_RANK, PMIX_RANK,
OMPI_COMM_WORLD_RANK), connects to the console (the first of the report
addresses that answers) and reports one JSON line -- token, rank, host, the
port it listens on for back-ends below it -- then does what the console
answers:

* {"start": "gdbserver"}: starts PROGRAM under gdbserver (libmpireg
  preloaded through gdbserver's --wrapper, so gdbserver itself is not),
  lets gdbserver pick a free port (or one of --ports), and reports the port
  and pids; the console's gdb for this rank connects to it;
* {"start": "near", ...}: becomes the rank's back-end (agent.py): PROGRAM
  under a gdb on this host, in the console's tree.

That connection is the rank's lifeline (a back-end's: the connection to
its parent in the tree): the launcher stays alive (so mpiexec sees a live
rank) until the console closes it, and when it closes -- the console quit,
or died -- the launcher kills gdbserver, whose ptrace EXITKILL option kills
the program (a back-end kills its program and its gdb).  gdbserver and the
program die with the launcher (PR_SET_PDEATHSIG), so nothing outlives the
job.  Meanwhile it answers the console's requests to read the running
program's memory (peek.py: the --until-hang watcher; a back-end answers
them in the tree's messages), and {"interrupt": 1} sends SIGINT to the
program alone (no reply): gdbserver's own interrupt SIGINTs the program's
whole process group, its child processes too.

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


def instruction(lifeline):
    """The console's one-line answer to the report: what to start."""
    data = b""
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
    parser.add_argument("--lib", required=True, help="libmpireg.so to preload")
    parser.add_argument("--gdbserver", default="gdbserver")
    parser.add_argument("--ports", default="", help="LOW-HIGH: gdbserver ports to try")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    opts = parser.parse_args(argv)
    if opts.program[:1] == ["--"]:
        opts.program = opts.program[1:]
    rank = mpi_rank(os.environ)
    listener = listen(opts.ports)
    try:
        lifeline = connect(opts.report)
    except OSError as err:
        sys.stderr.write("mpipp-job rank launcher (rank %s on %s): %s\n"
                         % (rank, socket.gethostname(), err))
        return 1
    lifeline.settimeout(None)
    host = socket.gethostname()
    lifeline.sendall((json.dumps({"token": opts.token, "rank": rank, "host": host,
                                  "launcher": os.getpid(),
                                  "listen": listener.getsockname()[1]}) + "\n").encode())
    start, rest = instruction(lifeline)
    if start is None:
        return 1
    if start.get("start") == "near":
        return near(rank, opts.token, host, start, lifeline, rest, listener, opts.program)
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


def near(rank, token, host, setup, lifeline, rest, listener, program):
    """Become the rank's back-end (agent.py), from mpipp beside this file."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    from mpipp.job.link import wire
    from mpipp.job.node import agent
    report_link = wire.Link(lifeline)
    report_link.partial = rest
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return agent.serve(rank, token, host, setup, report_link, listener, program, die_with_parent)


if __name__ == "__main__":
    sys.exit(main())
