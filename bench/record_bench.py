#!/usr/bin/python3
"""What record and replay cost (the `record` rows of bench/run.py).

    /usr/bin/python3 bench/record_bench.py [--reps 7]

Every ratio compares runs taken back to back and interleaved (the median of
the --reps paired ratios, after a warm-up run), libmpireg preloaded in both:
with MPIPP_RECORD (or MPIPP_REPLAY, of the warm-up's record) against
without, so that the figure is the record's own cost.  Each run of the
2-rank benchmarks times 50 segments on rank 0 and gives its fastest one (the
program's own speed: on a shared machine another process taking a core
stretches some segments) and its median one (bench/record_bench.c).

One 2-rank job runs the three benchmarks one after the other; it is run
with libmpireg alone, recording, and replaying the warm-up's record:

  pingpong   8-byte MPI_Send/MPI_Recv round trips, no wildcard
  halo       Irecv/Isend/Waitall of 1 KiB each way on a ring and a stencil
             update, no wildcard
  wildcard   PDT's receive benchmark, the receiver sending to itself too:
             every receive MPI_ANY_SOURCE and MPI_ANY_TAG, every message
             racing, 7 tags in turn (nothing for a REPEAT to count)
  self       1 rank: Isend to itself, wildcard Recv, Wait -- no other
             process to wait for, so the CPU time of the loop (the
             process's, not the wall clock's) it adds per event is steady on
             a shared machine; with one tag the loop's events repeat, with 7
             in turn each is a word written; the ratios are also estimated
             from it (the events on each benchmark's critical path times
             that cost)
  sizes      bytes per wildcard receive (the worst-case record's receive
             events, before and after REPEAT compression), and the record of
             10**6 unsuccessful MPI_Iprobe calls

Prints the figures as JSON.  Exit status 0 when it ran, 1 when it could not.
"""

import argparse
import array
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from context_pingpong import BENCH, BUILD, LIB, MPI, MPICC, MPIEXEC

sys.path.insert(0, os.path.join(os.path.dirname(BENCH), "gdb-python"))
from mpipp.record.reader import COMM_ESCAPE, KINDS, TAG_ESCAPE, field, read_record  # noqa: E402

SRC = os.path.join(BENCH, "record_bench.c")
PROG = os.path.join(BUILD, "bench", "record_bench")
TARGETS = {"pingpong": 1.05, "halo": 1.05, "record-wildcard": 1.5, "replay-wildcard": 2.0,
           "size-receive": 8, "size-polling": 16}
# The 2-rank job: each benchmark with its units (a segment is 1/50 of them).
JOB = ["pingpong", "50000", "halo", "10000", "wildcard", "25000"]
# Events on the critical path of one unit of each benchmark: a round trip
# (two sends, two receives), a halo iteration (per rank: two posts, two
# sends, two completions), a wildcard receive (its send, itself).
EVENTS = {"pingpong": 4, "halo": 6, "wildcard": 2}
# The loops' events repeat (one tag); the wildcard benchmark's do not.
REPEATING = {"pingpong": True, "halo": True, "wildcard": False}
SELF_N = 1000000
POLL_N = 1000000
# A replay that went wrong ends the job rather than waiting for a debugger.
PRELOAD = {"LD_PRELOAD": LIB, "MPIPP_REPLAY_DIVERGED": "abort"}


def build():
    if not os.path.exists(LIB):
        raise SystemExit("record_bench: %s missing (run make)" % LIB)
    if not os.path.exists(PROG) or os.path.getmtime(PROG) < os.path.getmtime(SRC):
        os.makedirs(os.path.dirname(PROG), exist_ok=True)
        subprocess.run([MPICC, "-O2", "-g", "-o", PROG, SRC], check=True)


def mpiexec(n, env):
    cmd = [MPIEXEC]
    if MPI == "openmpi":
        for name, value in env.items():
            cmd += ["-x", "%s=%s" % (name, value)]
    else:
        for name, value in env.items():
            cmd += ["-genv", name, value]
    return cmd + ["-n", str(n)]


