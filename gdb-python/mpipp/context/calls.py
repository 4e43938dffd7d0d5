"""An MPI call described, as every command and printer of the
communication context shows it: its arguments as the program passed them
(call_args, call_text), its buffers decoded through the call's datatypes
(decode_lines), the same as JSON (json_call), the requests a Wait/Test call
waits for and a pending request.  Memory reads only: works on live,
attached and core-file processes."""

import gdb

from .. import handles, views
from ..inferior import memory, output, symbols
from ..model import describe, render
from ..readers.context import ContextError
from ..readers.errors import MpippError

MAX_SHOWN_PEERS = 8
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


def _names(role):
    """(count name, datatype name, counts, displs, types) for a buffer role
    recorded without its parameters' names (its count is an expression)."""
    if role in ("buf", "buffer"):
        return "count", "datatype", "counts", "displs", "types"
    if role.endswith("_addr"):
        p = role[:-len("addr")]
        return p + "count", p + "datatype", p + "counts", p + "displs", p + "datatypes"
    p = role[:-3] if role.endswith("buf") else role + "_"
    short = {"send": "s", "recv": "r"}.get(p, p)
    return p + "count", p + "type", p + "counts", short + "displs", p + "types"


def buffer_names(b):
    """(count(s), displacements, type(s)) names of a buffer: the parameters
    libmpireg recorded it with (comm.spec's, the MPI standard's), else as
    its role suggests."""
    cname, tname, csname, dname, tsname = _names(b.role)
    if not b.per_peer:
        return b.count_name or cname, None, b.type_name or tname
    return (b.count_name or csname, b.displs_name or dname,
            b.type_name or (tsname if b.types else tname))


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


def _buffer_args(view, b):
    """[(name, text)] of one buffer's arguments (MPI_Allreduce's count and
    datatype, shared by its two buffers, are listed once by call_args)."""
    count_name, displs_name, type_name = buffer_names(b)
    out = [(b.role, "MPI_IN_PLACE" if view.is_in_place(b.addr) else "0x%x" % b.addr)]
    if not b.per_peer:
        return out + [(count_name, str(b.count)), (type_name, datatype_label(b.datatype))]
    try:
        entries = view.peer_entries(b)
    except ContextError as err:
        return out + [(count_name, "<%s>" % err)]
    out.append((count_name, _brief([e[1] for e in entries])))
    if b.displs:
        out.append((displs_name, _brief([e[2] for e in entries])))
    if b.types:
        out.append((type_name, _brief([datatype_label(e[3]) for e in entries])))
    else:
        out.append((type_name, datatype_label(b.datatype)))
    return out


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
        out.extend(a for a in _buffer_args(view, b) if a not in out)
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


def request_lines(view, r, lwps):
    """A pending request: the call that posted it, then where and by which thread."""
    site = symbols.site_text(r.call.site)
    thread = lwps.get(r.tid)
    text = "request 0x%x: %s %s" % (r.handle, call_text(view, r.call), r.status)
    where = []
    if site:
        where.append("posted at %s" % site)
    if thread is not None:
        where.append("by thread %d" % thread)
    return [text] + (["    " + ", ".join(where)] if where else [])


def request_json(view, r, lwps, decode):
    """A pending request as JSON; decode: with its call's buffers decoded."""
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
