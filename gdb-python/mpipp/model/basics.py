"""How one element of a basic MPI type is stored: the single table that
reading (decode), writing (encode) and comparing (compare) elements share.

A leaf Datatype has a ``basic_kind`` ('int', 'uint', 'float', 'complex',
'char', 'bool', 'byte', 'packed', 'pair', 'lb', 'ub') and a size; what
that means in bytes is decided here and nowhere else:

* integers and chars are little-endian two's complement of their size
  (chars are signed unless the MPI name says unsigned; 2- and 4-byte chars
  are wide chars, printed u'x' and L'x');
* floats are one of the ``FLOAT_FORMATS`` (IEEE binary16/32/64, x87
  80-bit extended in 16 bytes for C long double, IEEE binary128 for the
  Fortran 16-byte reals and __float128); a complex is two of them;
* bool is C _Bool or Fortran LOGICAL (nonzero is true);
* a pair (MPI_DOUBLE_INT ...) has ``members`` [(offset, value type),
  (offset, int type)], named ``PAIR_MEMBERS``.
"""

from collections import namedtuple

FloatFormat = namedtuple("FloatFormat", "name size man_bits exp_bits explicit_int used")
FloatFormat.__doc__ = """man_bits: stored significand bits (x87 stores its integer
bit: 64); exp_bits: exponent field width; explicit_int: the integer bit is
stored (x87); used: bytes holding the value (x87 keeps 10 of 16)."""

BINARY16 = FloatFormat("binary16", 2, 10, 5, False, 2)
BINARY32 = FloatFormat("binary32", 4, 23, 8, False, 4)
BINARY64 = FloatFormat("binary64", 8, 52, 11, False, 8)
X87 = FloatFormat("x87", 16, 64, 15, True, 10)
BINARY128 = FloatFormat("binary128", 16, 112, 15, False, 16)
FLOAT_FORMATS = {2: BINARY16, 4: BINARY32, 8: BINARY64}

PAIR_MEMBERS = ("value", "index")

_QUAD_NAMES = ("MPI_REAL16", "MPI_COMPLEX32", "MPI_FLOAT128", "MPI_C_FLOAT128",
               "MPI_C_FLOAT128_COMPLEX")
_UNSIGNED_CHAR_NAMES = ("MPI_UINT8_T",)


def is_quad(basic):
    """IEEE binary128 (gfortran REAL*16, __float128) rather than x87: the
    Fortran 16-byte reals and the F90 parameterized types of that size."""
    if basic.combiner in ("F90_REAL", "F90_COMPLEX"):
        return True
    name = (basic.name or "").upper()
    return name in _QUAD_NAMES or "FLOAT128" in name


def is_unsigned_char(basic):
    name = (basic.name or "").upper()
    return "UNSIGNED" in name or name in _UNSIGNED_CHAR_NAMES


def is_logical(basic):
    """Fortran LOGICAL: any nonzero value is true."""
    return "LOGICAL" in (basic.name or "").upper()


def is_signed(basic):
    """Whether an integer-like element (int, uint, char, bool, byte) is signed."""
    kind = basic.basic_kind
    if kind == "char":
        return basic.size > 1 or not is_unsigned_char(basic)
    return kind == "int"


def float_format(basic, size=None):
    """The FloatFormat of a float (or of one part of a complex, size = half),
    or None for sizes no format has."""
    size = basic.size if size is None else size
    if size == 16:
        return BINARY128 if is_quad(basic) else X87
    if size in (10, 12):
        return X87
    return FLOAT_FORMATS.get(size)


def part_size(basic):
    """Bytes of one number of the element: the whole float, half a complex."""
    return basic.size // 2 if basic.basic_kind == "complex" else basic.size


def element_span(basic):
    """Bytes an element covers in memory from its first: its size, or for a
    pair the end of its last member (MPI_SHORT_INT: size 6, covers 8)."""
    if basic.basic_kind == "pair":
        return max(basic.size, basic.true_lb + basic.true_extent)
    return basic.size


# The C type each C name of MPI stands for (the MPI standard's tables), and
# the Fortran type of each Fortran name; the other language's type of the
# same bytes follows from the kind and size (language_types).
_C_NAMES = {
    "MPI_CHAR": "char", "MPI_SIGNED_CHAR": "signed char", "MPI_UNSIGNED_CHAR": "unsigned char",
    "MPI_SHORT": "short", "MPI_UNSIGNED_SHORT": "unsigned short", "MPI_INT": "int",
    "MPI_UNSIGNED": "unsigned int", "MPI_LONG": "long", "MPI_UNSIGNED_LONG": "unsigned long",
    "MPI_LONG_LONG": "long long", "MPI_LONG_LONG_INT": "long long",
    "MPI_UNSIGNED_LONG_LONG": "unsigned long long", "MPI_FLOAT": "float",
    "MPI_DOUBLE": "double", "MPI_LONG_DOUBLE": "long double", "MPI_WCHAR": "wchar_t",
    "MPI_C_BOOL": "_Bool", "MPI_AINT": "MPI_Aint", "MPI_OFFSET": "MPI_Offset",
    "MPI_COUNT": "MPI_Count", "MPI_C_COMPLEX": "float _Complex",
    "MPI_C_FLOAT_COMPLEX": "float _Complex", "MPI_C_DOUBLE_COMPLEX": "double _Complex",
    "MPI_C_LONG_DOUBLE_COMPLEX": "long double _Complex",
}
_FORTRAN_NAMES = {
    "MPI_INTEGER": "INTEGER", "MPI_REAL": "REAL", "MPI_DOUBLE_PRECISION": "DOUBLE PRECISION",
    "MPI_COMPLEX": "COMPLEX", "MPI_DOUBLE_COMPLEX": "DOUBLE COMPLEX", "MPI_LOGICAL": "LOGICAL",
    "MPI_CHARACTER": "CHARACTER(1)",
}
_C_BY_KIND = {("int", 1): "int8_t", ("int", 2): "int16_t", ("int", 4): "int32_t",
              ("int", 8): "int64_t", ("uint", 1): "uint8_t", ("uint", 2): "uint16_t",
              ("uint", 4): "uint32_t", ("uint", 8): "uint64_t", ("float", 4): "float",
              ("float", 8): "double", ("complex", 8): "float _Complex",
              ("complex", 16): "double _Complex", ("char", 1): "char",
              ("bool", 1): "_Bool", ("byte", 1): "unsigned char (raw byte)"}


def language_types(basic):
    """(C type, Fortran type) holding one element of a basic type (None
    where that language has none: Fortran has no unsigned integers)."""
    name = (basic.name or "").upper()
    kind, size = basic.basic_kind, basic.size
    c = _C_NAMES.get(name)
    if c is None and (kind, size) in _C_BY_KIND and not (kind == "float" and is_quad(basic)):
        c = _C_BY_KIND[kind, size]
    if c is None and kind == "float" and size == 16:
        c = "__float128" if is_quad(basic) else "long double"
    fortran = _FORTRAN_NAMES.get(name)
    if fortran is None:
        fortran = {"int": "INTEGER(%d)" % size, "float": "REAL(%d)" % size,
                   "complex": "COMPLEX(%d)" % (size // 2), "bool": "LOGICAL(%d)" % size,
                   "char": "CHARACTER(1)" if size == 1 else None,
                   "byte": "INTEGER(1) (raw byte)" if size == 1 else None}.get(kind)
        if kind == "float" and size == 16 and not is_quad(basic):
            fortran = None   # x87 extended: gfortran's REAL(10), padded to 16 bytes
    return c, fortran
