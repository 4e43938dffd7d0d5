"""`mpipp win [WIN]`: an RMA window as this process sees it -- its memory,
its group, and the epoch this process has opened on it."""

import gdb

from .. import handles, views
from ..inferior import output, symbols
from ..inferior.output import one_line_errors
from ..text import args as argparse_
from ..text.ranks import format_ranks


def require_win(words):
    """(Objects view, Win) a command's word names, or the current call's
    window when there is no word."""
    view = views.objects.require()
    if not words:
        found = views.current_call()
        if found is None or not found[1].has_win:
            raise gdb.GdbError("mpipp: the selected thread is not in an MPI call on a window: "
                               "give WIN (a label such as win#1, a name, or an MPI_Win)")
        key, text = found[1].win, "the current call's window"
    else:
        key, text = handles.resolve("win", words[0], "window") & view.win_mask, "'%s'" % words[0]
    if key == view.c.get("MPI_WIN_NULL"):
        raise gdb.GdbError("mpipp: %s is MPI_WIN_NULL" % text)
    w = view.wins().get(key)
    if w is None:
        raise gdb.GdbError("mpipp: %s (0x%x) is not a window: freed, or created without "
                           "libmpireg loaded" % (text, key))
    return view, w


def win_doc(view, w):
    """The -json document of 'mpipp win' (what its text shows)."""
    return {
        "handle": "0x%x" % w.handle, "label": handles.label("win", w.handle), "name": w.name,
        "flavor": w.flavor_name, "creator": w.creator,
        "created_at": symbols.creation_site(w.created_at),
        "comm": handles.comm_text(w.comm), "rank": w.rank, "size": w.group_size,
        "members": w.members, "base": w.base, "bytes": w.size, "disp_unit": w.disp_unit,
        "epoch": view.epoch_text(w, format_ranks), "fences": w.fences,
        "locks": [{"rank": r, "exclusive": t == view.c.get("MPI_LOCK_EXCLUSIVE")}
                  for r, t in w.locks],
        "regions": [{"base": r.base, "bytes": r.size, "disp_unit": r.disp_unit}
                    for r in w.region_list],
    }


def win_lines(doc):
    created = ", created at %s" % doc["created_at"] if doc["created_at"] else ""
    out = ["%s%s: %s (%s) on %s%s" % (doc["label"], ' "%s"' % doc["name"] if doc["name"] and
                                      doc["name"] != doc["label"] else "", doc["flavor"],
                                      doc["creator"], doc["comm"], created)]
    if doc["flavor"] == "dynamic":
        out.append("  this process: rank %d of %d; displacements are addresses (dynamic window)"
                   % (doc["rank"], doc["size"]))
    else:
        out.append("  this process: rank %d of %d, memory 0x%x, %d bytes, disp_unit %d"
                   % (doc["rank"], doc["size"], doc["base"], doc["bytes"], doc["disp_unit"]))
    if doc["members"]:
        out.append("  world ranks of the window's ranks 0..%d: %s"
                   % (len(doc["members"]) - 1, format_ranks(doc["members"])))
    out.append("  epoch: " + doc["epoch"])
    if doc["regions"]:
        head = ("memory of every rank, mapped here" if doc["flavor"] == "allocate_shared"
                else "attached regions")
        out.append("  %s:" % head)
        for k, r in enumerate(doc["regions"]):
            rank = "rank %d: " % k if doc["flavor"] == "allocate_shared" else ""
            out.append("    %s0x%x, %d bytes, disp_unit %d" % (rank, r["base"], r["bytes"],
                                                              r["disp_unit"]))
    return out


class WinCommand(gdb.Command):
    """Show an RMA window: mpipp win [-json] [WIN]

WIN is a window's label (win#1), the name given with MPI_Win_set_name, or an
MPI_Win expression; without it, the window of the MPI call the selected
thread is in.  Shows its flavor (create, allocate, allocate_shared,
dynamic), its communicator, this process's rank, memory (base, size,
disp_unit) and the world ranks of its members, the epoch this process has
open on it (fence, lock/lock_all, PSCW access and exposure epochs with
their groups), and for a shared window where every rank's memory is
mapped in this process (for a dynamic one, the attached regions).

Example:
  (gdb) mpipp win
  win#1: create (MPI_Win_create) on comm#1 [dup of MPI_COMM_WORLD, rank 0 of 2], created at rma.c:31
    this process: rank 0 of 2, memory 0x7ffd5e2c1a30, 64 bytes, disp_unit 8
    epoch: fence epoch (1 fence so far)"""

    def __init__(self):
        super().__init__("mpipp win", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) > 1:
            raise gdb.GdbError("mpipp: usage: mpipp win [-json] [WIN]")
        view, w = require_win(words)
        output.write_doc("-json" in opts, win_doc(view, w), win_lines)


def _win_lines(key):
    view = views.objects.require()
    return win_lines(win_doc(view, view.wins()[key]))


def _group_lines(key):
    view = views.objects.require()
    g = view.groups()[key]
    site = symbols.creation_site(g.created_at)
    return [handles.group_text(key),
            "  handle 0x%x, created by %s%s" % (g.handle, g.creator, " at " + site if site else "")]


def install():
    WinCommand()
    handles.DESCRIBERS.update(win=_win_lines, group=_group_lines)
