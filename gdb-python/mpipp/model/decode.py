"""Decoding raw bytes of basic MPI types, formatted like gdb 13 prints them.

Target assumptions: little-endian, x86-64 ABI (long double = x87 80-bit
extended in 16 bytes).

Natural format (gdb's default for the C type):
  int/uint   decimal                       float  %.9g / %.17g / %.21Lg (x87),
                                                  ``inf``, ``-inf``, ``nan(0x8000000000000)``,
                                                  ``<invalid float value>``
  complex    ``1 + 2i``, ``1.5 + -2i``     char   ``65 'A'``, ``0 '\\000'``, ``-56 '\\310'``
  wide char  ``65 L'A'``                   bool   ``true``/``false`` (Fortran LOGICAL:
                                                  nonzero is true; C _Bool 2 prints 2)
  byte/packed ``0x2a``                     pair   ``{value = 1.5, index = 3}``
Format letters (gdb ``print/FMT``): x d u o t z use the raw bits of the value
(two's complement for ints; for floats the bit pattern, as gdb >= 8 does;
complex as one integer of all its bytes; pair per member), c = value as a
char, a = value as an address (hex), f = ints of 4/8/16 bytes reinterpreted
as float/double/long double, other ints decimal.

Fast entry point: ``formatter(basic, fmt)`` returns ``f(buf, off, n, stride)
-> list[str]`` decoding a whole run with struct/memoryview.
"""

import math
import struct
import sys
from fractions import Fraction

from ..readers.errors import MpippError
from .basics import element_span, is_logical, is_quad, is_unsigned_char

LITTLE = sys.byteorder == "little"
_isfinite = math.isfinite
_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}
_UINT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_FLOAT_CODES = {4: "f", 8: "d", 2: "e"}
# (basic kind, size) -> struct code of the types whose value is a plain
# number: the integers and IEEE single and double (the fast paths of render
# and jsonout); FLOAT_SPECS: the % spec of such a float's text, as gdb prints it
NUMBER_CODES = dict([(("int", s), c) for s, c in _INT_CODES.items()]
                    + [(("uint", s), c) for s, c in _UINT_CODES.items()]
                    + [(("float", 4), "f"), (("float", 8), "d")])
FLOAT_SPECS = {4: "%.9g", 8: "%.17g"}
FORMAT_LETTERS = "xduotczaf"


# ---------------------------------------------------------------- bulk unpack

