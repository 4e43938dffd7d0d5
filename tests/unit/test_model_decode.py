"""Decoding of every basic kind and format letter; expected strings are what
gdb 13.1 prints for the same bytes (checked with `gdb -batch -ex 'p ...'`)."""

import json
import math
import struct as st

import pytest

from dtypes import (BASICS, BYTE, C_BOOL, C_DOUBLE_COMPLEX, C_FLOAT_COMPLEX, C_LONG_DOUBLE_COMPLEX,
                    CHAR, DOUBLE, DOUBLE_INT, FLOAT, INT, INT128, LOGICAL, LONG, LONG_DOUBLE,
                    PACKED, SHORT, SHORT_INT, UINT128, UNSIGNED, UNSIGNED_CHAR, USHORT, WCHAR,
                    f90_complex, f90_integer, f90_real)
from mpipp.model import decode as D
from mpipp.model.basics import element_span
from mpipp.readers.errors import MpippError


def ld(bits80):
    return bits80.to_bytes(16, "little")


LD_THIRD = ld(0x3FFDAAAAAAAAAAAAAAAB)         # (long double)1/3


def f1(basic, raw, fmt=None):
    return D.format_one(basic, raw, fmt)


def test_doubles_like_gdb():
    assert f1(DOUBLE, st.pack("<d", 1 / 3)) == "0.33333333333333331"
    assert f1(DOUBLE, st.pack("<d", 1.0)) == "1"
    assert f1(DOUBLE, st.pack("<d", 1.5)) == "1.5"
    assert f1(DOUBLE, st.pack("<d", 1e17)) == "1e+17"
    assert f1(DOUBLE, st.pack("<d", 1e16)) == "10000000000000000"
    assert f1(DOUBLE, st.pack("<d", 1e-5)) == "1.0000000000000001e-05"
    assert f1(DOUBLE, st.pack("<d", -0.0)) == "-0"
    assert f1(DOUBLE, st.pack("<d", math.inf)) == "inf"
    assert f1(DOUBLE, st.pack("<d", -math.inf)) == "-inf"
    assert f1(DOUBLE, st.pack("<Q", 0x7FF8000000000000)) == "nan(0x8000000000000)"
    assert f1(DOUBLE, st.pack("<Q", 0xFFF8000000000000)) == "-nan(0x8000000000000)"
    assert f1(DOUBLE, st.pack("<Q", 0x7FF0000000000001)) == "nan(0x000000001)"
    assert f1(DOUBLE, st.pack("<d", 4.9e-324)) == "4.9406564584124654e-324"


def test_floats_like_gdb():
    assert f1(FLOAT, st.pack("<f", 1 / 3)) == "0.333333343"
    assert f1(FLOAT, st.pack("<f", 1e-5)) == "9.99999975e-06"
    assert f1(FLOAT, st.pack("<f", 100)) == "100"
    assert f1(FLOAT, st.pack("<I", 0x7FC00000)) == "nan(0x400000)"
    assert f1(FLOAT, st.pack("<I", 0xFFC00001)) == "-nan(0x400001)"
    assert f1(FLOAT, st.pack("<I", 0xFF800000)) == "-inf"
    assert f1(FLOAT, st.pack("<f", 1e-45)) == "1.40129846e-45"


def test_long_double_x87_like_gdb():
    assert f1(LONG_DOUBLE, LD_THIRD) == "0.333333333333333333342"
    assert f1(LONG_DOUBLE, ld(0x3FFFC000000000000000)) == "1.5"
    assert f1(LONG_DOUBLE, ld(0xC000A000000000000000)) == "-2.5"
    assert f1(LONG_DOUBLE, ld(0x47C88EB39714297EFB28)) == "1.00000000000000000003e+600"
    assert f1(LONG_DOUBLE, ld(0x0C179C3D73864F3805C0)) == "9.99999999999999999987e-4001"
    assert f1(LONG_DOUBLE, ld(0x00000000000000000001)) == "3.64519953188247460253e-4951"
    assert f1(LONG_DOUBLE, ld(0)) == "0"
    assert f1(LONG_DOUBLE, ld(1 << 79)) == "-0"
    assert f1(LONG_DOUBLE, ld(0x7FFFC000000000000000)) == "nan(0xc000000000000000)"
    assert f1(LONG_DOUBLE, ld(0x7FFFC000000000000001)) == "nan(0xc000000000000001)"
    assert f1(LONG_DOUBLE, ld(0xFFFF8000000000000000)) == "-inf"
    # pseudo-NaN, unnormal, pseudo-denormal: gdb says <invalid float value>
    assert f1(LONG_DOUBLE, ld(0x7FFF4000000000000000)) == "<invalid float value>"
    assert f1(LONG_DOUBLE, ld(0x3FFF0000000000000000)) == "<invalid float value>"
    assert f1(LONG_DOUBLE, ld(0x00008000000000000001)) == "<invalid float value>"
    # padding bytes are ignored
    assert f1(LONG_DOUBLE, LD_THIRD[:10] + b"\xff" * 6) == "0.333333333333333333342"


