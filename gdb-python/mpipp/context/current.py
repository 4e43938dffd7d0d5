"""$mpi_call: the MPI call the selected thread is in, as a value.

Inside a library without debug information the only frame with symbols is
libmpireg's wrapper, built with optimization: its arguments are
`<optimized out>` once MPI runs.  libmpireg's call record has them, so
mpipp publishes them as the convenience variable $mpi_call, a value of the
type `struct mpireg_mpi_call` (libmpireg/context/mpicall.c, from libmpireg's debug
information) whose fields have the MPI types the program passed:

    (gdb) print $mpi_call.datatype            (Fortran: $mpi_call%datatype)
    (gdb) mpipp $mpi_call.datatype $mpi_call.buf $mpi_call.count
    (gdb) mpipp view $mpi_call.fh

$mpi_call is set at every stop and before every prompt for the selected
thread (and again whenever an mpipp command evaluates an expression naming
it); it is void when the thread is in no MPI call.  The value is built in
gdb from the record's bytes (about 200 bytes), never in the program.

A libmpireg stripped of its debug information has no such type: $mpi_call
stays void, the first stop inside an MPI call says why in one line, and an
mpipp command naming $mpi_call fails with that line.
"""

import struct

import gdb

from .. import views
from ..inferior import expressions, memory
from .calls import buffer_names

VARIABLE = "mpi_call"
TYPE_SYMBOL = "mpireg_mpi_call_type"

_type = []
# whether the one-line notice that the type is missing was given (once a
# session)
_told = []
# Fields of MPI_Datatype that hold MPI_DATATYPE_NULL when the call has no such argument.
DATATYPE_FIELDS = ("datatype", "sendtype", "recvtype", "origin_datatype", "result_datatype",
                   "target_datatype")
MISSING_TYPE = ("mpipp: $mpi_call needs libmpireg's debug information (struct mpireg_mpi_call), "
                "which this libmpireg lacks; 'mpipp calls' shows the call")


def _call_type():
    """struct mpireg_mpi_call from libmpireg's debug information, or None."""
    if not _type:
        found = None
        try:
            symbol = gdb.lookup_global_symbol(TYPE_SYMBOL)
            if symbol is not None:
                found = symbol.type.strip_typedefs().target().unqualified().strip_typedefs()
                found = found if found.code == gdb.TYPE_CODE_STRUCT else None
        except (gdb.error, RuntimeError):
            found = None
        _type.append(found)
    return _type[0]


def forget_type():
    _type.clear()


def _constant(table, name):
    """A constant of another libmpireg table (0 without it)."""
    return table.c.get(name, 0) if table is not None else 0


def _fields(view, call):
    """{field name: integer} of the call (missing handles: the MPI's nulls)."""
    c = view.c
    out = {"function": call.func_address, "comm": c.get("MPI_COMM_NULL", 0),
           "op": c.get("MPI_OP_NULL", 0), "win": c.get("MPI_WIN_NULL", 0),
           "group": _constant(views.objects.find(), "MPI_GROUP_NULL"),
           "fh": _constant(views.files.find(), "MPI_FILE_NULL"),
           "peer": c.get("MPI_PROC_NULL", 0), "tag": c.get("MPI_UNDEFINED", 0)}
    out.update((name, c.get("MPI_DATATYPE_NULL", 0)) for name in DATATYPE_FIELDS)
    for b in call.bufs:
        out.update(_buffer_fields(b))
    if call.has_peer:
        out["peer"] = call.peer
    if call.has_tag:
        out["tag"] = call.tag
    if call.has_comm:
        out["comm"] = call.comm
    if call.has_extra:
        out[call.extra_name] = call.extra
    if call.has_win:
        out["win"] = call.win
    if call.has_target:
        out.update(target_disp=call.target_disp, target_count=call.target_count,
                   target_datatype=call.target_datatype)
    if call.has_file:
        out["fh"] = call.file
        out["offset"] = call.offset if call.has_offset or call.has_position else 0
    if call.has_reqs:
        out.update(requests=call.reqs, nrequests=call.nreqs)
    return out


def _buffer_fields(b):
    """{field: integer} of a buffer, under the names `mpipp calls` shows
    (names that are no field of struct mpireg_mpi_call, such as
    'recvcount*size', are ignored by call_value)."""
    count_name, displs_name, type_name = buffer_names(b)
    out = {b.role: b.addr}
    if not b.per_peer:
        out[count_name] = b.count
    else:
        out[count_name] = b.counts
        if b.displs:
            out[displs_name] = b.displs
    if b.types:
        out[type_name] = b.types
    elif b.datatype:
        out[type_name] = b.datatype
    return out


def call_value(view, call):
    """The $mpi_call value of a call, or None without the type (or when
    'max-value-size' is too small for it: memory.value_from_bytes)."""
    gdb_type = _call_type()
    if gdb_type is None:
        return None
    raw = bytearray(gdb_type.sizeof)
    values = _fields(view, call)
    for field in gdb_type.fields():
        value = values.get(field.name)
        size = field.type.sizeof
        if value is None or field.bitpos % 8 or size not in (1, 2, 4, 8):
            continue
        struct.pack_into("<Q" if size == 8 else {1: "<B", 2: "<H", 4: "<I"}[size], raw,
                         field.bitpos // 8, value & ((1 << 8 * size) - 1))
    return memory.value_from_bytes(bytes(raw), gdb_type)


def _refresh():
    """Sets $mpi_call for the selected thread (void when it is in no call);
    whether the thread is in a call whose value cannot be built (libmpireg
    without debug information).  Never raises."""
    try:
        found = views.current_call() if memory.has_process() else None
        value = call_value(*found) if found is not None else None
        gdb.set_convenience_variable(VARIABLE, value)
        return found is not None and value is None
    except Exception:  # noqa: BLE001 - event handlers and hooks never raise
        gdb.set_convenience_variable(VARIABLE, None)
        return False


def refresh(*_event):
    """At a stop and before a prompt: $mpi_call, and once the notice that
    it cannot be built."""
    if _refresh() and not _told:
        _told.append(True)
        gdb.write(MISSING_TYPE + "\n")


def refresh_for(expression):
    """Before an mpipp command evaluates expression: $mpi_call is the
    selected thread's call now (a script may have switched threads)."""
    if "$" + VARIABLE in expression and _refresh():
        raise gdb.GdbError(MISSING_TYPE)


def install():
    gdb.events.stop.connect(refresh)
    gdb.events.before_prompt.connect(refresh)
    memory.on_objfiles_change(forget_type)
    expressions.on_evaluate(refresh_for)
