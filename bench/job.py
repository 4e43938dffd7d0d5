"""The job console's figures (bench/run.py job; this file alone prints them
as JSON: /usr/bin/python3 bench/job.py).

  scale   64 ranks of testprogs/job deadlock over 3 hosts (network
          namespaces, tests/job/hosts.py: needs root), launched through the
          MPI's remote launcher, gdbs next to the ranks: the scale test
          (stop, `print` of a value that differs by parity, into the
          deadlock, `interrupt`, `calls`, `stacks`, `waits`, `quit` leaving
          no process on any host; every output checked) and its figures:
          per `calls` (each the first after every rank forgot what it read,
          as at a stop), the console's CPU and the gdbs' CPU per rank
          (/proc/PID/task/*/schedstat: nanoseconds of CPU, every thread);
          memory (PSS: what each process takes, its shared pages split
          between their users) per rank of the console and, on the ranks'
          hosts, of the gdbs, the back-ends and the ranks.
  large   the same with 256 ranks, where the machine has 64 MiB available
          per rank (mpipp-job's gdbs then read no separate debug files:
          --separate-debug auto); a guard kills the job when less than
          1.5 GiB is left.
  gdb     gdb CPU per rank for a `calls` answer, 4 ranks in the same state
          on this host: gdbs next to the ranks (attached: memory reads are
          system calls) against gdbs here, connected to gdbserver (every
          read a remote-protocol round trip), consoles side by side; each
          after a stop (FORGET), and each after a stop where libmpireg's
          state changed (FORGET_ALL: the document is built anew).
  tree    the console receiving the tree's answer for 256 ranks that all
          printed the same 200 lines (one group) and printing it, against
          the same for one rank: the answer message read from a socket
          (Fleet), Console.answers_groups + write_groups into a pty drained
          by another process; interleaved repetitions, medians.  Asking
          (Fleet.ask: one message down for every rank) is timed apart.
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
import socket
import statistics
import sys
import threading
import time

from context_pingpong import BUILD, REPO

sys.path[:0] = [os.path.join(REPO, "gdb-python"), os.path.join(REPO, "tests"),
                os.path.join(REPO, "tests", "job")]

import hosts as netns_hosts  # noqa: E402  (tests/job: the hosts of the multi-host tests)
import jobrun  # noqa: E402

PROGRAM = os.path.join(BUILD, "testprogs", "job")
SCALE_RANKS, TREE_RANKS = 64, 256
# The large scale test runs where the machine has this much memory
# available per rank (measured: 61 MiB with gdbs that read no separate
# debug files, as mpipp-job's gdbs above 64 ranks; docs/performance.md).
LARGE_RANKS, LARGE_MIB_PER_RANK = 256, 64
START_TIMEOUT = 900
CONSOLE_CPU_TARGET, CONSOLE_MEMORY_TARGET = 0.1e-3, 1.0     # seconds, MiB per rank
GDB_CPU_TARGET, MERGE_TARGET = 0.5e-3, 1.2
WAITS_LIMIT, WAITS_GROWTH = 0.5, 3.0
# What every stop does to mpipp's per-stop views (memory.on_change hooks):
# run before each timed command so each one reads the ranks afresh.
FORGET = "python import mpipp.inferior.memory; mpipp.inferior.memory.invalidate()"
# ... and what a stop where libmpireg's state changed does: the answers kept
# across stops (memory.kept_across_stops) are built anew too.
FORGET_ALL = FORGET + "; mpipp.inferior.memory.forget_kept()"


class SkipBench(Exception):
    """The machine lacks what a figure needs (the message says what)."""


class JobBenchError(Exception):
    """A job did not do what it must (a check failed, the console died)."""


def cpu_seconds(pid):
    """CPU time of every thread of a process (schedstat: nanoseconds)."""
    total = 0
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total / 1e9


def pss_mib(pid):
    """A process's proportional set size: its own pages, and its share of
    those it maps with others (the libraries, gdb's and Python's code), so
    that the sum over the job's processes is the memory the job takes."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            return int(re.search(r"^Pss:\s+(\d+)", f.read(), re.M).group(1)) / 1024.0
    except (OSError, AttributeError):
        return 0.0


