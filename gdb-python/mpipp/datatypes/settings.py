"""The settings of datatypes and buffers: `set mpipp max-depth`, how deep a
datatype mpipp shows may be; `set mpipp mi-chunk`, how $mpipp values group
their children."""

import gdb

from ..inferior.commands import Setting
from ..model import datatype


class MaxDepthSetting(Setting):
    """How many levels deep a datatype mpipp shows may be (1 to 2000).

MPI accepts types nested any number of levels deep; mpipp's walks of the
type tree take a few frames per level, so a deeper type is refused in one
line ("datatype too deep to show: more than 1000 levels (set mpipp
max-depth, up to 2000)") instead of risking gdb's stack.  2000 is the most
mpipp is tested with (tests/frontends/test_fe_extremes.py)."""

    name = "max-depth"
    kind = gdb.PARAM_ZUINTEGER
    default = datatype.DEFAULT_MAX_DEPTH
    set_doc = "Set how many levels deep a datatype mpipp shows may be."
    show_doc = "Show how many levels deep a datatype mpipp shows may be."
    shown = "Datatypes up to %s levels deep are shown."

    def get_set_string(self):
        try:
            datatype.set_max_depth(int(self.value))
        except ValueError as err:
            self.value = datatype.max_depth()
            raise gdb.GdbError("mpipp: %s" % err) from None
        return ""


class ChunkSetting(Setting):
    """Children per level of an $mpipp buffer value before they are grouped into ranges.

A stage of the type tree with more children than this shows them as index
ranges ([0..999], [1000..1999], ...), nested as deep as needed, so that
front ends which list every child of a value stay fast.  0 means never
group (then ask MI for ranges: -var-list-children VAR FROM TO)."""

    name = "mi-chunk"
    kind = gdb.PARAM_ZUINTEGER
    default = 1000
    set_doc = "Set the number of children per level of $mpipp values before grouping."
    show_doc = "Show the number of children per level of $mpipp values before grouping."
    shown = "$mpipp values group children in ranges beyond %s per level."
