"""`mpipp match TYPE1 COUNT1 TYPE2 COUNT2`: would a send of COUNT1 × TYPE1 be
received correctly as COUNT2 × TYPE2?  MPI's type-matching rule checked
inside one process (the job console's `check` applies the same model code,
mpipp.model.match, across ranks)."""

from ... import views
from ...inferior.commands import Answer, Command
from ...model import typemap
from ...model.match import element_json, match_signatures, verdict_text
from ..arguments import count_from, datatype_from


class MatchCommand(Command):
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

    name = "mpipp match"
    takes_json = True
    arity = (4, 4)

    def answer(self, args):
        words = args.words
        view = views.registry.require()
        dt_a, dt_b = datatype_from(words[0], view), datatype_from(words[2], view)
        count_a, count_b = count_from(words[1]), count_from(words[3])
        m = match_signatures(dt_a, count_a, dt_b, count_b)
        n_a, n_b = typemap.n_elements(dt_a, count_a), typemap.n_elements(dt_b, count_b)
        return Answer(
            lambda: {"verdict": m.verdict, "index": m.index, "elements": [n_a, n_b],
                     "first": element_json(m.first), "second": element_json(m.second)},
            lambda: [verdict_text(m, "%s × %d" % (words[0], count_a), n_a,
                                  "%s × %d" % (words[2], count_b), n_b)])
