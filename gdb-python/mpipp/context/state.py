"""`mpipp context` and `mpipp comms`: this process's place in the job.

`mpipp context -json` is the one document the job console (mpipp-job) asks
every rank for: the rank in MPI_COMM_WORLD, every thread's current MPI call
and every pending request with raw numbers (peer, tag, communicator and
datatype handles), the communicators with the world ranks of their members,
and the datatypes those calls use, serialized losslessly
(model/datatype_json.py) so the console can compare signatures across
ranks.  Nothing is decoded: one memory pass, whatever the buffers hold.
"""

import json

import gdb

from .. import handles, views
from ..inferior import memory, output, symbols
from ..inferior.output import one_line_errors
from ..model.datatype_json import dump_types
from ..readers.context import THREADS_USED_OFFSET, ContextError
from ..text import args as argparse_
from ..text.ranks import format_ranks
from ..text.tables import format_table
from .commands import call_text, datatype, symbol_at, thread_map, waited_requests

FORMAT_VERSION = 1
# The constants the console needs to read the document and word it as this
# gdb would (text.labels, describe.handle_label).
CONSTANTS = ("MPI_ANY_SOURCE", "MPI_ANY_TAG", "MPI_PROC_NULL", "MPI_ROOT", "MPI_UNDEFINED",
             "MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL", "MPI_COMM_TYPE_SHARED",
             "MPI_DATATYPE_NULL")


class _Types:
    """The datatypes one document uses, each handle looked up once."""

    def __init__(self):
        self.found = {}

    def get(self, key):
        if key not in self.found:
            self.found[key] = datatype(key)
        return self.found[key]

    def json(self):
        return dump_types({key: dt for key, dt in self.found.items() if dt is not None})


def _buffer_json(view, buf, types):
    doc = {"role": buf.role, "count_name": buf.count_name, "address": buf.addr,
           "in_place": view.is_in_place(buf.addr), "count": None if buf.per_peer else buf.count,
           "datatype": None if buf.types else buf.datatype, "peers": None}
    if not buf.types:
        types.get(buf.datatype)
    if buf.per_peer:
        try:
            doc["peers"] = [list(entry) for entry in view.peer_entries(buf)]
        except ContextError as err:
            doc["error"] = str(err)
        for entry in doc["peers"] or ():
            types.get(entry[3])
    return doc


def call_json(view, call, types, with_text=False):
    """A call with raw values; the datatypes it uses are added to `types`.
    with_text: also the call as `mpipp calls` writes it."""
    op = None
    if call.has_extra and call.extra_name == "op":
        op = view.op_label(call.extra, symbol_at)
    doc = {
        "function": call.func, "site": symbols.creation_site(call.site),
        "comm": view.comm_key(call.comm) if call.has_comm else None,
        "peer_name": call.peer_name, "peer": call.peer if call.has_peer else None,
        "tag": call.tag if call.has_tag else None,
        "peer2_name": call.peer2_name, "peer2": call.peer2 if call.has_peer2 else None,
        "tag2": call.tag2 if call.has_peer2 else None, "op": op,
        "bufs": [_buffer_json(view, b, types) for b in call.bufs],
        "win": call.win if call.has_win else None, "target": None,
    }
    if call.has_target:
        types.get(call.target_datatype)
        doc["target"] = {"rank": call.peer, "disp": call.target_disp,
                         "count": call.target_count, "datatype": call.target_datatype}
    if view.has_channels:
        doc.update(seq=call.seq, group=view.group_ranks(call), exclusive=call.exclusive)
    if with_text:
        doc["text"] = call_text(view, call)
    return doc


def _comm_json(view, comm):
    """A communicator with raw values, and its label and description as every
    rank shows it (the console names communicators by them)."""
    return {"handle": comm.handle, "name": comm.name, "label": view.comm_label(comm.handle),
            "text": view.comm_text(comm.handle, local=False, predefined_alone=True),
            "size": comm.size, "rank": comm.rank,
            "remote_size": comm.remote_size, "members": comm.members,
            "remote_members": comm.remote_members, "creator": comm.creator,
            "parent": comm.parent, "predefined": comm.predefined}


def _comm_data(view, comm, with_text=False):
    """A communicator in the context document: raw values, and how it was
    made (serial, creator, parent, how), from which the console words it as
    this gdb does (text.labels.Communicators).  with_text: also its label."""
    doc = {"handle": comm.handle, "name": comm.name, "serial": comm.serial, "size": comm.size,
           "rank": comm.rank, "remote_size": comm.remote_size, "members": comm.members,
           "remote_members": comm.remote_members, "creator": comm.creator,
           "parent": comm.parent, "how_name": comm.how_name, "how": comm.how,
           "predefined": comm.predefined}
    if with_text:
        doc["label"] = view.comm_label(comm.handle)
    return doc


