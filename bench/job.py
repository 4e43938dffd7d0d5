"""The job console's figures (bench/run.py job; this file alone prints them
as JSON: /usr/bin/python3 bench/job.py).

  calls   `calls` over 16 ranks against over 2 ranks: the same job
          (testprogs/job mismatch, every rank stopped inside an MPI call:
          MPI_Ssend, MPI_Recv, MPI_Bcast) launched with mpipp-job -n 16 and
          -n 2, both consoles open side by side and asked in turn; the
          console's own `time calls` (wall clock around the command: ask
          every rank, merge, print), after a warm-up, median of the
          repetitions.  Each timed `calls` is the first after the ranks
          forgot what they read (what a stop does); repeated `calls` at one
          stop are reported too.  Target: ratio <= 3 (the ranks are asked in
          parallel) and 16 ranks under 3 s.
  merge   the console printing one output of 64 ranks that all printed the
          same (grouped by the digests taken as answers arrive, printed once
          under [0-63]) against printing one rank's output, through the same
          code (Console.answers_groups + write_groups) into a pseudo-terminal
          drained by another process, as a terminal would; interleaved
          repetitions, medians.  Target: ratio <= 1.2.
  waits   `waits` on 512 ranks against 256: the analysis the console runs on
          the ranks' context documents (RankState, World, Graph, its text
          and JSON), on a job where every rank waits on receives from
          MPI_ANY_SOURCE -- half in MPI_Recv, half in MPI_Waitany over four
          Irecvs -- each with the channel counters of 8 peers it talked to
          and nothing in flight: all deadlocked, the worst case.  CPU time
          of this process (the machine is shared), interleaved repetitions,
          medians.  Target: 512 ranks <= 0.5 s, and the time grows with the
          edges, not with ranks² (ratio <= 3; ranks² would be 4).
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time

from context_pingpong import BUILD, REPO

MPIPP_JOB = os.path.join(REPO, "scripts", "mpipp-job")
PROGRAM = os.path.join(BUILD, "testprogs", "job")
CALLS_TARGET, CALLS_LIMIT, MERGE_TARGET = 3.0, 3.0, 1.2
WAITS_LIMIT, WAITS_GROWTH = 0.5, 3.0
TIME = re.compile(r"^time: ([\d.]+) s$", re.M)


# What every stop does to mpipp's per-stop views (inferior.on_change hooks):
# run before each timed command so each one reads the ranks afresh.
FORGET = "python import mpipp.inferior; mpipp.inferior.invalidate()"


class Session:
    """An interactive mpipp-job over pipes: `time COMMAND`, read its time."""

    def __init__(self, n):
        self.n = n
        self.proc = subprocess.Popen([MPIPP_JOB, "-nx", "-n", str(n), PROGRAM, "mismatch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        for line in ("break PMPI_Ssend", "break PMPI_Recv", "break PMPI_Bcast", "continue"):
            self.time(line)

    def time(self, command):
        """Seconds `command` took (the console's own `time`)."""
        self.proc.stdin.write("time %s\n" % command)
        self.proc.stdin.flush()
        seen = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("mpipp-job -n %d exited:\n%s" % (self.n, "".join(seen[-40:])))
            seen.append(line)
            found = TIME.match(line.rstrip("\n"))
            if found:
                return float(found.group(1))

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


def measure_calls(reps):
    """Fresh `calls` (each as the first after a stop), then repeated ones:
    a 2-rank and a 16-rank console open side by side, asked in turn."""
    few, many = Session(2), Session(16)
    try:
        out = {"reps": reps}
        for fresh in (True, False):
            times = {2: [], 16: []}
            for rep in range(reps + 1):
                for session in (few, many):
                    if fresh:
                        session.time(FORGET)
                    seconds = session.time("calls")
                    if rep:                                 # the first is a warm-up
                        times[session.n].append(seconds)
            a, b = statistics.median(times[16]), statistics.median(times[2])
            out["fresh" if fresh else "repeated"] = {
                "many": a, "few": b, "ratio": a / b, "many_all": times[16],
                "few_all": times[2]}
    finally:
        few.close()
        many.close()
    main = out["fresh"]
    out.update(many=main["many"], few=main["few"], ratio=main["ratio"],
               many_all=main["many_all"], few_all=main["few_all"],
               **{"pass": main["ratio"] <= CALLS_TARGET and main["many"] < CALLS_LIMIT})
    return out


def _answers(n, text):
    from mpipp.job.session import Answer
    out = {}
    for rank in range(n):
        answer = Answer(rank, "print")
        answer.add(text, True)
        answer.finish("done")
        out[rank] = answer
    return out


def _terminal():
    """A pseudo-terminal whose other side another process drains."""
    master, slave = os.openpty()
    pid = os.fork()
    if pid == 0:
        os.close(slave)
        while True:
            try:
                if not os.read(master, 1 << 16):
                    break
            except OSError:
                break
        os._exit(0)
    os.close(master)
    return os.fdopen(slave, "w"), pid


def measure_merge(reps, lines=200, ranks=64):
    """A 200-line output: what `mpipp TYPE BUF` prints with gdb's default
    'print elements' limit."""
    sys.path.insert(0, os.path.join(REPO, "gdb-python"))
    from mpipp.job.console import Console

    class Job:
        sessions = {}

    Job.ranks = list(range(ranks))
    out, drainer = _terminal()
    try:
        console = Console(Job, out=out)
        result = {}
        for n_lines in (lines, 20, 2000):
            text = "".join("[0][%d][1] = %d.5\n" % (k, 3 * k) for k in range(n_lines))
            many, one = _answers(ranks, text), _answers(1, text)
            t_many, t_one = [], []
            for _ in range(max(reps, 5) * 40 + 10):
                start = time.perf_counter()
                console.write_groups(console.answers_groups(many))
                t_many.append(time.perf_counter() - start)
                start = time.perf_counter()
                console.write_groups(console.answers_groups(one))
                t_one.append(time.perf_counter() - start)
            a, b = statistics.median(t_many[10:]), statistics.median(t_one[10:])
            result[n_lines] = {"many": a, "one": b, "ratio": a / b}
        start = time.perf_counter()
        _answers(ranks, "".join("[0][%d][1] = %d.5\n" % (k, 3 * k) for k in range(lines)))
        result["digest_per_answer"] = (time.perf_counter() - start) / ranks
    finally:
        out.close()
        os.waitpid(drainer, 0)
    main = result[lines]
    return {"many": main["many"], "one": main["one"], "ratio": main["ratio"],
            "pass": main["ratio"] <= MERGE_TARGET, "lines": lines, "ranks": ranks,
            "sizes": {k: v for k, v in result.items() if isinstance(k, int)},
            "digest_per_answer": result["digest_per_answer"]}


def waits_documents(n, peers=8):
    """{rank: context document} of the waits benchmark's job (see the module doc)."""
    world, int_key = 0x44000000, 0x4c00010d
    types = {"version": 1, "nodes": [{"combiner": "NAMED", "name": "MPI_INT", "size": 4,
                                      "extent": 4, "lb": 0, "kind": "int"}],
             "roots": {str(int_key): 0}}
    constants = {"MPI_ANY_SOURCE": -2, "MPI_ANY_TAG": -1, "MPI_PROC_NULL": -1,
                 "MPI_COMM_WORLD": world}

    def receive(function, tag):
        return {"function": function, "comm": world, "peer": -2, "peer_name": "source",
                "tag": tag, "bufs": [{"role": "buf", "count": 1, "datatype": int_key,
                                      "type": "MPI_INT", "peers": None}]}
    docs = {}
    for rank in range(n):
        requests, waits = [], []
        if rank % 2:
            call = {"function": "MPI_Waitany", "comm": None, "bufs": []}
            for tag in range(1, 5):
                requests.append({"request": 0x100 + tag, "serial": tag, "lwp": 1,
                                 "call": receive("MPI_Irecv", tag)})
                waits.append({"request": 0x100 + tag, "serial": tag})
        else:
            call = receive("MPI_Recv", 1)
        channels = [[world, (rank + k) % n, 1, 3, 3, int_key, 1, 0]
                    for k in range(-peers // 2, peers // 2 + 1) if k]
        docs[rank] = {
            "version": 1, "rank": rank, "size": n, "constants": constants,
            "threads": [{"lwp": 1, "gdb_thread": 1, "in_mpi": True, "polling": False,
                         "call": call, "waits_for": waits}],
            "requests": requests, "types": types,
            "comms": [{"handle": world, "name": "MPI_COMM_WORLD", "members": list(range(n)),
                       "remote_members": None}],
            "channels": {"kinds": {"collectives": -1}, "no_peer": -2 ** 31,
                         "records": channels, "unrecorded_sent": 0}}
    return docs


def measure_waits(reps, big=512, small=256):
    sys.path.insert(0, os.path.join(REPO, "gdb-python"))
    from mpipp.job.waits import Graph
    from mpipp.job.world import RankState, World

    def waits(docs):
        start = time.process_time()
        graph = Graph(World({r: RankState(r, d) for r, d in docs.items()}))
        graph.lines()
        graph.to_json()
        return time.process_time() - start, graph
    documents = {n: waits_documents(n) for n in (big, small)}
    times = {big: [], small: []}
    for rep in range(4 * reps + 1):
        for n in (big, small):
            seconds, graph = waits(documents[n])
            if rep:                                 # the first is a warm-up
                times[n].append(seconds)
    a, b = statistics.median(times[big]), statistics.median(times[small])
    return {"many": a, "few": b, "ratio": a / b, "ranks": big, "verdict": graph.headline(),
            "pass": a <= WAITS_LIMIT and a / b <= WAITS_GROWTH}


if __name__ == "__main__":
    print(json.dumps({"calls": measure_calls(5), "merge": measure_merge(5),
                      "waits": measure_waits(5)}, indent=1, default=str))
