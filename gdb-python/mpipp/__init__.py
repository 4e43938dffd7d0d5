"""mpipp: MPI derived datatypes made visible in gdb.

Floors, each importing only from below (docs/development.md):
  text/        plain text both sides share (command lines, rank sets,
               GDB/MI records, tables); standard library only.
  readers/     gdb-free readers of libmpireg's roots, fed a memory object.
  model/       the datatype model: type trees, typemaps, paths, decoding of
               raw bytes.  Imports nothing from gdb; unit-tested offline.
  the gdb layer:
    inferior/  what every package shares: memory and every cache of it,
               symbols, user expressions, output, gdb commands.
    views.py   one view per libmpireg root, read once per stop.
    handles.py naming communicators, groups, windows and files in every
               listing (comm#3 [dup of MPI_COMM_WORLD, ...]) and taking
               those names back in commands.
    datatypes/ MPI datatypes in gdb: the MPI_Datatype printer, $mpipp
               buffers, the TUI window, the `mpipp` commands (commands/:
               one module per command, named for it: layout.py is `mpipp
               layout`), the settings.
    context/   the communication context: a call described (calls.py),
               the `mpipp context -json` document (document.py), `mpipp
               calls/requests/request/context/comms` (commands/), the
               MPI_Request/Comm/Op printers, buffers decoded in context,
               $mpi_call, the frame filter, the setting.
    io/        MPI-IO: `mpipp file/view` (commands/), the MPI_File printer.
    objects/   groups and RMA windows: `mpipp win` (commands/), the MPI_Win
               and MPI_Group printers.
    frontends/ summary.py: the MI command front ends ask for a printer's
               summary.
  outside gdb:
    job/       mpipp-job, the whole-job console (drives one gdb per rank
               over GDB/MI): console/, link/, node/, analysis/.
    frontends/ relay.py: the relay mpipp-gdb puts between an MI front end
               and gdb.
    record/    `mpipp record`: record files of record and replay.

Importing a module defines it and does nothing else; register() installs
printers, commands, settings and event handlers.
"""

_registered = False
_collection = []


def register():
    """Install mpipp in gdb: the printers where they belong (printing.register:
    libmpireg's objfile when its auto-load script runs, else globally), then,
    once per session, everything _installs() lists, in its order, and the
    words that abbreviate subcommands."""
    global _registered
    import gdb

    from .inferior import printing

    printing.register(_printers(), gdb.current_objfile())
    if _registered:
        return
    _registered = True
    from .inferior.commands import words_over_abbreviations

    for install in _installs():
        install()
    # after every subcommand exists: 'mpipp v buf' decodes the variable v
    words_over_abbreviations("mpipp", "mpipp decode")


def _installs():
    """What mpipp installs in gdb besides its printers, in order: each is
    called once.  Imported here, not at the top: importing mpipp must not
    import gdb (the job console and the unit tests import it without)."""
    from functools import partial

    from . import handles
    from .context import current, frames
    from .context import printers as context_printers
    from .context.commands.calls import CallsCommand
    from .context.commands.comms import CommsCommand, comm_info_lines
    from .context.commands.context import ContextCommand, ContextJsonMICommand
    from .context.commands.request import RequestCommand
    from .context.commands.requests import RequestsCommand
    from .context.settings import ContextSetting
    from .datatypes import buffers, printers, synthetic, tui
    from .datatypes.buffers import MpippFunction
    from .datatypes.commands.decode import DecodeCommand, MpippCommand
    from .datatypes.commands.diff import DiffCommand
    from .datatypes.commands.dump import DumpCommand
    from .datatypes.commands.export import ExportCommand
    from .datatypes.commands.info import InfoCommand
    from .datatypes.commands.layout import LayoutCommand
    from .datatypes.commands.list import ListCommand
    from .datatypes.commands.match import MatchCommand
    from .datatypes.commands.set import SetCommand
    from .datatypes.commands.signature import SignatureCommand
    from .datatypes.commands.typemap import TypemapCommand
    from .datatypes.commands.where import WhereCommand
    from .datatypes.printers import MpippTypeFunction
    from .datatypes.settings import ChunkSetting, MaxDepthSetting
    from .frontends.summary import SummaryCommand
    from .inferior import memory
    from .inferior.commands import settings_prefixes
    from .io import describe as io_describe
    from .io.commands.file import FileCommand
    from .io.commands.view import ViewCommand
    from .objects import describe as objects_describe
    from .objects.commands.win import WinCommand

    return (
        # first: every cache of the inferior is dropped before any other
        # handler of a stop or a memory change runs
        memory.connect_events,
        # what else is kept until objfiles change, or for one stop
        partial(memory.on_objfiles_change, synthetic.forget_type),
        partial(memory.on_objfiles_change, buffers.forget_c_types),
        partial(memory.on_change, context_printers.invalidate),
        # 'set mpipp ...' / 'show mpipp ...'
        settings_prefixes, MaxDepthSetting, ChunkSetting, ContextSetting,
        # the MPI_Datatype a finish returns, known from gdb's events
        printers.RETURNED.connect,
        # the commands: the 'mpipp' prefix before its subcommands
        MpippCommand, DecodeCommand, InfoCommand, TypemapCommand, SignatureCommand, ListCommand,
        WhereCommand, SetCommand, DumpCommand, DiffCommand, LayoutCommand, MatchCommand,
        ExportCommand, CallsCommand, RequestsCommand, RequestCommand, ContextCommand,
        CommsCommand, FileCommand, ViewCommand, WinCommand,
        # what 'mpipp info comm#3' (group#2, win#1, file#1) says of each kind of object
        partial(handles.DESCRIBERS.update, comm=comm_info_lines, file=io_describe.file_info_lines,
                win=objects_describe.win_info_lines,
                group=objects_describe.group_info_lines),
        # MI commands, convenience functions
        ContextJsonMICommand, SummaryCommand, MpippFunction, MpippTypeFunction,
        # $mpi_call, the frame filter, the TUI window
        current.install, frames.install, tui.install,
    )


def _printers():
    """The one collection of mpipp's printers (made once: the same object
    wherever it is registered keeps what the user enabled or disabled),
    its subprinters in the order that decides: values mpipp made, by their
    marker, whatever their type; handles, by their type through typedefs;
    last, any pointer or array that points into a buffer of a current call."""
    if not _collection:
        from .context import printers as context_printers
        from .datatypes import printers as datatype_printers
        from .datatypes import synthetic
        from .inferior import printing
        from .io import printers as io_printers
        from .objects import printers as objects_printers

        _collection.append(printing.Collection(
            synthetic.SUBPRINTERS + datatype_printers.SUBPRINTERS
            + context_printers.HANDLE_SUBPRINTERS + io_printers.SUBPRINTERS
            + objects_printers.SUBPRINTERS + context_printers.BUFFER_SUBPRINTERS))
    return _collection[0]