def unpack_run(code, size, buf, off, n, stride):
    """n values of struct code (little-endian) at off + k*stride."""
    if n <= 0:
        return []
    if n == 1:
        return [struct.unpack_from("<" + code, buf, off)[0]]
    if stride == size:
        return list(struct.unpack_from("<%d%s" % (n, code), buf, off))
    if LITTLE and stride > 0 and stride % size == 0 and code != "e" and off >= 0:
        end = off + (n - 1) * stride + size
        mv = memoryview(buf)[off:end]
        if len(mv) == end - off:
            return mv.cast(code)[::stride // size].tolist()
    s = struct.Struct("<" + code)
    return [s.unpack_from(buf, off + k * stride)[0] for k in range(n)]


def ints_run(buf, off, n, stride, size, signed):
    codes = _INT_CODES if signed else _UINT_CODES
    code = codes.get(size)
    if code:
        return unpack_run(code, size, buf, off, n, stride)
    return [int.from_bytes(buf[off + k * stride: off + k * stride + size], "little",
                           signed=signed) for k in range(n)]


# ---------------------------------------------------------------- floats

def _mant_hex(mant, man_len):
    """gdb's floatformat_mantissa: first chunk %lx, then 32-bit %08lx chunks."""
    first = man_len % 32 or 32
    rest = man_len - first
    out = "%x" % (mant >> rest)
    while rest > 0:
        rest -= 32
        out += "%08x" % ((mant >> rest) & 0xFFFFFFFF)
    return out


def format_g_exact(neg, mant, e2, prec):
    """printf('%.{prec}g') of (-1)^neg * mant * 2^e2, exactly rounded (half even)."""
    sign = "-" if neg else ""
    if mant == 0:
        return sign + "0"
    if e2 >= 0:
        num, den = mant << e2, 1
    else:
        num, den = mant, 1 << -e2
    k = int((mant.bit_length() + e2 - 1) * 0.30102999566398120)
    lo, hi = 10 ** (prec - 1), 10 ** prec
    for _ in range(4):
        s = prec - 1 - k
        if s >= 0:
            n_, d_ = num * 10 ** s, den
        else:
            n_, d_ = num, den * 10 ** -s
        q, r = divmod(n_, d_)
        if 2 * r > d_ or (2 * r == d_ and q & 1):
            q += 1
        if q >= hi:
            k += 1
            continue
        if q < lo:
            k -= 1
            continue
        break
    digits = str(q)
    if prec > k >= -4:
        if k >= 0:
            ip, fp = digits[:k + 1], digits[k + 1:]
        else:
            ip, fp = "0", "0" * (-k - 1) + digits
        fp = fp.rstrip("0")
        return sign + ip + ("." + fp if fp else "")
    m = digits[0] + ("." + digits[1:].rstrip("0") if digits[1:].rstrip("0") else "")
    return "%s%se%s%02d" % (sign, m, "-" if k < 0 else "+", abs(k))


def _ieee_nan(bits, man_len, exp_len, size_bits):
    neg = bits >> (size_bits - 1)
    mant = bits & ((1 << man_len) - 1)
    if mant == 0:
        return "-inf" if neg else "inf"
    return ("-" if neg else "") + "nan(0x%s)" % _mant_hex(mant, man_len)


def x87_parts(raw):
    """(kind, neg, mant, e2) of an x87 80-bit value in 16 (or 10) bytes;
    kind in 'num', 'inf', 'nan', 'invalid'."""
    mant = int.from_bytes(raw[0:8], "little")
    se = int.from_bytes(raw[8:10], "little")
    neg, exp = se >> 15, se & 0x7FFF
    intbit = mant >> 63
    if exp == 0x7FFF:
        if not intbit:
            return "invalid", neg, mant, 0
        return ("inf" if mant & ((1 << 63) - 1) == 0 else "nan"), neg, mant, 0
    if exp == 0:
        if intbit:
            return "invalid", neg, mant, 0
        return "num", neg, mant, 1 - 16383 - 63
    if not intbit:
        return "invalid", neg, mant, 0
    return "num", neg, mant, exp - 16383 - 63


def _format_parts(parts, man_len, digits):
    """gdb's text for (kind, neg, mant, e2) of an extended float."""
    kind, neg, mant, e2 = parts
    if kind == "invalid":
        return "<invalid float value>"
    if kind == "inf":
        return "-inf" if neg else "inf"
    if kind == "nan":
        return ("-" if neg else "") + "nan(0x%s)" % _mant_hex(mant, man_len)
    return format_g_exact(neg, mant, e2, digits)


def format_x87(raw):
    return _format_parts(x87_parts(raw), 64, 21)


def quad_parts(raw):
    """(kind, neg, mant, e2) of an IEEE binary128 value (16 bytes)."""
    bits = int.from_bytes(raw[:16], "little")
    neg = bits >> 127
    exp = (bits >> 112) & 0x7FFF
    frac = bits & ((1 << 112) - 1)
    if exp == 0x7FFF:
        return ("inf" if frac == 0 else "nan"), neg, frac, 0
    if exp == 0:
        return "num", neg, frac, 1 - 16383 - 112
    return "num", neg, frac | (1 << 112), exp - 16383 - 112


def format_quad(raw):
    return _format_parts(quad_parts(raw), 112, 36)


def _parts_value(parts):
    kind, neg, mant, e2 = parts
    if kind == "invalid":
        return None
    if kind == "inf":
        return float("-inf") if neg else float("inf")
    if kind == "nan":
        return float("nan")
    try:
        v = float(Fraction(mant) * Fraction(2) ** e2) if e2 < 0 else float(mant << e2)
    except OverflowError:
        v = float("inf")
    return -v if neg else v


def x87_value(raw):
    """Python float (rounded) of an x87 value, or None when invalid."""
    return _parts_value(x87_parts(raw))


def _fix_nonfinite(out, vals, buf, off, stride, size, man_len, exp_len):
    if not all(map(_isfinite, vals)):
        for k, v in enumerate(vals):
            if not _isfinite(v):
                b = int.from_bytes(buf[off + k * stride: off + k * stride + size], "little")
                out[k] = _ieee_nan(b, man_len, exp_len, 8 * size)
    return out


_FMT17 = "%.17g".__mod__
_FMT9 = "%.9g".__mod__
_FMT5 = "%.5g".__mod__


def _float_strs(size, buf, off, n, stride, quad=False):
    if quad and size == 16:
        return [format_quad(buf[off + k * stride: off + k * stride + 16]) for k in range(n)]
    if size == 8:
        vals = unpack_run("d", 8, buf, off, n, stride)
        return _fix_nonfinite(list(map(_FMT17, vals)), vals, buf, off, stride, 8, 52, 11)
    if size == 4:
        vals = unpack_run("f", 4, buf, off, n, stride)
        return _fix_nonfinite(list(map(_FMT9, vals)), vals, buf, off, stride, 4, 23, 8)
    if size in (16, 10, 12):
        return [format_x87(buf[off + k * stride: off + k * stride + 10]) for k in range(n)]
    if size == 2:
        vals = unpack_run("e", 2, buf, off, n, stride)
        return _fix_nonfinite(list(map(_FMT5, vals)), vals, buf, off, stride, 2, 10, 5)
    return ["<float of %d bytes>" % size] * n


def float_value(size, raw, quad=False):
    """Numeric value of one float (Python float; x87 rounded; None invalid)."""
    if quad and size == 16:
        return _parts_value(quad_parts(raw))
    if size == 8:
        return struct.unpack("<d", raw[:8])[0]
    if size == 4:
        return struct.unpack("<f", raw[:4])[0]
    if size == 2:
        return struct.unpack("<e", raw[:2])[0]
    return x87_value(raw)


# ---------------------------------------------------------------- chars

_ESC = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
        39: "\\'", 92: "\\\\"}


