"""The MPI call's own arguments wherever gdb lists frames.

Inside a library's MPI call, the frame of libmpireg's wrapper (and MPI's
own function under it) shows `buf=<optimized out>, ...`: the wrapper is
optimized and MPI has no debug information.  A frame filter decorates
those frames with the arguments from libmpireg's call record, named and
labelled as `mpipp calls` writes them:

    #1  MPI_Recv (buf=0x7ffe..., count=1, datatype=vector#1, source=0,
        tag=7, comm=comm#2 [dup of MPI_COMM_WORLD, rank 1 of 4]) at wrappers.c:2844

It applies where gdb applies frame filters: `bt`, and over MI
-stack-list-frames / -stack-list-arguments (after -enable-frame-filters,
which Emacs and VS Code send).  `frame` and `info frame` do not consult
frame filters: there $mpi_call (current.py) has the same arguments.
It is enabled only while the selected thread is inside an MPI call
(elsewhere backtraces are gdb's own); `disable frame-filter global mpipp`
turns it off.
"""

import gdb
from gdb.FrameDecorator import FrameDecorator

from .. import views
from ..datatypes import synthetic
from ..inferior import memory
from ..model.datatype import with_room_for_deep_trees
from .calls import call_args

NAME = "mpipp"


class _Argument:
    """One decorated argument: its name and a value that prints as text."""

    def __init__(self, name, text):
        self.name = name
        self.text = text

    def symbol(self):
        return self.name

    def value(self):
        return synthetic.text(self.text)


class CallFrame(FrameDecorator):
    """A frame of the current MPI call, with the call record's arguments."""

    def __init__(self, base, arguments):
        super().__init__(base)
        self.arguments = arguments

    def frame_args(self):
        return [_Argument(name, text) for name, text in self.arguments]


class UnnamedFrame(FrameDecorator):
    """A frame gdb has no symbol for, named '??' as gdb's own backtrace names
    it (a frame filter's frames otherwise print an empty name)."""

    def function(self):
        return "??"


def _call_frames(frames, names, arguments):
    for decorator in frames:
        try:
            name = decorator.inferior_frame().name()
        except (gdb.error, RuntimeError):
            name = None
        if name in names:
            yield CallFrame(decorator, arguments)
        elif name is None and isinstance(decorator.function(), int):
            yield UnnamedFrame(decorator)
        else:
            yield decorator


def frame_names(function):
    """The functions whose frames belong to an MPI call: libmpireg's
    wrapper and MPI's own (PMPI_), and their Fortran entry points
    (mpi_send_, pmpi_send_; MPICH's bindings add a second underscore)."""
    fortran = function.lower()
    return {function, "P" + function, fortran + "_", "p" + fortran + "_", "p" + fortran + "__"}


def _current():
    """(Context, Call) of the selected thread's MPI call, or None."""
    try:
        return views.current_call() if memory.has_process() else None
    except Exception:  # noqa: BLE001 - a backtrace never fails because of mpipp
        return None


class CallFrameFilter:
    """Decorates the frames named after the selected thread's current MPI
    call (libmpireg's MPI_X wrapper and MPI's PMPI_X under it).

    It is enabled only while that thread is inside a recorded MPI call: gdb
    prints every frame through Python as soon as one frame filter is
    enabled, which also shows a library frame's file as 'at lib.so' rather
    than 'from lib.so'; elsewhere backtraces stay gdb's own."""

    def __init__(self):
        self.name = NAME
        self.priority = 100
        self.chosen = True
        gdb.frame_filters[self.name] = self

    @property
    def enabled(self):
        return self.chosen and _current() is not None

    @enabled.setter
    def enabled(self, value):
        """'enable/disable frame-filter global mpipp'."""
        self.chosen = bool(value)

    @with_room_for_deep_trees  # a call's arguments name its datatypes: the model walks them
    def filter(self, frames):
        found = _current()
        if found is None:
            return frames
        view, call = found
        try:
            arguments = call_args(view, call)
        except Exception:  # noqa: BLE001 - a backtrace never fails because of mpipp
            return frames
        return _call_frames(frames, frame_names(call.func), arguments)


def install():
    CallFrameFilter()
