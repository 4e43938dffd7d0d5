# Sourced in gdb by tests/integration/test_fuzz.py, stopped inside
# testprogs/fuzz's MPI_Send: corrupts libmpireg's registry, communication
# context and MPI-IO state at random, then runs every mpipp command and
# printer, times each and classifies what it printed; restores and repeats.
#
# The regions to corrupt are found generically: the three are read once
# through mpipp's own readers with a memory that records every read (roots,
# constants tables, records, argument blocks, table slots, name strings,
# thread slots, requests, files, ...), so the fuzzer follows whatever layout
# the readers read.
#
# MPIPP_FUZZ (set by the test): seed, iterations, mode ("live": corrupt the
# process with write_memory; "core": gdb cannot write a core file's memory,
# so corrupt what mpipp reads from it through its memory layer), out (the
# JSON result), progress (one line before every command: what a crash or a
# hang was doing), workdir (for mpipp dump).
import json
import os
import random
import resource
import time

import gdb

from mpipp.inferior.memory import GdbMemory, invalidate
from mpipp.inferior.symbols import symbol_address
from mpipp.readers.context import Context
from mpipp.model.registry import TypeRegistry
from mpipp.readers.files import Files
from mpipp.readers.remote import RemoteView

CONFIG = MPIPP_FUZZ  # noqa: F821 (set by the test)
SLOW_CPU = 2.0
N_TYPES = int(gdb.parse_and_eval("n_types"))
# Not acceptable in any output: exceptions, and running out of memory or
# stack (mpipp's one line for those means something was not bounded).
BAD_TEXT = ("Python Exception", "Traceback", "internal error", "Error occurred in Python",
            "MemoryError", "RecursionError")
INTERESTING = (0, 1, 2, 3, 7, 8, 0x7f, 0x80, 0xff, 0xffff, (1 << 31) - 1, 1 << 31, 1 << 32,
               1 << 40, 1 << 48, 1 << 62, (1 << 63) - 1, 1 << 63, (1 << 64) - 8, (1 << 64) - 1)
MAX_REPORTED = 40
MEMORY_HEADROOM = 2 << 30


# -- where to corrupt ---------------------------------------------------------------

class Recorder:
    """Memory that remembers every read, tagged with what the reader was reading."""

    tag = ["name"]

    def __init__(self, memory):
        self.memory = memory
        self.reads = set()

    def read(self, address, length):
        data = self.memory.read(address, length)
        self.reads.add((self.tag[0], address, length))
        return data


def discover():
    """([(what, address, length)] of every piece of registry memory the
    readers read, {piece: [k such that reading types[k] reads it]})."""
    original = RemoteView.read

    def tagged(view, address, length, what):
        Recorder.tag[0] = what
        try:
            return original(view, address, length, what)
        finally:
            Recorder.tag[0] = "name"        # RemoteView.string reads names directly

    RemoteView.read = tagged
    memory = Recorder(GdbMemory(gdb.selected_inferior()))
    readers = {}
    try:
        for k in range(N_TYPES):
            alone = Recorder(memory.memory)
            TypeRegistry(alone, symbol_address("mpireg_root")).lookup(
                int(gdb.parse_and_eval("types[%d]" % k)))
            for piece in alone.reads:
                readers.setdefault(piece, []).append(k)
            memory.reads |= alone.reads
        registry = TypeRegistry(memory, symbol_address("mpireg_root"))
        for address in registry.live_records():
            registry.datatype_at(address)
        registry.predefined_names()
        context = Context(memory, symbol_address("mpireg_comm_root"))
        for slot in context.threads():
            for buf in slot.call.bufs if slot.call else ():
                context.peer_entries(buf)
        for request in context.requests():
            context.request(request.handle)
        context.comms()
        context.ops()
        Files(memory, symbol_address("mpireg_io_root")).files()
    finally:
        RemoteView.read = original
    return sorted(memory.reads), readers


# -- corruptions --------------------------------------------------------------------

def mutations(rng, by_kind, regions):
    """(piece, [(address, new bytes)]): one to three changes, each in a piece
    of a kind chosen uniformly (names, records, slots, ... alike)."""
    pieces, changes = [], []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        piece = rng.choice(by_kind[rng.choice(sorted(by_kind))])
        pieces.append(piece)
        changes.append(mutation(rng, piece, regions))
    return pieces, changes