def test_exact_g_matches_printf_for_doubles():
    import random
    rnd = random.Random(5)
    for _ in range(3000):
        x = rnd.uniform(-1, 1) * 10 ** rnd.randint(-300, 300)
        m, e = math.frexp(x)
        assert D.format_g_exact(x < 0, int(abs(m) * 2 ** 53), e - 53, 17) == "%.17g" % x


def test_complex():
    assert f1(C_DOUBLE_COMPLEX, st.pack("<dd", 1, 2)) == "1 + 2i"
    assert f1(C_DOUBLE_COMPLEX, st.pack("<dd", 1.5, -2)) == "1.5 + -2i"
    assert f1(C_FLOAT_COMPLEX, st.pack("<ff", 1 / 3, 2)) == "0.333333343 + 2i"
    assert f1(C_LONG_DOUBLE_COMPLEX, LD_THIRD + ld(0x40008000000000000000)) == \
        "0.333333333333333333342 + 2i"
    assert f1(C_DOUBLE_COMPLEX, st.pack("<Qd", 0x7FF8000000000000, 2)) == \
        "nan(0x8000000000000) + 2i"
    assert f1(f90_complex(15, 307, 16), st.pack("<dd", 3, 4)) == "3 + 4i"


def test_ints():
    assert f1(INT, st.pack("<i", -5)) == "-5"
    assert f1(SHORT, st.pack("<h", -2)) == "-2"
    assert f1(LONG, st.pack("<q", -(2 ** 63))) == "-9223372036854775808"
    assert f1(UNSIGNED, st.pack("<I", 4294967295)) == "4294967295"
    assert f1(USHORT, st.pack("<H", 65535)) == "65535"
    assert f1(INT128, (-3).to_bytes(16, "little", signed=True)) == "-3"
    assert f1(UINT128, (5).to_bytes(16, "little")) == "5"
    assert f1(f90_integer(9, 8), st.pack("<q", 7)) == "7"
    assert f1(f90_real(6, 37, 4), st.pack("<f", 0.5)) == "0.5"


def test_chars():
    assert f1(CHAR, b"A") == "65 'A'"
    assert f1(CHAR, b"\x00") == "0 '\\000'"
    assert f1(CHAR, bytes([200])) == "-56 '\\310'"
    assert f1(UNSIGNED_CHAR, bytes([200])) == "200 '\\310'"
    expected = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
                27: "\\033", 34: '"', 39: "\\'", 92: "\\\\", 127: "\\177", 31: "\\037", 32: " "}
    for code, lit in expected.items():
        assert f1(CHAR, bytes([code])) == "%d '%s'" % (code, lit)


def test_wide_chars():
    assert f1(WCHAR, st.pack("<i", 65)) == "65 L'A'"
    assert f1(WCHAR, st.pack("<i", 0)) == "0 L'\\000'"
    assert f1(WCHAR, st.pack("<i", 0x263A)) == "9786 L'\u263a'"
    assert f1(WCHAR, st.pack("<i", -1)) == "-1 L'\\xffffffff'"


def test_bool_byte_packed():
    assert f1(C_BOOL, b"\x01") == "true"
    assert f1(C_BOOL, b"\x00") == "false"
    assert f1(C_BOOL, b"\x02") == "2"
    assert f1(LOGICAL, st.pack("<i", 1)) == "true"
    assert f1(LOGICAL, st.pack("<i", -1)) == "true"
    assert f1(LOGICAL, st.pack("<i", 0)) == "false"
    assert f1(BYTE, b"\x2a") == "0x2a"
    assert f1(BYTE, b"\x00") == "0x00"
    assert f1(PACKED, b"\xff") == "0xff"


