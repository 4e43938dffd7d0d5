"""The MPI_File printer: what the handle is, in one line (no children: an
MPI_File is a pointer to a struct gdb knows nothing of, see
datatypes/printers.py)."""

from .. import views
from ..inferior import printing
from . import describe

TYPE_NAME = "MPI_File"


def file_text(view, f):
    """The one line of an open file: what the printer needs of 'mpipp file'
    (not where it was opened nor its communicator: printers run for every
    value gdb prints)."""
    v = describe.view_doc(f)
    pointer = ", pointer %d" % f.position if f.position_known else ""
    return '0x%x <%s "%s" %s, view disp %d etype %s filetype %s%s>' % (
        f.handle, f.label, f.name, "|".join(m[len("MPI_MODE_"):].lower() for m in f.modes(view.c)) or "-",
        v["disp"], v["etype"], v["filetype"], pointer)


def _printer(value):
    view = views.files.find()
    if view is None:
        return None
    key = view.key(int(value))
    if view.file_null is not None and key == view.file_null:
        return printing.TextPrinter("MPI_FILE_NULL")
    f = view.files().get(key)
    if f is None:
        return printing.RawPrinter(value, "not an open file: closed, or opened without "
                                          "libmpireg loaded")
    return printing.TextPrinter(file_text(view, f))


SUBPRINTERS = (printing.handle_subprinter(TYPE_NAME, _printer),)
