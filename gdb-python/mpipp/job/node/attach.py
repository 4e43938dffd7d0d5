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
reports once to the console as a node's back-end does (rank.py --node) --
token, node, the port it listens on -- with each rank's pid and whether
libmpireg is in it (or why there is no such process).  On the console's
instruction ({"start": "node", ..., "detach": true}) it becomes the node's
back-end (agent.py), whose gdbs attach to the running processes; when the
console leaves, it detaches them: the ranks run on as they were.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys

if __name__ == "__main__":      # run by srun as a script: mpipp beside this file
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))

from mpipp.job.link import wire                     # noqa: E402
from mpipp.job.node import agent                    # noqa: E402
from mpipp.job.node.rank import connect, instruction, listen  # noqa: E402

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


def node_names(host):
    """The names Slurm and the launcher may give this node: its Slurm name
    (slurmstepd's SLURMD_NODENAME) and its host name, short or not."""
    names = {host, host.split(".")[0], os.environ.get("SLURMD_NODENAME", "")}
    return {name for name in names if name}


def placed(text, host):
    """(the node's name as the console gave it, {rank: pid or None}) of the
    RANK@NODE[:PID] items of this node."""
    names = node_names(host)
    node, out = None, {}
    for item in text.split(","):
        rank, _, where = item.partition("@")
        name, _, pid = where.partition(":")
        if name in names or name.split(".")[0] in names:
            node = name
            out[int(rank)] = int(pid) if pid else None
    return node, out


def report(mine, step, host, problem=None):
    """{rank: {"pid", "libmpireg"} or {"error"}} of this node's ranks.
    problem: why the step's processes could not be looked for."""
    out = {}
    for rank, pid in sorted(mine.items()):
        if pid is None or not os.path.exists("/proc/%d" % pid):
            out[str(rank)] = {"error": problem or "no process of step %s has rank %d on %s"
                                                  % (step, rank, host)}
        else:
            out[str(rank)] = {"pid": pid, "libmpireg": has_libmpireg(pid)}
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
    node, mine = placed(opts.ranks, host)
    problem = None
    if any(pid is None for pid in mine.values()):
        try:
            found = step_processes(opts.step)
        except StepError as err:
            found, problem = {}, "%s (on %s)" % (err, host)
        mine = {rank: pid or found.get(rank) for rank, pid in mine.items()}
    listener = listen(opts.ports)
    try:
        lifeline = connect(opts.report)
    except OSError as err:
        sys.stderr.write("mpipp-job back-end (node %s): %s\n" % (host, err))
        return 1
    lifeline.settimeout(None)
    lifeline.sendall((json.dumps({"token": opts.token, "node": node or host, "host": host,
                                  "launcher": os.getpid(), "listen": listener.getsockname()[1],
                                  "ranks": report(mine, opts.step, host, problem)})
                      + "\n").encode())
    setup, rest = instruction(lifeline)
    if setup is None or setup.get("start") != "node":
        return 0            # the console went, or will not attach: nothing was touched
    report_link = wire.Link(lifeline)
    report_link.partial = rest
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return agent.serve(opts.token, host, setup, report_link, listener)

if __name__ == "__main__":
    sys.exit(main())
