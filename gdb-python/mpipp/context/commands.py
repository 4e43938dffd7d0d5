"""`mpipp calls`, `mpipp requests`, `mpipp request REQ`: the communication
context libmpireg records (what each thread is doing in MPI, the pending
nonblocking requests), with every buffer decoded through the datatype of the
call that uses it.  Memory reads only: works on live, attached and core-file
processes.
"""

import json
import os
import re
from contextlib import contextmanager

import gdb

from .. import handles, views
from ..inferior import commands, expressions, memory, output, symbols
from ..inferior.output import one_line_errors
from ..model import describe, render
from ..readers.context import ContextError
from ..readers.errors import MpippError
from ..text import args as argparse_

MAX_SHOWN_PEERS = 8
PROBE_TEXT = ("inside libmpireg's start-up probe of MPI_Init (its own MPI_Issend, MPI_Irecv "
              "and MPI_Ibarrier calls ask MPI which request handles it completes at once; "
              "docs/context.md)")
DONE_AT_ONCE = ("completed when it was posted: MPI gives this handle to every request it "
                "completes at once")

def datatype(key):
    """The model Datatype of a handle key, or None."""
    view = views.registry.find()
    if view is None:
        return None
    try:
        return view.lookup(key)
    except MpippError:
        return None


def datatype_label(key):
    view = views.registry.find()
    return describe.handle_label(datatype(key), key, view.datatype_null if view else None)


def symbol_at(address):
    """'my_sum' for a code address, read from symbol tables only."""
    if not address:
        return None
    try:
        block = gdb.block_for_pc(address)
        while block is not None and block.function is None:
            block = block.superblock
        if block is not None and block.function is not None:
            return block.function.print_name
    except (RuntimeError, gdb.error):
        pass
    try:
        text = gdb.execute("info symbol 0x%x" % address, to_string=True)
    except gdb.error:
        return None
    if text.startswith("No symbol"):
        return None
    return text.split(" in section")[0].split(" + ")[0].strip()


# -- text of a call ---------------------------------------------------------

def _names(role):
    """(count name, datatype name, counts, displs, types) for a buffer role."""
    if role in ("buf", "buffer"):
        return "count", "datatype", "counts", "displs", "types"
    if role.endswith("_addr"):
        p = role[:-len("addr")]
        return p + "count", p + "datatype", p + "counts", p + "displs", p + "datatypes"
    p = role[:-3] if role.endswith("buf") else role + "_"
    short = {"send": "s", "recv": "r"}.get(p, p)
    return p + "count", p + "type", p + "counts", short + "displs", p + "types"


def _brief(values):
    shown = ", ".join(str(v) for v in values[:MAX_SHOWN_PEERS])
    if len(values) > MAX_SHOWN_PEERS:
        shown += ", ..."
    return "[%s]" % shown


def file_pointer(call):
    """Where an MPI-IO call's access starts: 'explicit' (an offset argument),
    'individual' (the individual file pointer, recorded), 'shared' (the
    shared file pointer, not recorded) or None."""
    if call.has_offset:
        return "explicit"
    if call.has_position:
        return "individual"
    return "shared" if call.shared_pointer else None


def file_json(call):
    """The file access of an MPI-IO call, for -json documents."""
    pointer = file_pointer(call)
    return {"handle": "0x%x" % call.file, "name": handles.file_name(call.file),
            "pointer": pointer,
            "offset": call.offset if pointer in ("explicit", "individual") else None}


