"""mpipp: MPI derived datatypes made visible in gdb.

Layout:
  model/       the datatype model: type trees, typemaps, paths, decoding of
               raw bytes.  Imports nothing from gdb; unit-tested offline.
  registry.py  reader of libmpireg's in-memory registry (also gdb-free).
  inferior.py  gdb memory access and per-stop caching of the registry view.
  describe.py  text and JSON descriptions of a datatype (gdb-free).
  printers.py  the MPI_Datatype pretty printer.
  commands.py  the `mpipp` commands.
  synthetic.py values that stand for Python objects (MI children, nodes).
  buffers.py   $mpipp(TYPE, ADDR [, COUNT]): a buffer as an expandable value.
  tui.py       the `mpipp` TUI window (tui new-layout mpipp ...).
  context.py   reader of libmpireg's communication context (gdb-free): the
               MPI call each thread is in, pending requests, comms, ops.
  context_commands.py  `mpipp calls`, `mpipp requests`, `mpipp request`,
               `set mpipp context`.
  context_printers.py  MPI_Request/MPI_Comm/MPI_Op printers; buffers of MPI
               calls decoded in context when printed.
"""

_registered = False


def register():
    """Install printers, commands and event hooks once per gdb session."""
    global _registered
    if _registered:
        return
    _registered = True
    from . import buffers, commands, inferior, printers, synthetic, tui

    inferior.connect_events()
    gdb_module().pretty_printers.append(synthetic.lookup)
    printers.install()
    commands.install()
    buffers.install()
    tui.install()
    from . import context_commands, context_printers
    context_commands.install()
    context_printers.install()


def gdb_module():
    import gdb
    return gdb
