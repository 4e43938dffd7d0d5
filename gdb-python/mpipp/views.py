"""What mpipp reads of libmpireg at a stop: one view per root, one shape.

Each root libmpireg publishes is read by its gdb-free reader (readers/,
the registry through model.registry.TypeRegistry) into one view per
inferior, made on first use at a stop and dropped whenever the inferior may
have changed (inferior.memory.on_change), so every stop reads afresh and
repeated prints at one stop cost nothing.  Every view answers the same way:

    views.context.get()      the view; None when libmpireg has no such root;
                             the reader's one-line error (an MpippError)
                             when it cannot be trusted; NoProcess
    views.context.find()     the view, or None (absent, unreadable, no
                             process): for printers and listings
    views.context.require()  the view, or a one-line gdb error saying why not

and current_call() is the call the selected thread is inside.
"""

import gdb

from .inferior.memory import GdbMemory, NoProcess, has_process, lwp_of, on_change, stop_log
from .inferior.symbols import symbol_address
from .model.registry import TypeRegistry
from .readers import readlog
from .readers.channels import Channels
from .readers.context import Context
from .readers.errors import MpippError
from .readers.files import Files
from .readers.objects import Objects

NOT_LOADED = ("mpipp: libmpireg's %s is not in this process (libmpireg not loaded, or too "
              "old); start the program with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, or "
              "link -lmpireg before -lmpi")
REGISTRY_NOT_LOADED = ("mpipp: libmpireg is not loaded in this process, so MPI datatypes print "
                       "as raw handles. Start it with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, "
                       "or link -lmpireg before -lmpi.")


class StopView:
    """The view a reader makes of a libmpireg root (make(memory, address)),
    one per inferior: made on first use at a stop, dropped whenever the
    inferior may have changed (on_change).  `absent` is the error require()
    gives when the root is not in the process."""

    def __init__(self, root_symbol, make, absent):
        self.root_symbol = root_symbol
        self.make = make
        self.absent = absent
        self._views = {}
        on_change(self.clear)

    def clear(self, *_event):
        self._views.clear()

    def get(self):
        """The view of the selected inferior, None when the root symbol is
        absent; raises the reader's one-line error (an MpippError), which is
        kept like a view: printers ask for every value gdb prints; NoProcess
        when there is no process to read."""
        inf = gdb.selected_inferior()
        if not has_process(inf):
            raise NoProcess()
        key = (inf.num, inf.pid)
        if key not in self._views:
            address = symbol_address(self.root_symbol)
            memory = readlog.LoggedMemory(GdbMemory(inf), stop_log(inf))
            try:
                self._views[key] = None if address is None else self.make(memory, address)
            except MpippError as err:
                self._views[key] = err
        view = self._views[key]
        if isinstance(view, MpippError):
            raise view.with_traceback(None)
        return view

    def find(self):
        """The view, or None when there is none (absent, unreadable, no
        process): for printers and listings that do without it."""
        try:
            return self.get()
        except MpippError:
            return None

    def require(self):
        """The view, or a one-line gdb error saying why there is none."""
        try:
            view = self.get()
        except MpippError as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        if view is None:
            raise gdb.GdbError(self.absent)
        return view


registry = StopView("mpireg_root", TypeRegistry, REGISTRY_NOT_LOADED)
context = StopView("mpireg_comm_root", Context, NOT_LOADED % "communication context")
channels = StopView("mpireg_chan_root", Channels, NOT_LOADED % "channel counters")
files = StopView("mpireg_io_root", Files, NOT_LOADED % "MPI-IO state")
objects = StopView("mpireg_obj_root", Objects, NOT_LOADED % "table of groups and windows")


def current_call():
    """(Context, Call) of the call the selected thread is inside, or None
    (no call, its record being written, or libmpireg's start-up probe)."""
    view = context.find()
    thread = gdb.selected_thread()
    if view is None or thread is None:
        return None
    try:
        lwp = lwp_of(thread)
        for slot in view.threads():
            if slot.tid == lwp:
                if slot.active and not slot.torn and not slot.call.probe:
                    return view, slot.call
                return None
    except MpippError:
        return None
    return None