def call_args(view, call):
    """[(name, text)] of a call's recorded arguments, in the MPI order."""
    out = []
    if call.has_file:
        out.append(("fh", handles.file_text(call.file)))
        pointer = file_pointer(call)
        if pointer == "explicit":
            out.append(("offset", str(call.offset)))
        elif pointer == "individual":
            out.append(("offset", "%d (individual file pointer)" % call.offset))
        elif pointer == "shared":
            out.append(("offset", "shared file pointer"))
    for b in call.bufs:
        cname, tname, csname, dname, tsname = _names(b.role)
        addr = "MPI_IN_PLACE" if view.is_in_place(b.addr) else "0x%x" % b.addr
        out.append((b.role, addr))
        if not b.per_peer:
            out.append((b.count_name or cname, str(b.count)))
            out.append((b.type_name or tname, datatype_label(b.datatype)))
            continue
        try:
            entries = view.peer_entries(b)
        except ContextError as err:
            out.append((csname, "<%s>" % err))
            continue
        out.append((csname, _brief([e[1] for e in entries])))
        if b.displs:
            out.append((dname, _brief([e[2] for e in entries])))
        if b.types:
            out.append((tsname, _brief([datatype_label(e[3]) for e in entries])))
        else:
            out.append((tname, datatype_label(b.datatype)))
    if call.has_reqs:
        out.append(("count", str(call.nreqs)))
        out.append(("requests", "0x%x" % call.reqs))
    if call.has_peer:
        out.append((call.peer_name, view.peer_text(call.peer)))
    if call.has_target:
        out.append(("target_disp", str(call.target_disp)))
        out.append(("target_count", str(call.target_count)))
        out.append(("target_datatype", datatype_label(call.target_datatype)))
    if call.has_extra:
        out.append((call.extra_name, extra_text(view, call.extra_name, call.extra)))
    if call.has_tag:
        out.append(("sendtag" if call.has_peer2 else "tag", view.tag_text(call.tag)))
    if call.has_peer2:
        out.append((call.peer2_name, view.peer_text(call.peer2)))
        out.append(("recvtag", view.tag_text(call.tag2)))
    if call.has_win:
        out.append(("win", handles.win_text(call.win)))
    elif call.has_comm:  # a window's calls: the window says which communicator
        out.append(("comm", handles.comm_text(view.comm_key(call.comm), predefined_alone=True)))
    return out


def extra_text(view, name, key):
    """The op or group a call names."""
    if name == "op":
        return view.op_label(key, symbol_at)
    if name == "group":
        return handles.group_text(key)
    return "0x%x" % key


def call_text(view, call):
    return "%s(%s)" % (call.func, ", ".join("%s=%s" % a for a in call_args(view, call)))


def buffer_pieces(view, buf):
    """[(label, address, count, datatype key)] to decode for one buffer."""
    if view.is_in_place(buf.addr):
        return []
    if not buf.per_peer:
        return [(buf.role, buf.addr, buf.count, buf.datatype)]
    out = []
    for peer, count, displ, key in view.peer_entries(buf):
        if count <= 0:
            continue
        if displ is None:
            displ = 0
        if not buf.displ_in_bytes:
            dt = datatype(key)
            displ = displ * (dt.extent if dt is not None else 0)
        out.append(("%s peer %d" % (buf.role, peer), buf.addr + displ, count, key))
    return out


def target_region(view, call):
    """(address or None, text) of the target region of an RMA call: the
    address when the target's window memory is mapped in this process (the
    target is this process, or any rank of a shared-memory window), the
    text saying where it is either way."""
    objs = views.objects.find()
    w = objs.win(call.win) if objs is not None and call.has_win else None
    peer = view.peer_text(call.peer)
    if w is None:
        return None, "target rank %s of an unrecorded window" % peer
    world = ""
    if w.members and 0 <= call.peer < len(w.members) and w.members[call.peer] >= 0:
        world = " (world rank %d)" % w.members[call.peer]
    where = "target rank %s%s of %s, disp %d" % (peer, world, handles.label("win", w.handle),
                                                 call.target_disp)
    if call.peer < 0:
        return None, where
    address = objs.target_address(w, call.peer, call.target_disp)
    if address is None:
        return None, where + ": another process's memory (mpipp-job's 'rma' reads it there)"
    return address, where


def _piece_lines(label, address, count, key, indent, limit, repeats):
    """The lines of one piece: its head, then its elements decoded."""
    dt = datatype(key)
    head = "%s%s = %s × %d at 0x%x" % (indent, label, datatype_label(key), count, address)
    if dt is None:
        yield head + " <datatype not registered: not decoded>"
        return
    if count <= 0:
        yield head + " (no elements)"
        return
    yield head + ":"
    try:
        for line in render.render_elements(dt, count, memory.memory_reader(address),
                                           limit=limit, repeats=repeats, base_address=address):
            yield indent + "  " + line
    except MpippError as err:
        yield "%s  <%s>" % (indent, err)


