"""The console's job-wide reports: every rank's stacks merged, the MPI
calls they are in, the wait-for graph, the type checks, the one-sided
operations' target regions, a buffer compared across ranks."""

import contextlib
import json

from ...model import dumpfile
from ...model.compare import Tolerance
from ...model.datatype_json import from_json
from ...readers.errors import MpippError
from ...text.ranks import format_ranks, parse_ranks
from ..analysis import calls as calls_table
from ..analysis import check as checks
from ..analysis import merge, rma, stacks
from ..analysis.waits.report import Graph
from ..link.session import ask, cli

MAX_FRAMES = 500
DIFF_LIMIT = 1000000
RMA_READ_MAX = 1 << 20      # bytes read of one target region
RMA_LINES = 200             # elements shown of one target region


def cmd_stacks(console, arg):
    """stacks [-json]: every thread's backtrace on the ranks in focus, merged
    into trees (STAT-style): each frame with the ranks that pass through it;
    the threads of one rank are never merged with each other; long C++
    names shortened (whole in -json)."""
    sessions = console.sessions(console.focus)
    threads = ask(sessions, "-thread-info")
    console.wait(threads.values())
    ids = {s.rank: [t["id"] for t in threads[s.rank].results.get("threads", [])]
           if threads[s.rank].ok else [] for s in sessions}
    # one question per thread id, to every rank that has that thread
    by_id = {}
    for s in sessions:
        for i in ids[s.rank]:
            by_id.setdefault(i, []).append(s)
    asked = {i: ask(having, "-stack-list-frames --thread %s 0 %d" % (i, MAX_FRAMES - 1))
             for i, having in by_id.items()}
    console.wait([a for answers in asked.values() for a in answers.values()])
    frames = {rank: [asked[i][rank] for i in ids[rank]] for rank in ids}
    tree = stacks.build({rank: [[f["frame"] for f in a.results.get("stack", [])]
                                for a in answers if a.ok]
                         for rank, answers in frames.items()})
    console.show(arg, lambda: {"stacks": stacks.to_json(tree)},
                 lambda: stacks.render(tree) or ["no stacks"])


def cmd_calls(console, arg):
    """calls [-json]: one table of what the ranks in focus are doing in MPI,
    a row per rank group: call, peer or root, tag, communicator, datatypes
    and the signature of the data."""
    world = console.contexts(console.focus)
    console.show(arg, lambda: calls_table.to_json(world), lambda: calls_table.render(world))


def cmd_waits(console, arg):
    """waits [-json]: the wait-for graph of the whole job from every rank's
    current call, pending requests and messages in flight.  The first line
    is the verdict: 'deadlock: ... blocked for good' (every rank on a cycle
    waits inside MPI), 'would deadlock if every rank continued' (some are
    stopped before their call blocked, or polling) or 'no deadlock yet';
    then each cycle (0 → 1 → 0) with the reason of every edge, the ranks
    blocked on it, messages in flight, ranks stopped or polling, calls not
    modelled (docs/job.md)."""
    graph = Graph(console.contexts(console.job.ranks))
    console.show(arg, graph.to_json, graph.lines)


def cmd_check(console, arg):
    """check [-json]: type-signature checks across the whole job: collectives
    against the root (or every peer) and on the same op, receives against the
    messages that will reach them (pending sends and messages in flight);
    mismatches named by type-tree path on both sides."""
    report = checks.check(console.contexts(console.job.ranks))
    console.show(arg, report.to_json, report.lines)


