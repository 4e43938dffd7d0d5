"""What the symbol tables say: where a global symbol is, and where a code
address is ('file.c:42', else 'function in library').  Kept until objfiles
change (memory.ObjfileFacts): they do not change at every stop, and a
lookup costs ~0.4 ms.  Nothing here depends on the current language."""

import os
import re

import gdb

from ..text.names import short_site
from .memory import ADDRESS_LIMIT, objfile_facts

_INFO_ADDRESS = re.compile(r" (?:address|at) (0x[0-9a-fA-F]+)")


def symbol_address(name):
    """The address of a global data symbol of the selected inferior, or None
    (kept until objfiles change: $mpi_call and the frame filter ask at every
    stop, also in programs without libmpireg)."""
    return _symbols.get(name)


def _lookup_symbol(name):
    """Looked up in the full symbol tables, then (libmpireg without debug
    information) in the minimal ones through 'info address', which, unlike
    an expression such as '&name', reads the same in every language."""
    try:
        symbol = gdb.lookup_global_symbol(name)
        if symbol is not None and symbol.addr_class == gdb.SYMBOL_LOC_STATIC:
            return int(symbol.value().address)
    except (gdb.error, RuntimeError):
        pass
    try:
        text = gdb.execute("info address %s" % name, to_string=True)
    except gdb.error:
        return None
    found = _INFO_ADDRESS.search(text)
    return int(found.group(1), 16) if found else None


_symbols = objfile_facts(_lookup_symbol)


def line_site(address):
    """'file.c:42' for a return address with line information, or None."""
    if not address or not 0 < address < ADDRESS_LIMIT:
        return None
    return _line_sites.get(address)


def _lookup_line(address):
    try:
        sal = gdb.find_pc_line(address - 1)
    except (gdb.error, RuntimeError, OverflowError, ValueError):
        return None
    if sal.symtab is None or not sal.line:
        return None
    return "%s:%d" % (sal.symtab.filename, sal.line)


_line_sites = objfile_facts(_lookup_line)


_INFO_SYMBOL = re.compile(r"^(.*?)(?: \+ \d+)? in section \S+(?: of (\S+))?")


def symbol_site(address):
    """'BI_GetMpiGeType in libscalapack-mpich.so.2.2' for a code address
    without line information (the function from the minimal symbols, as
    'info symbol' names it; the address when the library has none), or
    None when no object file holds the address."""
    if not address or not 0 < address < ADDRESS_LIMIT:
        return None
    return _code_sites.get(address)


def _lookup_code(address):
    try:
        library = gdb.solib_name(address)
        text = gdb.execute("info symbol 0x%x" % (address - 1), to_string=True)
    except (gdb.error, RuntimeError, OverflowError, ValueError):
        return None
    found = _INFO_SYMBOL.match(text.strip())
    where = os.path.basename(library or (found.group(2) if found and found.group(2) else "")
                             or (gdb.current_progspace().filename or ""))
    if found:
        return "%s in %s" % (found.group(1), where) if where else found.group(1)
    return "0x%x in %s" % (address, where) if library else None


_code_sites = objfile_facts(_lookup_code)


def creation_site(address):
    """Where a call that returns to address was made: 'file.c:42', else
    'function in library' (see symbol_site), or None."""
    return line_site(address) or symbol_site(address)


def site_text(address):
    """creation_site as text shows it: a long C++ signature shortened
    (text/names.py); -json forms keep creation_site's full text.  Kept
    like the sites: printers ask it for every datatype they print."""
    return _site_texts.get(address)


_site_texts = objfile_facts(lambda address: short_site(creation_site(address)))