def decode_lines(view, call, indent="    "):
    """Lines decoding every buffer of a call through its datatype, then an
    RMA call's target region through the target datatype."""
    limit = output.print_limit("print elements")
    repeats = output.print_limit("print repeats")
    for b in call.bufs:
        if view.is_in_place(b.addr):
            yield "%s%s = MPI_IN_PLACE" % (indent, b.role)
            continue
        try:
            pieces = buffer_pieces(view, b)
        except ContextError as err:
            yield "%s%s: <%s>" % (indent, b.role, err)
            continue
        for label, address, count, key in pieces:
            yield from _piece_lines(label, address, count, key, indent, limit, repeats)
    if call.has_target:
        address, where = target_region(view, call)
        if address is None:
            yield "%starget region: %s" % (indent, where)
        else:
            yield from _piece_lines("target region (%s)" % where, address, call.target_count,
                                    call.target_datatype, indent, limit, repeats)


def _json_piece(label, address, count, key, limit):
    piece = {"label": label, "address": address, "count": count,
             "datatype": datatype_label(key), "elements": [], "truncated": False}
    dt = datatype(key)
    if dt is not None and count > 0:
        try:
            for item in render.iter_json_elements(dt, count, memory.memory_reader(address),
                                                  limit=limit, base_address=address):
                if item is render.TRUNCATED:
                    piece["truncated"] = True
                    break
                piece["elements"].append(item)
        except MpippError as err:
            piece["error"] = str(err)
    return piece


def json_call(view, call):
    limit = output.print_limit("print elements")
    doc = {"function": call.func, "site": symbols.creation_site(call.site),
           "args": dict(call_args(view, call)), "buffers": []}
    if call.has_file:
        doc["file"] = file_json(call)
    for b in call.bufs:
        entry = {"role": b.role, "address": b.addr, "in_place": view.is_in_place(b.addr),
                 "pieces": []}
        try:
            pieces = buffer_pieces(view, b)
        except ContextError as err:
            entry["error"] = str(err)
            pieces = []
        entry["pieces"] = [_json_piece(*piece, limit) for piece in pieces]
        doc["buffers"].append(entry)
    if call.has_target:
        address, where = target_region(view, call)
        doc["target"] = {"rank": call.peer, "disp": call.target_disp,
                         "count": call.target_count,
                         "datatype": datatype_label(call.target_datatype), "where": where,
                         "piece": None if address is None else _json_piece(
                             "target", address, call.target_count, call.target_datatype, limit)}
    return doc


HANDLE_LABELS = {"MPI_Datatype": lambda view, key: datatype_label(key),
                 "MPI_Comm": lambda view, key: handles.comm_text(key, predefined_alone=True),
                 "MPI_Op": lambda view, key: view.op_label(key, symbol_at)}


@contextmanager
def _selection_kept():
    """Code inside may switch threads and frames: the user's selection comes back."""
    try:
        thread, frame = gdb.selected_thread(), gdb.selected_frame()
    except gdb.error:
        thread = frame = None
    try:
        yield
    finally:
        if thread is not None and thread.is_valid():
            thread.switch()
            frame.select()


def _newest_frames(lwps):
    """(LWP, newest frame) of the threads among lwps (switches threads: use
    inside _selection_kept)."""
    for thread in gdb.selected_inferior().threads():
        lwp = memory.lwp_of(thread)
        if lwp in lwps:
            thread.switch()
            yield lwp, gdb.newest_frame()


def in_wrappers(view, lwps):
    """{LWP: (MPI function, [(parameter, text)], call site)} of the threads among lwps
    stopped in one of libmpireg's wrappers outside the MPI call (at its
    entry, where 'break MPI_Send' stops first, or after MPI returned), where
    the thread's call record says nothing: the arguments are read from the
    frame (none when libmpireg has no debug information)."""
    library = gdb.solib_name(view.root_address)
    out = {}
    with _selection_kept():
        for lwp, frame in _newest_frames(set(lwps)):
            name = frame.name() or ""
            if name.startswith("MPI_") and gdb.solib_name(frame.pc()) == library:
                caller = frame.older()
                site = symbols.creation_site(caller.pc()) if caller is not None else None
                out[lwp] = (name, _frame_arguments(view, frame), site)
    return out