def test_pairs():
    raw = st.pack("<di4x", 1.5, 3)
    assert f1(DOUBLE_INT, raw) == "{value = 1.5, index = 3}"
    assert f1(DOUBLE_INT, raw, "x") == "{value = 0x3ff8000000000000, index = 0x3}"
    assert f1(SHORT_INT, st.pack("<h2xi", -2, 7)) == "{value = -2, index = 7}"
    assert D.json_value(DOUBLE_INT, raw) == {"value": 1.5, "index": 3}


# ---------------------------------------------------------------- format letters
# expected values from gdb 13.1: p/x 1.5, p/z 5, p/x -1, p/o 8, p/t 5, p/c 65, ...

@pytest.mark.parametrize("basic,raw,fmt,expected", [
    (DOUBLE, st.pack("<d", 1.5), "x", "0x3ff8000000000000"),
    (DOUBLE, st.pack("<d", 1.5), "d", "4609434218613702656"),
    (DOUBLE, st.pack("<d", -1.5), "o", "01377700000000000000000"),
    (DOUBLE, st.pack("<d", -1.5), "c", "-1 '\\377'"),
    (DOUBLE, st.pack("<d", -1.5), "a", "0xffffffffffffffff"),
    (DOUBLE, st.pack("<d", -1.5), "f", "-1.5"),
    (DOUBLE, st.pack("<d", 1.5), "z", "0x3ff8000000000000"),
    (FLOAT, st.pack("<f", 1.5), "x", "0x3fc00000"),
    (FLOAT, st.pack("<f", 1.5), "d", "1069547520"),
    (FLOAT, st.pack("<f", 1.5), "t", "111111110000000000000000000000"),
    (FLOAT, st.pack("<f", 1.5), "z", "0x3fc00000"),
    (FLOAT, st.pack("<f", 65.7), "c", "65 'A'"),
    (LONG_DOUBLE, LD_THIRD, "x", "0x3ffdaaaaaaaaaaaaaaab"),
    (LONG_DOUBLE, LD_THIRD, "z", "0x0000000000003ffdaaaaaaaaaaaaaaab"),
    (LONG_DOUBLE, LD_THIRD, "d", "302188412500818638056107"),
    (INT, st.pack("<i", 5), "z", "0x00000005"),
    (INT, st.pack("<i", -1), "x", "0xffffffff"),
    (INT, st.pack("<i", 8), "o", "010"),
    (INT, st.pack("<i", 0), "o", "0"),
    (INT, st.pack("<i", 5), "t", "101"),
    (INT, st.pack("<i", 0), "t", "0"),
    (INT, st.pack("<i", 0), "x", "0x0"),
    (INT, st.pack("<i", 65), "c", "65 'A'"),
    (INT, st.pack("<i", 321), "c", "65 'A'"),
    (INT, st.pack("<i", -5), "c", "-5 '\\373'"),
    (INT, st.pack("<i", -5), "u", "4294967291"),
    (INT, st.pack("<i", -5), "t", "11111111111111111111111111111011"),
    (INT, st.pack("<i", -5), "o", "037777777773"),
    (INT, st.pack("<i", -5), "a", "0xfffffffffffffffb"),
    (INT, st.pack("<i", -5), "z", "0xfffffffb"),
    (INT, st.pack("<i", 4096), "a", "0x1000"),
    (INT, st.pack("<i", 3), "f", "4.20389539e-45"),
    (INT, st.pack("<i", -5), "d", "-5"),
    (UNSIGNED, st.pack("<I", 4294967295), "d", "-1"),
    (LONG, st.pack("<q", -(2 ** 63)), "x", "0x8000000000000000"),
    (LONG, st.pack("<q", -1), "o", "01777777777777777777777"),
    (LONG, st.pack("<q", -1), "c", "-1 '\\377'"),
    (SHORT, st.pack("<h", -2), "x", "0xfffe"),
    (SHORT, st.pack("<h", -2), "f", "-2"),
    (SHORT, st.pack("<h", -2), "a", "0xfffffffffffffffe"),
    (INT128, (-3).to_bytes(16, "little", signed=True), "x", "0xfffffffffffffffffffffffffffffffd"),
    (INT128, (-3).to_bytes(16, "little", signed=True), "f", "-nan(0xfffffffffffffffd)"),
    (CHAR, bytes([200]), "x", "0xc8"),
    (CHAR, bytes([200]), "t", "11001000"),
    (CHAR, bytes([200]), "o", "0310"),
    (CHAR, bytes([200]), "u", "200"),
    (CHAR, bytes([200]), "z", "0xc8"),
    (CHAR, bytes([200]), "c", "-56 '\\310'"),
    (CHAR, bytes([200]), "d", "-56"),
    (CHAR, bytes([200]), "f", "-56"),
    (CHAR, bytes([200]), "a", "0xffffffffffffffc8"),
    (UNSIGNED_CHAR, bytes([200]), "d", "-56"),
    (UNSIGNED_CHAR, bytes([200]), "c", "200 '\\310'"),
    (UNSIGNED_CHAR, bytes([200]), "a", "0xc8"),
    (WCHAR, st.pack("<i", 65), "x", "0x41"),
    (WCHAR, st.pack("<i", 65), "c", "65 'A'"),
    (WCHAR, st.pack("<i", 65), "d", "65"),
    (C_BOOL, b"\x01", "x", "0x1"),
    (C_BOOL, b"\x01", "d", "1"),
    (C_BOOL, b"\x01", "c", "1 '\\001'"),
    (C_BOOL, b"\x01", "t", "1"),
    (C_BOOL, b"\x01", "o", "01"),
    (C_BOOL, b"\x00", "z", "0x00"),
    (BYTE, b"\x2a", "d", "42"),
    (BYTE, b"\x2a", "x", "0x2a"),
    (BYTE, b"\x2a", "c", "42 '*'"),
    (C_DOUBLE_COMPLEX, st.pack("<dd", 1, 2), "x", "0x40000000000000003ff0000000000000"),
    (C_DOUBLE_COMPLEX, st.pack("<dd", 1, 2), "d", "85070591730234615870450834276742070272"),
    (C_DOUBLE_COMPLEX, st.pack("<dd", 1, 2), "f", "1 + 2i"),
])
def test_format_letters(basic, raw, fmt, expected):
    assert f1(basic, raw, fmt) == expected
    # the bulk formatter agrees with the one-element one
    assert D.formatter(basic, fmt)(raw * 3, 0, 3, len(raw)) == [expected] * 3