def char_literal(code, wide=False):
    """gdb's C char literal body for an unsigned code (without the quotes)."""
    if code in _ESC:
        return _ESC[code]
    if 32 <= code < 127:
        return chr(code)
    if wide and code < 0x110000 and not 0xD800 <= code < 0xE000 and code >= 0xA0 \
            and chr(code).isprintable():
        return chr(code)
    if code < 256:
        return "\\%03o" % code
    return "\\x%x" % code


def format_char(value, size, unsigned_code, prefix=""):
    return "%d %s'%s'" % (value, prefix, char_literal(unsigned_code, wide=bool(prefix)))


# ---------------------------------------------------------------- per kind

def _leaf_kind(basic):
    k = basic.basic_kind
    if k is None:
        raise MpippError("%s is not a basic type" % basic.display_name)
    return k


def _raw_int(raw, signed):
    return int.from_bytes(raw, "little", signed=signed)


def _raw_for_bits(basic, raw):
    k = _leaf_kind(basic)
    if k == "float" and basic.size >= 10 and not is_quad(basic):
        return raw[:10]
    return raw


def format_bits(letter, raw, size):
    """x d u o t z of a raw byte string (the value's bits)."""
    u = int.from_bytes(raw, "little")
    if letter == "x":
        return "0x%x" % u
    if letter == "z":
        return "0x%0*x" % (2 * size, u)
    if letter == "o":
        return "0%o" % u if u else "0"
    if letter == "t":
        return "{0:b}".format(u)
    if letter == "u":
        return str(u)
    if letter == "d":
        return str(int.from_bytes(raw, "little", signed=True))
    raise MpippError("bad format letter %r" % letter)


def _scalar_int_value(basic, raw):
    """Numeric value of a non-float scalar (for c, a, f)."""
    k = _leaf_kind(basic)
    signed = k == "int" or (k == "char" and not is_unsigned_char(basic))
    if k == "char" and basic.size > 1:
        signed = True
    return _raw_int(raw[:basic.size], signed)