MAX_FRAMES = 64


# MPI's own Fortran bindings (mpi_send_, pmpi_recv__): the MPI call's
# frames, not a library's on the way from the program.
MPI_BINDING = re.compile(r"^p?mpi_\w+_$")
CHAIN_SHOWN = 4


def _frame_name(frame):
    name = frame.name()
    if name:
        return name
    library = gdb.solib_name(frame.pc())
    return "?? (%s)" % os.path.basename(library) if library else "??"


def program_paths(returns):
    """{LWP: (site, [function, ...])} for calls whose return address
    (returns[LWP]) has no line information -- an MPI call made by a library
    without debug information, or by MPI's Fortran binding: from the frame
    that returns there outward, the first frame with line information (the
    program's own line that led there) and the library functions passed on
    the way, outermost first."""
    out = {}
    with _selection_kept():
        for lwp, frame in _newest_frames(set(returns)):
            for _ in range(MAX_FRAMES):
                if frame is None or frame.pc() == returns[lwp]:
                    break
                frame = frame.older()
            if frame is None or frame.pc() != returns[lwp]:
                continue
            chain = []
            while frame is not None and len(chain) < MAX_FRAMES:
                site = symbols.line_site(frame.pc())
                if site:
                    out[lwp] = (site, [n for n in reversed(chain) if not MPI_BINDING.match(n)])
                    break
                chain.append(_frame_name(frame))
                frame = frame.older()
    return out


def path_text(site, chain):
    """'blacs.c:21 through Cdgerv2d → BI_Srecv' (long chains elided)."""
    if not chain:
        return site
    shown = chain if len(chain) <= CHAIN_SHOWN else \
        chain[:2] + ["…"] + chain[-1:]
    more = " (%d functions)" % len(chain) if len(chain) > CHAIN_SHOWN else ""
    return "%s through %s%s" % (site, " → ".join(shown), more)


def call_site_text(lwp, call):
    """'at file:line' of a current call, or for a call made without line
    information 'at BI_Srecv in libscalapack-mpich.so.2.2, called from
    blacs.c:21 through Cdgerv2d → BI_Srecv'; None when nothing is known."""
    site = symbols.line_site(call.site)
    if site:
        return "at " + site
    found = program_paths({lwp: call.site}).get(lwp)
    code = symbols.symbol_site(call.site)
    if found is not None and not found[1]:
        return "at " + found[0]     # through MPI's Fortran binding only
    if found is not None:
        return "at %s, called from %s" % (code or "??", path_text(*found))
    return "at " + code if code else None


def _frame_arguments(view, frame):
    try:
        block = frame.block()
    except RuntimeError:
        return []
    out = []
    for symbol in block:
        if not symbol.is_argument:
            continue
        try:
            value = symbol.value(frame)
            handle = expressions.handle_type_name(value.type, tuple(HANDLE_LABELS))
            if handle is not None:
                key = int(value) & view.handle_mask[handle]
                text = HANDLE_LABELS[handle](view, key)
            elif value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
                text = "0x%x" % int(value)
            else:
                text = value.format_string(raw=True)
        except (gdb.error, ValueError, OverflowError):
            text = "<unreadable>"
        out.append((symbol.name, text))
    return out


def thread_map():
    """{LWP: gdb thread number} of the selected inferior."""
    out = {}
    for t in gdb.selected_inferior().threads():
        out[memory.lwp_of(t)] = t.num
    return out


def waited_requests(view, call):
    """Pending requests a Wait/Test call names."""
    if not call.has_reqs or not call.reqs or call.nreqs <= 0:
        return []
    size = view.c["sizeof.MPI_Request"]
    n = min(call.nreqs, 4096)
    try:
        raw = view.memory.read(call.reqs, size * n)
    except MpippError:
        return []
    out = []
    for k in range(n):
        handle = int.from_bytes(raw[k * size:(k + 1) * size], "little")
        r = view.request(handle)
        if r is not None:
            out.append((k, r))
    return out


