"""The MPI_Win and MPI_Group printers: what the handle is, in one line.

    win = win#1 [create on comm#1, rank 0 of 2; fence epoch (1 fence so far)]
    group = group#3 [incl of group#2, 2 ranks (world 1,3), rank 0]
"""

import gdb

from .. import handles, views
from ..inferior import expressions, output

TYPE_NAMES = ("MPI_Win", "MPI_Group")
NOT_RECORDED = {"MPI_Win": "window not created under libmpireg, or freed",
                "MPI_Group": "group not created under libmpireg, or freed"}


def _text(kind, view, key):
    if kind == "MPI_Win":
        if view.wins().get(key) is None and key != view.c.get("MPI_WIN_NULL"):
            return None
        return handles.win_text(key)
    if view.groups().get(key) is None and key not in (view.c.get("MPI_GROUP_NULL"),
                                                      view.c.get("MPI_GROUP_EMPTY")):
        return None
    return handles.group_text(key)


def lookup(value):
    kind = expressions.handle_type_name(value.type, TYPE_NAMES)
    if kind is None:
        return None
    try:
        view = views.objects.find()
        if view is None:
            return None
        key = int(value) & (view.win_mask if kind == "MPI_Win" else view.group_mask)
        text = _text(kind, view, key)
        if text is None:
            return output.RawPrinter(value, NOT_RECORDED[kind])
        return output.TextPrinter(text)
    except Exception as err:  # noqa: BLE001 - a printer lookup never raises
        return output.RawPrinter(value, output.error_reason(err))


def install():
    gdb.pretty_printers.append(lookup)
