"""`set mpipp max-depth`: how deep a datatype mpipp shows may be."""

import gdb

from ..inferior import commands
from ..model import datatype


class MaxDepthParameter(gdb.Parameter):
    """How many levels deep a datatype mpipp shows may be (1 to 2000).

MPI accepts types nested any number of levels deep; mpipp's walks of the
type tree take a few frames per level, so a deeper type is refused in one
line ("datatype too deep to show: more than 1000 levels (set mpipp
max-depth, up to 2000)") instead of risking gdb's stack.  2000 is the most
mpipp is tested with (tests/frontends/test_fe_extremes.py)."""

    set_doc = "Set how many levels deep a datatype mpipp shows may be."
    show_doc = "Show how many levels deep a datatype mpipp shows may be."

    def __init__(self):
        super().__init__("mpipp max-depth", gdb.COMMAND_DATA, gdb.PARAM_ZUINTEGER)
        self.value = datatype.max_depth()

    def get_set_string(self):
        try:
            datatype.set_max_depth(int(self.value))
        except ValueError as err:
            self.value = datatype.max_depth()
            raise gdb.GdbError("mpipp: %s" % err) from None
        return ""

    def get_show_string(self, svalue):
        return "Datatypes up to %s levels deep are shown." % svalue


def install():
    commands.add_setting("max-depth", MaxDepthParameter)
