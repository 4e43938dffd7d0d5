"""--attach-job: find a running job's ranks through what its launcher knows,
and attach to them (all, or --ranks), leaving them as they were at the end.

* JOBID[.STEP], a Slurm job: the step's layout (rank -> node) from
  `sattach --layout`; one back-end per node started by Slurm inside the
  job's allocation (`srun --jobid J --overlap --ntasks-per-node=1
  --mpi=none ...`, node/attach.py), which finds its ranks' processes with
  `scontrol listpids` on its node and attaches a gdb to each, next to it.
* PID of a launcher that exports the MPIR interface (Slurm's srun, Open
  MPI's mpirun): its MPIR_proctable (host, executable, pid of every rank,
  the rank its index) read by a gdb that attaches, reads and detaches (the
  launcher runs on; nothing in it is called).  srun's step is found by its
  pid (scontrol show step: SrunHost:Pid), and its ranks reached on every
  node as above; mpirun's ranks on this host are attached here.
* PID of anything else (MPICH's hydra mpiexec, stripped of MPIR): the MPI
  processes below it, by the rank in their environment (launch.job_processes).

Every rank must have libmpireg in it (preloaded or linked): a job started
without it is refused in one line that says how to start it.
"""

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys

from ...text.ranks import RankError, format_ranks, parse_ranks
from ..node.attach import has_libmpireg
from .launch import (BACKEND_STEP, BACKEND_STEP_NAME, CONNECT_TIMEOUT, Job, JobError, Reports,
                     instruct, job_processes, place_nodes, report_hosts, report_listener, slurm,
                     slurm_node_addresses, start_launcher, starting, wait_tree)

ATTACH_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "node",
                             "attach.py")
# The back-ends' step: one task per node, inside the job's allocation,
# sharing its resources (the CTI argument set of gdb4hpc; Forge's and
# TotalView's are the same), named so that it is never taken for the job's.
TOOL_OPTIONS = BACKEND_STEP + ["--quiet"]
MPIR_SYMBOL = b"MPIR_proctable\0"
# Read by a gdb attached to the launcher (python, one line each way): the
# table's entries are MPIR_PROCDESC {char *host_name; char *executable_name;
# int pid;}, 24 bytes on 64-bit hosts.
MPIR_READER = r"""
import gdb, json
inferior = gdb.selected_inferior()
def word(address, size=8):
    return int.from_bytes(bytes(inferior.read_memory(address, size)), "little")
def string(address):
    return gdb.Value(address).cast(gdb.lookup_type("char").pointer()).string() if address else ""
def symbol(name):
    return int(gdb.parse_and_eval("(unsigned long) &" + name))
size = word(symbol("MPIR_proctable_size"), 4)
table = word(symbol("MPIR_proctable"))
rows = [[string(word(table + 24 * k)), string(word(table + 24 * k + 8)),
         word(table + 24 * k + 16, 4)] for k in range(size if table else 0)]
print("MPIR-TABLE " + json.dumps(rows))
"""


class SlurmStep:
    """The ranks of a running Slurm step to attach: {rank: (node, pid or None)}."""

    def __init__(self, step, places):
        self.step, self.places = step, places


# -- finding the ranks ---------------------------------------------------------

def find(opts):
    """What --attach-job names: a SlurmStep, or {rank: pid} on this host
    (with --ranks, only those ranks)."""
    target = opts.attach_job
    if reads_as_slurm(target):
        step = slurm_step(target)
        return SlurmStep(step, chosen(step_layout(step), opts.ranks))
    pid = int(target[4:] if target.startswith("pid:") else target)
    table = mpir_table(pid)
    if not table:
        return chosen(job_processes(pid), opts.ranks)
    if os.path.basename(os.readlink("/proc/%d/exe" % pid)) == "srun":
        step = srun_step(pid)
        return SlurmStep(step, chosen({rank: (host, p) for rank, (host, _exe, p)
                                       in enumerate(table)}, opts.ranks))
    here = {socket.gethostname(), "localhost", socket.getfqdn()}
    away = sorted({host for host, _exe, _pid in table if host.split(".")[0] not in
                   {h.split(".")[0] for h in here}})
    if away:
        raise JobError("process %d's ranks run on %s too: mpipp-job reaches another host's "
                       "ranks through Slurm (--attach-job JOBID.STEP), or launches the job "
                       "itself (-n N)" % (pid, ", ".join(away)))
    return chosen({rank: p for rank, (_host, _exe, p) in enumerate(table)}, opts.ranks)