def format_one(basic, raw, fmt=None):
    """Format one element of a basic type from its raw bytes."""
    k = _leaf_kind(basic)
    size = basic.size
    if fmt in (None, "", "r", "s", "i"):
        fmt = None
    if fmt is not None and fmt not in FORMAT_LETTERS:
        raise MpippError("unknown format letter /%s (use one of %s)" % (fmt, FORMAT_LETTERS))
    if k == "pair":
        (o1, t1), (o2, t2) = basic.members
        a = format_one(t1, raw[o1:o1 + t1.size], fmt)
        b = format_one(t2, raw[o2:o2 + t2.size], fmt)
        return "{value = %s, index = %s}" % (a, b)
    if k in ("lb", "ub"):
        return ""
    raw = bytes(raw[:size])
    if fmt is None:
        return format_natural(basic, raw)
    if fmt in "xduotz":
        if fmt == "z":
            return format_bits("z", raw, size)
        return format_bits(fmt, _raw_for_bits(basic, raw), size)
    if k in ("float", "complex"):
        if fmt == "f":
            return format_natural(basic, raw)
        v = float_value(size if k == "float" else size // 2, raw, is_quad(basic))
        iv = _float_to_int(v)
        if fmt == "c":
            c = iv & 0xFF
            return format_char(c - 256 if c >= 128 else c, 1, c)
        return "0x%x" % (iv & 0xFFFFFFFFFFFFFFFF)          # 'a'
    v = _scalar_int_value(basic, raw)
    if fmt == "c":
        unsigned = (k == "uint" or (k == "char" and is_unsigned_char(basic) and size == 1)
                    or k == "byte" or k == "packed")
        c = v & 0xFF
        return format_char(c if unsigned else (c - 256 if c >= 128 else c), 1, c)
    if fmt == "a":
        return "0x%x" % (v & 0xFFFFFFFFFFFFFFFF)
    # 'f'
    if k in ("int", "uint") and size in (4, 8, 16):
        fake = _FAKE_FLOAT[size]
        return format_natural(fake, raw)
    return str(v)


def _float_to_int(v):
    if v is None or v != v:
        return 0
    if v in (float("inf"), float("-inf")):
        return (1 << 63) - 1 if v > 0 else -(1 << 63)
    iv = int(v)
    return max(-(1 << 63), min((1 << 63) - 1, iv))


class _Fake:
    def __init__(self, size):
        self.size = size
        self.basic_kind = "float"
        self.name = None
        self.members = None
        self.combiner = "NAMED"


_FAKE_FLOAT = {4: _Fake(4), 8: _Fake(8), 16: _Fake(16)}


def format_natural(basic, raw):
    k = basic.basic_kind
    size = basic.size
    if k == "int":
        return str(int.from_bytes(raw[:size], "little", signed=True))
    if k == "uint":
        return str(int.from_bytes(raw[:size], "little"))
    if k == "float":
        return _float_strs(size, raw, 0, 1, size, is_quad(basic))[0]
    if k == "complex":
        h = size // 2
        q = is_quad(basic)
        re = _float_strs(h, raw, 0, 1, h, q)[0]
        im = _float_strs(h, raw, h, 1, h, q)[0]
        return "%s + %si" % (re, im)
    if k == "char":
        if size == 1:
            u = raw[0]
            v = u if is_unsigned_char(basic) else (u - 256 if u >= 128 else u)
            return format_char(v, 1, u)
        u = int.from_bytes(raw[:size], "little")
        v = int.from_bytes(raw[:size], "little", signed=True)
        return format_char(v, size, u, prefix="L" if size == 4 else "u")
    if k == "bool":
        v = int.from_bytes(raw[:size], "little")
        if v == 0:
            return "false"
        if v == 1 or is_logical(basic):
            return "true"
        return str(v)
    if k in ("byte", "packed"):
        return "0x%02x" % raw[0] if size == 1 else "0x" + raw[:size][::-1].hex()
    if k == "pair":
        return format_one(basic, raw, None)
    return "?"


def formatter(basic, fmt=None):
    """f(buf, off, n, stride) -> list of formatted strings for a run."""
    k = _leaf_kind(basic)
    size = basic.size
    if fmt in (None, "", "r", "s", "i"):
        fmt = None
    if fmt is not None and fmt not in FORMAT_LETTERS:
        raise MpippError("unknown format letter /%s (use one of %s)" % (fmt, FORMAT_LETTERS))
    if fmt is None:
        if k == "int" and size in _INT_CODES:
            code = _INT_CODES[size]
            return lambda buf, off, n, st: list(map(str, unpack_run(code, size, buf, off, n, st)))
        if k == "uint" and size in _UINT_CODES:
            code = _UINT_CODES[size]
            return lambda buf, off, n, st: list(map(str, unpack_run(code, size, buf, off, n, st)))
        if k == "float":
            q = is_quad(basic)
            return lambda buf, off, n, st: _float_strs(size, buf, off, n, st, q)
    if fmt == "x" and k in ("int", "uint", "char", "byte", "packed") and size in _UINT_CODES:
        code = _UINT_CODES[size]
        return lambda buf, off, n, st: ["0x%x" % v for v in unpack_run(code, size, buf, off, n, st)]

    def generic(buf, off, n, st):
        return [format_one(basic, buf[off + j * st: off + j * st + max(size, basic.extent
                                                                        if k == "pair" else size)],
                           fmt) for j in range(n)]
    return generic


# ---------------------------------------------------------------- JSON

def hex_bytes(raw):
    return bytes(raw).hex()


# hex_run cuts one hex of the whole range when at most 3 of 4 bytes it covers
# are gaps between the elements
_DENSE_STRIDE = 4


def hex_run(buf, off, n, stride, size):
    """hex_bytes of n elements of size bytes at off + k*stride: densely packed
    ones from one hex of their bytes cut by bytes.hex's separator (in C)."""
    if n <= 0:
        return []
    if 0 < stride <= _DENSE_STRIDE * size and stride % size == 0:
        end = off + (n - 1) * stride + size
        return bytes(buf[off:end]).hex(" ", -size).split(" ")[::stride // size]
    if stride == 0:
        return [bytes(buf[off:off + size]).hex()] * n
    return [bytes(buf[o:o + size]).hex() for o in range(off, off + n * stride, stride)]


def json_float(v):
    """A float as JSON holds it: the number, or "nan"/"inf"/"-inf"/"invalid"."""
    if v is None:
        return "invalid"
    if v != v:
        return "nan"
    if v == float("inf"):
        return "inf"
    if v == float("-inf"):
        return "-inf"
    return v


def json_values(basic, buf, off, n, stride):
    """json_value of n elements at off + k*stride, a column at a time (one
    struct call) for integers, characters, booleans, bytes, IEEE floats and
    complexes and pairs of them; an element at a time for the others."""
    column = _JSON_COLUMNS.get(_leaf_kind(basic))
    values = column(basic, buf, off, n, stride) if column else None
    if values is None:
        span = element_span(basic)
        values = [json_value(basic, buf[o:o + span]) for o in
                  (off + k * stride for k in range(n))]
    return values


def _json_floats(size, buf, off, n, stride):
    """JSON values of IEEE floats of 2, 4 or 8 bytes; None for other sizes."""
    code = _FLOAT_CODES.get(size)
    if code is None:
        return None
    values = unpack_run(code, size, buf, off, n, stride)
    return values if all(map(_isfinite, values)) else list(map(json_float, values))


def _json_float_column(basic, buf, off, n, stride):
    return _json_floats(basic.size, buf, off, n, stride)


def _json_complex_column(basic, buf, off, n, stride):
    half = basic.size // 2
    re = _json_floats(half, buf, off, n, stride)
    if re is None:
        return None
    return list(map(list, zip(re, _json_floats(half, buf, off + half, n, stride))))


def _json_int_column(basic, buf, off, n, stride):
    return ints_run(buf, off, n, stride, basic.size, True)


def _json_uint_column(basic, buf, off, n, stride):
    return ints_run(buf, off, n, stride, basic.size, False)


def _json_char_column(basic, buf, off, n, stride):
    unsigned = basic.size == 1 and is_unsigned_char(basic)
    return ints_run(buf, off, n, stride, basic.size, not unsigned)


def _json_bool_column(basic, buf, off, n, stride):
    values = ints_run(buf, off, n, stride, basic.size, False)
    if is_logical(basic):
        return [v != 0 for v in values]
    return [v != 0 if v in (0, 1) else v for v in values]


def _json_bytes_column(basic, buf, off, n, stride):
    return hex_run(buf, off, n, stride, basic.size)


def _json_pair_column(basic, buf, off, n, stride):
    (o1, t1), (o2, t2) = basic.members
    return [{"value": a, "index": b} for a, b in zip(json_values(t1, buf, off + o1, n, stride),
                                                     json_values(t2, buf, off + o2, n, stride))]


# the JSON values of a run by basic kind (json_values); the others (long
# doubles and their complexes, the LB and UB markers) an element at a time
_JSON_COLUMNS = {"int": _json_int_column, "uint": _json_uint_column,
                 "float": _json_float_column, "complex": _json_complex_column,
                 "char": _json_char_column, "bool": _json_bool_column,
                 "byte": _json_bytes_column, "packed": _json_bytes_column,
                 "pair": _json_pair_column}


def json_value(basic, raw):
    """JSON-able value: int for ints and chars (the code), float (non-finite
    as "nan"/"inf"/"-inf"; long double rounded to a double), [re, im] for
    complex, bool for bool/LOGICAL, hex string for MPI_BYTE/MPI_PACKED,
    {"value":..,"index":..} for pairs."""
    k = _leaf_kind(basic)
    size = basic.size
    raw = bytes(raw)
    if k == "int":
        return int.from_bytes(raw[:size], "little", signed=True)
    if k == "uint":
        return int.from_bytes(raw[:size], "little")
    if k == "float":
        return json_float(float_value(size, raw, is_quad(basic)))
    if k == "complex":
        h = size // 2
        q = is_quad(basic)
        return [json_float(float_value(h, raw[:h], q)),
                json_float(float_value(h, raw[h:size], q))]
    if k == "char":
        if size == 1 and is_unsigned_char(basic):
            return raw[0]
        return int.from_bytes(raw[:size], "little", signed=True)
    if k == "bool":
        v = int.from_bytes(raw[:size], "little")
        return v != 0 if (v in (0, 1) or is_logical(basic)) else v
    if k in ("byte", "packed"):
        return hex_bytes(raw[:size])
    if k == "pair":
        (o1, t1), (o2, t2) = basic.members
        return {"value": json_value(t1, raw[o1:o1 + t1.size]),
                "index": json_value(t2, raw[o2:o2 + t2.size])}
    return None
