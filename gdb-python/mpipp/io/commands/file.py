"""`mpipp file [FH]`: an open MPI file as this rank sees it."""

from ... import handles, views
from ...inferior.commands import Answer, Command
from ...readers.errors import MpippError
from ..describe import file_doc, file_lines


class FileCommand(Command):
    """Show an open MPI file: mpipp file [-json] [FH]

FH is a file's label (file#2, as listings show it) or an MPI_File
expression; without it, the file of the MPI call the selected thread is in
(inside a library's collective write, where the handle sits in the
library's own structures).  Shows the file's name, access mode and
communicator, where it was opened, its view (displacement, etype, filetype,
data representation, as set by MPI_File_set_view) and the individual file
pointer (in etypes of the view; libmpireg asks MPI for it after every call
that moves it).

Example:
  (gdb) mpipp file fh
  file#1 "grid.dat" (MPI_MODE_WRONLY|MPI_MODE_CREATE) on MPI_COMM_WORLD [rank 0 of 4], opened at io2d.c:52
    view: disp 0, etype MPI_INT, filetype subarray(...) of MPI_INT "block_t", datarep native
    individual file pointer: 0 etypes into the view"""

    name = "mpipp file"
    takes_json = True
    arity = (0, 1)

    def answer(self, args):
        view, f = require_file(args.words)
        return Answer(lambda: file_doc(view, f), lambda: file_lines(file_doc(view, f)))


def require_file(words):
    """(Files view, File) of the MPI_File a command's words name (a label
    such as file#2, or an MPI_File expression), or with no word the file of
    the MPI call the selected thread is in."""
    view = views.files.require()
    if not words:
        found = views.current_call()
        if found is None or not found[1].has_file:
            raise MpippError("the selected thread is not in an MPI_File call: give FH "
                             "(a label such as file#1, or an MPI_File)")
        key, text = found[1].file, "the current call's file"
    else:
        key, text = view.key(handles.resolve("file", words[0], "file")), "'%s'" % words[0]
    if view.file_null is not None and key == view.file_null:
        raise MpippError("%s is MPI_FILE_NULL" % text)
    f = view.files().get(key)
    if f is None:
        raise MpippError("%s (0x%x) is not an open file: closed, or opened without "
                         "libmpireg loaded" % (text, key))
    return view, f
