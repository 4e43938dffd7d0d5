"""MPI objects by name: how every listing shows a communicator, group,
window or file, and how every command takes one back.

A listing names an object by what a user can type back: a predefined name
(MPI_COMM_WORLD), the name the program gave it (MPI_Comm_set_name,
MPI_Win_set_name), else its label -- comm#3, group#2, win#1, file#4: the
order in which this process created it -- followed, in brackets, by what
it is ('comm#3 [split of MPI_COMM_WORLD (color 1), rank 0 of 2]').  Every
command that takes such an object accepts those forms, or any gdb
expression giving its handle (`fh`, `$mpi_call.win`).
"""

import re

from . import views
from .inferior import expressions
from .text.args import ArgError
from .text.ranks import format_ranks

LABEL = re.compile(r"^\s*(comm|group|win|file)#(\d+)\s*$")
KINDS = ("comm", "group", "win", "file")
NOUNS = {"comm": "communicator", "group": "group", "win": "window", "file": "file"}
# {kind: describe(handle key) -> lines}: what 'mpipp info LABEL' shows,
# registered by the package of each kind.
DESCRIBERS = {}

# How group_about says what a group was made from: (what the parent is, text).
GROUP_ORIGINS = {
    "MPI_Comm_group": ("comm", "group of %s"), "MPI_Comm_remote_group": ("comm", "remote group of %s"),
    "MPI_Win_get_group": ("win", "group of %s"), "MPI_File_get_group": ("file", "group of %s"),
    "MPI_Group_incl": ("group", "incl of %s"), "MPI_Group_excl": ("group", "excl of %s"),
    "MPI_Group_range_incl": ("group", "range_incl of %s"),
    "MPI_Group_range_excl": ("group", "range_excl of %s"),
    "MPI_Group_union": ("group", "union of %s and %s"),
    "MPI_Group_intersection": ("group", "intersection of %s and %s"),
    "MPI_Group_difference": ("group", "difference of %s and %s"),
}


def label(kind, key):
    """What a user types back for the object of that kind with that handle key."""
    if kind == "comm":
        view = views.context.find()
        return view.comm_label(key) if view is not None else "0x%x" % key
    if kind == "file":
        view = views.files.find()
        f = view.files().get(key) if view is not None else None
        return f.label if f is not None else "0x%x" % key
    view = views.objects.find()
    if view is None:
        return "0x%x" % key
    return view.group_label(key) if kind == "group" else view.win_label(key)


def comm_text(key, local=True, predefined_alone=False):
    """'comm#3 [split of MPI_COMM_WORLD (color 1), rank 0 of 2]' (see
    Context.comm_text)."""
    view = views.context.find()
    if view is None:
        return "0x%x" % key
    return view.comm_text(key, local, predefined_alone)


def group_about(g):
    """'incl of group#2', 'group of comm#3', ... for a Group record."""
    kind, text = GROUP_ORIGINS.get(g.creator, ("group", (g.creator or "?") + " of %s"))
    keys = (g.parent, g.parent2) if text.count("%s") == 2 else (g.parent,)
    return text % tuple(label(kind, key) for key in keys)


def group_text(key):
    """'group#3 [incl of group#2, 2 ranks (world 1,3), rank 0]'."""
    view = views.objects.find()
    g = view.groups().get(key) if view is not None else None
    if g is None:
        return label("group", key)
    members = " (world %s)" % format_ranks(g.members) if g.members else ""
    rank = "rank %d" % g.rank if g.rank >= 0 else "not a member"
    return "%s [%s, %d rank%s%s, %s]" % (label("group", key), group_about(g), g.size,
                                        "" if g.size == 1 else "s", members, rank)


def win_about(w):
    """'allocate_shared on comm#2, rank 0 of 4' for a Win record."""
    return "%s on %s, rank %d of %d" % (w.flavor_name, label("comm", w.comm), w.rank,
                                        w.group_size)


def win_text(key):
    """'win#1 [create on comm#1, rank 0 of 2; fence epoch (1 fence so far)]'."""
    view = views.objects.find()
    w = view.wins().get(key) if view is not None else None
    if w is None:
        return label("win", key)
    return "%s [%s; %s]" % (label("win", key), win_about(w),
                            view.epoch_text(w, format_ranks))


def file_name(key):
    """The name an open file's handle key was opened with, or None."""
    view = views.files.find()
    f = view.files().get(key) if view is not None else None
    return None if f is None else f.name


def file_text(key):
    """'file#2 "grid.dat"'."""
    view = views.files.find()
    f = view.files().get(key) if view is not None else None
    if f is None:
        return "MPI_FILE_NULL" if view is not None and key == view.file_null else "0x%x" % key
    return '%s "%s"' % (f.label, f.name)


def find(kind, text):
    """The handle key of the `kind` object a label or name (not an
    expression) denotes, or None."""
    text = text.strip()
    if kind == "comm":
        view = views.context.find()
        return view.comm_by_label(text) if view is not None else None
    if kind == "file":
        view = views.files.find()
        f = view.by_label(text) if view is not None else None
        return f.handle if f is not None else None
    view = views.objects.find()
    found = view.by_label(text) if view is not None else None
    return found[1] if found is not None and found[0] == kind else None


def resolve(kind, expression, what):
    """The handle of the `kind` object that a user's word denotes: a label
    (comm#3) or a name (their handle keys), or a gdb expression giving the
    handle (its value: callers mask it to the handle's size)."""
    key = find(kind, expression)
    if key is not None:
        return key
    found = LABEL.match(expression)
    if found and found.group(1) == kind:
        raise ArgError("no %s is labelled %s" % (NOUNS[kind], expression.strip()))
    if found:
        raise ArgError("%s is a %s, not a %s" % (expression.strip(), NOUNS[found.group(1)],
                                                 what))
    return expressions.evaluate_int(expression, what)


def describe(text):
    """The lines 'mpipp info' shows for an object a label or name denotes
    (comm#3, win#1, ...), or None when text names none of them."""
    found = LABEL.match(text)
    kinds = [found.group(1)] if found else [k for k in KINDS if k in DESCRIBERS]
    for kind in kinds:
        key = find(kind, text)
        if key is not None and kind in DESCRIBERS:
            return DESCRIBERS[kind](key)
    if found:
        raise ArgError("no %s is labelled %s" % (NOUNS[found.group(1)], text.strip()))
    return None
