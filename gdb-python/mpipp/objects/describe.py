"""RMA windows and groups as mpipp shows them: a window's document and
lines (`mpipp win`, `mpipp info win#1`), a group's lines (`mpipp info
group#2`)."""

from .. import handles, views
from ..inferior import symbols
from ..text.names import short_site
from ..text.ranks import format_ranks


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
    created = ", created at %s" % short_site(doc["created_at"]) if doc["created_at"] else ""
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


def win_info_lines(key):
    """What 'mpipp info win#1' shows."""
    view = views.objects.require()
    return win_lines(win_doc(view, view.wins()[key]))


def group_info_lines(key):
    """What 'mpipp info group#2' shows."""
    view = views.objects.require()
    g = view.groups()[key]
    site = symbols.site_text(g.created_at)
    return [handles.group_text(key),
            "  handle 0x%x, created by %s%s" % (g.handle, g.creator, " at " + site if site else "")]