def mem_available_mib():
    with open("/proc/meminfo") as f:
        return int(re.search(r"MemAvailable:\s+(\d+)", f.read()).group(1)) / 1024.0


class MemoryGuard:
    """Kills the console (its back-ends then end their ranks and gdbs) when
    the machine's available memory falls below FLOOR_MIB: a large job that
    does not fit must fail the benchmark, not the machine."""

    FLOOR_MIB = 1536

    def __init__(self, job):
        self.job, self.low = job, None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while not self.stopped.wait(0.5):
            available = mem_available_mib()
            if available < self.FLOOR_MIB:
                self.low = available
                self.job.kill()
                return

    def stop(self):
        self.stopped.set()
        self.thread.join()
        if self.low is not None:
            raise JobBenchError("stopped: %.0f MiB of memory left" % self.low)


def kind_of(command):
    """What a process of the job is, by its command line."""
    program = command.split()[0] if command.split() else ""
    if program == "gdb" or program.endswith("/gdb"):
        return "gdb"
    if "rank.py" in command:
        return "back-end"
    if "mpipp.job.console" in command:
        return "console"
    if program == PROGRAM:
        return "rank"
    return "launcher"


class Job:
    """A console over a Launch (tests/job/jobrun.py), and its processes."""

    def __init__(self, launch, n, tmp):
        self.n = n
        self.marker, self.piddir = jobrun.new_job(tmp)
        self.console = jobrun.Console(launch.job(n, "deadlock"), self.marker, self.piddir,
                                      launch)

    def run(self, command, expect=None):
        try:
            out = self.console.run(command, timeout=900)
        except AssertionError as err:       # (jobrun's: no answer, the console exited)
            raise JobBenchError(str(err)[-3000:]) from None
        if expect is not None and expect not in out:
            raise JobBenchError("%r: no %r in:\n%s" % (command, expect, out[-3000:]))
        return out

    def processes(self):
        return [(pid, kind_of(cmd)) for pid, cmd in jobrun.leftovers(self.marker)]

    def into_the_deadlock(self):
        """Every rank stopped inside its MPI call: 0 MPI_Ssend, 1 MPI_Recv,
        the others MPI_Barrier."""
        self.run("continue &")
        jobrun.wait_files(self.piddir, "blocking", self.n, timeout=900)
        time.sleep(1)
        self.run("interrupt", "interrupted in")

    def calls_cpu(self, reps, forget=FORGET):
        """(console CPU, gdbs' CPU) per rank of one fresh `calls`, medians."""
        console = self.console.proc.pid
        gdbs = [pid for pid, kind in self.processes() if kind == "gdb"]
        if len(gdbs) != self.n:
            raise JobBenchError("%d gdbs for %d ranks" % (len(gdbs), self.n))
        per_console, per_gdb = [], []
        for rep in range(reps + 1):
            self.run(forget)
            before = cpu_seconds(console), sum(cpu_seconds(p) for p in gdbs)
            self.run("calls", "MPI_Ssend")
            after = cpu_seconds(console), sum(cpu_seconds(p) for p in gdbs)
            if rep:                                 # the first is a warm-up
                per_console.append((after[0] - before[0]) / self.n)
                per_gdb.append((after[1] - before[1]) / self.n)
        return statistics.median(per_console), statistics.median(per_gdb)

    def kill(self):
        """(After quit, or instead of it when something failed.)"""
        if self.console.proc.poll() is None:
            self.console.proc.kill()
            self.console.proc.wait()

    def quit(self):
        try:
            self.console.quit(timeout=600)
            jobrun.wait_no_leftovers(self.marker, timeout=120)
        except AssertionError as err:
            raise JobBenchError("quit: %s" % str(err)[-3000:]) from None


