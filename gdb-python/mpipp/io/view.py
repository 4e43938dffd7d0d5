"""The MPI-IO state of the selected inferior, read once per stop."""

from .. import inferior
from .reader import Files

ROOT_SYMBOL = "mpireg_io_root"

_views = inferior.StopViews(ROOT_SYMBOL, Files, "MPI-IO state")


def files(strict=False):
    """The Files view of the selected inferior, or None when libmpireg has
    none (strict: a one-line gdb error saying why)."""
    return _views.require() if strict else _views.find()


def file_name(key):
    """The name an open file's handle key was opened with, or None."""
    view = files()
    f = view.files().get(key) if view is not None else None
    return None if f is None else f.name