def mutation(rng, piece, regions):
    """(operation, address, new bytes) changing one piece."""
    what, address, length = piece
    op = rng.choice(("bits", "word", "word", "pointer", "bytes", "zero"))
    if op == "bits":
        at = address + rng.randrange(length)
        old = read(at, 1)[0]
        return op, at, bytes([old ^ (1 << rng.randrange(8)) ^
                              (rng.randrange(256) if rng.random() < 0.2 else 0)])
    if op in ("word", "pointer"):
        width = rng.choice((8, 8, 4, 2, 1)) if op == "word" else 8
        width = min(width, length)
        at = address + rng.randrange(max(1, length - width + 1)) // width * width
        if op == "word":
            value = rng.choice(INTERESTING) if rng.random() < 0.7 else rng.getrandbits(8 * width)
            if rng.random() < 0.3:
                value = (int.from_bytes(read(at, width), "little") + rng.choice((-1, 1, 8, 16))) \
                    % (1 << 8 * width)
        else:
            target = rng.choice(regions)
            value = target[1] + rng.choice((0, 0, 8, 16, target[2] // 2)) \
                if rng.random() < 0.8 else at   # another piece, or itself (a cycle)
        return op, at, (value % (1 << 8 * width)).to_bytes(width, "little")
    span = min(length, rng.randrange(1, 17))
    at = address + rng.randrange(length - span + 1)
    new = bytes(span) if op == "zero" else bytes(rng.getrandbits(8) for _ in range(span))
    return op, at, new


def read(address, length):
    return bytes(gdb.selected_inferior().read_memory(address, length))


class LiveTarget:
    """Corrupts the stopped process itself."""

    def apply(self, changes):
        saved = [(at, read(at, len(new))) for at, new in changes]
        for at, new in changes:
            gdb.selected_inferior().write_memory(at, new)
        return saved

    def restore(self, saved):
        for at, old in reversed(saved):
            gdb.selected_inferior().write_memory(at, old)


class CoreTarget:
    """A core file: gdb cannot write its memory, so the bytes every mpipp
    reader gets through its memory layer (GdbMemory) are changed."""

    def __init__(self):
        self.patches = []
        original = GdbMemory.read
        patches = self.patches

        def patched(memory, address, length):
            data = original(memory, address, length)
            if not patches:
                return data
            out = bytearray(data)
            for at, new in patches:
                lo, hi = max(at, address), min(at + len(new), address + length)
                if lo < hi:
                    out[lo - address:hi - address] = new[lo - at:hi - at]
            return bytes(out)

        GdbMemory.read = patched

    def apply(self, changes):
        self.patches[:] = changes
        return None

    def restore(self, _saved):
        self.patches[:] = []


# -- commands and printers ----------------------------------------------------------

def commands(rng, iteration, focus):
    """Every command and printer; TYPE is mostly a type whose reading reads
    a corrupted piece (focus), else any."""
    k, j = [rng.choice(focus) if focus and rng.random() < 0.8 else rng.randrange(N_TYPES)
            for _ in range(2)]
    t, u = "types[%d]" % k, "types[%d]" % j
    dump = os.path.join(CONFIG["workdir"], "dump%d.json" % (iteration % 2))
    return [
        "print %s" % t, "print %s" % u, "print reqs", "print dup_comm", "print my_op",
        "print buf", "print &buf[%d]" % rng.randrange(64), "print rbuf",
        "mpipp info %s" % t, "mpipp info -json %s" % u, "mpipp info MPI_DOUBLE",
        "mpipp info struct_t", "mpipp info #%d" % rng.randrange(1, 30),
        "mpipp typemap %s 3" % t, "mpipp typemap -json %s" % u, "mpipp signature %s 2" % t,
        "mpipp signature -json %s" % u, "mpipp list", "mpipp list -json",
        "mpipp where %s buf &buf[%d] 4" % (t, rng.randrange(512)),
        "mpipp where -json %s buf buf+%d" % (u, rng.randrange(64)),
        "mpipp %s buf 3" % t, "mpipp -json %s buf 2" % u, "mpipp -long -offsets/x %s buf" % t,
        "mpipp %s buf 2 [1]" % u, "mpipp layout %s 2" % t, "mpipp match %s 2 %s 1" % (t, u),
        "mpipp export %s" % t, "mpipp dump -json %s buf 1 %s" % (u, dump),
        "mpipp diff %s buf %s" % (u, dump), "mpipp diff %s buf rbuf" % t,
        "mpipp calls", "mpipp calls -json", "mpipp requests -all", "mpipp requests -json",
        "mpipp request reqs[0]", "mpipp request -json reqs[1]", "mpipp context",
        "mpipp context -json", "mpipp comms", "mpipp comms -json", "print fh",
        "mpipp file fh", "mpipp file -json fh", "mpipp view fh 0 %d" % rng.randrange(1, 9),
        "mpipp view -json fh",
        ("expand", "$mpipp(%s, buf, 3)" % t), ("expand", u), ("expand", "buf"),
    ]


def expand(value, budget=300):
    """What an MI front end does with a varobj: the value, then its children
    through the pretty printer, depth first, up to budget nodes."""
    stack, seen = [value], 0
    while stack and seen < budget:
        value = stack.pop()
        seen += 1
        if not isinstance(value, gdb.Value):
            str(value)
            continue
        printer = gdb.default_visualizer(value)
        if printer is None:
            try:
                value.format_string(max_elements=20)
            except gdb.MemoryError:
                pass  # an element at an unreadable address: MI shows gdb's error
            continue
        if hasattr(printer, "to_string"):
            text = printer.to_string()
            if isinstance(text, gdb.Value):
                text.format_string(max_elements=20)
        if hasattr(printer, "children"):
            for n, (_name, child) in enumerate(printer.children()):
                if n >= 20:
                    break
                stack.append(child)
    return "%d nodes" % seen


def run(command):
    """(output or error text, failed) of one command or expansion."""
    if isinstance(command, tuple):
        try:
            value = gdb.parse_and_eval(command[1])  # $mpipp(...) may refuse: one line
        except gdb.error as err:
            return str(err), True
        return expand(value), False
    try:
        return gdb.execute(command, to_string=True), False
    except gdb.error as err:
        return str(err), True


def problem(command, text, failed):
    """Why an outcome is not acceptable, or None."""
    if any(bad in text for bad in BAD_TEXT):
        return "exception"
    if failed and not (text.startswith("mpipp: ") and "\n" not in text.strip()):
        return "not a one-line mpipp error"
    return None


# -- the run ------------------------------------------------------------------------

def cap_memory():
    """Bound this gdb's address space (the inferior, already started, keeps
    its own): a size a corruption blows up must fail in gdb, not take the
    machine's memory (a gdb that aborts with 'virtual memory exhausted' is a
    crash the test reports)."""
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + MEMORY_HEADROOM, size + MEMORY_HEADROOM))


