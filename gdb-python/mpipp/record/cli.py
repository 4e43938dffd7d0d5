"""scripts/mpipp: the commands over a record directory (gdb-free).

    mpipp record DIR [-events] [-json]   what each rank recorded, where a cut
                                         record ends
    mpipp races DIR [-json]              the message races of the recorded run
"""

import bisect
import json
import os
import sys

from . import sites
from .races import Analysis
from .reader import CALLS, HEADER, RecordError, ranges_text, read_record

POSTS = ("IRECV", "START")

USAGE = """usage: mpipp record DIR [-events] [-json]
       mpipp races DIR [-json]"""


class UsageError(Exception):
    pass


def comm_name(ordinal, comm=None):
    if ordinal == 0:
        return "MPI_COMM_WORLD"
    if ordinal is None:
        return "an unknown communicator"
    if comm is not None and comm.members is not None and not comm.remote_size:
        return "communicator #%d (world ranks %s)" % (ordinal,
                                                       ",".join(str(m) for m in comm.members))
    return "communicator #%d" % ordinal


def _sites(record, wanted):
    """{rank: {address: Site}} of the addresses wanted per rank."""
    return {r: sites.resolve(os.path.join(record.directory, "rank.%d.maps" % r), addresses)
            for r, addresses in wanted.items()}


def _one(ranges):
    return len(ranges) == 1 and ranges[0][0] == ranges[0][1]


def ranks_text(ranges):
    """"rank 3 has", "ranks 3-5,9 have" of [(first, last)]."""
    return ("rank %s has" if _one(ranges) else "ranks %s have") % ranges_text(ranges)


class Steps:
    """The event of a rank at a step, REPEATs' turns included (none expanded)."""

    def __init__(self, events):
        self.events = events
        self.starts = [e.step for e in events]

    def get(self, step):
        k = bisect.bisect_right(self.starts, step) - 1 if step is not None else -1
        if k < 0:
            return None
        e = self.events[k]
        if e.kind != "REPEAT":
            return e if e.step == step else None
        if step >= e.step + e.steps:
            return None
        return e.group[(step - e.step) % len(e.group)].again(step)


def describe_event(e, events_by_step, comms, where):
    """One line for one event."""
    if e.kind == "REPEAT":
        last = e.step + e.steps - 1
        return "the %s again, %d more time%s (through step %d)" % (
            "event of step %d" % e.group[0].step if len(e.group) == 1 else
            "%d events of steps %d-%d" % (len(e.group), e.group[0].step, e.group[-1].step),
            e.count, "s" * (e.count != 1), last)
    if e.kind == "MISS":
        return "%d unsuccessful %s calls" % (e.count, CALLS.get(e.call, e.call))
    if e.kind == "DONE":
        return "the receive request of step %s completed: source %s, tag %d" % (
            e.post if e.post is not None else "?", "not known" if e.peer is None else e.peer,
            e.tag)
    if e.kind == "COLL":
        root = "" if e.root is None else ", root %d" % e.root
        return "collective (%s%s) on %s%s" % (e.shape, root, comm_name(e.comm, comms.get(e.comm)),
                                              " at %s" % where[e.site] if e.site else "")
    if e.kind not in ("SEND",) + POSTS and e.tag is None:  # a completion call's choice
        indices = e.indices if e.indices is not None else [] if e.value is None else [e.value]
        done = "MPI_UNDEFINED" if e.value is None else ",".join(map(str, indices)) or "true"
        return "%s of %d requests: %s" % (CALLS[e.kind], e.n, done)
    source = "MPI_ANY_SOURCE" if e.kind != "SEND" and e.flags & 1 else None
    tag = "MPI_ANY_TAG" if e.kind != "SEND" and e.flags & 2 else None
    if e.kind == "SEND":
        line = "send to %d, tag %d" % (e.peer, e.tag)
    elif e.kind in POSTS:
        line = "%s (source %s, tag %s)" % (CALLS[e.kind], source or e.peer, tag or e.tag)
    else:
        line = "%s (source %s, tag %s) matched source %s, tag %d" % (
            CALLS[e.kind], source or e.peer, tag or e.tag,
            "not known" if e.peer is None else e.peer, e.tag)
    line += " on %s" % comm_name(e.comm, comms.get(e.comm))
    if e.kind == "SEND" and e.flags & 1:
        line += " (synchronous)"
    if e.site:
        line += " at %s" % where[e.site]
    if e.kind in POSTS:
        done = events_by_step.get(e.done)
        line += "; never completed" if done is None else "; matched source %s, tag %d (step %d)" % (
            "not known" if done.peer is None else done.peer, done.tag, done.step)
    return line


