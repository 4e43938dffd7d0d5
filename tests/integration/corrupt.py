# Sourced in gdb by tests/integration/test_robust.py: functions that corrupt
# one field of libmpireg's registry or context in the stopped process, found
# through mpipp's own readers, and restore() to undo every change.
import struct

import gdb

from mpipp.inferior.memory import invalidate
from mpipp.inferior.symbols import symbol_address
from mpipp.readers.context import ROOT as CONTEXT_ROOT
from mpipp import views
from mpipp.readers.remote import CONSTANT

_saved = []


def _write(address, data):
    memory = gdb.selected_inferior()
    _saved.append((address, bytes(memory.read_memory(address, len(data)))))
    memory.write_memory(address, data)
    invalidate()


def restore():
    while _saved:
        address, data = _saved.pop()
        gdb.selected_inferior().write_memory(address, data)
    invalidate()


def _record(variable):
    view = views.registry.get()
    return view, view.find_record(int(gdb.parse_and_eval(variable)))


def corrupt_field(variable, field, value, width=4):
    """Sets record field `field` (a constant 'record.FIELD') of the type in `variable`."""
    view, address = _record(variable)
    _write(address + view.const["record." + field], value.to_bytes(width, "little"))


def corrupt_integer(variable, index, value):
    """Sets integer argument `index` of the type in `variable` (after its
    datatype pointers, addresses and large counts)."""
    view, address = _record(variable)
    r = view.record_at(address)
    at = r.args + 8 * (r.n_datatypes + r.n_addresses + r.n_large_counts) + 4 * index
    _write(at, struct.pack("<i", value))


def corrupt_context_constant(name, value, new_name=None):
    """Sets the value of constant `name` in libmpireg's context constants
    table (and renames it to new_name if given)."""
    root = symbol_address("mpireg_comm_root")
    fields = CONTEXT_ROOT.unpack(bytes(gdb.selected_inferior().read_memory(root, CONTEXT_ROOT.size)))
    n, table = fields[4], fields[6]
    raw = bytes(gdb.selected_inferior().read_memory(table, CONSTANT.size * n))
    for k, (entry, _value) in enumerate(CONSTANT.iter_unpack(raw)):
        if entry.split(b"\0", 1)[0].decode() == name:
            _write(table + CONSTANT.size * k + 48, struct.pack("<q", value))
            if new_name is not None:
                _write(table + CONSTANT.size * k, new_name.encode().ljust(48, b"\0"))
            return
    raise gdb.GdbError("no context constant %s" % name)
