"""What the threads' stacks tell of their MPI calls: a call libmpireg has
not recorded (a thread stopped in one of its wrappers, outside MPI: the
arguments are read from the wrapper's frame), and where a call made from
code without line information came from in the program."""

import os
import re
from contextlib import contextmanager

import gdb

from .. import handles
from ..inferior import expressions, memory, symbols
from ..text.names import short_function, short_site
from .calls import datatype_label, symbol_at

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


def path_text(site, chain, name=str):
    """'blacs.c:21 through Cdgerv2d → BI_Srecv' (long chains elided), each
    function as name() gives it."""
    if not chain:
        return site
    shown = [name(n) for n in chain] if len(chain) <= CHAIN_SHOWN else \
        [name(n) for n in chain[:2]] + ["…", name(chain[-1])]
    more = " (%d functions)" % len(chain) if len(chain) > CHAIN_SHOWN else ""
    return "%s through %s%s" % (site, " → ".join(shown), more)


def call_site_text(lwp, call, full=False):
    """'at file:line' of a current call, or for a call made without line
    information 'at BI_Srecv in libscalapack-mpich.so.2.2, called from
    blacs.c:21 through Cdgerv2d → BI_Srecv'; None when nothing is known.
    Long C++ signatures are shortened (text/names.py) unless full."""
    site = symbols.line_site(call.site)
    if site:
        return "at " + site
    found = program_paths({lwp: call.site}).get(lwp)
    code = symbols.symbol_site(call.site)
    name, site_name = (str, str) if full else (short_function, short_site)
    code = site_name(code)
    if found is not None and not found[1]:
        return "at " + found[0]     # through MPI's Fortran binding only
    if found is not None:
        return "at %s, called from %s" % (code or "??", path_text(*found, name=name))
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
