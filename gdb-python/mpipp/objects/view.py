"""The groups and RMA windows of the selected inferior, read once per stop."""

import gdb

from .. import inferior
from ..model.errors import ModelError
from .reader import Objects

ROOT_SYMBOL = "mpireg_obj_root"
NOT_LOADED = ("mpipp: libmpireg's table of groups and windows is not in this process "
              "(libmpireg not loaded, or too old); start the program with scripts/mpipp-gdb, "
              "LD_PRELOAD=libmpireg.so, or link -lmpireg before -lmpi")

_views = inferior.StopViews(ROOT_SYMBOL, Objects)


def objects(strict=False):
    """The Objects view of the selected inferior, or None when there is none
    (strict: a one-line gdb error saying why)."""
    try:
        view = _views.get()
    except ModelError as err:
        if strict:
            raise gdb.GdbError("mpipp: %s" % err) from None
        return None
    if view is None and strict:
        raise gdb.GdbError(NOT_LOADED)
    return view
