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
    datatypes/ MPI datatypes in gdb: descriptions, the MPI_Datatype printer,
               the `mpipp` commands, $mpipp buffers, the TUI window.
    context/   the communication context: `mpipp calls/requests/request/
               context/comms`, MPI_Request/Comm/Op printers, buffers decoded
               in context, $mpi_call, the frame filter.
    io/        MPI-IO: `mpipp file/view`, the MPI_File printer.
    objects/   groups and RMA windows: `mpipp win`, the MPI_Win and
               MPI_Group printers.
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
    """Install printers, commands and event handlers: the printers where
    they belong (printing.register: libmpireg's objfile when its auto-load
    script runs, else globally), the rest once per gdb session."""
    global _registered
    import gdb

    from .inferior import printing

    printing.register(_printers(), gdb.current_objfile())
    if _registered:
        return
    _registered = True

    from .context import commands as context_commands
    from .context import current, frames
    from .context import printers as context_printers
    from .context import state
    from .datatypes import (buffers, commands, dumps, edit, export, match, pictures, printers,
                            settings, synthetic, tui)
    from .frontends import summary
    from .inferior import commands as gdb_commands
    from .inferior import memory
    from .io import commands as io_commands
    from .objects import commands as objects_commands

    memory.connect_events()
    synthetic.install()
    settings.install()
    printers.install()
    commands.install()
    edit.install()
    dumps.install()
    pictures.install()
    buffers.install()
    tui.install()
    context_commands.install()
    context_printers.install()
    match.install()
    export.install()
    state.install()
    current.install()
    frames.install()
    io_commands.install()
    objects_commands.install()
    summary.install()
    gdb_commands.words_over_abbreviations("mpipp", "mpipp decode")


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