def check_calls_rows(table, n):
    """One row per rank group: 0 MPI_Ssend, 1 MPI_Recv, 2-(n-1) MPI_Barrier."""
    from mpipp.text.ranks import format_ranks
    rows = [line.split()[:2] for line in table.splitlines()[1:]]
    expected = [["0", "MPI_Ssend"], ["1", "MPI_Recv"], [format_ranks(range(2, n)),
                                                        "MPI_Barrier"]]
    if rows != expected:
        raise JobBenchError("calls: rows %s, expected %s" % (rows, expected))


def _evens_odds(n):
    from mpipp.text.ranks import header
    return "$1 = <%s: 0 | %s: 1>" % (header(range(0, n, 2)), header(range(1, n, 2)))


def measure_scale(reps, tmp, n=SCALE_RANKS):
    """The scale test over 3 hosts, and its figures (see the module doc)."""
    directory = os.path.join(tmp, "hosts")
    hosts, why = netns_hosts.make(directory)
    if hosts is None:
        raise SkipBench(why)
    times = {}
    try:
        start = time.monotonic()
        # every rank's launcher reports once MPI placed it: hundreds of ranks
        # on 2 cores take minutes to get there
        job = Job(hosts.launch(options=["--timeout", str(START_TIMEOUT)]), n, tmp)
        guard = MemoryGuard(job)
        try:
            for command, expect in (("break stop_here", None),
                                    ("continue", "stop_here ()"), ("up", None),
                                    ("print parity", _evens_odds(n))):
                job.run(command, expect)
                times.setdefault("started and stopped in stop_here", time.monotonic() - start)
            job.into_the_deadlock()
            checks = (("calls", "MPI_Barrier"),
                      ("stacks", "[0-%d] main at testprogs/job.c:" % (n - 1)),
                      ("waits", "deadlock: %d ranks blocked for good, 1 cycle" % n))
            for command, expect in checks:
                t = time.monotonic()
                out = job.run(command, expect)
                times[command] = time.monotonic() - t
                if command == "calls":
                    check_calls_rows(out, n)
            console_cpu, gdb_cpu = job.calls_cpu(reps)
            memory = {}
            for pid, kind in job.processes():
                memory[kind] = memory.get(kind, 0.0) + pss_mib(pid)
            t = time.monotonic()
            job.quit()
            times["quit, nothing left on any host"] = time.monotonic() - t
        finally:
            job.kill()
            guard.stop()
    finally:
        netns_hosts.remove(directory)
    per_rank = {k: v / n for k, v in memory.items()}
    hosts_side = sum(per_rank.get(k, 0.0) for k in ("gdb", "back-end", "rank"))
    return {"ranks": n, "hosts": len(hosts.names), "console_cpu": console_cpu,
            "gdb_cpu": gdb_cpu, "memory_per_rank": per_rank, "hosts_per_rank": hosts_side,
            "console_per_rank": per_rank.get("console", 0.0), "times": times,
            "pass": console_cpu <= CONSOLE_CPU_TARGET and
            per_rank.get("console", 0.0) <= CONSOLE_MEMORY_TARGET}


def measure_large(reps, tmp, n=LARGE_RANKS):
    """The scale test with n ranks, where memory allows."""
    needed, available = n * LARGE_MIB_PER_RANK, mem_available_mib()
    if available < needed:
        raise SkipBench("%d ranks need %.1f GiB available, the machine has %.1f"
                        % (n, needed / 1024, available / 1024))
    return measure_scale(reps, os.path.join(tmp, "large"), n)


