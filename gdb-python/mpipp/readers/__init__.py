"""Readers of libmpireg's roots: gdb-free, fed a memory object.

Each reader sees the inferior only through `memory.read(address, length)`
(bytes, or ReadError), so it works the same on a live process, an attached
one, a core file and through gdbserver, and is unit-tested on fake memory.
Everything read is untrusted: sizes are capped, chains bounded, and every
failure is one line (an MpippError).

  errors.py    MpippError (every one-line error of mpipp), ReadError
  remote.py    what every reader shares: reads with one-line errors,
               strings, a root's (name, value) constants table
  readlog.py   the reads a stop made, and whether they would read the same
  registry.py  the datatype registry (libmpireg/mpireg.h): its records
  context.py   the communication context (calls.h): calls, requests, comms
  channels.py  messages and collectives counted per channel (channels.h)
  files.py     MPI-IO: open files, views, file pointers (files.h)
  objects.py   groups and RMA windows (objects.h)
"""