def reads_as_slurm(target):
    """Whether --attach-job target names a Slurm job: JOBID.STEP does, pid:N
    does not; a bare number does when Slurm runs such a job and no process
    N one could attach to runs here -- both: a JobError saying how to name
    each."""
    if target.startswith("pid:"):
        return False
    if "." in target:
        return True
    job = slurm_job_running(target)
    if job and attachable_process(int(target)):
        raise JobError("--attach-job %s: both Slurm job %s and process %s run here: say "
                       "--attach-job %s.STEP (e.g. %s.0) for the job, --attach-job pid:%s "
                       "for the process" % ((target,) * 6))
    return job


def attachable_process(pid):
    """Whether pid is a process here one may mean to attach to: its
    executable readable (not a kernel thread, not another user's), and not
    init (pid 1, every process's ancestor, small Slurm job ids' twin)."""
    if pid == 1:
        return False
    try:
        os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return False
    return True


def chosen(ranks, wanted):
    """ranks ({rank: anything}) restricted to --ranks LIST (None: all)."""
    if wanted is None:
        return ranks
    try:
        names = parse_ranks(wanted, ranks)
    except RankError as err:
        raise JobError("--ranks %s: %s (the job's ranks: %s)"
                       % (wanted, err, format_ranks(ranks))) from None
    return {rank: ranks[rank] for rank in names}


def slurm_job_running(target):
    """Whether Slurm knows target (a number) as a running job."""
    if not target.isdigit() or shutil.which("squeue") is None:
        return False
    try:
        return "RUNNING" in slurm(["squeue", "-h", "-j", target, "-o", "%T"])
    except JobError:
        return False


def slurm_step(target):
    """JOBID.STEP of target: as given, or the job's one running step of a
    program (not the batch script's, not mpipp-job's back-ends')."""
    job, dot, step = target.partition(".")
    if not job.isdigit() or dot and not step.isdigit():
        raise JobError("--attach-job %s: expected JOBID[.STEP] or PID" % target)
    steps = []
    for line in slurm(["squeue", "-h", "-s", "-j", job, "-o", "%i %j"]).splitlines():
        ident, _, name = line.strip().partition(" ")
        if re.fullmatch(r"\d+\.\d+", ident) and name != BACKEND_STEP_NAME:
            steps.append(ident)
    if dot:
        if target not in steps:
            raise JobError("Slurm job %s has no running step %s (its steps: %s)"
                           % (job, step, ", ".join(steps) or "none"))
        return target
    if len(steps) != 1:
        raise JobError("Slurm job %s runs %s: say which (--attach-job %s)"
                       % (job, "steps " + ", ".join(steps) if steps else "no step of a program",
                          steps[-1] if steps else job + ".0"))
    return steps[0]


def step_layout(step):
    """{rank: (node, None)} of a Slurm step (sattach --layout)."""
    out = {}
    for node, tasks in re.findall(r"Node \d+ \((\S+)\), \d+ task\(s\): ([\d ]+)",
                                  slurm(["sattach", "--layout", step])):
        out.update({int(t): (node, None) for t in tasks.split()})
    if not out:
        raise JobError("sattach --layout %s: no tasks" % step)
    return out


def srun_step(pid):
    """JOBID.STEP of the step srun process pid (on this host) launched."""
    here = socket.gethostname().split(".")[0]
    for line in slurm(["scontrol", "show", "step", "-o"]).splitlines():
        ident = re.search(r"\bStepId=(\d+\.\d+)", line)
        where = re.search(r"\bSrunHost:Pid=([^:\s]+):(\d+)", line)
        if ident and where and int(where.group(2)) == pid and \
                where.group(1).split(".")[0] == here:
            return ident.group(1)
    raise JobError("srun %d: Slurm shows no step it launched (scontrol show step)" % pid)


