"""`mpipp file FH` and `mpipp view FH [OFFSET COUNT]`: an MPI file as this
rank sees it, and the bytes of the file its next access touches."""

import gdb

from .. import handles, views
from ..context import commands as context_commands
from ..inferior import expressions, output, symbols
from ..inferior.output import one_line_errors
from ..model import describe, fileview
from ..text import args as argparse_


def require_file(words):
    """(Files view, File) of the MPI_File a command's words name (a label
    such as file#2, or an MPI_File expression), or with no word the file of
    the MPI call the selected thread is in."""
    view = views.files.require()
    if not words:
        found = views.current_call()
        if found is None or not found[1].has_file:
            raise gdb.GdbError("mpipp: the selected thread is not in an MPI_File call: give FH "
                               "(a label such as file#1, or an MPI_File)")
        key, text = found[1].file, "the current call's file"
    else:
        key, text = view.key(handles.resolve("file", words[0], "file")), "'%s'" % words[0]
    if view.file_null is not None and key == view.file_null:
        raise gdb.GdbError("mpipp: %s is MPI_FILE_NULL" % text)
    f = view.files().get(key)
    if f is None:
        raise gdb.GdbError("mpipp: %s (0x%x) is not an open file: closed, or opened without "
                           "libmpireg loaded" % (text, key))
    return view, f


def view_types(f):
    """(etype, filetype) of a file's view as model Datatypes."""
    registry = views.registry.require()
    return registry.datatype_at(f.etype), registry.datatype_at(f.filetype)


def view_doc(f):
    """A file's view as a dict (what the MPI_File printer shows, too)."""
    etype, filetype = view_types(f)
    return {"disp": f.disp, "etype": describe.summary(etype),
            "filetype": describe.summary(filetype), "datarep": f.datarep}


def file_doc(view, f):
    """A file as a dict (the -json document of 'mpipp file')."""
    context = views.context.find()
    return {
        "handle": "0x%x" % f.handle, "label": f.label, "name": f.name, "amode": f.modes(view.c),
        "comm": handles.comm_text(context.comm_key(f.comm)) if context is not None
        else "0x%x" % f.comm,
        "opened_at": symbols.creation_site(f.created_at),
        "view": view_doc(f),
        "position": f.position if f.position_known else None,
    }


def file_lines(doc):
    v = doc["view"]
    if doc["position"] is None:
        pointer = "unknown (a sequential file has none, or MPI did not say)"
    else:
        pointer = "%d etypes into the view" % doc["position"]
    return ['%s "%s" (%s) on %s%s' % (doc["label"], doc["name"], "|".join(doc["amode"]) or "-",
                                      doc["comm"], ", opened at %s" % doc["opened_at"]
                                      if doc["opened_at"] else ""),
            "  view: disp %d, etype %s, filetype %s, datarep %s"
            % (v["disp"], v["etype"], v["filetype"], v["datarep"]),
            "  individual file pointer: %s" % pointer]


class FileCommand(gdb.Command):
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

    def __init__(self):
        super().__init__("mpipp file", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) > 1:
            raise gdb.GdbError("mpipp: usage: mpipp file [-json] [FH]")
        view, f = require_file(words)
        output.write_doc("-json" in opts, file_doc(view, f), file_lines)


def current_access(f):
    """(offset, bytes of data, what) of the MPI_File call the selected
    thread is in on file f, or None."""
    found = views.current_call()
    if found is None:
        return None
    call = found[1]
    if not (call.has_file and call.file == f.handle and call.bufs):
        return None
    if call.shared_pointer:
        raise gdb.GdbError("mpipp: %s accesses the shared file pointer, which libmpireg "
                           "does not track: give OFFSET and COUNT" % call.func)
    if not (call.has_offset or call.has_position):
        return None
    what = "the %s of the current %s" % (
        "offset" if call.has_offset else "individual file pointer", call.func)
    buf = call.bufs[0]
    dt = context_commands.datatype(buf.datatype)
    return call.offset, buf.count * dt.size if dt is not None else None, what


