"""`mpipp context`: this process's place in the MPI job, in a few lines or
as the document mpipp-job asks each rank for (context/document.py); and
-mpipp-context-json FILE, the same document asked over MI."""

import gdb

from ... import views
from ...inferior import output
from ...inferior.commands import Answer, Command, Text
from ...text.args import ArgError
from ..document import context_json, context_json_text


class ContextCommand(Command):
    """This process's place in the MPI job: mpipp context [-json [FILE]]

Its rank in MPI_COMM_WORLD, what each thread is doing in MPI, how many
requests are pending, its communicators and the datatypes its current
calls use.  -json gives everything with raw values (peers, tags, handles,
the datatypes as lossless trees): the document mpipp-job asks each rank
for, written to FILE when one is given.

Example:
  (gdb) mpipp context
  rank 2 of 4 in MPI_COMM_WORLD, process 4242"""

    name = "mpipp context"
    takes_json = True
    json_file = True
    completer = gdb.COMPLETE_NONE

    def answer(self, args):
        return Answer(lambda: Text((context_json_text(),)),
                      lambda: summary_lines(context_json(views.context.require(), with_text=True)))


def summary_lines(doc):
    """The few lines `mpipp context` says of the document (made with its text)."""
    where = ("rank %d of %d in MPI_COMM_WORLD" % (doc["rank"], doc["size"])
             if doc["rank"] is not None else "not in MPI_COMM_WORLD yet (before MPI_Init)")
    in_mpi = [t for t in doc["threads"] if t["in_mpi"]]
    yield "%s, process %s" % (where, doc["pid"] or "?")
    yield "threads that called MPI: %d, %d inside an MPI call" % (len(doc["threads"]),
                                                                   len(in_mpi))
    for t in in_mpi:
        yield "  LWP %d: %s" % (t["lwp"], t["call"]["text"] if t["call"] else
                                "entering an MPI call")
    yield "pending requests: %d" % len(doc["requests"])
    yield "communicators: %d (%s)" % (len(doc["comms"]), ", ".join(
        c["label"] for c in doc["comms"]))
    yield "datatypes in use: %d" % len(doc["types"]["roots"])


class ContextJsonMICommand(gdb.MICommand):
    """-mpipp-context-json FILE: `mpipp context -json FILE` as an MI command,
    the way mpipp-job asks every rank at each `calls`, `waits` and `check`:
    gdb runs a CLI command over MI (-interpreter-exec console) at twice the
    CPU of the command itself."""

    def __init__(self):
        super().__init__("-mpipp-context-json")

    @output.one_line_errors
    def invoke(self, argv):
        if len(argv) != 1:
            raise ArgError("usage: -mpipp-context-json FILE")
        output.write_json_text(context_json_text(), argv[0])
