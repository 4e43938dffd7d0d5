"""`mpipp requests`: the pending MPI requests."""

import gdb

from ... import views
from ...inferior.commands import Answer, Command
from ..calls import request_json, request_lines, thread_map


class RequestsCommand(Command):
    """List the pending MPI requests: mpipp requests [-json] [-all]

One entry per request the program posted (Isend, Irecv, I* collectives,
Rput/Rget, persistent requests after Start) and has not completed or freed
yet: the call that posted it with its buffer, count, datatype, peer, tag and
communicator, its state, and where it was posted (file:line).  -all also
lists inactive persistent requests.  'mpipp request REQ' decodes one.

Example:
  (gdb) mpipp requests
  request 0x2c000001: MPI_Irecv(buf=0x..., count=3, datatype=row_t, source=1, tag=5, comm=MPI_COMM_WORLD) pending
      posted at requests.c:40, by thread 1"""

    name = "mpipp requests"
    options = ("-all",)
    takes_json = True
    completer = gdb.COMPLETE_NONE

    def answer(self, args):
        view = views.context.require()
        lwps = thread_map()
        requests = [r for r in reversed(view.requests()) if r.active or "-all" in args.options]
        return Answer(lambda: {"requests": [request_json(view, r, lwps, False) for r in requests],
                               "updating": view.updating},
                      lambda: requests_lines(view, requests, lwps))


def requests_lines(view, requests, lwps):
    lines = []
    if view.updating:
        lines.append("warning: the request list is being updated; it may be incomplete")
    for r in requests:
        lines.extend(request_lines(view, r, lwps))
    if not requests:
        lines.append("no pending requests")
    return lines
