"""`mpipp list`: every live registered datatype, one line each."""

import gdb

from ... import views
from ...inferior import symbols
from ...inferior.commands import Answer, Command
from ...model import describe
from ...readers.errors import MpippError


class ListCommand(Command):
    """List every live registered datatype: mpipp list [-json] [-all]

One line per type: handle, name, combiner, size, extent, creation site (read
from each type's record alone: a line costs the same for any type).  A
record mpipp cannot read is one line saying why.
Types MPI itself creates inside its calls (ROMIO's and OMPIO's helper types
during MPI-IO) are left out; -all lists them too, marked "(MPI's own)".

Example:
  (gdb) mpipp list"""

    name = "mpipp list"
    options = ("-all",)
    takes_json = True
    completer = gdb.COMPLETE_NONE

    def answer(self, args):
        rows = list_rows(views.registry.require(), "-all" in args.options)
        return Answer(lambda: {"types": rows}, lambda: describe.list_lines(rows))


def list_rows(view, with_mpi_own):
    """A row per live type (the types MPI made for itself with_mpi_own only)."""
    rows = []
    for address in view.live_records():
        try:
            mpi_own = view.built_by_mpi(address)
            if mpi_own and not with_mpi_own:
                continue
            rows.append(describe.list_row(view.summary_at(address), symbols.creation_site,
                                          mpi_own))
        except MpippError as err:   # one bad record is one line, not the end of the list
            rows.append(describe.error_row(address, err))
    return rows
