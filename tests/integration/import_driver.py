# Sourced inside a gdb without mpipp by tests/integration/test_loading.py,
# after MPIPP_PYDIR (the folder holding the package) is set: imports every
# module of the package with what an import could do to gdb or to the
# interpreter recorded, then writes one line per thing done ("did ...") and
# "imported N modules".
import builtins
import importlib
import os
import pkgutil
import sys

import gdb

_done = []


def _recording(what, real=None):
    def record(*args, **_kwargs):
        _done.append("did %s%r" % (what, args[:1]))
        return real(*args) if real is not None else None
    return record


class _Events:
    """Stands for one of gdb.events' registries."""

    def __init__(self, name):
        self.connect = _recording("gdb.events.%s.connect" % name)
        self.disconnect = _recording("gdb.events.%s.disconnect" % name)


_patched = []


def _patch(owner, name, replacement):
    _patched.append((owner, name, getattr(owner, name)))
    setattr(owner, name, replacement)


for _name in dir(gdb.events):
    if hasattr(getattr(gdb.events, _name), "connect"):
        _patch(gdb.events, _name, _Events(_name))
for _name in ("execute", "set_convenience_variable", "register_window_type", "write"):
    if hasattr(gdb, _name):
        _patch(gdb, _name, _recording("gdb.%s" % _name))
_patch(builtins, "open", _recording("open", builtins.open))
_patch(os, "open", _recording("os.open", os.open))
_patch(sys, "setrecursionlimit", _recording("sys.setrecursionlimit", sys.setrecursionlimit))
_limit = sys.getrecursionlimit()
_lists = {name: len(getattr(gdb, name)) for name in ("pretty_printers", "frame_filters",
                                                     "type_printers")}
sys.path.insert(0, MPIPP_PYDIR)  # noqa: F821 (set before this file is sourced)
try:
    import mpipp
    _modules = [mpipp] + [importlib.import_module(info.name) for info in
                          pkgutil.walk_packages(mpipp.__path__, "mpipp.")]
finally:
    for _owner, _name, _real in reversed(_patched):
        setattr(_owner, _name, _real)
if sys.getrecursionlimit() != _limit:
    _done.append("did change the recursion limit to %d" % sys.getrecursionlimit())
for _name, _length in _lists.items():
    if len(getattr(gdb, _name)) != _length:
        _done.append("did add to gdb.%s" % _name)
try:
    gdb.execute("help mpipp", to_string=True)
    _done.append("did define the mpipp command")
except gdb.error:
    pass
if "hook-finish" in gdb.execute("help user-defined", to_string=True):
    _done.append("did define hook-finish")
for _line in _done + ["imported %d modules" % len(_modules)]:
    gdb.write(_line + "\n")