def _channels_json(chan, types):
    """libmpireg's channel records (libmpireg/context/channels.h) as lists [object,
    peer, kind, sent, received, last datatype, last count, scope], the kinds
    by name, the messages matched probes hold.  The last datatype of a
    channel is its handle only while that handle still names the type sent
    (created before the send, libmpireg's serial bound), else None."""
    records = []
    for r in chan.records():
        last = None
        if r.kind >= 0 and r.last_datatype:
            dt = types.get(r.last_datatype)
            if dt is not None and dt.serial < (r.last_bound & 0xFFFFFFFF or 1 << 32):
                last = r.last_datatype
        records.append([r.object, r.peer, r.kind, r.sent, r.received, last,
                        r.last_count if last is not None else None, r.scope])
    return {"kinds": chan.kinds, "no_peer": chan.no_peer, "records": records,
            "unrecorded_sent": chan.unrecorded_sent,
            "unrecorded_received": chan.unrecorded_received}


def _progress_json(view):
    """Where a watcher reads this process's progress while it runs: the
    thread slots (job/progress.py reads them without stopping the rank)."""
    c = view.c
    return {"root": view.root_address, "threads_used": view.root_address + THREADS_USED_OFFSET,
            "threads": view.threads_address, "max_threads": view.max_threads,
            "slot_size": c["sizeof.thread"],
            "offsets": {name: c["thread." + name] for name in
                        ("tid", "active", "ncalls", "completed", "polling")}}


def _win_json(view, w):
    """A window: what the console needs to find a target's memory on the
    target rank (its communicator, creation order and where its memory is)
    and to name it (text.labels.win_label)."""
    return {"handle": w.handle, "name": w.name, "serial": w.serial,
            "comm": view.comm_key(w.comm), "flavor": w.flavor_name, "base": w.base,
            "size": w.size, "disp_unit": w.disp_unit, "rank": w.rank,
            "members": w.members,
            "regions": [[r.base, r.size, r.disp_unit] for r in w.region_list]}


def context_json(view, with_text=False):
    """The `mpipp context -json` document.  Threads are those that made MPI
    calls (libmpireg's slots, by LWP): the MPI library's own threads cannot
    post or complete anything the job waits for.  A thread outside MPI whose
    last call was a Test or Iprobe that found nothing ("polling") keeps that
    call.  Data only: the console names communicators, windows and
    datatypes from it as this gdb does (text/labels.py,
    describe.handle_label); with_text adds what `mpipp context` shows."""
    types = _Types()
    threads = []
    numbers = thread_map()
    for slot in view.threads():
        row = {"lwp": slot.tid, "gdb_thread": numbers.get(slot.tid), "in_mpi": slot.active,
               "torn": slot.active and slot.torn, "polling": slot.polling,
               "completed": slot.completed, "call": None, "waits_for": []}
        if (slot.active or slot.polling) and not slot.torn:
            row["call"] = call_json(view, slot.call, types, with_text)
            row["waits_for"] = [{"index": k, "request": r.handle, "serial": r.serial}
                                for k, r in waited_requests(view, slot.call)]
        threads.append(row)
    requests = [{"request": r.handle, "serial": r.serial, "status": r.status,
                 "persistent": r.persistent, "cancelled": r.cancelled, "lwp": r.tid,
                 "call": call_json(view, r.call, types, with_text)}
                for r in reversed(view.requests()) if r.active]
    comms = [_comm_data(view, m, with_text) for m in reversed(list(view.comms().values()))]
    objs = views.objects.find()
    wins = [_win_json(view, w) for w in reversed(list(objs.wins().values()))] if objs else []
    world = view.world()
    doc = {
        "version": FORMAT_VERSION, "pid": gdb.selected_inferior().pid or None,
        "rank": world.rank if world else None, "size": world.size if world else None,
        "constants": {name: view.c[name] for name in CONSTANTS if name in view.c},
        "threads": threads, "requests": requests, "comms": comms, "wins": wins,
        "updating": view.updating,
    }
    if view.has_channels:
        doc["progress"] = _progress_json(view)
    chan = views.channels.get()
    if chan is not None:
        doc["channels"] = _channels_json(chan, types)
        doc["messages"] = chan.messages()
    doc["types"] = types.json()
    return doc


def _json_option(arg, command):
    """(-json given, the FILE to write the document to or None); a one-line
    usage error for anything else."""
    opts, _fmt, words = argparse_.parse(arg, ("-json",))
    if len(words) > 1 or words and "-json" not in opts:
        raise gdb.GdbError("mpipp: usage: mpipp %s [-json [FILE]]" % command)
    return "-json" in opts, words[0] if words else None


