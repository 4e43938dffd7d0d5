"""The `mpipp context -json` document: the one document the job console
(mpipp-job) asks every rank for: the rank in MPI_COMM_WORLD, every thread's
current MPI call and every pending request with raw numbers (peer, tag,
communicator and datatype handles), the communicators with the world ranks
of their members, and the datatypes those calls use, serialized losslessly
(model/datatype_json.py) so the console can compare signatures across
ranks.  Nothing is decoded: one memory pass, whatever the buffers hold.
"""

import json

import gdb

from .. import views
from ..inferior import memory, symbols
from ..model.datatype_json import dump_types
from ..readers.context import THREADS_USED_OFFSET, ContextError
from .calls import call_text, datatype, symbol_at, thread_map, waited_requests

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


def comm_json(view, comm):
    """A communicator as `mpipp comms -json` gives it: raw values, with its
    label and its description as every rank shows it."""
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
               "torn": slot.torn, "polling": slot.polling,
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


def context_json_text():
    """The -json document as text, kept across stops while what it was built
    from stays the same (memory.kept_across_stops)."""
    return memory.kept_across_stops(
        "context -json", lambda: json.dumps(context_json(views.context.require())))

