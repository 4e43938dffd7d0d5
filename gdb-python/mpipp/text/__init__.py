"""Plain text both sides of mpipp share: what the gdb layer writes and the
job console reads or writes alike.  Standard library only; imports nothing
else of mpipp.

  args.py    splitting a command line into gdb expressions, options and a format
  ranks.py   rank sets as mpiexec writes them (0-3,5) and the [RANKS] headers
  mi.py      GDB/MI output records: parsing and quoting
  tables.py  aligned text tables
  labels.py  communicators and windows named and described from plain values
  names.py   C++ function names and sites shortened past a width, for text
"""
