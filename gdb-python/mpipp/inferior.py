"""The gdb layer every mpipp package shares: inferior memory, symbols,
print limits, batched output, one-line command errors, and the events that
make per-stop views stale.

Readers of libmpireg's tables (datatypes, context) keep one view per stop;
they register an invalidation hook with on_change() and are told whenever
the inferior may have changed (it ran, a new objfile appeared, memory was
written).
"""

import gdb

from .args import ArgError
from .model.errors import ModelError, ReadError


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


_change_hooks = []


def on_change(hook):
    """Call hook(event) whenever cached views of the inferior become stale."""
    _change_hooks.append(hook)


def invalidate(*event):
    for hook in _change_hooks:
        hook(*event)


def symbol_address(name):
    """The address of a global symbol of the selected inferior, or None."""
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % name))
    except gdb.error:
        return None


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


def one_line_errors(func):
    """Turns model and argument errors of a command into one-line gdb errors."""
    def invoke(self, arg, from_tty):
        try:
            func(self, arg, from_tty)
        except (ModelError, ArgError) as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
    return invoke


def connect_events():
    for registry_ in (gdb.events.stop, gdb.events.cont, gdb.events.exited,
                      gdb.events.new_objfile, gdb.events.memory_changed,
                      gdb.events.inferior_call, gdb.events.clear_objfiles):
        registry_.connect(invalidate)
