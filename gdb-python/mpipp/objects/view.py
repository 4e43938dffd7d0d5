"""The groups and RMA windows of the selected inferior, read once per stop."""

from .. import inferior
from .reader import Objects

ROOT_SYMBOL = "mpireg_obj_root"

_views = inferior.StopViews(ROOT_SYMBOL, Objects, "table of groups and windows")


def objects(strict=False):
    """The Objects view of the selected inferior, or None when there is none
    (strict: a one-line gdb error saying why)."""
    return _views.require() if strict else _views.find()
