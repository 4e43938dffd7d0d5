"""The communication context of the selected inferior, read once per stop."""

import gdb

from .. import inferior
from ..model.errors import ModelError
from .reader import Context

ROOT_SYMBOL = "mpireg_comm_root"
NOT_LOADED = ("mpipp: libmpireg's communication context is not in this process (libmpireg "
              "not loaded, or too old); start the program with scripts/mpipp-gdb, "
              "LD_PRELOAD=libmpireg.so, or link -lmpireg before -lmpi")

_views = inferior.StopViews(ROOT_SYMBOL, Context)


def context():
    """The Context of the selected inferior, or None (absent, no process, or
    unreadable: require_context says why); read once per stop."""
    try:
        return _views.get()
    except ModelError:
        return None


def require_context():
    """The Context, or a one-line gdb error saying why there is none."""
    try:
        view = _views.get()
    except ModelError as err:
        raise gdb.GdbError("mpipp: %s" % err) from None
    if view is None:
        raise gdb.GdbError(NOT_LOADED)
    return view


def clear():
    _views.clear()