def _summary_lines(doc):
    where = ("rank %d of %d in MPI_COMM_WORLD" % (doc["rank"], doc["size"])
             if doc["rank"] is not None else "not in MPI_COMM_WORLD yet (before MPI_Init)")
    in_mpi = [t for t in doc["threads"] if t["in_mpi"]]
    yield "%s, process %s" % (where, doc["pid"] or "?")
    yield "threads that called MPI: %d, %d inside an MPI call" % (len(doc["threads"]),
                                                                   len(in_mpi))
    for t in in_mpi:
        yield "  LWP %d: %s" % (t["lwp"], t["call"]["text"] if t["call"] else
                                "entering an MPI call")
    yield "pending requests: %d" % len(doc["requests"])
    yield "communicators: %d (%s)" % (len(doc["comms"]), ", ".join(
        c["label"] for c in doc["comms"]))
    yield "datatypes in use: %d" % len(doc["types"]["roots"])


class ContextCommand(gdb.Command):
    """This process's place in the MPI job: mpipp context [-json [FILE]]

Its rank in MPI_COMM_WORLD, what each thread is doing in MPI, how many
requests are pending, its communicators and the datatypes its current
calls use.  -json gives everything with raw values (peers, tags, handles,
the datatypes as lossless trees): the document mpipp-job asks each rank
for, written to FILE when one is given.

Example:
  (gdb) mpipp context
  rank 2 of 4 in MPI_COMM_WORLD, process 4242"""

    def __init__(self):
        super().__init__("mpipp context", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        as_json, path = _json_option(arg, "context")
        if as_json:
            output.write_json_text(context_json_text(), path)
        else:
            output.write_lines(_summary_lines(context_json(views.context.require(), with_text=True)))


def context_json_text():
    """The -json document as text, kept across stops while what it was built
    from stays the same (memory.kept_across_stops)."""
    return memory.kept_across_stops(
        "context -json", lambda: json.dumps(context_json(views.context.require())))


class ContextJsonMICommand(gdb.MICommand):
    """-mpipp-context-json FILE: `mpipp context -json FILE` as an MI command,
    the way mpipp-job asks every rank at each `calls`, `waits` and `check`:
    gdb runs a CLI command over MI (-interpreter-exec console) at twice the
    CPU of the command itself."""

    def __init__(self):
        super().__init__("-mpipp-context-json")

    @one_line_errors
    def invoke(self, argv):
        if len(argv) != 1:
            raise gdb.GdbError("mpipp: usage: -mpipp-context-json FILE")
        output.write_json_text(context_json_text(), argv[0])


def _members_text(members):
    return format_ranks(members) if members else "?"


class CommsCommand(gdb.Command):
    """List the communicators of this process: mpipp comms [-json [FILE]]

One line per communicator: handle, name (the one given with
MPI_Comm_set_name, else its label comm#N, which commands take back), size,
this process's rank in it, the MPI_COMM_WORLD ranks of its members (of the
local and remote groups for an intercommunicator), and what it was made of.

Example:
  (gdb) mpipp comms
  handle      name            size  rank  world ranks  what
  0x44000000  MPI_COMM_WORLD  4     2     0-3          -
  0x84000002  rows            2     0     2,3          split of MPI_COMM_WORLD (color 1)"""

    def __init__(self):
        super().__init__("mpipp comms", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        as_json, path = _json_option(arg, "comms")
        view = views.context.require()
        comms = list(reversed(list(view.comms().values())))
        if as_json:
            output.write_json({"comms": [_comm_json(view, m) for m in comms]}, path)
            return
        table = [("handle", "name", "size", "rank", "world ranks", "what")]
        for m in comms:
            members = _members_text(m.members)
            if m.remote_size:
                members += " | remote " + _members_text(m.remote_members)
            table.append(("0x%x" % m.handle, view.comm_label(m.handle), str(m.size),
                          str(m.rank) if m.rank >= 0 else "-", members,
                          "-" if m.predefined else view.comm_about(m.handle) or "?"))
        output.write_lines(format_table(table))


def comm_lines(key):
    """What 'mpipp info comm#3' shows."""
    view = views.context.require()
    m = view.comms()[key]
    site = symbols.creation_site(m.created_at)
    out = [view.comm_text(key),
           "  handle 0x%x%s" % (m.handle, ", created by %s%s" % (m.creator, " at " + site if site
                                                                 else "")
                                if not m.predefined else ", predefined")]
    out.append("  world ranks of its ranks 0..%d: %s" % (m.size - 1, _members_text(m.members)))
    if m.remote_size:
        out.append("  world ranks of the remote group: %s" % _members_text(m.remote_members))
    return out


def install():
    ContextCommand()
    ContextJsonMICommand()
    CommsCommand()
    handles.DESCRIBERS["comm"] = comm_lines
