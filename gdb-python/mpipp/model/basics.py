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


def value_bytes(basic):
    """How many leading bytes of a (non-pair) element hold its value: all of
    them, except the 6 padding bytes of an x87 long double."""
    if basic.basic_kind == "float":
        fmt = float_format(basic)
        if fmt is X87:
            return X87.used
    return basic.size
