#!/usr/bin/python3
"""mpipp-job's back-end on one node of a running Slurm job it attaches to
(`mpipp-job --attach-job JOBID[.STEP]`, console side: console/attach_job.py).

The console starts one of these per node through Slurm itself, as a step
of the job's own allocation (`srun --jobid J --overlap
--ntasks-per-node=1 --mpi=none ...`):

    python3 attach.py --report HOST[,HOST...]:PORT --token T --step J.S
                      --ranks RANK@NODE[:PID],... [--ports LOW-HIGH]

For each rank placed on its node it finds the rank's process: the pid given
(read by the console from the launcher's MPIR_proctable), else the task of
step J.S with that global id (`scontrol listpids J.S` on this node), and
reports to the console as rank.py does for a launched rank -- token, rank,
host, the port it listens on -- with the rank's pid and whether libmpireg is
in it (or why there is no such process).  On the console's instruction each becomes the rank's
back-end (agent.py), whose gdb attaches to the running process; when the
console leaves, each detaches: the rank runs on as it was.

Seam: today's node side has one back-end process per rank (agent.Agent), so
this process holds one forked back-end per rank of its node; a back-end
holding every gdb of its node takes their pids from here instead.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

if __name__ == "__main__":      # run by srun as a script: mpipp beside this file
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))

from mpipp.job.link import wire                     # noqa: E402
from mpipp.job.node import agent                    # noqa: E402
from mpipp.job.node.rank import connect, instruction, listen  # noqa: E402

DETACH_TIMEOUT = 10
ROOT_SYMBOL = b"mpireg_root"     # libmpireg's registry, linked or preloaded


class StepError(Exception):
    """scontrol could not say which processes the step has here (one line)."""


def step_processes(step):
    """{rank: pid} of step J.S's tasks on this node (scontrol listpids: the
    tasks themselves, not their descendants, which linuxproc lists too);
    a StepError when scontrol cannot run, times out or fails."""
    job, _, stepid = step.partition(".")
    try:
        out = subprocess.run(["scontrol", "listpids", step], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError) as err:
        raise StepError("scontrol listpids %s: %s" % (step, err)) from None
    if out.returncode != 0:
        raise StepError("scontrol listpids %s: %s" % (step, (out.stderr.strip().splitlines() or
                                                            ["exit status %d" % out.returncode])[-1]))
    found = {}
    for line in out.stdout.splitlines()[1:]:
        words = line.split()
        if len(words) == 5 and words[1] == job and words[2] == stepid and \
                words[4].isdigit() and words[0].isdigit():
            found[int(words[4])] = int(words[0])
    return found


def _is_libmpireg(maps_line):
    """Whether a /proc/PID/maps line maps libmpireg's shared library (a file
    named libmpireg*.so*, not a directory that has the name)."""
    words = maps_line.split(None, 5)
    if len(words) < 6:
        return False
    name = os.path.basename(words[5].strip().split(b" (deleted)")[0])
    return name.startswith(b"libmpireg") and b".so" in name


def has_libmpireg(pid):
    """Whether libmpireg is in process pid: mapped (preloaded or linked as a
    shared library), or its registry's symbol in the executable (linked
    statically)."""
    try:
        with open("/proc/%d/maps" % pid, "rb") as f:
            if any(_is_libmpireg(line) for line in f):
                return True
        with open("/proc/%d/exe" % pid, "rb") as f:
            return ROOT_SYMBOL in f.read()
    except OSError:
        return False


def process_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, ...), None when gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


class Attached:
    """A rank this back-end did not start: its pid, whether it still runs
    (what agent.Agent asks of the program it holds)."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None
        self.was_stopped = process_state(pid) == "T"

    def poll(self):
        if self.returncode is None and process_state(self.pid) in (None, "Z", "X"):
            self.returncode = 0
        return self.returncode


