"""mpipp: MPI derived datatypes made visible in gdb.

Layout:
  model/       the datatype model: type trees, typemaps, paths, decoding of
               raw bytes.  Imports nothing from gdb; unit-tested offline.
  registry.py  reader of libmpireg's in-memory registry (also gdb-free).
  inferior.py  gdb memory access and per-stop caching of the registry view.
  describe.py  text and JSON descriptions of a datatype (gdb-free).
  printers.py  the MPI_Datatype pretty printer.
  commands.py  the `mpipp` commands.
"""

_registered = False


def register():
    """Install printers, commands and event hooks once per gdb session."""
    global _registered
    if _registered:
        return
    _registered = True
    from . import commands, inferior, printers

    inferior.connect_events()
    printers.install()
    commands.install()