def measure_gdb(reps, tmp, n=4):
    """gdb CPU per rank for a `calls` answer: gdbs next to the ranks against
    gdbs here on gdbserver, the same job state, consoles side by side."""
    jobs = {}
    try:
        for where in ("near", "here"):
            jobs[where] = Job(jobrun.Launch(options=["--debuggers", where]), n,
                              os.path.join(tmp, where))
        for job in jobs.values():
            job.run("break stop_here")
            job.run("continue", "stop_here ()")
            job.into_the_deadlock()
        out = {where: job.calls_cpu(reps)[1] for where, job in jobs.items()}
        out.update({where + "_rebuilt": job.calls_cpu(reps, FORGET_ALL)[1]
                    for where, job in jobs.items()})
        for job in jobs.values():
            job.quit()
    finally:
        for job in jobs.values():
            job.kill()
    out["pass"] = out["near"] <= GDB_CPU_TARGET
    return out


def _answers(n, text):
    from mpipp.job.link.session import Answer
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
    from mpipp.job.console.console import Console

    class Job:
        sessions = {}
        fleet = None

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


def measure_tree(reps, lines=200, ranks=TREE_RANKS):
    """The console's side of the tree (see the module doc): asking, reading
    the merged answer, merging and printing, for 256 ranks and for one."""
    from mpipp.job.link import tree, wire
    from mpipp.job.console.console import Console
    from mpipp.job.link.fleet import Fleet, RemoteSession
    from mpipp.job.link.session import Reactor

    text = "".join("[0][%d][1] = %d.5\n" % (k, 3 * k) for k in range(lines))
    fields = {"cls": "done", "output": text, "text": text, "error": None, "results": {},
              "document": None, "dead": None}
    out, drainer = _terminal()
    setups = []
    try:
        for n in (ranks, 1):
            down, up = socket.socketpair()
            fleet = Fleet(wire.Link(up), Reactor(thread=False))
            sessions = [RemoteSession(r, fleet, {"host": "h", "gdb": 0}) for r in range(n)]
            fleet.sessions = {s.rank: s for s in sessions}
            job = type("Job", (), {"sessions": fleet.sessions, "ranks": list(range(n)),
                                   "fleet": fleet})
            setups.append((n, down, fleet, sessions, Console(job, out=out)))
        times = {n: [] for n, *_ in setups}
        for _ in range(max(reps, 5) * 20 + 10):
            for n, down, fleet, sessions, console in setups:
                # what the tree's root sends (its work, on its host)
                message = wire.encode({"t": "answer", "id": fleet.serial + 1,
                                       "groups": [tree.group(range(n), fields)]})
                start = time.perf_counter()
                answers = fleet.ask(sessions, "-interpreter-exec console \"mpipp x buf\"")
                asked = time.perf_counter()
                down.recv(1 << 16)
                down.sendall(message)
                received = time.perf_counter()
                while fleet.requests:
                    fleet._readable()
                console.write_groups(console.answers_groups(answers))
                times[n].append((time.perf_counter() - received, asked - start))
        many, one = (statistics.median(t[0] for t in times[n][10:]) for n in (ranks, 1))
        ask_many, ask_one = (statistics.median(t[1] for t in times[n][10:]) for n in (ranks, 1))
        # a back-end's own merge: its answer and 8 children's (one group each)
        groups = [tree.group([r], fields) for r in range(9)]
        start = time.perf_counter()
        for _ in range(100):
            tree.merge(groups)
        node = (time.perf_counter() - start) / 100
    finally:
        out.close()
        os.waitpid(drainer, 0)
    return {"many": many, "one": one, "ratio": many / one, "ranks": ranks, "lines": lines,
            "ask_many": ask_many, "ask_one": ask_one, "node_merge": node,
            "pass": many / one <= MERGE_TARGET}


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
                                      "peers": None}]}
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
    from mpipp.job.analysis.waits.report import Graph
    from mpipp.job.analysis.world import RankState, World

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
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps({"tree": measure_tree(5), "merge": measure_merge(5),
                          "waits": measure_waits(5), "gdb": measure_gdb(5, tmp),
                          "scale": measure_scale(5, tmp), "large": measure_large(5, tmp)},
                         indent=1, default=str))
