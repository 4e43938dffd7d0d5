"""mpipp: MPI derived datatypes made visible in gdb.

Layout (one package per concern above the gdb-free model):
  model/       the datatype model: type trees, typemaps, paths, decoding of
               raw bytes.  Imports nothing from gdb; unit-tested offline.
  remote.py    reading libmpireg's self-describing tables (gdb-free).
  args.py      splitting command lines into expressions and options.
  inferior.py  the shared gdb layer: memory reads, print limits, batched
               output, one-line errors, per-stop invalidation.
  datatypes/   MPI datatypes in gdb: the registry reader (gdb-free),
               descriptions (gdb-free), the MPI_Datatype printer, the
               `mpipp` commands, $mpipp buffers, the TUI window.
  context/     the communication context: its reader (gdb-free), `mpipp
               calls/requests/request/context/comms`, MPI_Request/Comm/Op
               printers and buffers decoded in context.
  job/         mpipp-job, the whole-job console (runs outside gdb, drives one
               gdb per rank over GDB/MI); its merging, wait-for graph and
               cross-rank type checks are gdb-free.
  io/          MPI-IO: open files, their views and individual file pointers
               (reader and file-view model gdb-free), `mpipp file/view`,
               the MPI_File printer.
  objects/     groups and RMA windows (reader gdb-free), `mpipp win`, the
               MPI_Win and MPI_Group printers.
  frontends/   MI front ends: the relay mpipp-gdb puts between a front end
               and gdb (runs outside gdb; shows pretty-printed variable
               objects to adapters that read only numchild), and the MI
               command it asks gdb for a printer's summary.
  handles.py   naming communicators, groups, windows and files in every
               listing (comm#3 [dup of MPI_COMM_WORLD, ...]) and taking
               those names back in commands.
"""

_registered = False


def register():
    """Install printers, commands and event hooks once per gdb session."""
    global _registered
    if _registered:
        return
    _registered = True
    import gdb

    from . import inferior
    from .datatypes import (buffers, commands, dumps, edit, export, match, pictures, printers,
                            synthetic, tui, view)
    from .context import (commands as context_commands, current, frames,
                          printers as context_printers, state)
    from .io import commands as io_commands, printers as io_printers
    from .objects import commands as objects_commands, printers as objects_printers
    from .frontends import summary

    inferior.connect_events()
    gdb.pretty_printers.append(synthetic.lookup)
    view.install()
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
    io_printers.install()
    objects_commands.install()
    objects_printers.install()
    summary.install()
    inferior.words_over_abbreviations("mpipp", "mpipp decode")
