"""Open MPI files as mpipp shows them: a file's document and lines (`mpipp
file`, `mpipp info file#1`), its view's datatypes (`mpipp view`, the
MPI_File printer)."""

from .. import handles, views
from ..inferior import symbols
from ..model import describe
from ..text.names import short_site


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
                                      doc["comm"], ", opened at %s" % short_site(doc["opened_at"])
                                      if doc["opened_at"] else ""),
            "  view: disp %d, etype %s, filetype %s, datarep %s"
            % (v["disp"], v["etype"], v["filetype"], v["datarep"]),
            "  individual file pointer: %s" % pointer]


def file_info_lines(key):
    """What 'mpipp info file#1' shows."""
    view = views.files.require()
    return file_lines(file_doc(view, view.files()[key]))
