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

from .. import args as argparse_
from .. import inferior
from ..inferior import one_line_errors
from ..job.calls import format_table
from ..job.ranks import format_ranks
from ..model.datatype_json import dump_types
from .commands import (_thread_map, call_text, datatype, datatype_label, require_context,
                       symbol_at, waited_requests)
from .reader import ContextError

FORMAT_VERSION = 1
CONSTANTS = ("MPI_ANY_SOURCE", "MPI_ANY_TAG", "MPI_PROC_NULL", "MPI_ROOT", "MPI_UNDEFINED",
             "MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL")


def _buffer_json(view, buf, types):
    in_place = view.is_in_place(buf.addr)
    doc = {"role": buf.role, "count_name": buf.count_name, "address": buf.addr,
           "in_place": in_place,
           "count": None if buf.per_peer else buf.count,
           "datatype": None if buf.types else buf.datatype,
           "type": None if buf.types else datatype_label(buf.datatype), "peers": None}
    keys = [] if buf.types else [buf.datatype]
    if buf.per_peer:
        try:
            doc["peers"] = [list(entry) for entry in view.peer_entries(buf)]
        except ContextError as err:
            doc["error"] = str(err)
        keys += [entry[3] for entry in doc["peers"] or ()]
    for key in keys:
        if key not in types:
            types[key] = datatype(key)
    return doc


def call_json(view, call, types):
    """A call with raw values; the datatypes it uses are added to `types`."""
    op = None
    if call.has_extra and call.extra_name == "op":
        op = view.op_label(call.extra, symbol_at)
    return {
        "function": call.func, "site": inferior.creation_site(call.site),
        "text": call_text(view, call),
        "comm": view.comm_key(call.comm) if call.has_comm else None,
        "peer_name": call.peer_name, "peer": call.peer if call.has_peer else None,
        "tag": call.tag if call.has_tag else None,
        "peer2_name": call.peer2_name, "peer2": call.peer2 if call.has_peer2 else None,
        "tag2": call.tag2 if call.has_peer2 else None, "op": op,
        "bufs": [_buffer_json(view, b, types) for b in call.bufs],
    }


def _comm_json(comm):
    return {"handle": comm.handle, "name": comm.name, "size": comm.size, "rank": comm.rank,
            "remote_size": comm.remote_size, "members": comm.members,
            "remote_members": comm.remote_members, "creator": comm.creator,
            "parent": comm.parent, "predefined": comm.predefined}


def context_json(view):
    """The `mpipp context -json` document."""
    types = {}
    lwps = _thread_map()
    slots = {t.tid: t for t in view.threads()}
    threads = []
    for lwp, num in sorted(lwps.items(), key=lambda kv: kv[1]):
        slot = slots.get(lwp)
        row = {"thread": num, "lwp": lwp, "calls_mpi": slot is not None,
               "in_mpi": bool(slot and slot.active),
               "torn": bool(slot and slot.active and slot.torn), "call": None, "waits_for": []}
        if row["in_mpi"] and not row["torn"]:
            row["call"] = call_json(view, slot.call, types)
            row["waits_for"] = [{"index": k, "request": r.handle, "serial": r.serial}
                                for k, r in waited_requests(view, slot.call)]
        threads.append(row)
    requests = [{"request": r.handle, "serial": r.serial, "status": r.status,
                 "persistent": r.persistent, "cancelled": r.cancelled,
                 "thread": lwps.get(r.tid), "call": call_json(view, r.call, types)}
                for r in reversed(view.requests()) if r.active]
    comms = [_comm_json(m) for m in reversed(list(view.comms().values()))]
    world = view.world()
    return {
        "version": FORMAT_VERSION, "pid": gdb.selected_inferior().pid or None,
        "rank": world.rank if world else None, "size": world.size if world else None,
        "constants": {name: view.c[name] for name in CONSTANTS if name in view.c},
        "threads": threads, "requests": requests, "comms": comms,
        "types": dump_types({key: dt for key, dt in types.items() if dt is not None}),
        "updating": view.updating,
    }


def _json_option(arg, command):
    """True for -json; a one-line usage error for anything else."""
    opts, _fmt, words = argparse_.parse(arg, ("-json",))
    if words:
        raise gdb.GdbError("mpipp: usage: mpipp %s [-json]" % command)
    return "-json" in opts


def _summary_lines(doc):
    where = ("rank %d of %d in MPI_COMM_WORLD" % (doc["rank"], doc["size"])
             if doc["rank"] is not None else "not in MPI_COMM_WORLD yet (before MPI_Init)")
    in_mpi = [t for t in doc["threads"] if t["in_mpi"]]
    yield "%s, process %s" % (where, doc["pid"] or "?")
    yield "threads: %d, %d inside an MPI call" % (len(doc["threads"]), len(in_mpi))
    for t in in_mpi:
        yield "  thread %d: %s" % (t["thread"], t["call"]["text"] if t["call"] else
                                   "entering an MPI call")
    yield "pending requests: %d" % len(doc["requests"])
    yield "communicators: %d (%s)" % (len(doc["comms"]), ", ".join(
        c["name"] or "0x%x" % c["handle"] for c in doc["comms"]))
    yield "datatypes in use: %d" % len(doc["types"]["roots"])


class ContextCommand(gdb.Command):
    """This process's place in the MPI job: mpipp context [-json]

Its rank in MPI_COMM_WORLD, what each thread is doing in MPI, how many
requests are pending, its communicators and the datatypes its current
calls use.  -json gives everything with raw values (peers, tags, handles,
the datatypes as lossless trees): the document mpipp-job asks each rank for.

Example:
  (gdb) mpipp context
  rank 2 of 4 in MPI_COMM_WORLD, process 4242"""

    def __init__(self):
        super().__init__("mpipp context", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        as_json = _json_option(arg, "context")
        doc = context_json(require_context())
        if as_json:
            gdb.write(json.dumps(doc) + "\n")
        else:
            inferior.write_lines(_summary_lines(doc))


def _members_text(members):
    return format_ranks(members) if members else "?"


class CommsCommand(gdb.Command):
    """List the communicators of this process: mpipp comms [-json]

One line per communicator: handle, name, size, this process's rank in it,
the MPI_COMM_WORLD ranks of its members (of the local and remote groups
for an intercommunicator), and the call that created it.

Example:
  (gdb) mpipp comms
  handle      name            size  rank  world ranks  created by
  0x44000000  MPI_COMM_WORLD  4     2     0-3          -
  0x84000002  rows            2     0     2,3          MPI_Comm_split"""

    def __init__(self):
        super().__init__("mpipp comms", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        as_json = _json_option(arg, "comms")
        comms = list(reversed(list(require_context().comms().values())))
        if as_json:
            gdb.write(json.dumps({"comms": [_comm_json(m) for m in comms]}) + "\n")
            return
        table = [("handle", "name", "size", "rank", "world ranks", "created by")]
        for m in comms:
            members = _members_text(m.members)
            if m.remote_size:
                members += " | remote " + _members_text(m.remote_members)
            table.append(("0x%x" % m.handle, m.name or "-", str(m.size),
                          str(m.rank) if m.rank >= 0 else "-", members,
                          "-" if m.predefined else m.creator or "?"))
        inferior.write_lines(format_table(table))


def install():
    ContextCommand()
    CommsCommand()
