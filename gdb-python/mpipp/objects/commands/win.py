"""`mpipp win [WIN]`: an RMA window as this process sees it -- its memory,
its group, and the epoch this process has opened on it."""

from ... import handles, views
from ...inferior.commands import Answer, Command
from ...readers.errors import MpippError
from ..describe import win_doc, win_lines


class WinCommand(Command):
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

    name = "mpipp win"
    takes_json = True
    arity = (0, 1)

    def answer(self, args):
        view, w = require_win(args.words)
        return Answer(lambda: win_doc(view, w), lambda: win_lines(win_doc(view, w)))


def require_win(words):
    """(Objects view, Win) a command's word names, or the current call's
    window when there is no word."""
    view = views.objects.require()
    if not words:
        found = views.current_call()
        if found is None or not found[1].has_win:
            raise MpippError("the selected thread is not in an MPI call on a window: "
                             "give WIN (a label such as win#1, a name, or an MPI_Win)")
        key, text = found[1].win, "the current call's window"
    else:
        key, text = handles.resolve("win", words[0], "window") & view.win_mask, "'%s'" % words[0]
    if key == view.c.get("MPI_WIN_NULL"):
        raise MpippError("%s is MPI_WIN_NULL" % text)
    w = view.wins().get(key)
    if w is None:
        raise MpippError("%s (0x%x) is not a window: freed, or created without "
                         "libmpireg loaded" % (text, key))
    return view, w