def exports_mpir(pid):
    """Whether process pid's executable or a library it maps has the MPIR
    interface (hydra's mpiexec, on Debian, does not)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            files = {line.split(None, 5)[5].strip() for line in f if len(line.split()) == 6}
    except OSError:
        raise JobError("no process %d" % pid) from None
    for path in sorted(f for f in files if f.startswith("/")):
        try:
            with open(path, "rb") as f:
                if MPIR_SYMBOL in f.read():
                    return True
        except OSError:
            continue
    return False


def mpir_table(pid):
    """[(host, executable, pid)] of the launcher's MPIR_proctable (index:
    rank), None when pid exports no MPIR (or it is empty)."""
    if not exports_mpir(pid):
        return None
    try:
        proc = subprocess.run(["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
                               "-p", str(pid), "-ex", "python exec(bytes.fromhex(%r).decode())"
                               % MPIR_READER.encode().hex()],
                              capture_output=True, text=True, timeout=CONNECT_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as err:
        raise JobError("cannot read process %d's MPIR_proctable: gdb: %s" % (pid, err)) from None
    line = re.search(r"^MPIR-TABLE (.*)$", proc.stdout, re.M)
    if not line:
        raise JobError("cannot read process %d's MPIR_proctable: %s" % (
            pid, (proc.stderr.strip().splitlines() or ["gdb exit status %d"
                                                       % proc.returncode])[-1]))
    try:
        rows = json.loads(line.group(1))
    except ValueError:
        raise JobError("cannot read process %d's MPIR_proctable: gdb printed %.60r"
                       % (pid, line.group(1))) from None
    return [tuple(row) for row in rows] or None


# -- attaching ------------------------------------------------------------------

def start_hint(lib):
    return ("start the job with LD_PRELOAD=%s (srun --export=ALL,LD_PRELOAD=%s ...; mpiexec -env "
            "LD_PRELOAD %s ...) or link it with libmpireg" % (lib, lib, lib))


def without_libmpireg(rows, lib):
    """The one line that says which ranks were started without libmpireg:
    rows [(rank, pid, host)], sorted."""
    rank, pid, host = rows[0]
    who = "rank %d (pid %d on %s) was" % (rank, pid, host) if len(rows) == 1 else \
        "ranks %s (rank %d: pid %d on %s) were" % (format_ranks(r[0] for r in rows), rank,
                                                    pid, host)
    return "%s not started with libmpireg: %s" % (who, start_hint(lib))


def check_local(ranks, lib):
    """A JobError when a local rank ({rank: pid}) lacks libmpireg."""
    here = socket.gethostname()
    rows = [(r, p, here) for r, p in sorted(ranks.items()) if not has_libmpireg(p)]
    if rows:
        raise JobError(without_libmpireg(rows, lib))


def _reported_ranks(reports, nodes):
    """({rank: (node, host, info)} of the ranks the nodes' back-ends found,
    the warnings of those they did not)."""
    found, warnings = {}, []
    for node in nodes:
        report = reports.nodes[node][0]
        for rank, info in sorted(report["ranks"].items(), key=lambda item: int(item[0])):
            if "error" in info:
                warnings.append("rank %s: %s" % (rank, info["error"]))
            else:
                found[int(rank)] = (node, report["host"], info)
    return found, warnings


def attach_step(opts, target, setup, reactor):
    """Attach to a Slurm step's ranks through one back-end per node; (job,
    warnings)."""
    job = Job("attach", reactor)
    places = target.places
    nodes = sorted({node for node, _pid in places.values()})
    listener = report_listener(opts.report_port, len(places))
    token = secrets.token_hex(16)
    address = "%s:%d" % (",".join(report_hosts(opts, slurm_node_addresses(",".join(nodes)))),
                         listener.getsockname()[1])
    command = ["srun", "--jobid", target.step.split(".")[0], "-N", str(len(nodes)),
               "-w", ",".join(nodes)] + TOOL_OPTIONS + [
        sys.executable, ATTACH_SCRIPT, "--report", address, "--token", token,
        "--step", target.step, "--ranks", ",".join(
            "%d@%s%s" % (rank, node, "" if pid is None else ":%d" % pid)
            for rank, (node, pid) in sorted(places.items()))]
    if opts.ports:
        command += ["--ports", opts.ports]
    # not the allocation the console may itself run in: the job's
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_") or k == "SLURM_CONF"}
    # the back-ends' step, not the job's launcher: the job runs on without it
    job.backends = start_launcher(command, reactor, env)
    reports = Reports(job.backends, "srun", len(places), token, opts.timeout, address,
                      expected=places)
    with starting(job, reports, listener):
        reports.collect(listener, {node: [r for r, (n, _pid) in places.items() if n == node]
                                   for node in nodes}, "reported")
        found, warnings = _reported_ranks(reports, nodes)
        rows = [(r, info["pid"], host) for r, (_node, host, info) in sorted(found.items())
                if not info.get("libmpireg")]
        if rows:
            raise JobError(without_libmpireg(rows, opts.lib))
        if not found:
            raise JobError("; ".join(warnings))
        by_node = {}
        for rank, (node, _host, info) in sorted(found.items()):
            by_node.setdefault(node, {})[str(rank)] = {"pid": info["pid"]}
        for node in nodes:
            if node not in by_node:
                instruct(reports.nodes.pop(node)[2], {"start": "none"})
        used = {node: reports.nodes.pop(node) for node in by_node}
        parents = place_nodes(used, by_node, setup, opts, detach=True)
        job, more = wait_tree(job, reports, used, parents, opts)
        return job, warnings + more
