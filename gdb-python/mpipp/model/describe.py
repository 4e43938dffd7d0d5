"""Text and JSON descriptions of a datatype, for printers and commands.

gdb-free: the gdb layer passes `site`, a function that turns a creation
address into 'file.c:42'.  The parameters of each combiner come from the
model's combiner table; this module only lays them out.
"""

from .basics import PAIR_MEMBERS, language_types
from .combiners import get_combiner
from .offsets import format_offset
from .paths import format_path
from ..text.names import short_site
from ..text.tables import format_table
from .where import describe_location

# darray's 'size' (of the process group) would read as the type's size.
RENAMED = {"size": "group_size"}


def is_datatype(value):
    return hasattr(value, "combiner") and hasattr(value, "extent")


def parameters(dt):
    """[(name, value)]: value is an int, a str, a Datatype or a list of
    either (the model's own lists: read them, never change them)."""
    return [(RENAMED.get(name, name), value)
            for name, value in get_combiner(dt.combiner).params(dt)]


def serial_label(dt):
    """'subarray#7': a derived type (or its registry RecordSummary) by its
    creation serial ('mpipp info subarray#7')."""
    return "%s#%d" % (dt.combiner.lower(), dt.serial)


def label(dt):
    """A short name for a type inside another type's description, one a
    user can type back (a predefined or given name, or the serial label)."""
    if dt.is_leaf or dt.name:
        return dt.display_name
    return serial_label(dt)


def handle_label(dt, key, null_key=None):
    """A datatype handle as mpipp names it: its type's label (dt: the
    Datatype its key names, or None), MPI_DATATYPE_NULL (null_key: that
    handle's key), or the handle in hex."""
    if null_key is not None and key == null_key:
        return "MPI_DATATYPE_NULL"
    return label(dt) if dt is not None else "0x%x" % key


def summary(dt):
    """One line: 'vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "halo_t"'."""
    if dt.is_leaf:
        return dt.display_name
    scalars = []
    for name, value in parameters(dt):
        if name == "lb":
            scalars.append("lb=%s" % format_offset(value))  # as info shows it
        elif isinstance(value, (int, str)) and not isinstance(value, bool):
            scalars.append("%s=%s" % (name, value))
        elif (isinstance(value, list) and len(value) <= 4 and not name.startswith("array_of")
              and not any(map(is_datatype, value))):
            scalars.append("%s=[%s]" % (name, ", ".join(str(v) for v in value)))
    kids = []
    for child in dt.children:
        if label(child) not in kids:
            kids.append(label(child))
    text = "%s(%s)" % (dt.combiner.lower(), ", ".join(scalars))
    if kids:
        text += " of " + (kids[0] if len(kids) == 1 else "{%s}" % ", ".join(kids))
    if dt.name:
        text += ' "%s"' % dt.name
    if not dt.committed:
        text += " (uncommitted)"
    if dt.freed:
        text += " (freed by the program)"
    return text


def fields(dt, site):
    """State and extents of a derived type, as (name, value) pairs."""
    out = [("combiner", "MPI_COMBINER_" + dt.combiner)]
    if dt.name:
        out.append(("name", dt.name))
    out.append(("committed", dt.committed))
    if dt.freed:
        out.append(("freed", True))
    out += [("size", dt.size), ("lb", dt.lb), ("extent", dt.extent),
            ("true_lb", dt.true_lb), ("true_extent", dt.true_extent)]
    if dt.bounds_note:
        out.append(("note", dt.bounds_note))
    created = site(dt.created_at)
    if created:
        out.append(("created_at", created))
    return out