def main():
    cap_memory()
    rng = random.Random(CONFIG["seed"])
    regions, readers = discover()
    by_kind = {}
    for piece in regions:
        by_kind.setdefault(piece[0], []).append(piece)
    target = LiveTarget() if CONFIG["mode"] == "live" else CoreTarget()
    kinds, failures, slowest, counts = {}, [], [], {"commands": 0, "errors": 0,
                                                    "problems": 0}
    by_command = {}
    max_cpu = max_wall = 0.0
    progress = open(CONFIG["progress"], "w", buffering=1)
    gdb.execute("set print elements 200")
    for iteration in range(CONFIG["iterations"]):
        pieces, changes = mutations(rng, by_kind, regions)
        for piece in pieces:
            kinds[piece[0]] = kinds.get(piece[0], 0) + 1
        label = "%d: %s" % (iteration, "; ".join(
            "%s %s 0x%x=%s" % (piece[0], op, at, new.hex())
            for piece, (op, at, new) in zip(pieces, changes)))
        saved = target.apply([(at, new) for _op, at, new in changes])
        invalidate()
        focus = sorted({k for piece in pieces for k in readers.get(piece, ())})
        for command in commands(rng, iteration, focus):
            progress.write("%s | %s\n" % (label, command))
            cpu, wall = time.process_time(), time.perf_counter()
            try:
                text, failed = run(command)
            except Exception as err:  # noqa: BLE001 - a printer or expansion raised
                text, failed = "Python Exception %s: %s" % (type(err).__name__, err), True
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            counts["commands"] += 1
            name = str(command).split(" types")[0].split(" buf")[0][:40]
            by_command[name] = by_command.get(name, 0.0) + cpu
            counts["errors"] += failed
            max_cpu, max_wall = max(max_cpu, cpu), max(max_wall, wall)
            if cpu > SLOW_CPU:
                slowest.append([round(cpu, 3), round(wall, 3), label, str(command)])
            why = problem(command, text, failed)
            counts["problems"] += bool(why)
            if why and len(failures) < MAX_REPORTED:
                failures.append({"why": why, "mutation": label, "command": str(command),
                                 "output": text[-600:]})
        target.restore(saved)
        invalidate()
        if iteration % 50 == 49 or iteration + 1 == CONFIG["iterations"]:
            with open(CONFIG["out"], "w") as f:  # so far: what a watchdog kill leaves
                json.dump({"iterations": iteration + 1, "regions": len(regions),
                           "kinds": kinds, "failures": failures, "slow": slowest,
                           "max_cpu": max_cpu, "max_wall": max_wall,
                           "cpu_by_command": by_command, **counts}, f)
    progress.write("done\n")


main()
