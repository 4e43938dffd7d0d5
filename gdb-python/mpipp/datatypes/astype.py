"""`-as TYPE`: a buffer's contiguous runs of bytes read as another type.

    (gdb) mpipp -as double $mpi_call.datatype $mpi_call.buf
    [0][0][0] = 1000
    ...
    (gdb) mpipp layout -as 'struct particle' h5type

TYPE is a C or Fortran type name (double, int32, 'long double', real(8),
integer*4, 'double precision', ...), a C struct, union or typedef gdb knows
from the program's debug information ('struct particle'), or any TYPE the
commands take (MPI_DOUBLE, halo_t, vector#3).  The buffer's runs
(model/runs.py) become the blocks of a new datatype, paths [0][k][j]:
element j of run k.
"""

import re

import gdb

from ..model import describe
from ..model.runs import derived, reinterpret
from ..readers.errors import MpippError
from ..text.args import ArgError
from .arguments import NOT_A_DATATYPE, check_data, datatype_from

# C and Fortran names of basic types -> the MPI type of one element.
NAMES = {
    "char": "MPI_CHAR", "signed char": "MPI_SIGNED_CHAR", "unsigned char": "MPI_UNSIGNED_CHAR",
    "short": "MPI_SHORT", "unsigned short": "MPI_UNSIGNED_SHORT", "int": "MPI_INT",
    "unsigned": "MPI_UNSIGNED", "unsigned int": "MPI_UNSIGNED", "long": "MPI_LONG",
    "unsigned long": "MPI_UNSIGNED_LONG", "long long": "MPI_LONG_LONG",
    "unsigned long long": "MPI_UNSIGNED_LONG_LONG", "float": "MPI_FLOAT",
    "double": "MPI_DOUBLE", "long double": "MPI_LONG_DOUBLE", "bool": "MPI_C_BOOL",
    "_bool": "MPI_C_BOOL", "float complex": "MPI_C_FLOAT_COMPLEX",
    "double complex": "MPI_C_DOUBLE_COMPLEX", "byte": "MPI_BYTE",
    "integer": "MPI_INTEGER", "real": "MPI_REAL", "double precision": "MPI_DOUBLE_PRECISION",
    "complex": "MPI_COMPLEX", "logical": "MPI_LOGICAL", "character": "MPI_CHARACTER",
}
for _bits in (8, 16, 32, 64):
    NAMES["int%d" % _bits] = "MPI_INT%d_T" % _bits
    NAMES["uint%d" % _bits] = "MPI_UINT%d_T" % _bits
# Fortran kinds: real(8), real*8, integer(kind=4), complex(8) (two reals of 8)
_FORTRAN_KIND = re.compile(r"^(real|integer|complex|logical)\s*(?:\*|\((?:kind\s*=\s*)?)(\d+)\)?$")
_FORTRAN_NAMES = {"real": "MPI_REAL%d", "integer": "MPI_INTEGER%d", "complex": "MPI_COMPLEX%d",
                  "logical": "MPI_LOGICAL%d"}


def _normalized(text):
    text = " ".join(text.strip().strip("'\"").lower().split())
    return text[:-2] if text.endswith("_t") and text[:-2] in NAMES else text


def _predefined(view, name, text):
    address = view.predefined_names().get(name)
    if address is None:
        raise ArgError("-as %s: this MPI has no %s" % (text, name))
    return view.datatype_at(address)


def _basic_name(text):
    """The MPI name of a C or Fortran basic type's name, or None."""
    key = _normalized(text)
    if key in NAMES:
        return NAMES[key]
    found = _FORTRAN_KIND.match(key)
    if found:
        kind, size = found.group(1), int(found.group(2))
        return _FORTRAN_NAMES[kind] % (size * 2 if kind == "complex" else size)
    return None


# gdb scalar types -> MPI names by size (signed, unsigned)
_INTEGERS = {1: ("MPI_INT8_T", "MPI_UINT8_T"), 2: ("MPI_INT16_T", "MPI_UINT16_T"),
             4: ("MPI_INT32_T", "MPI_UINT32_T"), 8: ("MPI_INT64_T", "MPI_UINT64_T")}
_FLOATS = {4: "MPI_FLOAT", 8: "MPI_DOUBLE", 16: "MPI_LONG_DOUBLE"}
MAX_FIELDS = 4096


def from_gdb_type(gdb_type, view, text, depth=0):
    """The model datatype of a C (or Fortran) type: its scalars as the MPI
    types of their size, arrays as contiguous, structs as struct resized to
    the C size (padding included)."""
    t = gdb_type.strip_typedefs()
    if depth > 32:
        raise ArgError("-as %s: type nested too deep" % text)
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR) and t.name in NAMES and t.sizeof == 1:
        return _predefined(view, NAMES[t.name], text)    # characters, shown as such
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_CHAR,
                  gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_PTR) and t.sizeof in _INTEGERS:
        unsigned = t.code == gdb.TYPE_CODE_PTR or not getattr(t, "is_signed", True)
        return _predefined(view, _INTEGERS[t.sizeof][unsigned], text)
    if t.code == gdb.TYPE_CODE_FLT and t.sizeof in _FLOATS:
        return _predefined(view, _FLOATS[t.sizeof], text)
    if t.code == gdb.TYPE_CODE_ARRAY:
        low, high = t.range()
        element = from_gdb_type(t.target(), view, text, depth + 1)
        return derived("CONTIGUOUS", [element], [max(0, high - low + 1)],
                       constants=view.constants)
    if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        fields = [f for f in t.fields() if not f.is_base_class or f.type.sizeof]
        if len(fields) > MAX_FIELDS or any(f.bitsize for f in fields):
            raise ArgError("-as %s: bit fields or more than %d fields" % (text, MAX_FIELDS))
        kids = [from_gdb_type(f.type, view, text, depth + 1) for f in fields]
        inner = derived("STRUCT", kids, [len(kids)] + [1] * len(kids),
                        [f.bitpos // 8 for f in fields], view.constants)
        return derived("RESIZED", [inner], addresses=[0, t.sizeof], constants=view.constants,
                       name=str(gdb_type))
    raise ArgError("-as %s: cannot read runs as a %s" % (text, t))


def element_type(text, view):
    """The Datatype a -as word names (see the module doc)."""
    name = _basic_name(text)
    if name is not None:
        return _predefined(view, name, text)
    try:
        return datatype_from(text, view)
    except NOT_A_DATATYPE:
        pass
    try:
        gdb_type = gdb.lookup_type(text.strip().strip("'\""))
    except gdb.error:
        raise ArgError("-as %s: not a C or Fortran type, nor a datatype" % text) from None
    return from_gdb_type(gdb_type, view, text)


def as_runs(dt, count, text, view, allow_all=False, lift="pass -all to read that much as runs"):
    """(datatype, 1): dt × count with its runs read as the type text names.
    The buffer's bytes are bounded first, as a decode bounds them (`lift`
    says what lifts the limit, allow_all that it was): listing the runs of
    10**12 repetitions would never end.  (With -all the runs are bounded
    all the same, by runs.MAX_RUNS.)"""
    if not allow_all and count:
        check_data(dt, count, lift)
    element = element_type(text, view)
    try:
        out = reinterpret(dt, count, element, _predefined(view, "MPI_BYTE", text))
    except MpippError as err:
        raise MpippError("-as %s: %s" % (text, err)) from None
    out.name = "%s as %s" % (describe.label(dt), element.display_name)
    return out, 1
