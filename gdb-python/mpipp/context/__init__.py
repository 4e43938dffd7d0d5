"""The communication context: what each rank is doing inside MPI.

  calls.py     an MPI call described: its arguments, its buffers decoded, as
               text and as JSON; the requests it waits for
  stacks.py    what the threads' stacks add: a call not recorded yet (a
               thread in a wrapper), where a call came from in the program
  document.py  the `mpipp context -json` document mpipp-job asks every rank for
  commands/    `mpipp calls`, `requests`, `request`, `context`, `comms`
  settings.py  `set mpipp context`
  printers.py, frames.py, current.py: the MPI_Request/Comm/Op printers and
               buffers decoded in context, the frame filter, $mpi_call
"""
