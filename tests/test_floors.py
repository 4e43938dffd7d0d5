"""The house (docs/development.md): every import of gdb-python/mpipp goes
down a floor, never up, and the parts that run outside gdb never reach the
gdb layer.  Read from the sources (every import statement, also inside
functions), so a test fails the day an import climbs."""

import ast
import os
import sys

import pytest

PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gdb-python")

# Rooms, lowest first: a module imports from its own room or a lower one.
FLOORS = [
    ("mpipp.text", "plain text both sides share"),
    ("mpipp.readers", "gdb-free readers of libmpireg's roots"),
    ("mpipp.model", "the gdb-free datatype model"),
    ("mpipp.inferior", "the gdb layer's shared plumbing"),
    ("mpipp.views", "per-stop views of libmpireg's roots"),
    ("mpipp.handles", "naming MPI objects"),
    ("mpipp.datatypes", "datatypes in gdb"),
    ("mpipp.frontends.summary", "the MI summary command"),
    ("mpipp.context", "the communication context in gdb"),
    ("mpipp.io", "MPI-IO in gdb"),
    ("mpipp.objects", "groups and windows in gdb"),
    ("mpipp", "register()"),
]
# Outside gdb: each may import the rooms named, and nothing of the gdb layer.
OUTSIDE = {
    "mpipp.job.link": ("mpipp.text",),
    "mpipp.job.node": ("mpipp.text", "mpipp.job.link"),
    "mpipp.job.analysis": ("mpipp.text", "mpipp.readers", "mpipp.model", "mpipp.job.link",
                           "mpipp.job.node"),
    "mpipp.job.console": ("mpipp.text", "mpipp.readers", "mpipp.model", "mpipp.job.link",
                          "mpipp.job.node", "mpipp.job.analysis", "mpipp.record"),
    "mpipp.job": (),
    "mpipp.frontends.relay": ("mpipp.text",),
    "mpipp.record": (),
}
# Of the modules outside gdb, these run on compute hosts: the standard
# library and the rooms named above only (no model, no readers).
NODE_SIDE = "mpipp.job.node"


def modules():
    """{dotted name: (path, is package)} of every module of the package."""
    out = {}
    for folder, _dirs, files in os.walk(os.path.join(PYTHON, "mpipp")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                dotted = os.path.relpath(path, PYTHON)[:-3].replace(os.sep, ".")
                package = dotted.endswith(".__init__")
                out[dotted[:-len(".__init__")] if package else dotted] = (path, package)
    return out


MODULES = modules()


def imports_of(name):
    """The mpipp modules (and 'gdb') that module `name` imports."""
    path, package = MODULES[name]
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                full = "%s.%s" % (source, alias.name)
                found.add(full if full in MODULES else source)
    return {m for m in found if m == "gdb" or m.split(".")[0] == "gdb" or m in MODULES
            or m.startswith("mpipp.")}


def room(name):
    """The longest room prefix of a module name, and whether it is outside gdb."""
    for prefix in sorted(OUTSIDE, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            return prefix, True
    rooms = [r for r, _why in FLOORS if name == r or name.startswith(r + ".")]
    return max(rooms, key=len), False


def floor(room_name):
    return [r for r, _why in FLOORS].index(room_name)


def test_every_module_is_in_a_room():
    for name in MODULES:
        assert room(name)[0], name


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down(name):
    here, outside = room(name)
    for target in imports_of(name):
        if target.split(".")[0] == "gdb":
            assert not outside and floor(here) >= floor("mpipp.inferior"), \
                "%s imports gdb but runs outside gdb or below the gdb layer" % name
            continue
        there, target_outside = room(target)
        if there == here:
            continue
        if outside:
            assert there in OUTSIDE[here], "%s (%s) imports %s" % (name, here, target)
        else:
            assert not target_outside and floor(there) < floor(here), \
                "%s imports %s: up a floor (%s above %s)" % (name, target, there, here)


def test_the_node_side_needs_only_the_standard_library():
    """What runs next to the ranks imports, transitively, the standard
    library and the rooms OUTSIDE names for it: it must start on a compute
    host with nothing but python3."""
    seen, todo = set(), [m for m in MODULES if room(m)[0] == NODE_SIDE]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(t for t in imports_of(name) if t in MODULES)
    rooms = {room(m)[0] for m in seen}
    assert rooms <= {NODE_SIDE, *OUTSIDE[NODE_SIDE], "mpipp", "mpipp.job"}, rooms
    for name in seen:
        path = MODULES[name][0]
        # rank.py runs as a script: a module beside it is imported by its name
        beside = {f[:-3] for f in os.listdir(os.path.dirname(path)) if f.endswith(".py")}
        for node in ast.walk(ast.parse(open(path).read())):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                for alias in node.names:
                    top = (node.module if isinstance(node, ast.ImportFrom) else alias.name)
                    top = top.split(".")[0]
                    assert top in ("mpipp", *beside) or top in sys.stdlib_module_names, \
                        (name, top)


def test_no_import_cycle_between_rooms():
    """Rooms of one floor may use each other, but never both ways."""
    edges = {}
    for name in MODULES:
        here = room(name)[0]
        for target in imports_of(name):
            if target in MODULES and room(target)[0] != here:
                edges.setdefault(here, set()).add(room(target)[0])
    for a, targets in edges.items():
        for b in targets:
            assert a not in edges.get(b, ()), "%s and %s import each other" % (a, b)
