"""`mpipp request REQ`: a pending request, its buffers decoded."""

import gdb

from ... import views
from ...inferior import expressions
from ...inferior.commands import Answer, Command
from ...readers.errors import MpippError
from ..calls import DONE_AT_ONCE, decode_lines, request_json, request_lines, thread_map


class RequestCommand(Command):
    """Decode a request's buffer: mpipp request [-json] REQ

REQ is a gdb expression giving an MPI_Request (reqs[2], or a pointer to
one).  Prints the call that posted it and its buffers decoded through the
call's datatypes.

Example:
  (gdb) mpipp request reqs[1]"""

    name = "mpipp request"
    takes_json = True
    arity = (1, 1)

    def answer(self, args):
        word = args.words[0]
        view = views.context.require()
        handle = expressions.evaluate_int(word, "request", prepare=request_value)
        key = handle & view.handle_mask["MPI_Request"]
        if key == view.c["MPI_REQUEST_NULL"]:
            raise MpippError("'%s' is MPI_REQUEST_NULL" % word)
        if key in view.done_at_once:
            raise MpippError("'%s' (0x%x) is not pending: %s" % (word, key, DONE_AT_ONCE))
        r = view.request(key)
        if r is None:
            raise MpippError("'%s' (0x%x) is not a pending request: completed, freed, or posted "
                             "without libmpireg" % (word, key))
        lwps = thread_map()
        return Answer(lambda: request_json(view, r, lwps, True),
                      lambda: request_lines(view, r, lwps) + list(decode_lines(view, r.call)))


def request_value(value):
    """An MPI_Request value, following a pointer to one (MPI_Request *)."""
    gdb_type = value.type.strip_typedefs()
    if gdb_type.code == gdb.TYPE_CODE_PTR and expressions.handle_type_name(gdb_type.target(),
                                                                         ("MPI_Request",)):
        return value.dereference()
    return value