def record_command(directory, events, as_json, out):
    record = read_record(directory)
    wanted = {r: [e.site for e in rec.events if e.site] for r, rec in record.ranks.items()} \
        if events else {}
    where = _sites(record, wanted)
    ranks = []
    for r, rec in sorted(record.ranks.items()):
        counts = {}
        for e in rec.events:
            for one, times in [(g, e.count) for g in e.group] if e.kind == "REPEAT" \
                    else [(e, 1)]:
                counts[one.kind] = counts.get(one.kind, 0) + one.steps * times
        # the bytes the record holds: a rank killed leaves its whole window in the file
        doc = {"rank": r, "state": rec.state, "note": rec.cut_note(), "steps": rec.steps,
               "bytes": HEADER.size + 8 * rec.words, "counts": counts}
        if rec.damaged is not None:
            doc["damaged_at_word"] = rec.damaged
        if rec.damage_note():
            doc["damaged"] = rec.damage_note()
        if events:
            by_step = Steps(rec.events)
            doc["events"] = [dict(e.to_json(), text=describe_event(e, by_step, rec.comms, where[r]))
                             for e in rec.events]
        ranks.append(doc)
    if as_json:
        json.dump({"directory": directory, "size": record.size,
                   "missing": [list(r) for r in record.missing],
                   "notes": record.notes, "ranks": ranks}, out, indent=1)
        out.write("\n")
        return
    out.write("record %s: %d ranks\n" % (directory, record.size))
    for doc in ranks:
        kinds = ", ".join("%s %d" % (CALLS.get(k, k), n) for k, n in sorted(doc["counts"].items()))
        out.write("rank %d: %d step%s in %d bytes (%s); %s\n"
                  % (doc["rank"], doc["steps"], "s" * (doc["steps"] != 1), doc["bytes"],
                     kinds or "no events", doc["note"]))
        if "damaged" in doc:
            out.write("  %s\n" % doc["damaged"])
        for e in doc.get("events", ()):
            out.write("  step %d: %s\n" % (e["step"], e["text"]))
    if record.missing:
        out.write("%s no record\n" % ranks_text(record.missing))
    for note in record.notes:
        out.write("note: %s\n" % note)


def _call_text(rv, comms):
    e = rv.event
    source = "MPI_ANY_SOURCE" if e.flags & 1 else str(rv.asked_source)
    tag = "MPI_ANY_TAG" if e.flags & 2 else str(rv.asked_tag)
    name = CALLS[e.kind] if e.kind not in ("IRECV", "START") else \
        "receive request" if e.kind == "IRECV" else "persistent receive"
    return "%s(%s, tag %s, %s)" % (name, source, tag, comm_name(e.comm, comms.get(e.comm)))


def _send_json(send, where):
    doc = {"rank": send.rank, "step": send.event.step, "tag": send.tag,
           "synchronous": send.synchronous}
    if send.event.site:
        doc["site"] = where[send.rank][send.event.site].to_json()
    return doc


def races_command(directory, as_json, out):
    record = read_record(directory)
    analysis = Analysis(record)
    wanted = {}
    for race in analysis.races:
        for event, rank in [(race.receive.event, race.receive.rank)] + \
                [(s.event, s.rank) for s in [race.received] + race.others if s]:
            if event.site:
                wanted.setdefault(rank, []).append(event.site)
    where = _sites(record, wanted)
    docs = []
    for race in analysis.races:
        rv = race.receive
        comms = record.ranks[rv.rank].comms
        doc = {"rank": rv.rank, "step": rv.event.step, "call": _call_text(rv, comms),
               "kind": rv.event.kind, "comm": comm_name(rv.event.comm, comms.get(rv.event.comm)),
               "tag": rv.tag,
               "received": _send_json(race.received, where) if race.received else None,
               "could_have_received": [_send_json(s, where) for s in race.others]}
        if rv.event.site:
            doc["site"] = where[rv.rank][rv.event.site].to_json()
        docs.append(doc)
    summary = {"directory": directory, "size": record.size, "wildcards": len(analysis.wildcards),
               "racing": len(docs), "races": docs, "missing": [list(r) for r in record.missing],
               "notes": analysis.notes}
    if as_json:
        json.dump(summary, out, indent=1)
        out.write("\n")
        return
    for race, doc in zip(analysis.races, docs):
        rv = race.receive
        at = " at %s" % where[rv.rank][rv.event.site] if rv.event.site else ""
        out.write("rank %d, step %d: %s%s\n" % (rv.rank, rv.event.step, doc["call"], at))
        for label, send in [("received", race.received)] + [("could have received", s)
                                                             for s in race.others]:
            if send is None:
                out.write("    received a message whose send is not in the record\n")
                continue
            site = " at %s" % where[send.rank][send.event.site] if send.event.site else ""
            out.write("    %s rank %d's message (its step %d: %ssend, tag %d%s)\n"
                      % (label, send.rank, send.event.step,
                         "synchronous " if send.synchronous else "", send.tag, site))
    out.write("%s: %d of %d wildcard receives and probes could have matched another message\n"
              % ("no races" if not docs else "%d race%s" % (len(docs), "s" * (len(docs) > 1)),
                 len(docs), len(analysis.wildcards)))
    if record.missing:
        out.write("note: %s no record: %s messages are not seen\n" % (
            ranks_text(record.missing), "its" if _one(record.missing) else "their"))
    for note in analysis.notes:
        out.write("note: %s\n" % note)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        if len(argv) < 2 or argv[0] not in ("record", "races"):
            raise UsageError(USAGE)
        command, directory, options = argv[0], argv[1], set(argv[2:])
        allowed = {"-json", "-events"} if command == "record" else {"-json"}
        if options - allowed:
            raise UsageError("unknown option %s\n%s" % (sorted(options - allowed)[0], USAGE))
        if command == "record":
            record_command(directory, "-events" in options, "-json" in options, sys.stdout)
        else:
            races_command(directory, "-json" in options, sys.stdout)
    except UsageError as err:
        sys.stderr.write("%s\n" % err)
        return 2
    except RecordError as err:
        sys.stderr.write("mpipp: %s\n" % err)
        return 1
    except BrokenPipeError:
        # a reader that stopped early (mpipp record DIR -events | head): no
        # traceback, and none when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return 0