def test_unknown_letter():
    with pytest.raises(MpippError, match="unknown format letter"):
        f1(INT, b"\0\0\0\0", "q")


def test_bulk_formatter_strided_and_nonfinite():
    raw = b"".join(st.pack("<dd", v, 99.0) for v in (1.5, math.inf, -0.0, math.nan))
    out = D.formatter(DOUBLE)(raw, 0, 4, 16)
    assert out == ["1.5", "inf", "-0", "nan(0x8000000000000)"]
    raw = st.pack("<4x3i", 1, -2, 3)
    assert D.formatter(INT)(raw, 4, 3, 4) == ["1", "-2", "3"]
    assert D.formatter(INT, "x")(raw, 4, 3, 4) == ["0x1", "0xfffffffe", "0x3"]
    assert D.formatter(SHORT)(st.pack("<hhh", 1, 2, 3), 4, 1, 2) == ["3"]
    assert D.formatter(FLOAT)(st.pack("<ff", 0.5, 1.5), 0, 2, -4 + 8) == ["0.5", "1.5"]
    assert D.formatter(INT)(st.pack("<iii", 1, 2, 3), 8, 3, -4) == ["3", "2", "1"]


def test_json_values():
    assert D.json_value(INT, st.pack("<i", -5)) == -5
    assert D.json_value(UNSIGNED, st.pack("<I", 7)) == 7
    assert D.json_value(DOUBLE, st.pack("<d", 1.5)) == 1.5
    assert D.json_value(DOUBLE, st.pack("<d", math.inf)) == "inf"
    assert D.json_value(DOUBLE, st.pack("<d", -math.inf)) == "-inf"
    assert D.json_value(DOUBLE, st.pack("<d", math.nan)) == "nan"
    assert D.json_value(LONG_DOUBLE, LD_THIRD) == pytest.approx(1 / 3)
    assert D.json_value(LONG_DOUBLE, ld(0x7FFF4000000000000000)) == "invalid"
    assert D.json_value(C_DOUBLE_COMPLEX, st.pack("<dd", 1, -2)) == [1.0, -2.0]
    assert D.json_value(CHAR, b"A") == 65
    assert D.json_value(CHAR, bytes([200])) == -56
    assert D.json_value(UNSIGNED_CHAR, bytes([200])) == 200
    assert D.json_value(WCHAR, st.pack("<i", 0x263A)) == 0x263A
    assert D.json_value(C_BOOL, b"\x01") is True
    assert D.json_value(LOGICAL, st.pack("<i", 5)) is True
    assert D.json_value(BYTE, b"\x2a") == "2a"
    assert D.hex_bytes(b"\xde\xad") == "dead"


