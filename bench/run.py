#!/usr/bin/python3
"""mpipp benchmarks: every figure is a ratio of two things measured side by side.

    bench/run.py                 all benchmarks, one table      (make bench)
    bench/run.py decode lookup   only these
    bench/run.py --reps 9 ...    more repetitions (default 5; lookup uses 4x)
    bench/run.py --profile NAME  cProfile of the gdb-side Python (decode, lookup)
                                 or perf report of the C side (overhead)

Benchmarks (see bench/README.md):
  decode    `mpipp TYPE BUF` against gdb's `print` of as many elements
  lookup    `print dtype` with 10 against 100000 live registered types
  overhead  a type-churning program with and without LD_PRELOAD=libmpireg.so;
            registry bytes per live type (mallinfo2)
  lazy      MI -var-create + -var-list-children 0..19 of $mpipp(vec, buf, n),
            n = 10**7 against n = 10**3 ("pending" while $mpipp does not exist)
  job       mpipp-job: 64 ranks over 3 hosts (network namespaces), gdbs next
            to the ranks: the console's CPU and memory per rank; gdb CPU per
            `calls` answer next to the ranks against on gdbserver; the tree's
            answer of 256 ranks printed against one rank's; merging 64 ranks'
            identical output against printing one (bench/job.py)
  pictures  `mpipp layout` of a 10**6-element type against a 4-element one;
            peak memory of `mpipp dump` of 10**7 elements against the data
  extremes  `print` of a 10**6-block type against a 10-block one; `where` on
            it and on 100 nested dups; $mpipp of a 32-dimension subarray;
            `mpipp layout` of a [2**30, 2**30] subarray
  astype    `mpipp -as int` of a 10**6-block indexed type against its plain
            decode, every element shown
  libraries HDF5's 4 MiB byte chain read as doubles against a double vector;
            its `dump -raw` against one read_memory; `bt` 21 frames deep in
            MPI with the frame decorator against plain `bt`
  nodes     (only when named) 64 ranks over 3 Slurm nodes, one back-end per
            node: start to stop_here and to the first `waits`, mpipp's memory
            per node, against mpiexec and main's one back-end per rank
            (bench/nodes.py)
  record    MPIPP_RECORD / MPIPP_REPLAY against libmpireg alone: ping-pong, halo
            exchange, every receive a wildcard; bytes per wildcard receive
            and per polling loop (bench/record_bench.py)
  record-app  LAMMPS (Open MPI) 1,000 steps on 2 ranks under mpipp-job
            --record and --replay against the console alone
            (bench/record_app.py; needs make MPI=openmpi)

Timings are medians of --reps repetitions taken after a warm-up; gdb-side
timings are taken inside the gdb process (bench/gdb_bench.py).  Only public
commands are used.  Exit status 0 even when a target is missed (the table says
"short"); 1 when a benchmark could not run.
"""

import argparse
import json
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time

import context_pingpong  # bench/, next to this script
import job as job_bench
import nodes as nodes_bench
import record_app
import record_bench
from context_pingpong import BENCH, BUILD, LIB, MPICC, REPO  # the same paths and MPI

OUT = os.path.join(BUILD, "bench")
MPIPP_GDB = os.path.join(REPO, "scripts", "mpipp-gdb")
PROGS = ("decode", "lookup", "churn", "lazy", "pictures", "streams", "bytes", "extremes")

# Bytes a record's argument arrays take (what MPI_Type_get_contents returns).
# vector(count, blocklength, stride, oldtype): 3 ints + 1 datatype pointer.
VECTOR_ARGS = 3 * 4 + 8
# struct(16, bl[16], disp[16], types[16]): 17 ints + 16 addresses + 16 pointers.
STRUCT16_ARGS = 17 * 4 + 16 * 8 + 16 * 8
RECORD_BUDGET = 96
CHURN_TARGET = 1.10     # type churn with / without libmpireg
DECODE_TARGET = 10      # mpipp decode at least this many times faster than gdb's print
LIMIT_TARGET = 3        # decode at most this many times the physical limit


class BenchError(Exception):
    pass


# -- helpers ---------------------------------------------------------------

def log(msg):
    sys.stderr.write("bench: %s\n" % msg)
    sys.stderr.flush()


def median(values):
    return statistics.median(values) if values else float("nan")


def build_programs():
    """Compiles bench/progs/*.c into build/bench/ when stale."""
    if not os.path.exists(LIB):
        raise BenchError("%s not found: run 'make' (or 'make bench')" % LIB)
    os.makedirs(OUT, exist_ok=True)
    for name in PROGS:
        src = os.path.join(BENCH, "progs", name + ".c")
        exe = os.path.join(OUT, name)
        if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
            continue
        cmd = [MPICC, "-O1", "-g", "-o", exe, src]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise BenchError("cannot build %s:\n%s" % (name, proc.stderr))


def prog(name):
    return os.path.join(OUT, name)


def run_gdb_bench(program, spec, args=(), timeout=600):
    """One batch gdb session: stop in stop_here, source gdb_bench.py with spec."""
    with tempfile.TemporaryDirectory() as tmp:
        spec = dict(spec, out=os.path.join(tmp, "out.json"))
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        cmd = [MPIPP_GDB, "-nx", "-batch",
               "-ex", "set pagination off", "-ex", "set confirm off",
               "-ex", "break stop_here", "-ex", "run",
               "-ex", "python BENCH_SPEC = %r" % spec_path,
               "-ex", "source %s" % os.path.join(BENCH, "gdb_bench.py"),
               "-ex", "kill", "--args", program] + list(args)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(spec["out"]):
            raise BenchError("gdb produced no results:\n%s\n%s"
                             % (proc.stdout[-2000:], proc.stderr[-2000:]))
        with open(spec["out"]) as f:
            result = json.load(f)
    if not result["ok"]:
        raise BenchError(result["error"])
    return result["result"]


def row(name, what_a, a, what_b, b, ratio, target, passed, note=""):
    return {"name": name, "what_a": what_a, "a": a, "what_b": what_b, "b": b,
            "ratio": ratio, "target": target, "result": passed, "note": note}


def verdict(ok):
    return "pass" if ok else "short"


def fmt_time(seconds):
    if seconds is None or seconds != seconds:
        return "-"
    if seconds < 1e-3:
        return "%.2f µs" % (seconds * 1e6)
    if seconds < 1:
        return "%.2f ms" % (seconds * 1e3)
    return "%.2f s" % seconds


# -- 1. decode -------------------------------------------------------------