def environment(**extra):
    """The benchmark's environment, with extra."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if MPI == "openmpi" and os.geteuid() == 0:  # Open MPI refuses root without both
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.update(extra)
    return env


def run(argv, ranks, env):
    """{benchmark: (fastest, median) segment in ns} that rank 0 prints for
    argv under mpiexec with env."""
    full = environment()
    cmd = mpiexec(ranks, env) + [PROG] + argv
    proc = subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit("record_bench: %s failed:\n%s%s" % (" ".join(cmd), proc.stdout,
                                                             proc.stderr))
    figures = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] in EVENTS:
            figures[words[0]] = (float(words[1]), float(words[2]))
    if len(figures) != len(argv) // 2 - argv.count("tags"):
        raise SystemExit("record_bench: no figures from %s:\n%s" % (" ".join(cmd), proc.stdout))
    return figures


def alone(argv, env):
    """What PROG argv prints, run as one process (no mpiexec) with env."""
    proc = subprocess.run([PROG] + argv, env=environment(**env), capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit("record_bench: %s %s failed:\n%s%s" % (PROG, " ".join(argv), proc.stdout,
                                                                proc.stderr))
    return proc.stdout


def interleaved(reps, configs, one):
    """{config: [figures]}: `one(config, k)` for each config, in turns
    after a warm-up turn (k = -1)."""
    for config in configs:
        one(config, -1)
    out = {config: [] for config in configs}
    for k in range(reps):
        order = configs if k % 2 == 0 else list(reversed(configs))
        for config in order:
            out[config].append(one(config, k))
    return out


def paired(a, b):
    """The median ratio of runs a[k] / b[k] taken back to back."""
    return statistics.median(x / y for x, y in zip(a, b))


class Records:
    """The record directories of the runs, in a temporary directory."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="mpipp-record-bench-")

    def path(self, name, k):
        return os.path.join(self.tmp, "%s.%d" % (name, k))

    def env(self, name, config, k):
        """The environment of run k of benchmark name in config: lib (no
        record), record (into a directory of its own), replay (of the
        warm-up's record)."""
        env = dict(PRELOAD)
        if config == "record":
            directory = self.path(name, k)
            shutil.rmtree(directory, ignore_errors=True)
            env["MPIPP_RECORD"] = directory
        elif config == "replay":
            env["MPIPP_REPLAY"] = self.path(name, -1)
        return env

    def remove(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def measure_self(reps, records):
    """CPU time per event recorded and replayed (ns): in a loop whose events
    repeat (one tag) and where each is a word (seven tags in turn)."""
    configs = ["lib", "record", "replay"]
    out = {}
    for tags, name in ((1, "repeating"), (7, "written")):
        argv = ["tags", str(tags), "self", str(SELF_N)]
        fig = interleaved(reps, configs, lambda config, k: float(
            alone(argv, records.env("self%d" % tags, config, k)).split()[-1]))
        med = {c: statistics.median(v) for c, v in fig.items()}
        out[name] = {"ns_per_iteration": med,
                     "record": paired_difference(fig["record"], fig["lib"]) / 2,
                     "replay": paired_difference(fig["replay"], fig["lib"]) / 2}
    return out


def paired_difference(a, b):
    return statistics.median(x - y for x, y in zip(a, b))


def measure_job(reps, records, per_event):
    """The 2-rank job recorded and replayed against libmpireg alone: per benchmark,
    the fastest and median segments (ns per unit), the paired ratios of
    both, and the ratios estimated from the CPU cost of its events
    (per_event: measure_self's)."""
    configs = ["record", "replay"]
    fig = interleaved(reps, ["lib"] + configs,
                      lambda config, k: run(JOB, 2, records.env("job", config, k)))
    out = {}
    for bench, events in EVENTS.items():
        fastest = {c: [f[bench][0] for f in v] for c, v in fig.items()}
        median = {c: [f[bench][1] for f in v] for c, v in fig.items()}
        lib_ns = statistics.median(fastest["lib"])
        added = per_event["repeating" if REPEATING[bench] else "written"]
        out[bench] = {
            "ns": {c: statistics.median(v) for c, v in fastest.items()},
            "median_ns": {c: statistics.median(v) for c, v in median.items()},
            "ratio": {c: paired(fastest[c], fastest["lib"]) for c in configs},
            "median_ratio": {c: paired(median[c], median["lib"]) for c in configs},
            "estimated": {c: (lib_ns + events * added[c]) / lib_ns for c in configs}}
    return out


def measure(reps):
    build()
    records = Records()
    try:
        result = {"mpi": MPI, "reps": reps}
        result["self"] = measure_self(reps, records)
        result.update(measure_job(reps, records, result["self"]))
        result["sizes"] = sizes(records, reps)
        return result
    finally:
        records.remove()


# The words a receive's share of a record is counted in (a REPEAT of
# sends counts too, an upper bound).
RECEIVE_WORDS = (KINDS.index("RECV"), KINDS.index("REPEAT"))


def event_words(words, at):
    """The words of the message event at `at`: 2 when escaped (record.h)."""
    w = words[at]
    return 2 if field(w, 5, 5) == COMM_ESCAPE or field(w, 32, 20) == TAG_ESCAPE else 1


def sizes(records, reps):
    """Bytes per wildcard receive: in a record of the wildcard benchmark
    alone, each receive's event words before compression and the receive
    words stored, the whole files per receive; stored in the record of the
    loop with one tag (measure_self's last).  And the record of 10**6
    unsuccessful MPI_Iprobe calls (its words past the 64-byte header)."""
    directory = records.path("wildcard", 0)
    run(["wildcard", JOB[JOB.index("wildcard") + 1]], 2, records.env("wildcard", "record", 0))
    out = {}
    for name, path in (("wildcard", directory), ("loop", records.path("self1", reps - 1))):
        receives = uncompressed = stored = total = 0
        for rec in read_record(path).ranks.values():
            with open(rec.path, "rb") as f:
                data = f.read()[64:]
            words = array.array("Q")
            words.frombytes(data[:len(data) - len(data) % 8])
            wild = [e for e in rec.expanded() if e.kind == "RECV" and e.wild]
            receives += len(wild)
            uncompressed += 8 * sum(event_words(words, e.at) for e in wild)
            stored += 8 * sum(1 for w in words[:rec.words] if w & 31 in RECEIVE_WORDS)
            total += 8 * rec.words
        out[name] = {"receives": receives, "bytes": uncompressed / receives,
                     "stored": stored / receives, "all": total / receives}
    poll_dir = records.path("poll", 0)
    alone(["poll", str(POLL_N)], records.env("poll", "record", 0))
    polling = read_record(poll_dir).ranks[0]
    misses = sum(e.count for e in polling.events if e.kind == "MISS")
    if misses != POLL_N:
        raise SystemExit("record_bench: the polling record counts %d misses, not %d"
                         % (misses, POLL_N))
    out["polling"] = {"bytes": 8 * polling.words, "calls": POLL_N}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.reps), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
