"""mpipp's pretty-printers as gdb lists them: one collection, "mpipp", of
named subprinters (libstdc++'s printers.py is the model), so that

    (gdb) info pretty-printer
    (gdb) disable pretty-printer global mpipp;MPI_Datatype

list and switch them like any other.  Each concern package declares its
subprinters (a name and a lookup: value -> printer or None) and its small
printers; register() puts them in one collection, in the order that
decides, and registers it once: with libmpireg's objfile when its
auto-load script loads mpipp, else globally.

gdb asks the collection for every value it prints -- each of 10**6
doubles of a `print *arr@1000000` -- so a value that is none of mpipp's
costs one walk of its type's typedef chain (the MPI handle type it is, for
every subprinter at once) and a few checks, nothing more.  Once a
subprinter recognises its value, making the printer runs with room for
deep type trees (call_with_room: the recursion limit the model's walks
need, raised around mpipp's own work only).  A printer method that walks
a type tree has it too, as gdb calls it from anywhere, long after the
lookup: @with_room_for_deep_trees, and @iterated_with_room_for_deep_trees
on children, whose every step gdb takes separately.
"""

import gdb
import gdb.printing

from ..model.datatype import call_with_room
from ..readers.errors import MpippError
from ..text.args import ArgError
from . import expressions
from .output import internal_error

NAME = "mpipp"


class Subprinter(gdb.printing.SubPrettyPrinter):
    """A named printer of the collection: lookup(value, handle) is the
    printer of a value it recognises, else None, and never raises; handle
    is the MPI handle type the value is (through typedefs), or None.
    handle_type: the MPI handle type this subprinter prints, if any."""

    def __init__(self, name, lookup, handle_type=None):
        super().__init__(name)
        self.lookup = lookup
        self.handle_type = handle_type


def handle_subprinter(type_name, printer_of):
    """The subprinter of handles of type_name: printer_of(value) is their
    printer, or None; an error it raises shows as the raw handle and why."""
    def lookup(value, handle):
        if handle != type_name:
            return None
        try:
            return call_with_room(printer_of, value)
        except Exception as err:  # noqa: BLE001 - a printer lookup never raises
            return RawPrinter(value, error_reason(err))
    return Subprinter(type_name, lookup, type_name)


class Collection(gdb.printing.PrettyPrinter):
    """Subprinters asked in order, the first that recognises a value
    printing it.  Matching is each subprinter's own (typedef chains,
    addresses, markers), not a regular expression on the type's name."""

    def __init__(self, subprinters):
        super().__init__(NAME, list(subprinters))
        self.handle_types = tuple(s.handle_type for s in self.subprinters if s.handle_type)

    def __call__(self, value):
        handle = expressions.handle_type_name(value.type, self.handle_types)
        for subprinter in self.subprinters:
            if subprinter.enabled:
                printer = subprinter.lookup(value, handle)
                if printer is not None:
                    return printer
        return None


def register(collection, objfile):
    """Registers the collection with objfile (libmpireg's, as its auto-load
    script runs), or globally when objfile is None -- once: not where gdb
    already has it, globally or with an objfile (mpipp-gdb sources mpipp
    before any objfile; libmpireg's auto-load script loads it again; gdb
    refuses a second printer of one name in one list, and two in two lists
    would both be asked)."""
    if _has_collection(gdb.pretty_printers) or \
            any(_has_collection(o.pretty_printers) for o in gdb.objfiles()):
        return
    gdb.printing.register_pretty_printer(objfile, collection)


def _has_collection(printers):
    return any(getattr(printer, "name", None) == NAME for printer in printers)


class TextPrinter:
    """A value shown as fixed text (a name, a one-line description, or a
    synthetic value that carries one), with no children."""

    def __init__(self, text):
        self.text = text

    def to_string(self):
        return self.text


class RawPrinter:
    """A handle mpipp cannot describe: its value, then <the reason>."""

    def __init__(self, value, reason):
        self.value = value
        self.reason = reason

    def to_string(self):
        """The handle as gdb shows it raw: a number (MPICH) or an address (Open MPI)."""
        try:
            pointer = self.value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR
            number = ("0x%x" if pointer else "%d") % int(self.value)
        except (gdb.error, ValueError, OverflowError):
            number = "?"
        return "%s <%s>" % (number, self.reason)


def error_reason(err):
    """'mpipp: ...' for an error shown inside a printed value."""
    if isinstance(err, gdb.GdbError):  # already one line, 'mpipp: ...'
        return str(err)
    if isinstance(err, (MpippError, ArgError, gdb.error)):
        return "mpipp: %s" % err
    return internal_error(err)