def test_quad_float128_like_gdb():
    from dtypes import named
    real16 = named("MPI_REAL16", "float", 16)
    third = (0x3FFD5555555555555555555555555555).to_bytes(16, "little")
    assert f1(real16, third) == "0.333333333333333333333333333333333317"
    neg = (0xBFFD5555555555555555555555555555).to_bytes(16, "little")
    assert f1(real16, neg) == "-0.333333333333333333333333333333333317"
    assert f1(real16, third, "x") == "0x3ffd5555555555555555555555555555"
    assert f1(real16, (0x3FFF << 112).to_bytes(16, "little")) == "1"
    assert f1(real16, (0x7FFF << 112).to_bytes(16, "little")) == "inf"
    assert D.json_value(real16, third) == pytest.approx(1 / 3)
    q = f90_real(33, 4931, 16)
    assert f1(q, third) == "0.333333333333333333333333333333333317"
    # MPI_LONG_DOUBLE of the same size stays x87
    assert f1(LONG_DOUBLE, LD_THIRD) == "0.333333333333333333342"


# Bytes whose elements are the cases a column decoder could miss: non-finite
# IEEE floats of every width (from 0, 32, 48), booleans 0, 1, 2 (from 56),
# then a pattern
SPECIAL = (st.pack("<dddd", math.inf, math.nan, -math.inf, -0.0)
           + st.pack("<ffff", math.inf, math.nan, -math.inf, 1.5)
           + st.pack("<eeee", math.inf, math.nan, -math.inf, 1.5)
           + bytes([0, 1, 2, 255, 0, 0, 0, 1])
           + bytes((i * 37 + 11) % 256 for i in range(1200)))
F90 = (f90_real(33, 4931, 16), f90_real(15, 307, 8), f90_complex(15, 307, 16),
       f90_complex(33, 4931, 32), f90_integer(9, 4))


def runs_of(basic):
    """(offset, n, stride) of runs over SPECIAL: dense, spaced, sparse and
    unaligned, on the same bytes, backwards."""
    span = max(element_span(basic), 1)
    return [(off, 6, stride) for off in (0, 32, 48, 56, 3)
            for stride in (span, 3 * span, 5 * span + 1, 0)] + [(200, 6, -span)]


@pytest.mark.parametrize("basic", BASICS + F90, ids=lambda b: b.display_name)
def test_json_values_of_a_run_are_json_value_of_each_element(basic):
    span = element_span(basic)
    for off, n, stride in runs_of(basic):
        one_at_a_time = [D.json_value(basic, SPECIAL[o:o + span])
                         for o in range(off, off + n * stride, stride or 1)][:n]
        if stride == 0:
            one_at_a_time = [D.json_value(basic, SPECIAL[off:off + span])] * n
        got = D.json_values(basic, SPECIAL, off, n, stride)
        assert json.dumps(got) == json.dumps(one_at_a_time), (off, stride)


@pytest.mark.parametrize("size", [1, 2, 4, 8, 12, 16])
def test_hex_run_is_hex_bytes_of_each_element(size):
    for off, n, stride in [(0, 7, size), (5, 7, 2 * size), (1, 7, 4 * size), (0, 7, 5 * size),
                           (3, 7, size + 1), (9, 7, 0), (200, 7, -size), (0, 1, size)]:
        want = [D.hex_bytes(SPECIAL[off + k * stride:off + k * stride + size]) for k in range(n)]
        assert D.hex_run(SPECIAL, off, n, stride, size) == want
    assert D.hex_run(SPECIAL, 0, 0, size, size) == []
