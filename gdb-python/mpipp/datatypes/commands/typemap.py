"""`mpipp typemap TYPE [COUNT]`: a datatype's typemap in the MPI standard's
notation, or expanded as JSON."""

from ... import views
from ...inferior.commands import Answer, Command, Text
from ...model import describe, jsonout, typemap
from ..arguments import check_span, count_at, datatype_from


class TypemapCommand(Command):
    """Print a datatype's typemap: mpipp typemap [-json] [-all] TYPE [COUNT]

The typemap in the MPI standard's notation, {(MPI_INT,0), (MPI_DOUBLE,8)},
with long regular runs compressed.  -json gives the fully expanded typemap
(without MPI_LB/MPI_UB markers) and the size and extents; -all lets it
expand more than 2**24 elements (or 1 GiB of data).

Example:
  (gdb) mpipp typemap rowtype
  (gdb) mpipp typemap -json s_type 2"""

    name = "mpipp typemap"
    options = ("-all",)
    takes_json = True
    arity = (1, 2)

    def answer(self, args):
        view = views.registry.require()
        dt = datatype_from(args.words[0], view)
        count = count_at(args.words, 1)

        def document():
            # only the expanded typemap grows with COUNT
            check_span(dt, count, "-all" in args.options)
            return Text(jsonout.typemap_document(describe.extents_of(dt, count),
                                                 typemap.typemap_runs(dt, count)))

        return Answer(document,
                      lambda: [typemap.format_typemap(typemap.typemap_runs(dt, count))])
