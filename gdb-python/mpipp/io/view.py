"""The MPI-IO state of the selected inferior, read once per stop."""

import gdb

from .. import inferior
from ..model.errors import ModelError
from .reader import Files

ROOT_SYMBOL = "mpireg_io_root"
NOT_LOADED = ("mpipp: libmpireg's MPI-IO state is not in this process (libmpireg not loaded, "
              "or too old); start the program with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, "
              "or link -lmpireg before -lmpi")

_views = inferior.StopViews(ROOT_SYMBOL, Files)


def files(strict=False):
    """The Files view of the selected inferior, or None when libmpireg has
    none (strict: a one-line gdb error saying why)."""
    try:
        view = _views.get()
    except ModelError as err:
        if strict:
            raise gdb.GdbError("mpipp: %s" % err) from None
        return None
    if view is None and strict:
        raise gdb.GdbError(NOT_LOADED)
    return view


def file_name(key):
    """The name an open file's handle key was opened with, or None."""
    view = files()
    f = view.files().get(key) if view is not None else None
    return None if f is None else f.name