def _state_text(name, value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name in ("lb", "true_lb"):
        return format_offset(value)  # an absolute address with MPI_BOTTOM
    return str(value)


def _value_text(value, name=""):
    if is_datatype(value):
        return label(value)
    if isinstance(value, list):
        shown = [_value_text(v, name) for v in value[:32]]
        more = ", ... (%d in all)" % len(value) if len(value) > 32 else ""
        return "{%s%s}" % (", ".join(shown), more)
    if "displacement" in name and isinstance(value, int):
        return format_offset(value)
    return str(value)


def predefined_lines(dt):
    """What 'mpipp info' says of a predefined type: its size and extents,
    and the C and Fortran types that hold one element."""
    if dt.is_marker:
        yield "  a marker (%s): no data, size 0" % dt.display_name
        return
    yield "  predefined: size %d, lb %d, extent %d, true extent %d" % (
        dt.size, dt.lb, dt.extent, dt.true_extent)
    if dt.basic_kind == "pair" and dt.members:
        members = ", ".join("%s %s at +%d" % (m.display_name, n, off) for n, (off, m) in
                            zip(PAIR_MEMBERS, dt.members))
        yield "  pair of MPI_MINLOC/MPI_MAXLOC: %s" % members
        return
    c, fortran = language_types(dt)
    yield "  C type: %s; Fortran type: %s" % (c or "none", fortran or "none")


# Levels of `mpipp info` indented deeper than their parent: below, a tree
# 2000 levels deep would write lines of 8000 spaces.
MAX_INDENT = 16


def info_lines(dt, view, site):
    """The full description, children nested (indented up to MAX_INDENT
    levels); each derived child once.  Depth first without recursion: a
    nested generator per level would pass each line up through all of them."""
    if dt.is_leaf:
        yield summary(dt)
        yield from predefined_lines(dt)
        return
    seen = set()
    stack = [(dt, 0)]
    while stack:
        node, depth = stack.pop()
        indent = "    " * min(depth, MAX_INDENT)
        yield indent + summary(node)
        if id(node) in seen:
            yield indent + "  (described above)"
            continue
        seen.add(id(node))
        state = ", ".join("%s %s" % (n.replace("_", " "), _state_text(n, v))
                          for n, v in fields(node, site) if n != "note")
        yield indent + "  handle 0x%x, serial %d: %s" % (node.handle or 0, node.serial, state)
        if node.bounds_note:
            yield indent + "  " + node.bounds_note
        for name, value in parameters(node):
            yield indent + "  %s = %s" % (name, _value_text(value, name))
        stack.extend((child, depth + 1) for child in reversed(_distinct_children(node))
                     if not child.is_leaf)


def _distinct_children(dt):
    out, ids = [], set()
    for child in dt.children:
        if id(child) not in ids:
            ids.add(id(child))
            out.append(child)
    return out


def as_json(dt, view, site):
    """The `mpipp info -json` document (arrays exactly as get_contents_c)."""
    doc = {
        "handle": "0x%x" % (dt.handle or 0),
        "name": dt.name,
        "combiner": "MPI_COMBINER_" + dt.combiner,
    }
    if dt.combiner == "NAMED":
        doc.update(kind=dt.kind, size=dt.size, lb=dt.lb, extent=dt.extent,
                   true_lb=dt.true_lb, true_extent=dt.true_extent, committed=True)
        return doc
    doc.update(
        integers=list(dt.integers), addresses=list(dt.addresses),
        large_counts=list(dt.large_counts),
        datatypes=[as_json(child, view, site) for child in dt.children],
        committed=dt.committed, freed=dt.freed, size=dt.size, lb=dt.lb, extent=dt.extent,
        true_lb=dt.true_lb, true_extent=dt.true_extent, created_at=site(dt.created_at),
        serial=dt.serial)
    if dt.bounds_note:
        doc["note"] = dt.bounds_note
    return doc


def extents_of(dt, count):
    """Size and extents of `count` repetitions of dt (contiguous(count, dt))."""
    if count == 0:
        return dict(size=0, lb=0, extent=0, true_lb=0, true_extent=0)
    starts = (0, (count - 1) * dt.extent)
    lb = dt.lb + min(starts)
    ub = dt.lb + dt.extent + max(starts)
    true_lb = dt.true_lb + min(starts)
    true_ub = dt.true_lb + dt.true_extent + max(starts)
    return dict(size=dt.size * count, lb=lb, extent=ub - lb,
                true_lb=true_lb, true_extent=true_ub - true_lb)


def list_row(dt, site, built_by_mpi=False):
    """The `mpipp list` row of a type (a Datatype or a registry RecordSummary)."""
    return {"handle": "0x%x" % (dt.handle or 0), "name": dt.name,
            "combiner": "MPI_COMBINER_" + dt.combiner, "size": dt.size, "extent": dt.extent,
            "committed": dt.committed, "freed": dt.freed, "serial": dt.serial,
            "created_at": site(dt.created_at), "mpi_own": built_by_mpi}


def error_row(address, err):
    """The `mpipp list` row of a record that cannot be read: where and why."""
    return {"record": "0x%x" % address, "error": str(err)}


def list_lines(rows):
    """The `mpipp list` table (long C++ creation sites shortened: the
    -json rows keep them whole)."""
    header = ("handle", "serial", "name", "combiner", "size", "extent", "created at")
    good = [r for r in rows if "error" not in r]
    table = [header] + [
        (r["handle"], "#%d" % r["serial"],
         (r["name"] or "-") + (" (freed)" if r["freed"] else "") + (" (MPI's own)" if r["mpi_own"] else ""),
         r["combiner"][len("MPI_COMBINER_"):], str(r["size"]), str(r["extent"]),
         short_site(r["created_at"]) or "?") for r in good]
    yield from format_table(table)
    for r in rows:
        if "error" in r:
            yield "record %s: <mpipp: %s>" % (r["record"], r["error"])
    yield "%d live datatype%s" % (len(rows), "" if len(rows) == 1 else "s")


def where_json(loc, offset):
    """`mpipp where -json`: the location of a byte offset in a buffer."""
    doc = {"where": loc.where, "offset": offset}
    if loc.where == "inside":
        doc.update(path=format_path(loc.path), type=loc.basic.display_name,
                   element_offset=loc.element_offset, offset_in_element=loc.offset_in_element,
                   holders=[{"path": format_path(h.path), "type": h.basic.display_name,
                             "element_offset": h.element_offset,
                             "offset_in_element": offset - h.element_offset}
                            for h in loc.holders],
                   holders_total=loc.holders_total)
    else:
        doc.update(prev_path=loc.prev_path and format_path(loc.prev_path),
                   next_path=loc.next_path and format_path(loc.next_path),
                   prev_end=loc.prev_end, next_start=loc.next_start)
    return doc


def where_text(loc, address, base):
    return "0x%x (buffer offset %s) is %s" % (address, format_offset(address - base, signed=True),
                                              describe_location(loc))
