"""`mpipp view [FH [OFFSET COUNT]]`: the bytes of a file an access touches,
through the file's view (model/fileview.py)."""

from ... import views
from ...context.calls import datatype
from ...inferior import expressions, output
from ...inferior.commands import Answer, Command, UsageError
from ...model import describe, fileview
from ...readers.errors import MpippError
from ..describe import view_types
from .file import require_file


class ViewCommand(Command):
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

    name = "mpipp view"
    takes_json = True
    arity = (0, 3)

    def answer(self, args):
        words = args.words
        if len(words) == 2:
            raise UsageError()
        _view, f = require_file(words[:1])
        etype, filetype = view_types(f)
        if len(words) == 3:
            offset = expressions.evaluate_int(words[1], "OFFSET")
            count = expressions.evaluate_int(words[2], "COUNT")
            what = "given"
        else:
            offset, count, what = next_access(f, etype, filetype)
        return Answer(
            lambda: access_doc(f, etype, filetype, offset, count, what, None),
            lambda: access_lines(access_doc(f, etype, filetype, offset, count, what,
                                            output.print_limit("print elements"))))


def next_access(f, etype, filetype):
    """(offset, count, what) of the access of the current call on f, else
    of one filetype's worth of etypes at the individual file pointer."""
    access = current_access(f)
    if access is not None and access[1] is not None:
        offset, data, what = access
        count = data // etype.size if etype.size else 0
        return offset, count, what
    if f.position_known:
        count = filetype.size // etype.size if etype.size else 0
        return f.position, count, "the individual file pointer"
    raise MpippError("the individual file pointer of %s is unknown: give OFFSET and COUNT"
                     % f.label)


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
        raise MpippError("%s accesses the shared file pointer, which libmpireg "
                         "does not track: give OFFSET and COUNT" % call.func)
    if not (call.has_offset or call.has_position):
        return None
    what = "the %s of the current %s" % (
        "offset" if call.has_offset else "individual file pointer", call.func)
    buf = call.bufs[0]
    dt = datatype(buf.datatype)
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
