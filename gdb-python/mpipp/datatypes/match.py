"""`mpipp match TYPE1 COUNT1 TYPE2 COUNT2`: would a send of COUNT1 × TYPE1 be
received correctly as COUNT2 × TYPE2?  MPI's type-matching rule checked
inside one process (the job console's `check` applies the same model code,
mpipp.model.match, across ranks)."""

import json

import gdb

from .. import views
from ..inferior import output
from ..model import typemap
from ..model.match import element_json, match_signatures, verdict_text
from ..text import args as argparse_
from .arguments import count_from, datatype_from

USAGE = "usage: mpipp match [-json] TYPE1 COUNT1 TYPE2 COUNT2"


class MatchCommand(gdb.Command):
    """Check MPI type matching of two buffers: mpipp match [-json] TYPE1 COUNT1 TYPE2 COUNT2

MPI requires the type signature of a send (COUNT1 × TYPE1) to be a prefix
of the matching receive's (COUNT2 × TYPE2), and equal for most collectives.
Says whether the signatures are equal, the first a prefix of the second,
the first longer (the receive would truncate), or where they first differ,
naming that element by its type-tree path on each side.  Signatures are
compared in compressed form: millions of elements cost what the types cost.

Example:
  (gdb) mpipp match particle_t 1 wire_t 2
  mismatch at element 1: [0][1][0] MPI_DOUBLE vs [0][0][1] MPI_INT"""

    def __init__(self):
        super().__init__("mpipp match", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) != 4:
            raise gdb.GdbError("mpipp: " + USAGE)
        view = views.registry.require()
        dt_a, dt_b = datatype_from(words[0], view), datatype_from(words[2], view)
        count_a, count_b = count_from(words[1]), count_from(words[3])
        m = match_signatures(dt_a, count_a, dt_b, count_b)
        n_a, n_b = typemap.n_elements(dt_a, count_a), typemap.n_elements(dt_b, count_b)
        if "-json" in opts:
            gdb.write(json.dumps({"verdict": m.verdict, "index": m.index,
                                  "elements": [n_a, n_b], "first": element_json(m.first),
                                  "second": element_json(m.second)}) + "\n")
            return
        gdb.write(verdict_text(m, "%s × %d" % (words[0], count_a), n_a,
                               "%s × %d" % (words[2], count_b), n_b) + "\n")


def install():
    MatchCommand()