class AttachedAgent(agent.Agent):
    """A rank's back-end whose gdb attaches to the running rank, and at the
    end detaches from it instead of ending it."""

    def adopt(self, pid):
        self.program = Attached(pid)
        self.info["pid"] = pid
        try:
            self.start_gdb()
        except (agent.StartError, OSError) as err:
            self.info["error"] = str(err)

    def end(self):
        session, program = self.session, self.program
        if session is not None and session.state not in ("dead", "closed", "exited") and \
                program.poll() is None:
            if session.state == "running":
                session.interrupt()
            answer = None
            deadline = time.monotonic() + DETACH_TIMEOUT
            while time.monotonic() < deadline:
                if answer is None and session.state != "running":
                    answer = session.send("-target-detach")
                if answer is not None and answer.done:
                    break
                self.reactor.poll(0.2)
        self.program = None      # not ours to end
        super().end()
        if program is not None and not program.was_stopped and process_state(program.pid) == "T":
            # gdb went before it could detach: a rank it left stopped runs on
            try:
                os.kill(program.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass


def back_end(rank, pid, opts, host, problem=None):
    """One rank's back-end (a forked child): report, then serve; exit status.
    problem: why the rank's process could not be looked for (its error)."""
    listener = listen(opts.ports)
    try:
        lifeline = connect(opts.report)
    except OSError as err:
        sys.stderr.write("mpipp-job back-end (rank %d on %s): %s\n" % (rank, host, err))
        return 1
    lifeline.settimeout(None)
    report = {"token": opts.token, "rank": rank, "host": host, "launcher": os.getpid(),
              "pid": pid, "listen": listener.getsockname()[1]}
    if pid is None or not os.path.exists("/proc/%d" % pid):
        report["error"] = problem or \
            "no process of step %s has rank %d on %s" % (opts.step, rank, host)
    else:
        report["libmpireg"] = has_libmpireg(pid)
    lifeline.sendall((json.dumps(report) + "\n").encode())
    setup, rest = instruction(lifeline)
    if setup is None or setup.get("start") != "near":
        return 0            # the console went, or will not attach: nothing was touched
    report_link = wire.Link(lifeline)
    report_link.partial = rest
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    back = AttachedAgent(rank, opts.token, host, setup)
    try:
        back.adopt(pid)
        back.run(report_link, listener)
    except OSError as err:
        sys.stderr.write("mpipp-job back-end of rank %d on %s: cannot reach its parent %s: %s\n"
                         % (rank, host, setup.get("parent"), err))
        return 1
    finally:
        if not back.ended:
            back.end()
    return 0


def node_names(host):
    """The names Slurm and the launcher may give this node: its Slurm name
    (slurmstepd's SLURMD_NODENAME) and its host name, short or not."""
    names = {host, host.split(".")[0], os.environ.get("SLURMD_NODENAME", "")}
    return {name for name in names if name}


def placed(text, host):
    """{rank: pid or None} of the RANK@NODE[:PID] items of this node."""
    names = node_names(host)
    out = {}
    for item in text.split(","):
        rank, _, where = item.partition("@")
        node, _, pid = where.partition(":")
        if node in names or node.split(".")[0] in names:
            out[int(rank)] = int(pid) if pid else None
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mpipp-job attach back-end")
    parser.add_argument("--report", required=True, help="HOST[,HOST...]:PORT of the console")
    parser.add_argument("--token", required=True)
    parser.add_argument("--step", required=True, help="JOBID.STEPID")
    parser.add_argument("--ranks", required=True,
                        help="RANK@NODE[:PID],...: the ranks to attach, where they run")
    parser.add_argument("--ports", default="")
    opts = parser.parse_args(argv)
    host = socket.gethostname()
    mine = placed(opts.ranks, host)
    problem = None
    if any(pid is None for pid in mine.values()):
        try:
            found = step_processes(opts.step)
        except StepError as err:
            found, problem = {}, "%s (on %s)" % (err, host)
        mine = {rank: pid or found.get(rank) for rank, pid in mine.items()}
    children = []
    for rank, pid in sorted(mine.items()):
        child = os.fork()
        if child == 0:
            status = 1
            try:
                status = back_end(rank, pid, opts, host, problem)
            finally:
                os._exit(status)
        children.append(child)
    status = 0
    for child in children:
        _pid, code = os.waitpid(child, 0)
        status = status or os.waitstatus_to_exitcode(code)
    return status


if __name__ == "__main__":
    sys.exit(main())