def access_doc(f, etype, filetype, offset, count, what, limit):
    ranges, truncated = fileview.access_ranges(etype, filetype, f.disp, offset, count, limit)
    doc = {"file": f.name, "offset": offset, "count": count, "from": what,
           "etype": describe.summary(etype), "filetype": describe.summary(filetype),
           "disp": f.disp, "length": count * etype.size,
           "bytes": [[r.offset, r.length] for r in ranges], "truncated": truncated}
    array = fileview.global_array(filetype)
    if array is not None:
        cells = fileview.array_cells(array, f.disp, filetype.extent, ranges)
        doc["array"] = {"sizes": list(array.sizes), "order": "FORTRAN" if array.fortran else "C",
                        "dimensions": fileview.dimension_names(len(array.sizes), array.fortran),
                        "order_text": fileview.order_text(array),
                        "cells": [{"tile": t, "outer": list(o), "first": a, "last": b}
                                  for t, o, (a, b) in cells],
                        "summary": fileview.format_cells(array, cells)}
    return doc


def access_lines(doc):
    out = ['"%s": %d etypes (%s) from etype %d (%s), through disp %d and filetype %s:'
           % (doc["file"], doc["count"], doc["etype"], doc["offset"], doc["from"], doc["disp"],
              doc["filetype"])]
    out.append("  file bytes %s%s (%d bytes)" % (
        ", ".join("[%d, %d)" % (o, o + length) for o, length in doc["bytes"]),
        ", ..." if doc["truncated"] else "", doc["length"]))
    if "array" in doc:
        a = doc["array"]
        out.append("  cells of the global array %s (%s):" % (
            " × ".join("%d %s" % (n, d) for n, d in zip(a["sizes"], a["dimensions"])),
            a["order_text"]))
        out.extend("    " + line for line in a["summary"])
    return out


class ViewCommand(gdb.Command):
    """Show which bytes of a file an access touches: mpipp view [-json] [FH [OFFSET COUNT]]

FH as for 'mpipp file' (without it: the file of the current MPI call).
Decodes an access of COUNT etypes starting at etype OFFSET of FH's view
(disp, etype, filetype): the filetype's typemap, tiled from disp, gives the
file byte ranges.  Without OFFSET and COUNT: the access of the MPI_File
call this thread is in on FH (not for the shared file pointer's calls:
that pointer is not tracked), else one filetype's worth of etypes at the
individual file pointer.  When the filetype is a subarray or a darray (or
a resized or dup of one) the ranges are also named as cells of its global
array: 'rows 0..3: columns 6..11'.  'set print elements' limits the ranges
listed (and -json lists at most 65536), '...' marking the rest.

Examples:
  (gdb) mpipp view fh
  (gdb) mpipp view -json fh 0 24"""

    def __init__(self):
        super().__init__("mpipp view", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) not in (0, 1, 3):
            raise gdb.GdbError("mpipp: usage: mpipp view [-json] [FH [OFFSET COUNT]]")
        _view, f = require_file(words[:1])
        etype, filetype = view_types(f)
        if len(words) == 3:
            offset = expressions.evaluate_int(words[1], "OFFSET")
            count = expressions.evaluate_int(words[2], "COUNT")
            what = "given"
        else:
            access = current_access(f)
            if access is not None and access[1] is not None:
                offset, data, what = access
                count = data // etype.size if etype.size else 0
            elif f.position_known:
                offset, what = f.position, "the individual file pointer"
                count = filetype.size // etype.size if etype.size else 0
            else:
                raise gdb.GdbError("mpipp: the individual file pointer of %s is unknown: "
                                   "give OFFSET and COUNT" % f.label)
        limit = None if "-json" in opts else output.print_limit("print elements")
        output.write_doc("-json" in opts, access_doc(f, etype, filetype, offset, count, what,
                                                       limit), access_lines)


def _file_lines(key):
    view = views.files.require()
    return file_lines(file_doc(view, view.files()[key]))


def install():
    FileCommand()
    ViewCommand()
    handles.DESCRIBERS["file"] = _file_lines
