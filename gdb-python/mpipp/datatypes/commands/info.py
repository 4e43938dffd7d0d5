"""`mpipp info TYPE|OBJECT`: how a datatype was built, all of it; or what a
communicator, group, window or file named as listings name it is."""

from ... import handles, views
from ...inferior import symbols
from ...inferior.commands import Answer, Command
from ...model import describe
from .. import tui
from ..arguments import NOT_A_DATATYPE, datatype_from


class InfoCommand(Command):
    """Describe an MPI datatype fully: mpipp info [-json] TYPE|OBJECT

Shows how TYPE was built (combiner and every parameter), its name, committed
state, size, lb, extent, true lb and true extent, where it was created, and
its child datatypes, nested; for a predefined type its size, extents and
the C and Fortran types of one element.  OBJECT is a communicator, group,
window or file as listings name it (comm#3, group#2, win#1, file#1, or a
name given with MPI_Comm_set_name / MPI_Win_set_name): what it is.

Example:
  (gdb) mpipp info halo_t
  (gdb) mpipp info -json types[3]"""

    name = "mpipp info"
    takes_json = True
    arity = (1, 1)

    def answer(self, args):
        word = args.words[0]
        # Objects have lines, not documents: with -json a word is a TYPE.
        if handles.LABEL.match(word) and not args.json:
            return Answer(lines=lambda: handles.describe(word))
        view = views.registry.require()
        try:
            dt = datatype_from(word, view)
        except NOT_A_DATATYPE:
            lines = handles.describe(word) if not args.json else None
            if lines is None:
                raise
            return Answer(lines=lambda: lines)
        tui.shown(kind="type", label=word, dt=dt)
        return Answer(lambda: describe.as_json(dt, view, symbols.creation_site),
                      lambda: describe.info_lines(dt, view, symbols.site_text))
