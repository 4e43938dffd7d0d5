#!/usr/bin/python3
"""What record and replay cost on a real application (the `record-lammps`
and `replay-lammps` rows of bench/run.py record).

    /usr/bin/python3 bench/record_app.py [--reps 5]

Debian's LAMMPS (Open MPI, no debug information) on 2 ranks: the melt
example of lammps-examples run for 1,000 steps (4000 atoms), under
`mpipp-job -batch -ex continue -ex quit` as a user runs it: the console
alone, with `--record DIR` (a new directory each run), with `--replay DIR`
(the warm-up's record).  Repetitions interleaved (the order turns each
time) after a warm-up of each; figures: the medians of the paired ratios
of the console's wall time (start to exit, what the user waits), of
LAMMPS's own "Loop time" (the 1,000 steps alone: no start-up) and of the
CPU time of the whole job (the console's usage: every process of the job
was waited for by its parent).  Needs
`make MPI=openmpi` (build/openmpi/libmpireg.so).

Prints the figures as JSON.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
BUILD = os.path.join(REPO, "build", "openmpi")
MPIPP_JOB = os.path.join(REPO, "scripts", "mpipp-job")
MELT = "/usr/share/lammps/examples/melt/in.melt"
STEPS = 1000
# the melt example runs 250 steps; 750 more make 1,000
INPUT = "include %s\nrun %d\n" % (MELT, STEPS - 250)
TARGET = 1.05
CONFIGS = ("console", "record", "replay")
LOOP = re.compile(r"^Loop time of ([\d.]+) on 2 procs for (\d+) steps", re.M)


class AppBenchError(Exception):
    pass


def environment():
    env = dict(os.environ, MPIPP_MPI="openmpi", MPIPP_BUILD=BUILD,
               MPIPP_MPIEXEC="mpiexec.openmpi", OMPI_MCA_osc="pt2pt")
    env.pop("LD_PRELOAD", None)
    if os.geteuid() == 0:   # Open MPI refuses root without both
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


class Runs:
    """The runs' files (input, logs, records) in a temporary directory."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="mpipp-record-app-")
        self.input = os.path.join(self.tmp, "in.melt-1000")
        with open(self.input, "w") as f:
            f.write(INPUT)

    def options(self, config, k):
        if config == "record":
            directory = os.path.join(self.tmp, "record.%d" % k)
            shutil.rmtree(directory, ignore_errors=True)
            return ["--record", directory]
        if config == "replay":
            return ["--replay", os.path.join(self.tmp, "record.-1")]
        return []

    def one(self, config, k):
        """(console wall seconds, LAMMPS loop seconds, CPU seconds of the
        whole job: console, gdbs, mpiexec, gdbservers, ranks) of run k in
        config."""
        log = os.path.join(self.tmp, "log.%s.%d" % (config, k))
        cmd = [MPIPP_JOB, "-nx", "-batch", "-ex", "continue", "-ex", "quit"] + \
            self.options(config, k) + ["-n", "2", "--", "lmp", "-in", self.input,
                                       "-log", log, "-screen", "none"]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=environment(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out = proc.stdout.read().decode("utf-8", "replace")
        # every process of the job was waited for by its parent, down to
        # the ranks: the console's usage counts them all
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        if proc.returncode != 0 or "exited normally" not in out or "diverged" in out:
            raise AppBenchError("%s failed:\n%s" % (" ".join(cmd), out[-2000:]))
        with open(log) as f:
            loops = LOOP.findall(f.read())
        if sum(int(steps) for _, steps in loops) != STEPS:
            raise AppBenchError("%s: not %d steps in %s" % (" ".join(cmd), STEPS, log))
        return wall, sum(float(seconds) for seconds, _ in loops), usage.ru_utime + usage.ru_stime

    def remove(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def measure(reps):
    if not os.path.exists(os.path.join(BUILD, "libmpireg.so")):
        raise AppBenchError("%s/libmpireg.so missing: run make MPI=openmpi" % BUILD)
    if not (shutil.which("lmp") and os.path.exists(MELT)):
        raise AppBenchError("LAMMPS is not installed (scripts/install-deps installs "
                            "lammps and lammps-examples)")
    runs = Runs()
    try:
        for config in CONFIGS:      # warm-up; the record the replays replay
            runs.one(config, -1)
        times = {config: [] for config in CONFIGS}
        for k in range(reps):
            order = CONFIGS if k % 2 == 0 else tuple(reversed(CONFIGS))
            for config in order:
                times[config].append(runs.one(config, k))
        size = sum(os.path.getsize(os.path.join(runs.tmp, "record.-1", name))
                   for name in os.listdir(os.path.join(runs.tmp, "record.-1")))
    finally:
        runs.remove()
    out = {"reps": reps, "steps": STEPS, "record_bytes": size}
    for config in CONFIGS:
        out[config] = {"wall": statistics.median(t[0] for t in times[config]),
                       "loop": statistics.median(t[1] for t in times[config]),
                       "cpu": statistics.median(t[2] for t in times[config])}
    for config in ("record", "replay"):
        pairs = list(zip(times[config], times["console"]))
        out[config]["wall_ratio"] = statistics.median(a[0] / b[0] for a, b in pairs)
        out[config]["loop_ratio"] = statistics.median(a[1] / b[1] for a, b in pairs)
        out[config]["cpu_ratio"] = statistics.median(a[2] / b[2] for a, b in pairs)
        out[config]["pass"] = out[config]["wall_ratio"] <= TARGET
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions (min 5)")
    opts = parser.parse_args()
    print(json.dumps(measure(max(opts.reps, 5)), indent=1))


if __name__ == "__main__":
    main()
