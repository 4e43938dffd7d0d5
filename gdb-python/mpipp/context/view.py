"""The communication context of the selected inferior, read once per stop."""

from .. import inferior
from .reader import Context

ROOT_SYMBOL = "mpireg_comm_root"

_views = inferior.StopViews(ROOT_SYMBOL, Context, "communication context")


def context():
    """The Context of the selected inferior, or None (absent, no process, or
    unreadable: require_context says why); read once per stop."""
    return _views.find()


def require_context():
    """The Context, or a one-line gdb error saying why there is none."""
    return _views.require()


def clear():
    _views.clear()