def cmd_rma(console, arg):
    """rma [-json]: every one-sided operation of the ranks in focus (the RMA
    calls their threads are in, their pending Rput/Rget/...): the target
    rank and window, and the target region -- read from the target rank's
    memory -- decoded through the target datatype."""
    if arg not in ("", "-json"):
        raise ValueError("unknown argument %r (the only option is -json)" % arg)
    world = console.contexts(console.job.ranks)
    found = rma.targets(world, console.focus)
    reads = {}
    for k, t in enumerate(found):
        if t.error is None and t.target in console.job.sessions:
            lo, hi = rma.span(t.datatype, t.count)
            if 0 < hi - lo <= RMA_READ_MAX:
                reads[k] = (lo, console.job.sessions[t.target].send(
                    "-data-read-memory-bytes 0x%x %d" % (t.address + lo, hi - lo)))
    console.wait([answer for _lo, answer in reads.values()])
    lines, doc = [], []
    for k, t in enumerate(found):
        entry = {"origin": t.origin, "function": t.op.function, "target": t.target,
                 "address": t.address, "error": t.error, "elements": None}
        lines.append(rma.heading(t) + (": " + t.error if t.error else ""))
        if k in reads:
            lo, answer = reads[k]
            memory = answer.results.get("memory") if answer.ok else None
            if not memory:
                entry["error"] = "rank %d could not read it: %s" % (t.target, answer.error)
                lines.append("  <%s>" % entry["error"])
            else:
                data = bytes.fromhex(memory[0].get("contents", ""))
                entry["elements"] = list(rma.decode_lines(t, data, lo, RMA_LINES))
                lines.extend("  " + line for line in entry["elements"])
        doc.append(entry)
    console.show(arg, lambda: {"rma": doc},
                 lambda: lines or ["no one-sided operation in the ranks in focus"])


def cmd_diff(console, arg):
    """diff [-rtol X] [-atol X] RANKS TYPE ADDR [COUNT]: decode the same
    buffer on several ranks (TYPE, ADDR, COUNT evaluated on each) and print
    only the elements, by path, whose values differ (compared as mpipp diff
    compares: floats as numbers, within the tolerances given)."""
    words = arg.split()
    tol = {"-rtol": 0.0, "-atol": 0.0}
    while words and words[0] in tol:
        if len(words) < 2:
            raise ValueError("%s needs a number" % words[0])
        tol[words[0]] = float(words[1])
        if not 0 <= tol[words[0]] < float("inf"):
            raise ValueError("%s %s: not a finite number >= 0" % (words[0], words[1]))
        words = words[2:]
    if len(words) < 3:
        raise ValueError("usage: diff [-rtol X] [-atol X] RANKS TYPE ADDR [COUNT]")
    sessions = console.sessions(parse_ranks(words[0], console.job.ranks))
    exports, export_paths = console.ask_files(
        sessions, lambda path: cli("mpipp export %s %s" % (words[1], path)), "export")
    dumps, dump_paths = console.ask_files(
        sessions, lambda path: cli("mpipp dump -json %s %s" % (" ".join(words[1:]), path)), "dump")
    basics, streams, failed = {}, {}, {}
    with contextlib.ExitStack() as files:
        for s in sessions:
            rank = s.rank
            try:
                basics[rank] = basic_types(json.loads(console.document(rank, exports[rank],
                                                                      export_paths)))
                streams[rank] = files.enter_context(dumpfile.open_dump(
                    console.dump_file(rank, dumps[rank], dump_paths))).records()
            except (OSError, TypeError, ValueError, MpippError):
                failed[rank] = exports[rank] if not exports[rank].ok else dumps[rank]
        if failed:
            console.write_groups(console.answers_groups(failed))
        if len(streams) < 2:
            console.write("diff: fewer than two ranks decoded the buffer")
            return
        lines, total, differ, note = merge.differing_elements(
            streams, basics, Tolerance(tol["-rtol"], tol["-atol"]), DIFF_LIMIT)
    console.write("\n".join(lines))
    console.write("%d of %d element%s differ across ranks %s%s" % (
        differ, total, "" if total == 1 else "s", format_ranks(streams),
        " (%s)" % note if note else ""))


def basic_types(export):
    """{type name: basic Datatype} of the leaves of an `mpipp export` document."""
    return {leaf.display_name: leaf for leaf in _leaves(from_json(export))}


def _leaves(dt):
    stack, seen = [dt], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.is_leaf:
            yield node
        stack.extend(node.children or ())