def bench_decode(opts):
    pairs = [
        {"name": "decode-vector",
         "mpipp": "mpipp vec vbuf",                 # 250000 x 4 doubles
         "native": "print *arr@1000000",            # 10**6 doubles
         "elements": 1000000,
         # the physical limit: vbuf's bytes read, the same doubles formatted
         "physical": {"address": "vbuf", "unit": "4d32x", "reps": 250000,
                      "format": "%.17g"}},
        {"name": "decode-struct",
         "mpipp": "mpipp item_t items 100000",      # 10**5 x {int, double[3], char[5]}
         "native": "print *items@100000",           # the same C structs
         "elements": 900000},
    ]
    spec = {"mode": "decode", "pairs": pairs, "reps": opts.reps, "warmup_elements": 50000,
            "profile": opts.profile, "top": 25}
    result = run_gdb_bench(prog("decode"), spec, timeout=420)
    rows = []
    for pair in pairs:
        r = result[pair["name"]]
        if opts.profile:
            print("== cProfile of '%s' (%s, %d lines) ==" % (pair["mpipp"],
                  fmt_time(r["mpipp"][0]), r["mpipp_lines"]))
            print(r["profile"])
            continue
        note = ""
        if r["mpipp_lines"] != pair["elements"] or r["mpipp_truncated"] or r["native_truncated"]:
            note = "output check failed: %d mpipp lines for %d elements" % (
                r["mpipp_lines"], pair["elements"])
        m, n = median(r["mpipp"]), median(r["native"])
        speedup = n / m
        rows.append(row(pair["name"], "`%s`" % pair["mpipp"], m, "`%s`" % pair["native"], n,
                        "%.2fx faster" % speedup, ">= %dx faster" % DECODE_TARGET,
                        verdict(speedup >= DECODE_TARGET and not note),
                        note or "%d elements each; CPU time of the gdb process (reads of the "
                        "inferior included), medians of %d interleaved reps; wall: %s / %s "
                        "= %.2fx" % (pair["elements"], opts.reps, fmt_time(median(r["mpipp_wall"])),
                                     fmt_time(median(r["native_wall"])),
                                     median(r["native_wall"]) / median(r["mpipp_wall"]))))
        if "physical" in pair:
            p = median(r["physical"])
            ratio = m / p
            rows.append(row("decode-limit", "`%s`: %.2f M elements/s"
                            % (pair["mpipp"], pair["elements"] / m / 1e6), m,
                            "physical limit: %.2f M elements/s" % (r["physical_values"] / p / 1e6),
                            p, "%.2f" % ratio, "<= %d" % LIMIT_TARGET,
                            verdict(ratio <= LIMIT_TARGET and not note),
                            "the limit: the same bytes read with read_memory in 4 MiB batches, "
                            "the same %d doubles unpacked and formatted '%%.17g', one per "
                            "line, no paths; CPU times in the same gdb, interleaved, %d reps; "
                            "wall: %s / %s" % (r["physical_values"], opts.reps,
                                               fmt_time(median(r["mpipp_wall"])),
                                               fmt_time(median(r["physical_wall"])))))
    return rows


# -- 2. lookup -------------------------------------------------------------

def bench_lookup(opts):
    reps = max(5, 4 * opts.reps)
    spec = {"mode": "lookup", "stops": ["small", "large"], "reps": reps,
            "profile": opts.profile, "top": 25}
    result = run_gdb_bench(prog("lookup"), spec, args=["10", "100000"])
    small, large = result["small"], result["large"]
    if opts.profile:
        for name, r in (("small", small), ("large", large)):
            print("== cProfile of 'print dtype', %d live types ==" % r["live"])
            print(r["profile"])
        return []
    s, l = median(small["fresh"]), median(large["fresh"])
    ratio = l / s
    ok = ratio <= 1.5 and l < 0.020 and s < 0.020
    note = ("registry re-read before each print (mpipp.inferior.memory.invalidate()); "
            "%d reps; first print after stop: %s / %s; cached view: %s / %s"
            % (reps, fmt_time(large["first"]), fmt_time(small["first"]),
               fmt_time(median(large["cached"])), fmt_time(median(small["cached"]))))
    return [row("lookup", "`print dtype`, %d live types" % large["live"], l,
                "`print dtype`, %d live types" % small["live"], s,
                "%.2f" % ratio, "<= 1.5 and < 20 ms", verdict(ok), note)]


# -- 3. overhead -----------------------------------------------------------

def _run_churn(args, preload):
    """(wall seconds, user+sys CPU seconds, stdout) of one churn process."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = LIB
    start = time.perf_counter()
    proc = subprocess.Popen([prog("churn")] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode:
        raise BenchError("churn %s failed: %s" % (" ".join(args), err.decode()[-1000:]))
    return elapsed, usage.ru_utime + usage.ru_stime, out.decode()


PROFILE_SYMBOLS = re.compile(
    r"\] (P?MPI_Type_\w+|mpireg_\w+|child_record|describe|insert|destroy|detach|map_find|"
    r"find_any|user_site|__libc_calloc|_int_free|pthread_mutex_lock\S*|"
    r"__GI___pthread_mutex_unlock\S*|MPI_Init|MPI_Finalize|main)\b")


def _profile_churn(n):
    """perf (DWARF call graphs) of the preloaded churn loop: inclusive share of
    each wrapper against the PMPI call inside it, and self time per DSO."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ, LD_PRELOAD=LIB)
        subprocess.run(["perf", "record", "-q", "-F", "10000", "--call-graph", "dwarf,16384",
                        "-o", data, prog("churn"), "loop", str(n)],
                       env=env, capture_output=True, check=True)
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children",
                              "--sort", "symbol", "-g", "none"], capture_output=True, text=True)
        print("== perf: churn loop %d with libmpireg preloaded: inclusive (children) and "
              "self share of all samples ==" % n)
        print("\n".join(l for l in rep.stdout.splitlines() if PROFILE_SYMBOLS.search(l)
                        and "0.0" not in l.split("%")[0][-5:]))
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                              "--sort", "dso", "-g", "none"], capture_output=True, text=True)
        print("== self time per DSO ==")
        print("\n".join(l for l in rep.stdout.splitlines()[:40] if l and not l.startswith("#")))
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                              "--dsos", "libmpireg.so", "--sort", "symbol", "-g", "none"],
                             capture_output=True, text=True)
        print("== self time in libmpireg.so ==")
        print("\n".join(l for l in rep.stdout.splitlines()[:40] if l and not l.startswith("#")))


def bench_overhead(opts):
    n = 100000
    if opts.profile:
        _profile_churn(n)
        return []
    args = ["loop", str(n)]
    _run_churn(args, False)  # warm-up (page cache, dynamic loader)
    _run_churn(args, True)
    walls = {False: [], True: []}
    cpus = {False: [], True: []}
    loops = {False: [], True: []}
    # A process takes ~0.3 s: 3x the repetitions, to see through the noise.
    for _ in range(3 * opts.reps):
        for preload in (False, True):  # interleaved: drift hits both sides
            elapsed, cpu, out = _run_churn(args, preload)
            walls[preload].append(elapsed)
            cpus[preload].append(cpu)
            loops[preload].append(float(out.split()[0]))
    w_with, w_without = median(walls[True]), median(walls[False])
    c_with, c_without = median(cpus[True]), median(cpus[False])
    l_with, l_without = median(loops[True]), median(loops[False])
    # The figure is CPU time (user+sys) of the whole process: on a shared
    # machine wall time also counts waiting for a core, which dilutes the
    # ratio (a loaded run gave wall 1.22 against CPU 1.33).
    rows = [row("overhead-time", "process CPU time with libmpireg", c_with,
                "without", c_without, "%.2f" % (c_with / c_without), "<= %.2f" % CHURN_TARGET,
                verdict(c_with / c_without <= CHURN_TARGET),
                "2x%d types created/committed/freed, singleton (no mpiexec), user+sys CPU "
                "time of the whole process, %d interleaved reps; wall time: %s / %s = %.2f; "
                "loop alone (MPI_Wtime): %s / %s = %.2f, i.e. %.0f ns of registry work per "
                "type (create + commit + free)"
                % (n, len(walls[True]), fmt_time(w_with), fmt_time(w_without),
                   w_with / w_without, fmt_time(l_with), fmt_time(l_without),
                   l_with / l_without, (l_with - l_without) / (2 * n) * 1e9))]
    live = 20000
    # MPICH's own growth differs by one of its 179 KiB blocks from run to run
    # (9 B/type): the median of 5 runs per side.
    samples = {False: [], True: []}
    for _ in range(5):
        for preload in (False, True):
            _, _, out = _run_churn(["memory", str(live)], preload)
            samples[preload].append(dict((k, float(v)) for k, v in
                                         (line.split() for line in out.strip().splitlines())))
    per = {preload: {kind: median([run[kind] for run in runs]) for kind in ("vector", "struct")}
           for preload, runs in samples.items()}
    for kind, args_bytes in (("vector", VECTOR_ARGS), ("struct", STRUCT16_ARGS)):
        registry = per[True][kind] - per[False][kind]
        budget = RECORD_BUDGET + args_bytes
        rows.append(row("memory-" + kind, "registry bytes per live type", registry,
                        "budget %d + %d args" % (RECORD_BUDGET, args_bytes), budget,
                        "%.2f" % (registry / budget), "<= 1.00",
                        verdict(registry <= budget),
                        "heap growth (mallinfo2() uordblks + hblkhd: the table is counted "
                        "wherever malloc puts it) over %d live %s types, with minus without "
                        "preload, medians of 5 runs each (MPICH alone: %.0f B/type)"
                        % (live, "16-member struct" if kind == "struct" else "vector",
                           per[False][kind])))
    return rows


