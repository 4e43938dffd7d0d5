"""Records of MPI's choices (libmpireg with MPIPP_RECORD=DIR; docs/replay.md).

  reader.py   the record files (libmpireg/replay/record.h): headers, events, where a
              cut record ends.  gdb-free.
  sites.py    call sites to file:line through the ranks' memory maps and
              addr2line.  gdb-free.
  races.py    the message races of a recorded run (Netzer-Miller): each
              wildcard receive or probe another message could have matched.
              gdb-free.
  cli.py      `mpipp record DIR` and `mpipp races DIR` (scripts/mpipp).
"""
