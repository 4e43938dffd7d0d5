# Sourced inside gdb by bench/run.py (never imported outside gdb).
#
# BENCH_SPEC (set with `python BENCH_SPEC = ...` before sourcing) names a JSON
# file {"mode": ..., "out": PATH, ...}.  Every timing is taken here, in the
# gdb process, with time.perf_counter around gdb.execute(cmd, to_string=True):
# exactly what a user's command costs, output formatting included, with no
# terminal in the way.  Results go to spec["out"] as JSON.
import cProfile
import io
import json
import pstats
import time

import gdb

with open(BENCH_SPEC) as _f:  # noqa: F821 (set by bench/run.py)
    SPEC = json.load(_f)


def timed(cmd):
    start = time.perf_counter()
    text = gdb.execute(cmd, to_string=True)
    return time.perf_counter() - start, text


def profiled(cmd, top):
    prof = cProfile.Profile()
    prof.enable()
    start = time.perf_counter()
    text = gdb.execute(cmd, to_string=True)
    elapsed = time.perf_counter() - start
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    out.write("\n--- by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(top)
    return elapsed, text, out.getvalue()


def decode(spec):
    """Pairs of commands printing the same elements; interleaved repetitions."""
    gdb.execute("set pagination off")
    gdb.execute("set max-value-size unlimited")  # gdb refuses *arr@10**6 otherwise
    results = {}
    pairs = spec["pairs"]
    # Warm-up: every command once, on a prefix (imports, symbol lookup, caches).
    gdb.execute("set print elements %d" % spec["warmup_elements"])
    for pair in pairs:
        for cmd in (pair["mpipp"], pair["native"]):
            gdb.execute(cmd, to_string=True)
    gdb.execute("set print elements unlimited")
    if spec.get("profile"):
        for pair in pairs:
            elapsed, text, report = profiled(pair["mpipp"], spec.get("top", 25))
            results[pair["name"]] = {"profile": report, "mpipp": [elapsed],
                                     "mpipp_lines": text.count("\n")}
        return results
    for pair in pairs:
        results[pair["name"]] = {"mpipp": [], "native": []}
    for _ in range(spec["reps"]):
        for pair in pairs:
            row = results[pair["name"]]
            elapsed, text = timed(pair["mpipp"])
            row["mpipp"].append(elapsed)
            row["mpipp_lines"] = text.count("\n")
            row["mpipp_truncated"] = "showing" in text[-200:]
            elapsed, text = timed(pair["native"])
            row["native"].append(elapsed)
            row["native_truncated"] = "..." in text[-20:]
            row["native_bytes"] = len(text)
            del text
    return results


def lookup(spec):
    """`print dtype` at each stop; the registry view is dropped before every
    repetition (mpipp.inferior.invalidate(), what a stop or a memory write
    does), so each print reads the registry afresh, as the first print after
    a stop would."""
    import mpipp.inferior
    gdb.execute("set pagination off")
    results = {}
    for stop in spec["stops"]:
        live = int(gdb.parse_and_eval("live"))
        mpipp.inferior.invalidate()
        first, text = timed("print dtype")  # first print at this stop (also the warm-up)
        row = {"live": live, "first": first, "fresh": [], "cached": [],
               "text": text[:400]}
        if spec.get("profile"):
            # 200 fresh prints under one profile: one is too short for pstats.
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(200):
                mpipp.inferior.invalidate()
                gdb.execute("print dtype", to_string=True)
            prof.disable()
            out = io.StringIO()
            out.write("(200 x invalidate() + print dtype)\n")
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(spec.get("top", 25))
            row["profile"] = out.getvalue()
        else:
            for _ in range(spec["reps"]):
                mpipp.inferior.invalidate()
                row["fresh"].append(timed("print dtype")[0])
            for _ in range(spec["reps"]):
                row["cached"].append(timed("print dtype")[0])
        results[stop] = row
        if stop != spec["stops"][-1]:
            gdb.execute("continue", to_string=True)
    return results


def _peak_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))


def _peak_growth(cmd):
    """(seconds, kB the gdb process's peak RSS grew by, output) of one command;
    the peak is reset first (clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _peak_kb()
    elapsed, text = timed(cmd)
    return elapsed, _peak_kb() - before, text


def pictures(spec):
    """Layout commands timed (after one warm-up run each, which also reads
    the types from the registry); dump commands measured for peak memory."""
    gdb.execute("set pagination off")
    results = {"layout": {}, "dump": {}}
    for cmd in spec["layout"]:
        gdb.execute(cmd, to_string=True)
    for _ in range(spec["reps"]):
        for cmd in spec["layout"]:
            results["layout"].setdefault(cmd, []).append(timed(cmd)[0])
    for cmd in spec["dump"]:
        elapsed, grew, text = _peak_growth(cmd)
        results["dump"][cmd] = {"seconds": elapsed, "peak_kb": grew, "output": text.strip()}
    return results


MODES = {"decode": decode, "lookup": lookup, "pictures": pictures}

try:
    _result = {"ok": True, "result": MODES[SPEC["mode"]](SPEC)}
except Exception as _err:  # reported by run.py as the benchmark's failure
    _result = {"ok": False, "error": "%s: %s" % (type(_err).__name__, _err)}
with open(SPEC["out"], "w") as _f:
    json.dump(_result, _f)
