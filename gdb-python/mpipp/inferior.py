"""The gdb side of registry access: inferior memory, symbols, caching.

One Registry view is kept per inferior and dropped whenever the inferior may
have changed (it ran, a new objfile appeared, memory was written), so every
stop reads the registry afresh but repeated prints at one stop cost nothing.
"""

import gdb

from .model.errors import ReadError
from .registry import Registry, RegistryError

ROOT_SYMBOL = "mpireg_root"
NOT_LOADED = ("mpipp: libmpireg is not loaded in this process, so MPI datatypes print as raw "
              "handles. Start it with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, or link "
              "-lmpireg before -lmpi.")


class GdbMemory:
    """Plain memory reads of the selected inferior; never calls into it."""

    def __init__(self, inferior):
        self.inferior = inferior

    def read(self, address, length):
        if length == 0:
            return b""
        try:
            return self.inferior.read_memory(address, length).tobytes()
        except (gdb.MemoryError, gdb.error, OverflowError, ValueError):
            raise ReadError(address) from None


_views = {}
_noticed = set()


def invalidate(*_event):
    _views.clear()


def _root_address():
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % ROOT_SYMBOL))
    except gdb.error:
        return None


def registry(quiet=False):
    """The registry of the selected inferior; None (after one notice) when absent.

    Raises RegistryError when the registry exists but cannot be trusted.
    """
    inferior = gdb.selected_inferior()
    key = (inferior.num, inferior.pid)
    if key not in _views:
        address = _root_address()
        _views[key] = None if address is None else Registry(GdbMemory(inferior), address)
    view = _views[key]
    if view is None and not quiet and key not in _noticed:
        _noticed.add(key)
        gdb.write(NOT_LOADED + "\n", gdb.STDERR)
    return view


def require_registry():
    """The registry, or a one-line gdb error saying why there is none."""
    try:
        view = registry(quiet=True)
    except RegistryError as err:
        raise gdb.GdbError("mpipp: %s" % err) from None
    if view is None:
        raise gdb.GdbError(NOT_LOADED)
    return view


def memory_reader(base):
    """read(offset, length) relative to base, as the model's renderers take it."""
    memory = GdbMemory(gdb.selected_inferior())
    return lambda offset, length: memory.read(base + offset, length)


def print_limit(name):
    """A 'print elements'-like gdb setting as an int, None when unlimited."""
    value = gdb.parameter(name)
    return None if value in (None, 0) or value == "unlimited" else int(value)


OUTPUT_BATCH = 2000


def write_lines(lines):
    """Streams lines to gdb in batches (a line at a time is slow; all at once is late)."""
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) >= OUTPUT_BATCH:
            gdb.write("\n".join(batch) + "\n")
            batch = []
    if batch:
        gdb.write("\n".join(batch) + "\n")


def creation_site(address):
    """'file.c:42' for a constructor's return address, or None."""
    if not address:
        return None
    try:
        sal = gdb.find_pc_line(address - 1)
    except (gdb.error, RuntimeError):
        return None
    if sal.symtab is None or not sal.line:
        return None
    return "%s:%d" % (sal.symtab.filename, sal.line)


def connect_events():
    for registry_ in (gdb.events.stop, gdb.events.cont, gdb.events.exited,
                      gdb.events.new_objfile, gdb.events.memory_changed,
                      gdb.events.inferior_call, gdb.events.clear_objfiles):
        registry_.connect(invalidate)
