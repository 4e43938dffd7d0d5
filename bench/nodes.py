"""One back-end per node (bench/run.py nodes; this file alone prints the
figures as JSON: /usr/bin/python3 bench/nodes.py).

64 ranks of testprogs/job deadlock, three ways, one after the other in
one run:

  srun     inside a 3-node allocation of a real Slurm cluster on this
           machine (scripts/slurm-cluster: 32 CPUs per node), launched by
           mpipp-job through srun: one back-end per node (srun's --overlap
           step) holding the gdbs of the node's ranks;
  mpiexec  the same code launched by mpiexec on this host, gdbs next to
           the ranks (--debuggers near): one back-end for the host;
  today    the mpipp-job of $MPIPP_TODAY, a built checkout of the code
           before one back-end per node (git worktree add /tmp/before
           3f5c996 && make -C /tmp/before), launched the same way: one
           back-end per rank.

For each: seconds from the console's start to every rank stopped in
stop_here (break stop_here, continue); from the console's start to the
first `waits` answer, the job interrupted in its deadlock (and the `waits`
command alone); memory of mpipp on each node (RSS, and PSS, summed over
the processes of the job in the node's network namespace): the back-ends,
the gdbs, the launchers that hold the ranks (rank.py), the ranks
themselves apart.  Needs root and namespaces (the Slurm cluster); a 64-rank
job with 64 gdbs is heavy for a small machine: run it alone.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

from context_pingpong import REPO

sys.path[:0] = [os.path.join(REPO, "gdb-python"), os.path.join(REPO, "tests"),
                os.path.join(REPO, "tests", "job"), os.path.join(REPO, "tests", "slurm")]

import jobrun  # noqa: E402
import cluster as slurm  # noqa: E402

RANKS = 64
# A built checkout of the code with one back-end per rank, to compare with.
TODAY = os.environ.get("MPIPP_TODAY")
SLURM_CLUSTER = os.path.join(REPO, "scripts", "slurm-cluster")
TIMEOUT = 1800


class NodesBenchError(Exception):
    """What kept the bench from its figures, in one line."""


def _found(pattern, text, what):
    """The first group of pattern in text, else a NodesBenchError."""
    m = re.search(pattern, text)
    if m is None:
        raise NodesBenchError("%s: not found" % what)
    return m.group(1)


def _read(pid, name):
    with open("/proc/%d/%s" % (pid, name), "rb") as f:
        return f.read()


def _memory(pid):
    """(RSS, PSS) of a process in KiB."""
    rss = int(_found(rb"VmRSS:\s+(\d+)", _read(pid, "status"), "VmRSS of %d" % pid))
    pss = int(_found(rb"\nPss:\s+(\d+)", b"\n" + _read(pid, "smaps_rollup"), "Pss of %d" % pid))
    return rss, pss


def job_processes(marker):
    """{pid: (kind, network namespace, RSS, PSS)} of the processes carrying
    the job's marker: gdb, back-end (the parent of a gdb), launcher
    (rank.py holding its rank, or the tail it became), rank (the program),
    other (mpiexec, srun, their daemons)."""
    needle = ("%s=%s" % (jobrun.MARK, marker)).encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            if needle not in _read(pid, "environ").split(b"\0"):
                continue
            exe = os.path.basename(os.readlink("/proc/%d/exe" % pid))
            argv = _read(pid, "cmdline").split(b"\0")
            ppid = int(_read(pid, "stat").rsplit(b")", 1)[1].split()[1])
            place = os.stat("/proc/%d/ns/net" % pid).st_ino
            found[pid] = [exe, argv, ppid, place] + list(_memory(pid))
        except (OSError, AttributeError, ValueError):
            continue
    parents_of_gdbs = {v[2] for v in found.values() if v[0] == "gdb"}
    out = {}
    for pid, (exe, argv, _ppid, place, rss, pss) in found.items():
        if exe == "gdb":
            kind = "gdb"
        elif pid in parents_of_gdbs:
            kind = "back-end"
        elif exe == "tail" or exe.startswith("python") and \
                any(a.endswith(b"rank.py") for a in argv):
            kind = "launcher"      # rank.py holding its rank (waiting as tail --pid)
        elif exe == "job":
            kind = "rank"
        else:
            kind = "other"
        out[pid] = (kind, place, rss, pss)
    return out


def per_place(processes):
    """{place: {kind: [count, RSS MiB, PSS MiB]}}."""
    out = {}
    for kind, place, rss, pss in processes.values():
        slot = out.setdefault(place, {}).setdefault(kind, [0, 0.0, 0.0])
        slot[0] += 1
        slot[1] += rss / 1024
        slot[2] += pss / 1024
    return out


def session(script, launch, tmp, places):
    """One 64-rank job through its deadlock; its figures."""
    jobrun.MPIPP_JOB = script
    marker, piddir = jobrun.new_job(tmp)
    start = time.monotonic()
    with jobrun.Console(launch.job(RANKS, "deadlock"), marker, piddir, launch) as console:
        console.run("break stop_here", TIMEOUT)
        stop = console.run("continue", TIMEOUT)
        to_stop = time.monotonic() - start
        if "[0-%d]" % (RANKS - 1) not in stop or "stop_here ()" not in stop:
            raise NodesBenchError("not every rank stopped in stop_here: " + stop[-300:])
        console.send("continue")
        jobrun.wait_files(piddir, "blocking", RANKS, TIMEOUT)
        console.read_until("Continuing.", TIMEOUT)
        time.sleep(3)
        console.interrupt()
        console.run("echo", TIMEOUT)
        asked = time.monotonic()
        waits = console.run("waits", TIMEOUT)
        to_waits, waits_alone = time.monotonic() - start, time.monotonic() - asked
        if "cycle 0 → 1 → 0" not in waits:
            raise NodesBenchError("waits named no cycle: " + waits[-300:])
        memory = per_place(job_processes(marker))
        tree = re.search(r"gdbs next to the ranks on (\d+) hosts?", console.transcript)
        console.quit(TIMEOUT)
    jobrun.wait_no_leftovers(marker, 120)
    named = {places.get(place, "this host"): kinds for place, kinds in memory.items()}
    return {"to_stop_here": to_stop, "to_first_waits": to_waits, "waits": waits_alone,
            "hosts": int(tree.group(1)) if tree else None, "memory": named}


def measure(tmp):
    if not TODAY:
        raise NodesBenchError("set MPIPP_TODAY to a built checkout of the code before one "
                              "back-end per node (git worktree add /tmp/before 3f5c996 && "
                              "make -C /tmp/before)")
    out = {}
    here = jobrun.Launch(options=["--debuggers", "near"])
    out["today"] = session(os.path.join(TODAY, "scripts", "mpipp-job"), here, tmp, {})
    out["mpiexec"] = session(os.path.join(REPO, "scripts", "mpipp-job"), here, tmp, {})
    directory = os.path.join(tmp, "slurm")
    os.mkdir(directory)
    proc = subprocess.run([SLURM_CLUSTER, "up", directory], capture_output=True, text=True)
    if proc.returncode != 0:
        out["srun"] = {"skipped": proc.stderr.strip().splitlines()[-1:]}
        return out
    try:
        cluster = slurm.Cluster(directory)
        places = {cluster.network_namespace(n): n for n in cluster.nodes}
        granted = cluster.run(["salloc", "-N3", "-n%d" % RANKS, "--no-shell"])
        job = _found(r"Granted job allocation (\d+)", granted.stderr, "salloc's allocation")
        try:
            launch = jobrun.Launch(env={"SLURM_CONF": cluster.values["SLURM_CONF"],
                                        "SLURM_JOB_ID": job}, name="slurm")
            out["srun"] = session(os.path.join(REPO, "scripts", "mpipp-job"), launch, tmp,
                                  places)
        finally:
            cluster.run(["scancel", job])
    finally:
        subprocess.run([SLURM_CLUSTER, "down", directory], capture_output=True)
    return out


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="mpipp-bench-nodes-") as tmp_dir:
        print(json.dumps(measure(tmp_dir), indent=1))
