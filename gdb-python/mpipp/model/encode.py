"""Values typed by a user, turned into the bytes of a basic element: the
inverse of decode (``mpipp set``).

Accepted text per kind (everything decode prints is accepted back):

  int, uint   42, -7, 0x2a, 0b101, 052 (C octal), 'A' (a char's code)
  float       1.5, -2e-3, 0x1.8p3, inf, -inf, nan, nan(0x8000000000000)
              (exactly rounded to the element's format: binary16/32/64,
              x87 long double, binary128)
  complex     1.5 + -2i, 1-2i, 3i, 2 (imaginary part 0)
  char        'A', '\\n', '\\0', '\\x41', '\\101', L'Z', or its code
  bool        true, false, 1, 0 (Fortran LOGICAL also .true./.false.)
  byte        0..255, 0x2a
A pair element (MPI_DOUBLE_INT ...) is two values, value then index.

A value that does not fit (an integer out of range, a float beyond the
format's largest finite number, text that is no number) raises
``ValueDoesNotFit`` with one line saying why; nothing is encoded.

Value lists: ``{1, 2, {3, 4}}`` is flattened into 1, 2, 3, 4 (``split_values``).
"""

import re
from fractions import Fraction

from ..readers.errors import MpippError
from .basics import PAIR_MEMBERS, float_format, is_logical, is_unsigned_char, part_size
from .elements import count_elements, iter_elements
from .paths import format_path


class ValueDoesNotFit(MpippError):
    """A value that cannot be stored in an element of the given type."""


# ---------------------------------------------------------------- value lists

def split_values(text):
    """The values of ``v`` or ``{v, v, {v, v}}``, flattened, as stripped
    strings.  Commas inside quotes or parentheses do not split."""
    tokens = _tokens(text)
    values = []
    if "," in tokens and tokens[0] != "{":
        raise ValueDoesNotFit("a list of values needs braces: {%s}" % text.strip())
    pos = _item(tokens, 0, values, text)
    if pos != len(tokens):
        raise ValueDoesNotFit("unexpected %r after the value in %r" % (tokens[pos], text))
    return values


def _tokens(text):
    """'{', '}', ',' and value texts."""
    out, current, depth, quote, escaped = [], [], 0, None, False
    for ch in text:
        if quote:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch in "{},"  and depth == 0:
            _flush(out, current)
            out.append(ch)
            continue
        current.append(ch)
    if quote or depth:
        raise ValueDoesNotFit("unbalanced quotes or parentheses in %r" % text)
    _flush(out, current)
    return out


def _flush(out, current):
    item = "".join(current).strip()
    if item:
        out.append(item)
    current.clear()


def _item(tokens, pos, values, text):
    if pos >= len(tokens) or tokens[pos] in ",}":
        raise ValueDoesNotFit("missing value in %r" % text)
    if tokens[pos] != "{":
        values.append(tokens[pos])
        return pos + 1
    pos += 1
    if pos < len(tokens) and tokens[pos] == "}":
        return pos + 1
    while True:
        pos = _item(tokens, pos, values, text)
        if pos >= len(tokens):
            raise ValueDoesNotFit("missing '}' in %r" % text)
        if tokens[pos] == "}":
            return pos + 1
        if tokens[pos] != ",":
            raise ValueDoesNotFit("expected ',' or '}' before %r in %r" % (tokens[pos], text))
        pos += 1


# ---------------------------------------------------------------- literals

_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27,
                 "\\": 92, "'": 39, '"': 34, "?": 63}
_CHAR = re.compile(r"([LuU]?)'(\\(?:x[0-9a-fA-F]+|[0-7]{1,3}|.)|[^\\'])'\Z", re.S)


def char_code(text):
    """(prefix, code) of a C char literal ('A', L'Z', '\\n'), or None."""
    m = _CHAR.match(text.strip())
    if not m:
        return None
    body = m.group(2)
    if body[0] != "\\":
        return m.group(1), ord(body)
    esc = body[1:]
    if esc[0] == "x":
        return m.group(1), int(esc[1:], 16)
    if esc[0] in "01234567":
        return m.group(1), int(esc, 8)
    if esc in _CHAR_ESCAPES:
        return m.group(1), _CHAR_ESCAPES[esc]
    return None


_INT = re.compile(r"([+-]?)\s*(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")


def parse_int(text):
    """An integer literal (C syntax, or a char literal) -> int."""
    t = text.strip()
    got = char_code(t)
    if got is not None:
        return got[1]
    m = _INT.match(t)
    if not m:
        raise ValueDoesNotFit("%r is not an integer" % text)
    digits = m.group(2)
    if digits[:2] in ("0x", "0X"):
        v = int(digits[2:], 16)
    elif digits[:2] in ("0b", "0B"):
        v = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        v = int(digits[1:], 8)
    else:
        v = int(digits)
    return -v if m.group(1) == "-" else v