# -- 4. lazy (MI) ----------------------------------------------------------

class MI:
    """A minimal GDB/MI client over pipes: send a command, wait for its result."""

    def __init__(self, argv, timeout):
        self.timeout = timeout
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.buf = b""
        self.token = 100
        self.records = []

    def _line(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise BenchError("gdb (MI) exited")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace").rstrip("\r")

    def command(self, text, timeout=None):
        """(elapsed seconds, result line) of one MI command, timed round trip."""
        self.token += 1
        token = str(self.token)
        start = time.perf_counter()
        self.proc.stdin.write(("%s%s\n" % (token, text)).encode())
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            line = self._line(deadline)
            if line.startswith(token + "^"):
                return time.perf_counter() - start, line[len(token):]
            self.records.append(line)

    def wait_for(self, prefix, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            line = self._line(deadline)
            if line.startswith(prefix):
                return line

    def close(self):
        try:
            self.proc.stdin.write(b"-gdb-exit\n")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def _mi_expand(mi, n, timeout):
    """-var-create + -var-list-children 0..19 of $mpipp(vec, buf, n); seconds."""
    t1, res = mi.command('-var-create - * "$mpipp(vec, buf, %d)"' % n, timeout)
    if not res.startswith("^done"):
        raise BenchError("-var-create $mpipp(vec, buf, %d): %s" % (n, res[:300]))
    name = re.search(r'name="([^"]+)"', res).group(1)
    t2, res = mi.command("-var-list-children --simple-values %s 0 20" % name, timeout)
    if not res.startswith("^done"):
        raise BenchError("-var-list-children: %s" % res[:300])
    numchild = int(re.search(r'numchild="(\d+)"', res).group(1))
    mi.command("-var-delete %s" % name)
    return t1 + t2, numchild


# Per MI command: beyond this the expansion is not lazy and the row is "short"
# (keeps `make bench` under 5 minutes whatever $mpipp does).
LAZY_CAP = 30


def _lazy_row(opts, chunk):
    """One MI session; chunk None = default 'mpipp mi-chunk', else set to chunk."""
    small, large = 1000, 10 ** 7
    name = "lazy" if chunk is None else "lazy-flat"
    setting = "default mi-chunk" if chunk is None else "set mpipp mi-chunk %d" % chunk
    argv = [MPIPP_GDB, "-nx", "--interpreter=mi3", prog("lazy")]
    mi = MI(argv, 120)
    timed_out = False
    probe = {}
    try:
        mi.command("-gdb-set pagination off")
        mi.command("-gdb-set confirm off")
        mi.command("-enable-pretty-printing")  # what Emacs gdb-mi and VS Code send
        mi.command("-break-insert stop_here")
        mi.command("-exec-run")
        mi.wait_for("*stopped", timeout=120)
        _, res = mi.command('-interpreter-exec console "help function mpipp"')
        if not res.startswith("^done"):
            return row(name, "MI expand, n=10^7", None, "n=10^3", None, "-", "<= 2",
                       "pending", "no $mpipp convenience function in gdb-python/mpipp yet")
        if chunk is not None:
            _, res = mi.command("-gdb-set mpipp mi-chunk %d" % chunk)
            if not res.startswith("^done"):
                raise BenchError("-gdb-set mpipp mi-chunk %d: %s" % (chunk, res[:300]))
        _mi_expand(mi, small, LAZY_CAP)  # warm-up
        # growth between 10^3 and 10^4, measured before the big one can time out
        probe[10 ** 4] = _mi_expand(mi, 10 ** 4, LAZY_CAP)[0]
        warm, _ = _mi_expand(mi, large, LAZY_CAP)
        # Millisecond round trips are noisy: 4x the repetitions when cheap.
        reps = 4 * opts.reps if warm < 1 else opts.reps
        times = {small: [], large: []}
        children = {}
        for _ in range(reps):
            for n in (small, large):
                elapsed, children[n] = _mi_expand(mi, n, LAZY_CAP)
                times[n].append(elapsed)
    except TimeoutError:
        timed_out = True
    finally:
        if timed_out:  # gdb is still busy: do not wait for it
            mi.proc.kill()
            mi.proc.wait()
        else:
            mi.close()
    if timed_out:
        note = ("%s: an MI command for n=10^7 took more than %d s (cap), i.e. the expansion "
                "is not lazy" % (setting, LAZY_CAP))
        if probe:
            note += "; n=10^4 took %s" % fmt_time(probe[10 ** 4])
        return row(name, "MI expand, n=10^7", None, "MI expand, n=10^3", None,
                   "> %d s" % LAZY_CAP, "<= 2", "short", note)
    b, s = median(times[large]), median(times[small])
    return row(name, "MI expand, n=10^7", b, "MI expand, n=10^3", s, "%.2f" % (b / s),
               "<= 2", verdict(b / s <= 2),
               "%s; -enable-pretty-printing, then -var-create + -var-list-children "
               "--simple-values VAR 0 20, timed round trip over MI; %d reps; %d children "
               "listed; n=10^4 took %s" % (setting, reps, children[large],
                                           fmt_time(probe[10 ** 4])))


def bench_lazy(opts):
    """Default settings (what a front end gets), then flat children (mi-chunk 0)."""
    first = _lazy_row(opts, None)
    if first["result"] == "pending":
        return [first]
    return [first, _lazy_row(opts, 0)]


VSCODE = os.path.join(REPO, "tests", "vscode")


def bench_dap(opts):
    """The lazy row through VS Code's way in: the real cdt-gdb-adapter over
    the Debug Adapter Protocol (tests/vscode/session.js), a watch on
    $mpipp(vec, buf, N) and its first page of children."""
    if not os.path.isdir(os.path.join(VSCODE, "node_modules", "cdt-gdb-adapter")):
        return [row("dap-lazy", "DAP expand, n=10^7", None, "n=10^3", None, "-", "<= 1.5",
                    "pending", "tests/vscode/node_modules missing (make check runs npm ci)")]
    config = json.dumps({"type": "gdb", "request": "launch", "program": prog("lazy"),
                         "gdb": MPIPP_GDB})
    proc = subprocess.run(["node", os.path.join(VSCODE, "session.js"), "lazy", config,
                           str(4 * opts.reps)], capture_output=True, text=True, timeout=600,
                          cwd=VSCODE)
    if proc.returncode:
        raise BenchError("session.js lazy: %s" % proc.stderr[-500:])
    report = json.loads(proc.stdout)
    large, small = (median(report["times"][n]) / 1e3 for n in ("10000000", "1000"))
    return [row("dap-lazy", "DAP watch + first page, n=10^7", large,
                "the same, n=10^3", small, "%.2f" % (large / small), "<= 1.5",
                verdict(large / small <= 1.5),
                "cdt-gdb-adapter %s driven by DebugClient: evaluate (watch) then variables of "
                "$mpipp(vec, buf, N), the round trip as the editor waits for it; %d reps after a "
                "warm-up; first page: %s children for 10^7, %s for 10^3"
                % (_adapter_version(), 4 * opts.reps, report["pages"]["10000000"],
                   report["pages"]["1000"]))]


def _adapter_version():
    with open(os.path.join(VSCODE, "node_modules", "cdt-gdb-adapter", "package.json")) as f:
        return json.load(f)["version"]


def bench_pingpong(opts):
    """8-byte ping-pong between 2 ranks with and without libmpireg (issue 6's
    communication-context wrappers), measured by bench/context_pingpong.py."""
    result = context_pingpong.measure_result(reps=7, n=100000)
    return [row("context-pingpong", "round trip with libmpireg",
                result["pingpong_ns_with"] * 1e-9, "without",
                result["pingpong_ns_without"] * 1e-9, "%.3f" % result["latency_ratio"],
                "<= %.2f" % context_pingpong.TARGET_RATIO, verdict(result["pass"]),
                "2 ranks, %d round trips x %d interleaved reps; added cost per wrapped call "
                "(MPI_Send to MPI_PROC_NULL): %.1f ns; ratio estimated from it: %.3f"
                % (result["n"], result["reps"], result["added_ns_per_call"],
                   result["estimated_ratio"]))]


def bench_pictures(opts):
    """`mpipp layout` of 10**6-element types (irregular and regular) against a
    4-element one; the gdb process's peak memory growth while `mpipp dump`
    streams 10**7 (and 10**5) elements to a file (progs/pictures.c)."""
    with tempfile.TemporaryDirectory() as tmp:
        dumps = {n: "mpipp dump -%s %s buf %s" % (fmt, t, os.path.join(tmp, "d." + fmt))
                 for n, (fmt, t) in {"raw7": ("raw", "pairs"), "raw5": ("raw", "few"),
                                     "csv6": ("csv", "mid"), "csv5": ("csv", "few")}.items()}
        layouts = ["mpipp layout scatter", "mpipp layout small", "mpipp layout vec",
                   "mpipp layout -svg %s scatter" % os.path.join(tmp, "s.svg")]
        spec = {"mode": "pictures", "reps": opts.reps, "layout": layouts,
                "dump": [dumps[k] for k in ("raw5", "raw7", "csv5", "csv6")]}
        r = run_gdb_bench(prog("pictures"), spec, timeout=600)
    lay = {cmd: median(times) for cmd, times in r["layout"].items()}
    big, small = lay[layouts[0]], lay[layouts[1]]
    d = {k: r["dump"][dumps[k]] for k in dumps}
    mib = 1024.0
    data_kb = 80000000 / 1024.0                 # 10**7 doubles
    ratio = d["raw7"]["peak_kb"] / data_kb
    return [
        row("layout", "`mpipp layout scatter` (10^6 irregular blocks)", big,
            "`mpipp layout small` (4 elements)", small, "%.1fx" % (big / small),
            "A < 1 s", verdict(big < 1.0),
            "regular 10^6-element vector: %s; SVG of scatter: %s; %d reps after a warm-up"
            % (fmt_time(lay[layouts[2]]), fmt_time(lay[layouts[3]]), opts.reps)),
        row("dump-memory", "peak RSS growth, `mpipp dump -raw` of 10^7 elements",
            "%.1f MiB" % (d["raw7"]["peak_kb"] / mib), "the data dumped",
            "%.1f MiB" % (data_kb / mib), "%.3f" % ratio, "<= 0.10", verdict(ratio <= 0.10),
            "10^5 elements: %.1f MiB; -csv of 10^6: %.1f MiB, of 10^5: %.1f MiB; "
            "times: -raw 10^7 %s, -csv 10^6 %s"
            % (d["raw5"]["peak_kb"] / mib, d["csv6"]["peak_kb"] / mib,
               d["csv5"]["peak_kb"] / mib, fmt_time(d["raw7"]["seconds"]),
               fmt_time(d["csv6"]["seconds"]))),
    ]


WHERE_TARGET = 2        # where on 5*10^7 elements vs 10, and below WHERE_LIMIT seconds
WHERE_LIMIT = 0.050
PEAK_TARGET = 2         # peak memory of a streamed document, big vs 10^3 elements
JSON_TARGET = 1.5       # -json decode time vs json.dumps of the same elements, written
# jvec over jbuf (progs/streams.c): 10^6 repetitions of 4 doubles every 64 bytes,
# element j of repetition r at path [0][r][j]
JVEC = {"address": "jbuf", "reps": 1000000, "block": 4, "size": 8, "code": "d",
        "rep_bytes": 64, "type": "MPI_DOUBLE", "path": "[0][%d][%d]", "batch": 32768,
        "check": "mpipp -json jsmall jbuf"}


def bench_streams(opts):
    """`mpipp where` on 5*10^7 elements against 10; the peak memory of
    `mpipp typemap -json` (10^7 vs 10^3 elements) and `mpipp -json` (4*10^6
    vs 10^3); -json of 4*10^6 elements against the physical limit of that
    output (json.dumps of the same element dicts, written) and against the
    text decode of the same elements (progs/streams.c)."""
    where = {"stacked": "mpipp where stacked 0 2", "overlap": "mpipp where overlap 0 49382717",
             "tiny": "mpipp where tiny 0 2"}
    docs = {"tm7": "mpipp typemap -json big7", "tm3": "mpipp typemap -json small3",
            "json6": "mpipp -json jvec jbuf", "json3": "mpipp -json jsmall jbuf",
            "text6": "mpipp jvec jbuf"}
    spec = {"mode": "streams", "reps": 4 * opts.reps, "stream_reps": 3,
            "timed": list(where.values()), "streamed": list(docs.values()), "json_limit": JVEC}
    r = run_gdb_bench(prog("streams"), spec, timeout=900)
    t = {k: median(r["timed"][c]["seconds"]) for k, c in where.items()}
    outputs = {k: r["timed"][c]["output"] for k, c in where.items()}
    note = ""
    if "held by 50000000 elements" not in outputs["stacked"] or \
            "held by 2 elements" not in outputs["overlap"]:
        note = "output check failed: %s / %s" % (outputs["stacked"][:80], outputs["overlap"][:80])
    d = {k: r["streamed"][c] for k, c in docs.items()}
    sec = {k: median(v["seconds"]) for k, v in d.items()}
    peak = {k: max(v["peak_kb"]) / 1024.0 for k, v in d.items()}
    grew = {k: max(v["grew_kb"]) / 1024.0 for k, v in d.items()}
    ratio = t["stacked"] / t["tiny"]
    tm_peak = peak["tm7"] / peak["tm3"]
    js_peak = peak["json6"] / peak["json3"]
    return [
        row("where", "`%s` (5*10^7 elements on 4 bytes)" % where["stacked"], t["stacked"],
            "`%s` (10 elements)" % where["tiny"], t["tiny"], "%.2f" % ratio,
            "<= %g and A < %d ms" % (WHERE_TARGET, WHERE_LIMIT * 1000),
            verdict(ratio <= WHERE_TARGET and t["stacked"] < WHERE_LIMIT and not note),
            note or "hvector(5*10^7, 1, 4, MPI_DOUBLE): `%s` %s; %d interleaved reps, "
            "output captured" % (where["overlap"], fmt_time(t["overlap"]), spec["reps"])),
        row("typemap-json-memory", "peak RSS of gdb, `%s` (10^7 elements)" % docs["tm7"],
            "%.1f MiB" % peak["tm7"], "`%s` (10^3)" % docs["tm3"], "%.1f MiB" % peak["tm3"],
            "%.2f" % tm_peak, "<= %g" % PEAK_TARGET, verdict(tm_peak <= PEAK_TARGET),
            "output to /dev/null (gdb's logging redirect), peak reset before each command "
            "(clear_refs 5); growth over the RSS before: %.1f / %.1f MiB; 10^7 entries in %s"
            % (grew["tm7"], grew["tm3"], fmt_time(sec["tm7"]))),
    ] + _json_decode_rows(r["json_limit"], d, spec["stream_reps"], docs) + [
        row("json-memory", "peak RSS of gdb, `%s` (4*10^6 elements)" % docs["json6"],
            "%.1f MiB" % peak["json6"], "`%s` (10^3)" % docs["json3"], "%.1f MiB" % peak["json3"],
            "%.2f" % js_peak, "<= %g" % PEAK_TARGET, verdict(js_peak <= PEAK_TARGET),
            "growth over the RSS before: %.1f / %.1f MiB; text decode of 4*10^6: %.1f MiB"
            % (grew["json6"], grew["json3"], peak["text6"])),
    ]


def _json_decode_rows(limit, d, reps, docs):
    """json-decode (against the physical limit of its output) and
    json-decode-text (against the text decode of the same elements): CPU
    times of the gdb process, interleaved."""
    cpu = {k: median(d[k]["cpu"]) for k in ("json6", "text6")}
    wall = {k: median(d[k]["seconds"]) for k in ("json6", "text6")}
    runs = limit["runs"]
    lim = {k: median([run[k] for run in runs]) for k in ("cpu", "encode", "wall")}
    to_limit, to_text = cpu["json6"] / lim["cpu"], cpu["json6"] / cpu["text6"]
    elements = runs[0]["elements"]
    note = "" if limit["checked"] and elements == 4 * 10 ** 6 else (
        "output check failed: the limit's element dicts are not the document's "
        "(%d elements)" % elements)
    return [
        row("json-decode", "`%s` (4*10^6 elements)" % docs["json6"], cpu["json6"],
            "json.dumps of the same element dicts, written", lim["cpu"], "%.2f" % to_limit,
            "<= %g" % JSON_TARGET, verdict(to_limit <= JSON_TARGET and not note),
            note or "the limit: the bytes read with read_memory, the document's element dicts "
            "built from them (untimed, checked against `%s`), json.dumps of %d at a time "
            "(%s of it) and gdb.write of the text to /dev/null as mpipp writes it; CPU times of "
            "gdb, medians of %d interleaved reps; wall: %s / %s"
            % (JVEC["check"], JVEC["batch"], fmt_time(lim["encode"]), reps,
               fmt_time(wall["json6"]), fmt_time(lim["wall"]))),
        row("json-decode-text", "`%s`" % docs["json6"], cpu["json6"],
            "`%s` (text, the same elements)" % docs["text6"], cpu["text6"], "%.2f" % to_text,
            "-", "-",
            "the JSON document holds ~4.3x the characters of the text (path, offset, address, "
            "type, value, bytes against path = value); CPU times, wall: %s / %s = %.2f"
            % (fmt_time(wall["json6"]), fmt_time(wall["text6"]), wall["json6"] / wall["text6"])),
    ]


PRINT_TARGET = 1.5      # print of a 10^6-block type vs a 10-block one
FIRST_WHERE = 1.0       # seconds: the first where on a 10^6-block type after a stop
QUICK = 0.050           # seconds: a later where, where on 100 dups, $mpipp of 32 dimensions
LAYOUT_MEMORY = 50      # MB the layout of a [2^30, 2^30] subarray may take


def bench_extremes(opts):
    """Legal extreme types (progs/extremes.c, issue 21): `print` of a
    10^6-block indexed type against a 10-block one; `where` on it (first
    call after a stop, later calls) and on 100 nested dups; `print $mpipp`
    of a 32-dimension subarray's one element; `mpipp layout` of a
    [2^30, 2^30] subarray."""
    prints = ["print big", "print ten"]
    dups, deep, char = ("mpipp where dups buf buf", "print $mpipp(deep, buf, 1)",
                        "print $mpipp(one, buf, 1)")
    spec = {"mode": "extremes", "reps": opts.reps, "print": prints, "print_elements": 10,
            "timed": [dups, deep, char], "where": "mpipp where big buf &buf[700001]",
            "layout": "mpipp layout huge"}
    r = run_gdb_bench(prog("extremes"), spec, timeout=900)
    cached = {cmd: median(r["cached"][cmd]) for cmd in prints}
    same = {cmd: median(r["same"][cmd]) for cmd in prints}
    fresh = {cmd: median(r["fresh"][cmd]) for cmd in prints}
    t = {cmd: median(r["timed"][cmd]["seconds"]) for cmd in spec["timed"]}
    first, later = median(r["first"]), median(r["later"])
    lay = r["layout"]
    grew_mb = lay["grew_kb"] / 1024.0
    ratio = same[prints[0]] / same[prints[1]]
    checks = []
    if "[0][100000][1]" not in r["where_output"]:
        checks.append("where answered %r" % r["where_output"][:80])
    if "1073741824×1073741824 array" not in lay["output"]:
        checks.append("layout drew %r" % lay["output"][:120])
    note = "; ".join(checks)
    return [
        row("print-blocks", "`print big` (indexed, 10^6 blocks)", same[prints[0]],
            "`print ten` (10 blocks)", same[prints[1]], "%.2f" % ratio,
            "<= %g" % PRINT_TARGET, verdict(ratio <= PRINT_TARGET),
            "at one stop with 'set print elements %d' (both show 10 elements of each "
            "array), %d interleaved reps after a warm-up; with the default 200 (big shows "
            "200 of each, ten 10): %s / %s = %.1f; each the first print after a stop "
            "(the registry read and the 10^6 blocks checked again): %s / %s"
            % (spec["print_elements"], opts.reps, fmt_time(cached[prints[0]]),
               fmt_time(cached[prints[1]]), cached[prints[0]] / cached[prints[1]],
               fmt_time(fresh[prints[0]]), fmt_time(fresh[prints[1]]))),
        row("where-blocks", "`%s`, first after a stop" % spec["where"], first,
            "the same, later", later, "%.0fx" % (first / later),
            "A < %g s, B < %d ms; 100 dups < %d ms" % (FIRST_WHERE, QUICK * 1000, QUICK * 1000),
            verdict(first < FIRST_WHERE and later < QUICK and t[dups] < QUICK and not note),
            note or "the first includes reading the type from the registry and building its "
            "block index; `%s` (100 nested dups): %s; %d reps"
            % (dups, fmt_time(t[dups]), opts.reps)),
        row("mpipp-deep", "`%s` (32 dimensions, 1 element)" % deep, t[deep],
            "`%s`" % char, t[char], "%.1fx" % (t[deep] / t[char]), "A < %d ms" % (QUICK * 1000),
            verdict(t[deep] < QUICK), "%d reps after a warm-up" % opts.reps),
        row("layout-huge", "`%s` ([2^30, 2^30] subarray), time" % spec["layout"],
            lay["seconds"], "peak RSS growth", "%.1f MiB" % grew_mb, "-",
            "A < 1 s and B < %d MB" % LAYOUT_MEMORY,
            verdict(lay["seconds"] < 1.0 and grew_mb < LAYOUT_MEMORY and not note),
            note or "once, after the registry was read; output to /dev/null, peak reset "
            "before (clear_refs 5)"),
    ]


AS_TARGET = 1.5          # -as on a 10^6-block type vs its plain decode


def bench_astype(opts):
    """`mpipp -as int big buf` (the runs of a 10^6-block indexed type of
    ints read as ints: the same elements, so the ratio is what -as adds)
    against `mpipp big buf`, every element shown (progs/extremes.c)."""
    spec = {"mode": "astype", "reps": opts.reps, "plain": "mpipp big buf",
            "as": "mpipp -as int big buf"}
    r = run_gdb_bench(prog("extremes"), spec, timeout=1800)
    plain, reread = spec["plain"], spec["as"]
    t = {key: {cmd: median(r[key][cmd]) for cmd in (plain, reread)}
         for key in ("warm", "fresh", "limited")}
    ratio = {key: t[key][reread] / t[key][plain] for key in t}
    lines = r["lines"]
    note = "" if lines[plain] == lines[reread] == 1999999 else \
        "output check failed: %s lines" % lines
    return [
        row("as-blocks", "`%s` (10^6 blocks, 933,334 runs)" % reread, t["warm"][reread],
            "`%s` (2·10^6 elements)" % plain, t["warm"][plain], "%.2f" % ratio["warm"],
            "<= %g" % AS_TARGET, verdict(ratio["warm"] <= AS_TARGET and not note),
            note or "'print elements unlimited', CPU time of the gdb process, medians of %d "
            "interleaved reps after a warm-up at one stop; once each as the first after a "
            "stop (the type read from the registry again): %s / %s = %.2f; once each with "
            "'print elements 200' (all runs found, 200 elements shown): %s / %s"
            % (opts.reps, fmt_time(t["fresh"][reread]), fmt_time(t["fresh"][plain]),
               ratio["fresh"], fmt_time(t["limited"][reread]), fmt_time(t["limited"][plain]))),
    ]


BYTES_TARGET = 2         # a byte-built type read as doubles vs the same bytes as doubles
RAW_TARGET = 2           # dump -raw of it vs one read_memory of its bytes
BT_TARGET = 1.2          # bt with the frame decorator vs plain bt
ROWS, COLS = 512, 1024   # bench/progs/bytes.c


def bench_libraries(opts):
    """Types built from bytes as parallel HDF5 builds them, and backtraces
    inside a library's MPI call (progs/bytes.c)."""
    with tempfile.TemporaryDirectory() as tmp:
        decode = ["mpipp -as double h5t buf", "mpipp dvec &buf[%d]" % (COLS + 3)]
        dump = "mpipp dump -raw h5t buf %s" % os.path.join(tmp, "h5.raw")
        # the bytes h5t covers: from row 1, column 1 to row 512, column 1024
        span = [(COLS + 3) * 8, ((ROWS - 1) * (COLS + 2) + COLS) * 8]
        spec = {"mode": "libraries", "reps": opts.reps, "bt_reps": 10 * opts.reps,
                "decode": decode, "dump": dump, "copy": os.path.join(tmp, "copy.raw"),
                "address": "buf", "span": span}
        r = run_gdb_bench(prog("bytes"), spec, timeout=600)
    d = {cmd: median(v["cpu"]) for cmd, v in r["decode"].items()}
    lines = {cmd: v["lines"] for cmd, v in r["decode"].items()}
    dec_ratio = d[decode[0]] / d[decode[1]]
    note = "" if lines[decode[0]] == lines[decode[1]] == ROWS * COLS else \
        "output check failed: %s lines" % lines
    raw, copy = median(r["dump"]["raw"]["cpu"]), median(r["dump"]["copy"]["cpu"])
    read = median(r["dump"]["read"]["cpu"])
    bt_on, bt_off = median(r["bt"]["enable"]["seconds"]), median(r["bt"]["disable"]["seconds"])
    bt_note = "" if r["bt"]["enable"]["decorated"] else "output check failed: not decorated"
    return [
        row("bytes-decode", "`%s` (HDF5's byte chain, 4 MiB)" % decode[0], d[decode[0]],
            "`%s` (the same bytes as doubles)" % decode[1], d[decode[1]], "%.2f" % dec_ratio,
            "<= %g" % BYTES_TARGET, verdict(dec_ratio <= BYTES_TARGET and not note),
            note or "%d elements each; CPU time of the gdb process, medians of %d interleaved "
            "reps; wall: %s / %s" % (ROWS * COLS, opts.reps,
                                     fmt_time(median(r["decode"][decode[0]]["wall"])),
                                     fmt_time(median(r["decode"][decode[1]]["wall"])))),
        row("bytes-dump-raw", "`mpipp dump -raw h5t buf FILE`", raw,
            "a plain copy: one read_memory of the %d bytes it covers, written to a file"
            % span[1], copy, "%.2f" % (raw / copy), "<= %g" % RAW_TARGET,
            verdict(raw / copy <= RAW_TARGET),
            "CPU time of the gdb process, medians of %d interleaved reps; wall: %s / %s; "
            "the read_memory alone: %s (dump -raw %.2fx it)"
            % (opts.reps, fmt_time(median(r["dump"]["raw"]["wall"])),
               fmt_time(median(r["dump"]["copy"]["wall"])), fmt_time(read), raw / read)),
        row("bt-decorator", "`bt` inside MPI_Bcast, %d frames, frame decorator"
            % r["bt"]["enable"]["frames"], bt_on, "plain `bt` (disable frame-filter global "
            "mpipp)", bt_off, "%.2f" % (bt_on / bt_off), "<= %g" % BT_TARGET,
            verdict(bt_on / bt_off <= BT_TARGET and not bt_note),
            bt_note or "CPU time of the gdb process around gdb.execute('bt', "
            "to_string=True), medians of %d interleaved reps; wall: %s / %s"
            % (spec["bt_reps"], fmt_time(median(r["bt"]["enable"]["wall"])),
               fmt_time(median(r["bt"]["disable"]["wall"])))),
    ]


def scale_row(name, scale):
    """The row of a scale test (bench/job.py measure_scale)."""
    n, per = scale["ranks"], scale["memory_per_rank"]
    return row(name, "%d ranks over %d hosts: memory per rank on the ranks' hosts"
               % (n, scale["hosts"]), "%.1f MiB" % scale["hosts_per_rank"],
               "on the console's host", "%.2f MiB" % scale["console_per_rank"], "-",
               "every check passes", "pass",
               "testprogs/job deadlock launched through the MPI's remote launcher into "
               "network namespaces; checked: stop in stop_here, `print parity` merged by "
               "parity, into the deadlock, `interrupt`, `calls` rows, `stacks`, `waits` "
               "(%d ranks blocked, 1 cycle), `quit` leaving no process on any host; PSS per "
               "rank on the hosts: gdb %.1f, back-end %.1f, rank %.1f MiB; console CPU per "
               "rank for `calls` %s; times: %s"
               % (n, per.get("gdb", 0), per.get("back-end", 0), per.get("rank", 0),
                  fmt_time(scale["console_cpu"]),
                  ", ".join("%s %s" % (k, fmt_time(v)) for k, v in scale["times"].items())))


def bench_job(opts):
    """The job console (bench/job.py): the 64-rank scale test over 3 hosts
    and its CPU and memory per rank, the 256-rank one where memory allows, gdb CPU per `calls` answer next to the
    ranks and on gdbserver, the tree's answer of 256 ranks printed,
    merging 64 ranks' identical output, and `waits` on 512 ranks against
    256."""
    tree = job_bench.measure_tree(opts.reps)
    merge = job_bench.measure_merge(opts.reps)
    waits = job_bench.measure_waits(opts.reps)
    sizes = merge["sizes"]
    with tempfile.TemporaryDirectory(prefix="mpipp-bench-job-") as tmp:
        gdb = job_bench.measure_gdb(opts.reps, tmp)
        try:
            scale = job_bench.measure_scale(opts.reps, tmp)
        except job_bench.SkipBench as why:
            scale = {"skipped": str(why)}
        try:
            large = job_bench.measure_large(opts.reps, tmp)
        except job_bench.SkipBench as why:
            large = {"skipped": str(why)}
    rows = []
    if "skipped" in scale:
        rows.append(row("job-scale", "64 ranks over 3 hosts", None, "-", None, "-",
                        "runs", "could not run", scale["skipped"]))
    else:
        n = scale["ranks"]
        rows += [
            row("job-console", "console CPU per rank, `calls` at %d ranks (gdbs next to the "
                "ranks, %d hosts)" % (n, scale["hosts"]), scale["console_cpu"],
                "console memory per rank", "%.2f MiB" % scale["console_per_rank"], "-",
                "A <= %.1f ms and B <= %.0f MiB" % (job_bench.CONSOLE_CPU_TARGET * 1e3,
                                                    job_bench.CONSOLE_MEMORY_TARGET),
                verdict(scale["pass"]),
                "CPU of every thread of the console (schedstat) around each `calls`, each the "
                "first after every rank forgot its views (as at a stop), median of %d; "
                "console PSS %.1f MiB in all" % (opts.reps, scale["console_per_rank"] * n)),
            scale_row("job-scale", scale),
        ]
    if "skipped" in large:
        rows.append(row("job-scale-large", "%d ranks over 3 hosts" % job_bench.LARGE_RANKS,
                        None, "-", None, "-", "runs where memory allows", "could not run",
                        large["skipped"]))
    else:
        rows.append(scale_row("job-scale-large", large))
    rows += [
        row("job-gdb", "gdb CPU per rank for a `calls` answer, gdb next to the rank",
            gdb["near"], "gdb here, on gdbserver", gdb["here"], "%.2f" % (gdb["near"] /
                                                                         gdb["here"]),
            "A <= %.1f ms" % (job_bench.GDB_CPU_TARGET * 1e3), verdict(gdb["pass"]),
            "4 ranks of testprogs/job deadlock inside MPI_Ssend/MPI_Recv/MPI_Barrier, the "
            "two consoles side by side; CPU of every thread of the gdbs (schedstat) around "
            "each `calls` after a stop, median of %d; the document built anew (as after a "
            "stop where libmpireg's state changed): %s near, %s here%s"
            % (opts.reps, fmt_time(gdb["near_rebuilt"]), fmt_time(gdb["here_rebuilt"]),
               "" if "skipped" in scale else
               "; at %d ranks over %d hosts: %s" % (scale["ranks"], scale["hosts"],
                                                    fmt_time(scale["gdb_cpu"])))),
        row("job-tree", "the tree's answer for %d ranks (one 200-line group) read, merged "
            "and printed" % tree["ranks"], tree["many"], "the same for one rank", tree["one"],
            "%.2f" % tree["ratio"], "<= %.1f" % job_bench.MERGE_TARGET, verdict(tree["pass"]),
            "Fleet reading the message from a socket, Console.answers_groups + write_groups "
            "into a pty drained by another process, interleaved, medians; asking (one "
            "message down for all): %s vs %s; a back-end merging its answer with 8 "
            "children's: %s"
            % (fmt_time(tree["ask_many"]), fmt_time(tree["ask_one"]),
               fmt_time(tree["node_merge"]))),
        row("job-merge", "print the same %d-line output of %d ranks" % (merge["lines"],
                                                                       merge["ranks"]),
            merge["many"], "print one rank's output", merge["one"], "%.2f" % merge["ratio"],
            "<= %.1f" % job_bench.MERGE_TARGET, verdict(merge["pass"]),
            "Console.answers_groups + write_groups into a pty drained by another process, "
            "interleaved, medians; 20 lines: %.2f (%s vs %s), 2000 lines: %.2f; digest taken "
            "as each answer arrives: %s per answer"
            % (sizes[20]["ratio"], fmt_time(sizes[20]["many"]), fmt_time(sizes[20]["one"]),
               sizes[2000]["ratio"], fmt_time(merge["digest_per_answer"]))),
        row("job-waits", "`waits`, %d ranks waiting on MPI_ANY_SOURCE" % waits["ranks"],
            waits["many"], "the same, %d ranks" % (waits["ranks"] // 2), waits["few"],
            "%.2f" % waits["ratio"], "A <= %.1f s and <= %.0f (ranks² would be 4)"
            % (job_bench.WAITS_LIMIT, job_bench.WAITS_GROWTH), verdict(waits["pass"]),
            "the console's analysis of the ranks' context documents (RankState, World, Graph, "
            "text and JSON), CPU time, medians of %d interleaved reps; half the ranks in "
            "MPI_Recv, half in MPI_Waitany over 4 MPI_Irecv, all from MPI_ANY_SOURCE, 8 peers' "
            "channel counters each, nothing in flight: %s" % (4 * opts.reps, waits["verdict"])),
    ]
    return rows


def _place_memory(memory):
    """'node a: 2 back-ends 120 MiB, 21 gdbs 900 MiB (...)' per place."""
    out = []
    for place, kinds in sorted(memory.items()):
        parts = ["%d %s %.0f MiB" % (kinds[k][0], k, kinds[k][1])
                 for k in ("back-end", "gdb", "launcher", "rank") if k in kinds]
        mpipp = [sum(kinds[k][i] for k in ("back-end", "gdb", "launcher") if k in kinds)
                 for i in (1, 2)]
        out.append("%s: mpipp %.0f MiB RSS, %.0f MiB PSS (%s)" % (place, mpipp[0], mpipp[1],
                                                                  ", ".join(parts)))
    return "; ".join(out)


def _mpipp_rss(memory, kinds=("back-end", "gdb", "launcher")):
    return sum(v[1] for place in memory.values() for k, v in place.items() if k in kinds)


def bench_nodes(opts):
    """One back-end per node (bench/nodes.py): 64 ranks launched by srun
    over 3 Slurm nodes against mpiexec on this host, and against main's
    one back-end per rank; not in the default run (root, namespaces, and
    heavy: run it alone)."""
    with tempfile.TemporaryDirectory(prefix="mpipp-bench-nodes-") as tmp:
        r = nodes_bench.measure(tmp)
    today, here, srun = r["today"], r["mpiexec"], r["srun"]
    rows = [
        row("nodes-memory", "mpipp's memory per rank, one back-end per host (mpiexec, 64 ranks "
            "on this host)", "%.1f MiB" % (_mpipp_rss(here["memory"]) / nodes_bench.RANKS),
            "one back-end per rank (main)", "%.1f MiB" % (_mpipp_rss(today["memory"]) /
                                                         nodes_bench.RANKS),
            "%.2f" % (_mpipp_rss(here["memory"]) / _mpipp_rss(today["memory"])), "-", "-",
            "RSS summed over back-ends, gdbs and the launchers holding the ranks "
            "(rank.py, or the tail --pid it became), after the first `waits`; per node: %s; main: %s"
            % (_place_memory(here["memory"]), _place_memory(today["memory"]))),
        row("nodes-start", "start to stop_here, one back-end per host (mpiexec)",
            here["to_stop_here"], "one back-end per rank (main)", today["to_stop_here"],
            "%.2f" % (here["to_stop_here"] / today["to_stop_here"]), "-", "-",
            "console start to all 64 ranks stopped in stop_here; to the first `waits` "
            "answer (deadlock interrupted): %s against %s; `waits` alone %s against %s"
            % (fmt_time(here["to_first_waits"]), fmt_time(today["to_first_waits"]),
               fmt_time(here["waits"]), fmt_time(today["waits"]))),
    ]
    if "skipped" in srun:
        rows.append(row("nodes-srun", "64 ranks over 3 Slurm nodes", None, "-", None, "-",
                        "runs", "could not run", " ".join(srun["skipped"])))
        return rows
    rows.append(row(
        "nodes-srun", "start to stop_here, srun over 3 Slurm nodes, one back-end per node",
        srun["to_stop_here"], "mpiexec on this host, one back-end", here["to_stop_here"],
        "%.2f" % (srun["to_stop_here"] / here["to_stop_here"]), "-", "-",
        "to the first `waits` answer: %s (srun) against %s (mpiexec), `waits` alone %s; "
        "memory per node under srun: %s"
        % (fmt_time(srun["to_first_waits"]), fmt_time(here["to_first_waits"]),
           fmt_time(srun["waits"]), _place_memory(srun["memory"]))))
    return rows


def bench_record(opts):
    """Record and replay (bench/record_bench.py): what MPIPP_RECORD and
    MPIPP_REPLAY add to communicating programs, and how big records are."""
    r = record_bench.measure(opts.reps)
    t = record_bench.TARGETS
    own = r["self"]
    cpu_ns = {name: own[name]["ns_per_iteration"] for name in own}
    rows = [row("record-event", "CPU per event, recording", "%.1f ns" % own["written"]["record"],
                "replaying", "%.1f ns" % own["written"]["replay"], "-", "-", "-",
                "1 rank, MPI_Isend to itself + MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) + "
                "MPI_Wait, 2 events per iteration, 7 tags in turn (every event a word); "
                "CPU time of the loop per iteration, libmpireg alone %.0f ns, recording %.0f ns, "
                "replaying %.0f ns; the same loop with one tag (events counted by a REPEAT): "
                "%.1f ns recording, %.1f ns replaying per event"
                % (cpu_ns["written"]["lib"], cpu_ns["written"]["record"],
                   cpu_ns["written"]["replay"], own["repeating"]["record"],
                   own["repeating"]["replay"]))]
    timed = (("record-pingpong", "pingpong", "record", "8 B round trip", "round trip"),
             ("record-halo", "halo", "record", "halo iteration (1 KiB each way, Waitall)",
              "iteration"),
             ("record-wildcard", "wildcard", "record",
              "wildcard receive, every message racing", "receive"),
             ("replay-wildcard", "wildcard", "replay",
              "wildcard receive, every message racing", "receive"))
    for name, bench, mode, what, unit in timed:
        m = r[bench]
        target = t[name] if name in t else t[bench]
        other = "record" if mode == "replay" else "replay"
        rows.append(row(
            name, "%s, %sing" % (what, mode), m["ns"][mode] * 1e-9, "libmpireg alone",
            m["ns"]["lib"] * 1e-9, "%.3f" % m["ratio"][mode], "<= %.2f" % target,
            verdict(m["ratio"][mode] <= target),
            "2 ranks in one job with the others, %d interleaved runs; the fastest of 50 timed "
            "segments per run, the median of the paired ratios; median segments: %.3f (%.0f vs "
            "%.0f ns per %s); estimated from record-event (%d events per %s): %.3f; %sing: %.3f"
            % (r["reps"], m["median_ratio"][mode], m["median_ns"][mode], m["median_ns"]["lib"],
               unit, record_bench.EVENTS[bench], unit, m["estimated"][mode], other,
               m["ratio"][other])))
    z = r["sizes"]
    wild, loop = z["wildcard"], z["loop"]
    rows.append(row("record-size-receive", "bytes per wildcard receive", "%.2f B" % wild["bytes"],
                    "-", None, "-", "<= %d B" % t["size-receive"],
                    verdict(wild["bytes"] <= t["size-receive"]),
                    "a record of the wildcard benchmark alone (%d receives, MPI_ANY_SOURCE and "
                    "MPI_ANY_TAG, 7 tags in turn): each receive's event words before "
                    "compression; stored: %.2f B per receive, the whole record (sends, sites...) "
                    "%.2f B; a loop with one tag (record-event's): %.4f B stored per receive"
                    % (wild["receives"], wild["stored"], wild["all"], loop["stored"])))
    polls = "{:,} unsuccessful MPI_Iprobe".format(z["polling"]["calls"])
    rows.append(row("record-size-polling", polls, "%d B" % z["polling"]["bytes"], "-", None, "-",
                    "<= %d B" % t["size-polling"],
                    verdict(z["polling"]["bytes"] <= t["size-polling"]),
                    "the record's words past its 64-byte header: one MISS event counting them "
                    "all (checked by the reader)"))
    return rows


def bench_record_app(opts):
    """Record and replay on a real application run (bench/record_app.py)."""
    r = record_app.measure(opts.reps)
    rows = []
    for config in ("record", "replay"):
        m, console = r[config], r["console"]
        rows.append(row(
            "%s-lammps" % config, "LAMMPS %d steps on 2 ranks under `mpipp-job --%s`"
            % (r["steps"], config), m["wall"], "under the console alone", console["wall"],
            "%.3f" % m["wall_ratio"], "<= %.2f" % record_app.TARGET, verdict(m["pass"]),
            "the melt example (4000 atoms), `-batch -ex continue -ex quit`, wall time of the "
            "console from start to exit, median of the paired ratios of %d interleaved runs "
            "after a warm-up; LAMMPS's own loop time: %.2f s vs %.2f s, ratio %.3f; CPU time "
            "of the whole job: %.2f s vs %.2f s, ratio %.3f; the record: %d bytes for both ranks"
            % (r["reps"], m["loop"], console["loop"], m["loop_ratio"], m["cpu"], console["cpu"],
               m["cpu_ratio"], r["record_bytes"])))
    return rows


BENCHMARKS = {"decode": bench_decode, "lookup": bench_lookup, "overhead": bench_overhead,
              "lazy": bench_lazy, "dap": bench_dap, "pingpong": bench_pingpong,
              "pictures": bench_pictures, "streams": bench_streams, "job": bench_job,
              "libraries": bench_libraries, "extremes": bench_extremes, "astype": bench_astype,
              "record": bench_record, "record-app": bench_record_app, "nodes": bench_nodes}
# Run only when named: root, namespaces, and a 64-rank job with 64 gdbs.
NAMED_ONLY = ("nodes",)


def print_table(rows):
    head = ("benchmark", "A", "B", "A vs B", "target", "result")
    lines = [head, tuple("---" for _ in head)]
    for r in rows:
        a = "%s: %s" % (r["what_a"], _fig(r["a"], r["name"]))
        b = "%s: %s" % (r["what_b"], _fig(r["b"], r["name"]))
        lines.append((r["name"], a, b, r["ratio"], r["target"], r["result"]))
    for line in lines:
        print("| " + " | ".join(line) + " |")
    notes = [r for r in rows if r["note"]]
    if notes:
        print()
        for r in notes:
            print("- %s: %s" % (r["name"], r["note"]))


def _fig(value, name):
    if value is None:
        return "-"
    if isinstance(value, str):      # already a figure with its unit
        return value
    if name.startswith("memory"):
        return "%.0f B" % value
    return fmt_time(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="|".join(BENCHMARKS))
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions (min 5)")
    parser.add_argument("--profile", action="store_true",
                        help="profile instead of timing (decode, lookup, overhead)")
    opts = parser.parse_args()
    for name in opts.names:
        if name not in BENCHMARKS:
            parser.error("unknown benchmark %r (choose from %s)" % (name, ", ".join(BENCHMARKS)))
    opts.reps = max(opts.reps, 5)
    names = opts.names or [n for n in BENCHMARKS if n not in NAMED_ONLY]
    start = time.perf_counter()
    try:
        build_programs()
    except BenchError as err:
        log(str(err))
        return 1
    rows, failed = [], False
    for name in names:
        if opts.profile and name == "lazy":
            continue
        t0 = time.perf_counter()
        log("running %s ..." % name)
        try:
            rows.extend(BENCHMARKS[name](opts))
        except (BenchError, job_bench.JobBenchError, record_app.AppBenchError,
                nodes_bench.NodesBenchError, subprocess.SubprocessError, OSError) as err:
            failed = True
            rows.append(row(name, "-", None, "-", None, "-", "-", "error", str(err)[:500]))
        log("%s took %.0f s" % (name, time.perf_counter() - t0))
    if rows:
        print("mpipp benchmarks, %s, %s, %d CPUs" % (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.uname().nodename,
            os.cpu_count()))
        print()
        print_table(rows)
        sys.stdout.flush()
    log("total %.0f s" % (time.perf_counter() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
