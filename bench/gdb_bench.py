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
import struct
import time

import gdb

with open(BENCH_SPEC) as _f:  # noqa: F821 (set by bench/run.py)
    SPEC = json.load(_f)


def timed(cmd):
    start = time.perf_counter()
    text = gdb.execute(cmd, to_string=True)
    return time.perf_counter() - start, text


def cpu_timed(cmd):
    """(CPU seconds of the gdb process -- user and system, reads of the
    inferior's memory included --, wall seconds, output) of one command: on
    a shared machine the CPU time does not count waiting for a core."""
    wall, cpu = time.perf_counter(), time.process_time()
    text = gdb.execute(cmd, to_string=True)
    return time.process_time() - cpu, time.perf_counter() - wall, text


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


def physical(spec):
    """(seconds, values) of the physical limit of a decode: the buffer's
    bytes read with read_memory in MAX_READ batches (as mpipp reads them),
    the same numbers unpacked and formatted as mpipp prints them, one
    per line -- no paths, no type tree."""
    wall, cpu = time.perf_counter(), time.process_time()
    inferior = gdb.selected_inferior()
    base = int(gdb.parse_and_eval(spec["address"]))
    unit = struct.Struct("<" + spec["unit"])          # one repetition
    per_read = max(1, (4 << 20) // unit.size)
    reps, lines, n = spec["reps"], spec["format"] + "\n", 0
    for first in range(0, reps, per_read):
        k = min(per_read, reps - first)
        raw = inferior.read_memory(base + first * unit.size, k * unit.size).tobytes()
        values = struct.unpack("<" + spec["unit"] * k, raw)
        _text = (lines * len(values)) % values   # formatted as mpipp formats them
        n += len(values)
    return time.process_time() - cpu, time.perf_counter() - wall, n


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
        results[pair["name"]] = {"mpipp": [], "native": [], "mpipp_wall": [], "native_wall": []}
    for _ in range(spec["reps"]):
        for pair in pairs:
            row = results[pair["name"]]
            cpu, wall, text = cpu_timed(pair["mpipp"])
            row["mpipp"].append(cpu)
            row["mpipp_wall"].append(wall)
            row["mpipp_lines"] = text.count("\n")
            row["mpipp_truncated"] = "showing" in text[-200:]
            cpu, wall, text = cpu_timed(pair["native"])
            row["native"].append(cpu)
            row["native_wall"].append(wall)
            row["native_truncated"] = "..." in text[-20:]
            row["native_bytes"] = len(text)
            del text
            if "physical" in pair:
                cpu, wall, n = physical(pair["physical"])
                row.setdefault("physical", []).append(cpu)
                row.setdefault("physical_wall", []).append(wall)
                row["physical_values"] = n
    return results


def _devnull_output(on):
    """gdb's output (gdb.write included) to /dev/null, or back: commands run
    as a user runs them, without a capture string that grows with them."""
    if on:
        for cmd in ("set logging file /dev/null", "set logging overwrite on",
                    "set logging redirect on", "set logging enabled on"):
            gdb.execute(cmd)
    else:
        gdb.execute("set logging enabled off")


def _peak(cmd):
    """(wall seconds, CPU seconds, peak RSS of the gdb process during cmd in
    kB, its growth over the RSS before) with the output going to /dev/null;
    the peak is reset first (clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _peak_kb()
    _devnull_output(True)
    try:
        start, cpu = time.perf_counter(), time.process_time()
        gdb.execute(cmd)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        _devnull_output(False)
    peak = _peak_kb()
    return elapsed, cpu, peak, peak - before


def _vector_element_dicts(raw, first, n, spec, base):
    """The element dicts of `mpipp -json` (path, offset, address, type,
    value, bytes) of n repetitions of a vector of blocks from repetition
    first, whose bytes are raw (the elements' size divides the repetition's)."""
    size, path, name = spec["size"], spec["path"], spec["type"]
    per = spec["rep_bytes"] // size                 # element slots per repetition
    values = memoryview(raw).cast(spec["code"]).tolist()
    hexes = raw.hex(" ", -size).split(" ")
    slots = [r * per + j for r in range(n) for j in range(spec["block"])]
    at = first * spec["rep_bytes"]
    return [{"path": path % (first + s // per, s % per), "offset": at + s * size,
             "address": base + at + s * size, "type": name, "value": values[s],
             "bytes": hexes[s]} for s in slots]


def json_limit(spec):
    """The physical limit of a `mpipp -json` document of a vector of blocks:
    its bytes read with read_memory, the same element dicts the document
    holds built (untimed), json.dumps of them in batches of CHUNK_ELEMENTS
    and the text written with gdb.write to /dev/null as mpipp writes it.
    Returns {"cpu": CPU seconds, "encode": of json.dumps alone, "wall":
    seconds, "elements", "chars"}."""
    inferior = gdb.selected_inferior()
    base = int(gdb.parse_and_eval(spec["address"]))
    rep_bytes, reps = spec["rep_bytes"], spec["reps"]
    per_batch = max(1, spec["batch"] // spec["block"])
    cpu = encode = wall = 0.0
    elements = chars = 0
    _devnull_output(True)
    try:
        for first in range(0, reps, per_batch):
            n = min(per_batch, reps - first)
            length = (n - 1) * rep_bytes + spec["block"] * spec["size"]
            w, c = time.perf_counter(), time.process_time()
            raw = inferior.read_memory(base + first * rep_bytes, length).tobytes()
            wall += time.perf_counter() - w
            cpu += time.process_time() - c
            dicts = _vector_element_dicts(raw, first, n, spec, base)
            w, c = time.perf_counter(), time.process_time()
            text = json.dumps(dicts)
            e = time.process_time()
            gdb.write(text[1:-1] if first == 0 else ", " + text[1:-1])
            wall += time.perf_counter() - w
            cpu += time.process_time() - c
            encode += e - c
            elements += len(dicts)
            chars += len(text)
    finally:
        _devnull_output(False)
    return {"cpu": cpu, "encode": encode, "wall": wall, "elements": elements, "chars": chars}


def _json_limit_checked(spec):
    """Whether the limit's element dicts are the document's: those of the
    first repetitions against `spec["check"]`'s document (the same bytes)."""
    inferior = gdb.selected_inferior()
    document = json.loads(gdb.execute(spec["check"], to_string=True))
    reps = len(document["elements"]) // spec["block"]
    base = int(gdb.parse_and_eval(spec["address"]))
    length = (reps - 1) * spec["rep_bytes"] + spec["block"] * spec["size"]
    raw = inferior.read_memory(base, length).tobytes()
    return _vector_element_dicts(raw, 0, reps, spec, base) == document["elements"]


def streams(spec):
    """where: pairs of commands timed interleaved (output captured: one line);
    big documents: time and peak memory with the output to /dev/null."""
    gdb.execute("set pagination off")
    gdb.execute("set print elements unlimited")
    results = {"timed": {}, "streamed": {}}
    for cmd in spec["timed"] + spec["streamed"]:         # warm-up: imports, registry
        if cmd in spec["timed"]:
            gdb.execute(cmd, to_string=True)
        else:
            _peak(cmd)
    for _ in range(spec["reps"]):
        for cmd in spec["timed"]:
            elapsed, text = timed(cmd)
            results["timed"].setdefault(cmd, {"seconds": [], "output": text.strip()})
            results["timed"][cmd]["seconds"].append(elapsed)
    limit = spec.get("json_limit")
    if limit:
        results["json_limit"] = {"checked": _json_limit_checked(limit), "runs": []}
    for _ in range(spec["stream_reps"]):
        for cmd in spec["streamed"]:
            elapsed, cpu, peak, grew = _peak(cmd)
            row = results["streamed"].setdefault(cmd, {"seconds": [], "cpu": [],
                                                       "peak_kb": [], "grew_kb": []})
            row["seconds"].append(elapsed)
            row["cpu"].append(cpu)
            row["peak_kb"].append(peak)
            row["grew_kb"].append(grew)
        if limit:
            results["json_limit"]["runs"].append(json_limit(limit))
    return results


def lookup(spec):
    """`print dtype` at each stop; the registry view is dropped before every
    repetition (mpipp.inferior.memory.invalidate(), what a stop or a memory write
    does), so each print reads the registry afresh, as the first print after
    a stop would."""
    import mpipp.inferior.memory
    gdb.execute("set pagination off")
    results = {}
    for stop in spec["stops"]:
        live = int(gdb.parse_and_eval("live"))
        mpipp.inferior.memory.invalidate()
        first, text = timed("print dtype")  # first print at this stop (also the warm-up)
        row = {"live": live, "first": first, "fresh": [], "cached": [],
               "text": text[:400]}
        if spec.get("profile"):
            # 200 fresh prints under one profile: one is too short for pstats.
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(200):
                mpipp.inferior.memory.invalidate()
                gdb.execute("print dtype", to_string=True)
            prof.disable()
            out = io.StringIO()
            out.write("(200 x invalidate() + print dtype)\n")
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(spec.get("top", 25))
            row["profile"] = out.getvalue()
        else:
            for _ in range(spec["reps"]):
                mpipp.inferior.memory.invalidate()
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
        elapsed, _cpu, _peak_rss, grew = _peak(cmd)
        results["dump"][cmd] = {"seconds": elapsed, "peak_kb": grew}
    return results


def extremes(spec):
    """Legal extreme types (progs/extremes.c): pairs of prints timed
    interleaved, at one stop (with 'print elements' at its default, and at
    spec["print_elements"], so that both show as many array elements) and
    each the first after a stop (the registry view dropped before it, as a
    stop drops it); `where` the first time
    after a stop, then again; single commands after a warm-up; the layout's
    time and peak memory."""
    import mpipp.inferior.memory
    gdb.execute("set pagination off")
    reps = spec["reps"]
    results = {"cached": {}, "same": {}, "fresh": {}, "timed": {}, "first": [], "later": []}
    for cmd in spec["print"] + spec["timed"]:             # warm-up: imports, registry
        gdb.execute(cmd, to_string=True)
    for _ in range(reps):
        for cmd in spec["print"]:
            results["cached"].setdefault(cmd, []).append(timed(cmd)[0])
        gdb.execute("set print elements %d" % spec["print_elements"])
        for cmd in spec["print"]:
            results["same"].setdefault(cmd, []).append(timed(cmd)[0])
        gdb.execute("set print elements 200")
        for cmd in spec["timed"]:
            elapsed, text = timed(cmd)
            results["timed"].setdefault(cmd, {"seconds": [], "output": text[:300]})
            results["timed"][cmd]["seconds"].append(elapsed)
    for _ in range(reps):
        for cmd in spec["print"]:
            mpipp.inferior.memory.invalidate()
            results["fresh"].setdefault(cmd, []).append(timed(cmd)[0])
    for _ in range(reps):
        mpipp.inferior.memory.invalidate()
        results["first"].append(timed(spec["where"])[0])
        results["later"].append(timed(spec["where"])[0])
    results["where_output"] = gdb.execute(spec["where"], to_string=True)
    elapsed, _cpu, _peak_rss, grew = _peak(spec["layout"])
    results["layout"] = {"seconds": elapsed, "grew_kb": grew,
                         "output": gdb.execute(spec["layout"], to_string=True)[:2000]}
    return results


def libraries(spec):
    """Byte-built types (bench/progs/bytes.c): the decode of HDF5's type read
    as doubles against the same bytes as a double vector, `dump -raw` of it
    against a plain copy of the bytes it covers (one read_memory, written to
    a file) and against the read alone (CPU times, interleaved);
    then, stopped inside MPI_Bcast 21 frames deep, `bt` with mpipp's frame
    decorator against plain `bt` (the decorator disabled)."""
    gdb.execute("set pagination off")
    gdb.execute("set print elements unlimited")
    results = {"decode": {}, "dump": {}, "bt": {}}
    lo, length = spec["span"]
    base = int(gdb.parse_and_eval(spec["address"])) + lo
    inferior = gdb.selected_inferior()

    def plain_read():
        cpu, wall = time.process_time(), time.perf_counter()
        data = inferior.read_memory(base, length).tobytes()
        return time.process_time() - cpu, time.perf_counter() - wall, len(data)

    def plain_copy():
        """The bytes read and written to a file next to the dump's."""
        cpu, wall = time.process_time(), time.perf_counter()
        with open(spec["copy"], "wb") as f:
            f.write(inferior.read_memory(base, length))
        return time.process_time() - cpu, time.perf_counter() - wall, None

    for cmd in spec["decode"] + [spec["dump"]]:        # warm-up
        gdb.execute(cmd, to_string=True)
    plain_read()
    plain_copy()
    for _ in range(spec["reps"]):
        for cmd in spec["decode"]:
            cpu, wall, text = cpu_timed(cmd)
            row = results["decode"].setdefault(cmd, {"cpu": [], "wall": []})
            row["cpu"].append(cpu)
            row["wall"].append(wall)
            row["lines"] = text.count("\n")
            del text
        for name, run in (("raw", lambda: cpu_timed(spec["dump"])), ("copy", plain_copy),
                          ("read", plain_read)):
            cpu, wall, _out = run()
            row = results["dump"].setdefault(name, {"cpu": [], "wall": []})
            row["cpu"].append(cpu)
            row["wall"].append(wall)
    gdb.execute("break PMPI_Bcast", to_string=True)
    gdb.execute("continue", to_string=True)
    for filters in ("enable", "disable"):              # warm-up
        gdb.execute("%s frame-filter global mpipp" % filters)
        gdb.execute("bt", to_string=True)
    for _ in range(spec["bt_reps"]):
        for filters in ("enable", "disable"):
            gdb.execute("%s frame-filter global mpipp" % filters)
            cpu, wall, text = cpu_timed("bt")
            row = results["bt"].setdefault(filters, {"seconds": [], "wall": []})
            row["seconds"].append(cpu)
            row["wall"].append(wall)
            row["frames"] = text.count("\n#") + 1
            row["decorated"] = "MPI_Bcast (buffer=0x" in text
    gdb.execute("enable frame-filter global mpipp")
    return results


def astype(spec):
    """`mpipp -as TYPE` against the plain decode of the same buffer, with
    'print elements unlimited': CPU times, interleaved, after a warm-up,
    at one stop; then once each as the first after a stop (the registry
    view dropped before it, as a stop drops it), and once each with
    'print elements 200'."""
    import mpipp.inferior.memory
    gdb.execute("set pagination off")
    gdb.execute("set print elements unlimited")
    results = {"warm": {}, "fresh": {}, "limited": {}, "lines": {}}
    commands = (spec["plain"], spec["as"])
    for cmd in commands:                                # warm-up
        gdb.execute(cmd, to_string=True)
    for _ in range(spec["reps"]):
        for cmd in commands:
            cpu, _wall, text = cpu_timed(cmd)
            results["warm"].setdefault(cmd, []).append(cpu)
            results["lines"][cmd] = text.count("\n")
            del text
    for cmd in commands:
        mpipp.inferior.memory.invalidate()
        results["fresh"][cmd] = [cpu_timed(cmd)[0]]
    gdb.execute("set print elements 200")
    for cmd in commands:
        results["limited"][cmd] = [cpu_timed(cmd)[0]]
    return results


MODES = {"astype": astype, "decode": decode, "lookup": lookup, "pictures": pictures, "streams": streams,
         "libraries": libraries, "extremes": extremes}

try:
    _result = {"ok": True, "result": MODES[SPEC["mode"]](SPEC)}
except Exception as _err:  # reported by run.py as the benchmark's failure
    _result = {"ok": False, "error": "%s: %s" % (type(_err).__name__, _err)}
with open(SPEC["out"], "w") as _f:
    json.dump(_result, _f)