_FLOAT_BODY = (r"(?:nan(?:\(0[xX][0-9a-fA-F]+\))?|inf(?:inity)?"
               r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
               r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_FLOAT_TOKEN = r"[+-]?\s*" + _FLOAT_BODY
_FLOAT = re.compile(r"\s*(" + _FLOAT_TOKEN + r")\s*\Z", re.I)
_COMPLEX = re.compile(r"\s*(" + _FLOAT_TOKEN + r")\s*([+-])\s*(" + _FLOAT_TOKEN
                      + r")?\s*\*?\s*[ij]\s*\Z", re.I)


def parse_real(text):
    """A real number literal -> (kind, negative, x): ('num', neg, magnitude
    as a Fraction), ('inf', neg, None) or ('nan', neg, payload or None)."""
    m = _FLOAT.match(text)
    if not m:
        raise ValueDoesNotFit("%r is not a number" % text.strip())
    t = m.group(1).replace(" ", "").lower()
    neg = t.startswith("-")
    t = t.lstrip("+-")
    if t.startswith("nan"):
        return ("nan", neg, int(t[6:-1], 16) if "(" in t else None)
    if t.startswith("inf"):
        return ("inf", neg, None)
    if t.startswith("0x"):
        mant, _, exp = t[2:].partition("p")
        whole, _, frac = mant.partition(".")
        magnitude = Fraction(int(whole or "0", 16) * 16 ** len(frac) + int(frac or "0", 16),
                             16 ** len(frac)) * Fraction(2) ** int(exp or "0")
    else:
        magnitude = Fraction(t)
    return ("num", neg, magnitude)


# ---------------------------------------------------------------- floats

def _round_half_even(q):
    n, r = divmod(q.numerator, q.denominator)
    if 2 * r > q.denominator or (2 * r == q.denominator and n & 1):
        n += 1
    return n


def encode_float(value, fmt):
    """Bytes (``fmt.used`` of them, little-endian) of a parsed real in a
    FloatFormat, exactly rounded (half to even).  Raises ValueDoesNotFit
    beyond the largest finite value or for a NaN payload too wide."""
    m, e = fmt.man_bits, fmt.exp_bits
    frac_bits = m - 1 if fmt.explicit_int else m
    bias = (1 << (e - 1)) - 1
    top = (1 << e) - 1
    kind, neg, a = value
    if kind == "inf":
        return _pack_float(fmt, neg, top, 1 << frac_bits if fmt.explicit_int else 0)
    if kind == "nan":
        mant = (1 << (frac_bits - 1)) if a is None else a
        if fmt.explicit_int and a is None:
            mant |= 1 << frac_bits
        if mant == 0 or mant >> (frac_bits + (1 if fmt.explicit_int else 0)):
            raise ValueDoesNotFit("NaN payload 0x%x does not fit" % mant)
        return _pack_float(fmt, neg, top, mant)
    if a == 0:
        return _pack_float(fmt, neg, 0, 0)
    exp = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exp > a:
        exp -= 1
    emin = 1 - bias
    if exp < emin:
        n = _round_half_even(a * Fraction(2) ** (frac_bits - emin))
        biased = 1 if n >> frac_bits else 0
    else:
        n = _round_half_even(a * Fraction(2) ** (frac_bits - exp))
        if n >> (frac_bits + 1):
            n >>= 1
            exp += 1
        biased = exp + bias
    if biased >= top:
        raise ValueDoesNotFit("beyond the largest finite value")
    mant = n if fmt.explicit_int else n & ((1 << frac_bits) - 1)
    return _pack_float(fmt, neg, biased, mant)


def _pack_float(fmt, neg, biased, mant):
    bits = (int(neg) << (fmt.exp_bits + fmt.man_bits)) | (biased << fmt.man_bits) | mant
    return bits.to_bytes(fmt.used, "little")


# ---------------------------------------------------------------- per kind

def _int_bytes(value, size, signed, what):
    lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed \
        else (0, (1 << (8 * size)) - 1)
    if not lo <= value <= hi:
        raise ValueDoesNotFit("%d does not fit %s (valid %d..%d)" % (value, what, lo, hi))
    return value.to_bytes(size, "little", signed=signed)


def _float_part(basic, text, what):
    fmt = float_format(basic, part_size(basic))
    if fmt is None:
        raise ValueDoesNotFit("%s: no float format of %d bytes" % (what, part_size(basic)))
    value = parse_real(text)
    try:
        return encode_float(value, fmt)
    except ValueDoesNotFit as err:
        raise ValueDoesNotFit("%s does not fit %s (%s)" % (text.strip(), what, err)) from None


def _complex(basic, text, what):
    m = _COMPLEX.match(text)
    if m:
        re_text, sign, im_text = m.group(1), m.group(2), m.group(3) or "1"
        im_text = im_text.strip()
        if sign == "-":
            im_text = im_text[1:] if im_text.startswith("-") else "-" + im_text.lstrip("+")
    elif text.strip()[-1:] in ("i", "j", "I", "J"):
        re_text, im_text = "0", text.strip()[:-1].rstrip(" *")
        if im_text in ("", "+", "-"):
            im_text += "1"
    else:
        re_text, im_text = text, "0"
    half = part_size(basic)
    parts = [_float_part(basic, t, what) for t in (re_text, im_text)]
    return b"".join(p + bytes(half - len(p)) for p in parts)


def _bool(basic, text, what):
    t = text.strip().lower()
    words = {"true": 1, "false": 0, ".true.": 1, ".false.": 0}
    value = words[t] if t in words else parse_int(text)
    if value not in (0, 1) and not is_logical(basic):
        raise ValueDoesNotFit("%d does not fit %s (true, false, 1 or 0)" % (value, what))
    return _int_bytes(value, basic.size, is_logical(basic), what)


def _char(basic, text, what):
    got = char_code(text)
    signed = basic.size > 1 or not is_unsigned_char(basic)
    if got is None:
        return _int_bytes(parse_int(text), basic.size, signed, what)
    code = got[1]
    limit = 1 << (8 * basic.size)
    if code >= limit:
        raise ValueDoesNotFit("character code %d does not fit %s" % (code, what))
    return code.to_bytes(basic.size, "little")


def _integer(basic, text, what):
    return _int_bytes(parse_int(text), basic.size, basic.basic_kind == "int", what)


def _byte(basic, text, what):
    return _int_bytes(parse_int(text), basic.size, False, what)


_ENCODERS = {"int": _integer, "uint": _integer, "float": _float_part, "complex": _complex,
             "char": _char, "bool": _bool, "byte": _byte, "packed": _byte}


def encode_scalar(basic, text):
    """The bytes of one (non-pair) element holding ``text``, starting at the
    element's first byte (an x87 long double gives its 10 value bytes; the
    padding stays as it is)."""
    kind = basic.basic_kind
    what = basic.display_name
    enc = _ENCODERS.get(kind)
    if enc is None:
        raise ValueDoesNotFit("%s elements cannot be written (%s)" % (what, kind))
    return enc(basic, text, what)


# ---------------------------------------------------------------- a subtree

def element_slots(basic, member=None):
    """The scalars one element takes from a value list, [(offset, type)]:
    the element itself, or a pair's members (value, index); ``member``
    ('value' / 'index') picks one member of a pair."""
    if basic.basic_kind != "pair":
        if member is not None:
            raise ValueDoesNotFit("%s has no member .%s (only pair types such as "
                                  "MPI_DOUBLE_INT have .value and .index)"
                                  % (basic.display_name, member))
        return [(0, basic)]
    if member is None:
        return list(basic.members)
    return [basic.members[PAIR_MEMBERS.index(member)]]


def encode_subtree(dt, count, prefix, values, member=None):
    """[(offset, bytes)] writing the value texts ``values`` (typemap order) into
    the elements below buffer path ``prefix``; every value is checked before
    anything is returned.  Raises ValueDoesNotFit naming the element."""
    n_elements = count_elements(dt, count, prefix)
    if n_elements == 0:
        raise ValueDoesNotFit("%s holds no elements" % (format_path(prefix) or "the buffer"))
    if n_elements > len(values):
        raise ValueDoesNotFit("%d value%s for the %d elements of %s" % (
            len(values), "" if len(values) == 1 else "s", n_elements, format_path(prefix)))
    writes, k = [], 0
    for path, offset, basic in iter_elements(dt, count, prefix):
        for member_offset, scalar in element_slots(basic, member):
            if k == len(values):
                raise ValueDoesNotFit("too few values for %s: a pair takes two (value, index)"
                                      % format_path(prefix))
            try:
                data = encode_scalar(scalar, values[k])
            except ValueDoesNotFit as err:
                raise ValueDoesNotFit("%s: %s; nothing was written"
                                      % (format_path(path), err)) from None
            writes.append((offset + member_offset, data))
            k += 1
    if k != len(values):
        raise ValueDoesNotFit("%d values for the %d scalars of %s" % (
            len(values), k, format_path(prefix)))
    return writes