class CallsCommand(gdb.Command):
    """Show the MPI call each thread is in: mpipp calls [-json] [-brief]

For every thread: the MPI function it is inside, with its buffers, counts,
datatypes, peer, tag and communicator as the program passed them, then each
buffer decoded through the call's datatype ('set print elements' applies).
A Wait/Test call also lists the pending requests it waits for.  -brief
leaves out the decoded buffers.

Example:
  (gdb) mpipp calls
  thread 1 (LWP 4242): MPI_Recv(buf=0x7ffd..., count=2, datatype=halo_t, source=1, tag=7, comm=MPI_COMM_WORLD)
      at deadlock.c:31
      buf = halo_t × 2 at 0x7ffd...:
        [0][0][0] = -1
        ..."""

    def __init__(self):
        super().__init__("mpipp calls", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json", "-brief"))
        if words:
            raise gdb.GdbError("mpipp: usage: mpipp calls [-json] [-brief]")
        view = views.context.require()
        lwps = thread_map()
        slots = {t.tid: t for t in view.threads()}
        wrappers = in_wrappers(view, [lwp for lwp in lwps
                                      if lwp not in slots or not slots[lwp].active])
        rows, lines = [], []
        for lwp, num in sorted(lwps.items(), key=lambda kv: kv[1]):
            slot = slots.get(lwp)
            head = "thread %d (LWP %d): " % (num, lwp)
            row = {"thread": num, "lwp": lwp, "in_mpi": False}
            if slot is None or not slot.active:
                entering = wrappers.get(lwp)
                if entering is None:
                    lines.append(head + "not inside an MPI call")
                else:
                    func, args, site = entering
                    row["in_mpi"] = True
                    row["in_wrapper"] = {"function": func, "args": dict(args), "site": site}
                    lines.append(head + "%s(%s), in libmpireg's wrapper outside MPI ('break P%s' "
                                 "stops once per call, inside MPI)"
                                 % (func, ", ".join("%s=%s" % a for a in args), func))
                    if site:
                        lines.append("    at " + site)
                rows.append(row)
                continue
            row["in_mpi"] = True
            if slot.torn:
                lines.append(head + "entering an MPI call (its record is being written; "
                                    "step and retry)")
                row["torn"] = True
                rows.append(row)
                continue
            call = slot.call
            if call.probe:
                lines.append(head + PROBE_TEXT)
                rows.append(dict(row, probe=True))
                continue
            lines.append(head + call_text(view, call))
            site = call_site_text(lwp, call)
            if site:
                lines.append("    " + site)
                row["site"] = site[len("at "):]
            for k, r in waited_requests(view, call):
                lines.append("    waits for [%d] request 0x%x: %s %s" % (
                    k, r.handle, call_text(view, r.call), r.status))
            if "-json" in opts:
                row["call"] = json_call(view, call)
                row["waits_for"] = [{"index": k, "request": r.handle} for k, r in
                                    waited_requests(view, call)]
            elif "-brief" not in opts:
                lines.extend(decode_lines(view, call))
            rows.append(row)
        if "-json" in opts:
            gdb.write(json.dumps({"threads": rows}) + "\n")
        else:
            output.write_lines(lines)


def _request_lines(view, r, lwps):
    site = symbols.creation_site(r.call.site)
    thread = lwps.get(r.tid)
    text = "request 0x%x: %s %s" % (r.handle, call_text(view, r.call), r.status)
    where = []
    if site:
        where.append("posted at %s" % site)
    if thread is not None:
        where.append("by thread %d" % thread)
    return [text] + (["    " + ", ".join(where)] if where else [])


def _request_json(view, r, lwps, decode):
    doc = {"request": r.handle, "status": r.status, "active": r.active,
           "persistent": r.persistent, "cancelled": r.cancelled,
           "partitioned": r.partitioned, "function": r.call.func,
           "site": symbols.creation_site(r.call.site), "thread": lwps.get(r.tid),
           "args": dict(call_args(view, r.call))}
    if r.call.has_file:
        doc["file"] = file_json(r.call)
    if decode:
        doc["call"] = json_call(view, r.call)
    return doc


class RequestsCommand(gdb.Command):
    """List the pending MPI requests: mpipp requests [-json] [-all]

One entry per request the program posted (Isend, Irecv, I* collectives,
Rput/Rget, persistent requests after Start) and has not completed or freed
yet: the call that posted it with its buffer, count, datatype, peer, tag and
communicator, its state, and where it was posted (file:line).  -all also
lists inactive persistent requests.  'mpipp request REQ' decodes one.

Example:
  (gdb) mpipp requests
  request 0x2c000001: MPI_Irecv(buf=0x..., count=3, datatype=row_t, source=1, tag=5, comm=MPI_COMM_WORLD) pending
      posted at requests.c:40, by thread 1"""

    def __init__(self):
        super().__init__("mpipp requests", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json", "-all"))
        if words:
            raise gdb.GdbError("mpipp: usage: mpipp requests [-json] [-all]")
        view = views.context.require()
        lwps = thread_map()
        requests = [r for r in reversed(view.requests()) if r.active or "-all" in opts]
        if "-json" in opts:
            gdb.write(json.dumps({"requests": [_request_json(view, r, lwps, False)
                                               for r in requests],
                                  "updating": view.updating}) + "\n")
            return
        lines = []
        if view.updating:
            lines.append("warning: the request list is being updated; it may be incomplete")
        for r in requests:
            lines.extend(_request_lines(view, r, lwps))
        if not requests:
            lines.append("no pending requests")
        output.write_lines(lines)


def _request_handle(value):
    """An MPI_Request value, following a pointer to one (MPI_Request *)."""
    gdb_type = value.type.strip_typedefs()
    if gdb_type.code == gdb.TYPE_CODE_PTR and expressions.handle_type_name(gdb_type.target(),
                                                                         ("MPI_Request",)):
        return value.dereference()
    return value


class RequestCommand(gdb.Command):
    """Decode a request's buffer: mpipp request [-json] REQ

REQ is a gdb expression giving an MPI_Request (reqs[2], or a pointer to
one).  Prints the call that posted it and its buffers decoded through the
call's datatypes.

Example:
  (gdb) mpipp request reqs[1]"""

    def __init__(self):
        super().__init__("mpipp request", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) != 1:
            raise gdb.GdbError("mpipp: usage: mpipp request [-json] REQ")
        view = views.context.require()
        handle = expressions.evaluate_int(words[0], "request", prepare=_request_handle)
        key = handle & view.handle_mask["MPI_Request"]
        if key == view.c["MPI_REQUEST_NULL"]:
            raise gdb.GdbError("mpipp: '%s' is MPI_REQUEST_NULL" % words[0])
        if key in view.done_at_once:
            raise gdb.GdbError("mpipp: '%s' (0x%x) is not pending: %s" % (words[0], key, DONE_AT_ONCE))
        r = view.request(key)
        if r is None:
            raise gdb.GdbError("mpipp: '%s' (0x%x) is not a pending request: completed, freed, "
                               "or posted without libmpireg" % (words[0], key))
        lwps = thread_map()
        if "-json" in opts:
            gdb.write(json.dumps(_request_json(view, r, lwps, True)) + "\n")
            return
        output.write_lines(_request_lines(view, r, lwps) + list(decode_lines(view, r.call)))


class ContextParameter(gdb.Parameter):
    """Whether printing a buffer of the current MPI call or of a pending request
also shows its elements decoded through the call's datatype."""

    set_doc = "Set whether mpipp decodes buffers of MPI calls and pending requests when printed."
    show_doc = "Show whether mpipp decodes buffers of MPI calls and pending requests when printed."

    def __init__(self):
        super().__init__("mpipp context", gdb.COMMAND_DATA, gdb.PARAM_BOOLEAN)
        self.value = True

    def get_set_string(self):
        views.context.clear()
        return ""

    def get_show_string(self, svalue):
        return "Decoding buffers of MPI calls in context is %s." % svalue


PARAMETER = None


def install():
    global PARAMETER
    PARAMETER = commands.add_setting("context", ContextParameter)
    CallsCommand()
    RequestsCommand()
    RequestCommand()
