"""The wait-for graph of a job, its deadlocks, and how sure the verdict is
(gdb-free).

Each rank's condition to make progress is built from what its threads are
doing in MPI (world.py):

* a receive or probe from A completes with a message A sent that this rank
  did not receive yet -- in flight: libmpireg counts both ends (A's
  messages started minus the ones this rank matched, less those that
  receives it posted earlier will take) -- or when A posts a matching send;
  from MPI_ANY_SOURCE, when any member of the communicator does;
* a send to B needs B to post a matching receive, unless B matched it
  already; a buffered send needs nothing, and a standard one nothing when
  the MPI sends it eagerly (small messages: it depends on the MPI's eager
  threshold, and the verdict says so);
* a collective needs every member of the communicator at the same
  collective (the n-th on that communicator: libmpireg numbers them); an RMA
  fence the window's group at the same fence; PSCW epochs their peers'
  matching epochs; locks their holders' unlocks;
* Wait/Test calls need all (Waitall, Testall) or any (Waitany, Waitsome,
  Testany, Testsome) of their requests; a thread polling with Test or
  Iprobe waits for what it polls;
* a thread outside MPI can still do anything; a rank that exited never acts
  again; a call the model does not know is named, and taken as able to
  complete.

A rank is released when its condition holds for the ranks released so far:
a fixpoint over AND/OR conditions, linear in their size.  A receive from
any rank and a collective wait on a group (one node shared by every rank
that waits on it), so the size grows with the edges, not with ranks².  The
fixpoint runs twice: as the ranks stand now (a thread stopped at a
breakpoint before its call blocked, or polling between calls, can still do
anything) and as if every rank continued into the call it stopped in.
Ranks never released are deadlocked -- blocked for good in the first case,
would deadlock in the second -- and their unmet needs are the edges of the
wait-for graph, whose strongly connected components give the cycles.

The analysis (analysis.py: the conditions of conditions.py, the fixpoint
of fixpoint.py, the cycles of cycles.py) produces plain data, a WaitFor;
report.py words it: the lines `waits` prints and its -json document.
"""
