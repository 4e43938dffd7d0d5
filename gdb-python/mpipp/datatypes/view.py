"""The registry of the selected inferior, read once per stop.

One Registry view is kept per inferior and dropped whenever the inferior may
have changed (it ran, a new objfile appeared, memory was written), so every
stop reads the registry afresh but repeated prints at one stop cost nothing.
"""

import gdb

from .. import inferior
from .arguments import datatype_from
from .registry import Registry, RegistryError
from ..model import datatype
from ..model.errors import ModelError

ROOT_SYMBOL = "mpireg_root"
NOT_LOADED = ("mpipp: libmpireg is not loaded in this process, so MPI datatypes print as raw "
              "handles. Start it with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, or link "
              "-lmpireg before -lmpi.")

_views = inferior.StopViews(ROOT_SYMBOL, Registry)
_noticed = set()


def registry(quiet=False):
    """The registry of the selected inferior; None (after one notice) when absent.

    Raises RegistryError when the registry exists but cannot be trusted.
    """
    view = _views.get()
    inf = gdb.selected_inferior()
    key = (inf.num, inf.pid)
    if view is None and not quiet and key not in _noticed:
        _noticed.add(key)
        gdb.write(NOT_LOADED + "\n", gdb.STDERR)
    return view


def text_of(value):
    """The text of a string value (a literal such as "vector#1", or a char
    array), or None for any other value."""
    gdb_type = value.type.strip_typedefs()
    if gdb_type.code == gdb.TYPE_CODE_STRING or gdb_type.code == gdb.TYPE_CODE_ARRAY and \
            gdb_type.target().strip_typedefs().code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR) \
            and gdb_type.target().sizeof == 1:
        try:
            return value.string(length=min(gdb_type.sizeof, 256)).rstrip("\0 ")
        except (gdb.error, UnicodeDecodeError):
            pass
        try:  # a Fortran CHARACTER literal: gdb prints it quoted, 'fvec'
            shown = value.format_string(raw=True)
        except gdb.error:
            return None
        if len(shown) >= 2 and shown[0] == shown[-1] and shown[0] in "'\"":
            return shown[1:-1].rstrip()
    return None


def require_datatype(value, what):
    """The registered Datatype a gdb value names -- a handle, or a string
    holding any TYPE the commands take ("vector#1", "halo_t", "MPI_INT":
    gdb's parser refuses a bare vector#1) -- or a one-line gdb error (`what`
    names the caller: "$mpipp")."""
    view = require_registry()
    text = text_of(value)
    if text is not None:
        return datatype_from(text, view)
    handle = inferior.value_int(value, "%s: TYPE" % what)
    if view.datatype_null is not None and view.key(handle) == view.datatype_null:
        raise gdb.GdbError("mpipp: %s: TYPE is MPI_DATATYPE_NULL" % what)
    try:
        dt = view.lookup(handle)
    except ModelError as err:
        raise gdb.GdbError("mpipp: %s" % err) from None
    if dt is None:
        raise gdb.GdbError("mpipp: %s: handle 0x%x is not a registered datatype"
                           % (what, view.key(handle)))
    return dt


def require_registry():
    """The registry, or a one-line gdb error saying why there is none."""
    try:
        view = registry(quiet=True)
    except RegistryError as err:
        raise gdb.GdbError("mpipp: %s" % err) from None
    if view is None:
        raise gdb.GdbError(NOT_LOADED)
    return view


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
    inferior.add_setting("max-depth", MaxDepthParameter)
