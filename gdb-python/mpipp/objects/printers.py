"""The MPI_Win and MPI_Group printers: what the handle is, in one line.

    win = win#1 [create on comm#1, rank 0 of 2; fence epoch (1 fence so far)]
    group = group#3 [incl of group#2, 2 ranks (world 1,3), rank 0]
"""

from .. import handles, views
from ..inferior import printing

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


def _printer_of(kind):
    """The printer of a handle of type kind: its text, or the raw handle and
    why there is none."""
    def printer(value):
        view = views.objects.find()
        if view is None:
            return None
        key = int(value) & (view.win_mask if kind == "MPI_Win" else view.group_mask)
        text = _text(kind, view, key)
        if text is None:
            return printing.RawPrinter(value, NOT_RECORDED[kind])
        return printing.TextPrinter(text)
    return printer


SUBPRINTERS = tuple(printing.handle_subprinter(kind, _printer_of(kind)) for kind in TYPE_NAMES)
