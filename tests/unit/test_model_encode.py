"""Encoding of typed values into element bytes (mpipp set): the inverse of
decode for every basic kind, exact rounding of every float format, values
that do not fit, value lists and subtrees of buffers."""

import random
import struct as st

import pytest

from dtypes import (BYTE, C_BOOL, C_DOUBLE_COMPLEX, C_FLOAT_COMPLEX, C_LONG_DOUBLE_COMPLEX, CHAR,
                    DOUBLE, DOUBLE_INT, FLOAT, INT, INT128, LOGICAL, LONG, LONG_DOUBLE, SHORT,
                    SHORT_INT, TWO_INT, UINT8, UINT128, UNSIGNED, UNSIGNED_CHAR, USHORT, WCHAR,
                    contiguous, f90_complex, f90_real, resized, struct, vector)
from mpipp.model import decode as D
from mpipp.model import encode as E
from mpipp.model.encode import ValueDoesNotFit


def roundtrip(basic, text):
    """What decode prints for the bytes encode makes of text."""
    raw = E.encode_scalar(basic, text)
    return D.format_one(basic, raw + bytes(basic.size - len(raw)))


def test_floats_round_exactly_like_the_hardware():
    rng = random.Random(7)
    for _ in range(3000):
        x = st.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if x == x:
            assert E.encode_scalar(DOUBLE, repr(x)) == st.pack("<d", x)
            assert E.encode_scalar(DOUBLE, "%.17g" % x) == st.pack("<d", x)
            # a double's decimal rounded once to float, as C's strtof does
            y = st.unpack("<f", st.pack("<f", x))[0] if abs(x) < 3.4e38 else None
            if y is not None and abs(y) != float("inf"):
                assert E.encode_scalar(FLOAT, "%.9g" % y) == st.pack("<f", y)
        h = st.unpack("<e", rng.getrandbits(16).to_bytes(2, "little"))[0]
        if h == h and abs(h) != float("inf"):
            assert E.encode_float(E.parse_real(repr(h)), E.float_format(FLOAT, 2)) \
                == st.pack("<e", h)


@pytest.mark.parametrize("text,expected", [
    ("1.5", "1.5"), ("-2e-3", "-0.002"), ("0x1.8p3", "12"), ("inf", "inf"), ("-inf", "-inf"),
    ("nan", "nan(0x8000000000000)"), ("-nan(0x8000000000001)", "-nan(0x8000000000001)"),
    ("5e-324", "4.9406564584124654e-324"), ("2.5e-324", "4.9406564584124654e-324"),
    ("2e-324", "0"), ("-0", "-0"), ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ("+7", "7"), ("'A'", None),
])
def test_double_texts(text, expected):
    if expected is None:
        with pytest.raises(ValueDoesNotFit, match="is not a number"):
            E.encode_scalar(DOUBLE, text)
    else:
        assert roundtrip(DOUBLE, text) == expected


def test_long_double_and_binary128_round_trip_what_gdb_prints():
    for text in ("0.333333333333333333342", "0.75", "-3.5", "inf", "nan(0xc000000000000000)",
                 "1.18973149535723176502e+4932", "3.64519953188247460253e-4951"):
        assert roundtrip(LONG_DOUBLE, text) == text
    assert len(E.encode_scalar(LONG_DOUBLE, "1")) == 10        # padding bytes untouched
    quad = f90_real(33, 4931, 16)
    for text in ("0.333333333333333333333333333333333317", "-1.5", "inf"):
        assert roundtrip(quad, text) == text
    with pytest.raises(ValueDoesNotFit, match="beyond the largest finite value"):
        E.encode_scalar(LONG_DOUBLE, "1.2e4932")


@pytest.mark.parametrize("basic,text,expected", [
    (C_FLOAT_COMPLEX, "1 + 2i", "1 + 2i"), (C_FLOAT_COMPLEX, "1.5 + -2i", "1.5 + -2i"),
    (C_DOUBLE_COMPLEX, "1-2i", "1 + -2i"), (C_DOUBLE_COMPLEX, "3i", "0 + 3i"),
    (C_DOUBLE_COMPLEX, "-i", "0 + -1i"), (C_DOUBLE_COMPLEX, "2", "2 + 0i"),
    (C_DOUBLE_COMPLEX, "1 - -2i", "1 + 2i"), (C_DOUBLE_COMPLEX, "-inf + nan(0x1)i",
                                              "-inf + nan(0x000000001)i"),
    (C_LONG_DOUBLE_COMPLEX, "0.5 + 0.25i", "0.5 + 0.25i"),
    (f90_complex(33, 4931, 32), "1 + 1i", "1 + 1i"),
])
def test_complex(basic, text, expected):
    assert roundtrip(basic, text) == expected


@pytest.mark.parametrize("basic,text,expected", [
    (INT, "-2147483648", "-2147483648"), (INT, "0x7fffffff", "2147483647"), (INT, "052", "42"),
    (INT, "0b101", "5"), (INT, "'A'", "65"), (SHORT, "-32768", "-32768"),
    (USHORT, "65535", "65535"), (UNSIGNED, "4294967295", "4294967295"),
    (LONG, "-9223372036854775808", "-9223372036854775808"),
    (INT128, "-170141183460469231731687303715884105728",
     "-170141183460469231731687303715884105728"),
    (UINT128, "340282366920938463463374607431768211455",
     "340282366920938463463374607431768211455"),
    (UINT8, "255", "255"), (CHAR, "'A'", "65 'A'"), (CHAR, "'\\n'", "10 '\\n'"),
    (CHAR, "'\\310'", "-56 '\\310'"), (CHAR, "'\\x41'", "65 'A'"), (CHAR, "-128", "-128 '\\200'"),
    (CHAR, "'\\''", "39 '\\''"), (UNSIGNED_CHAR, "200", "200 '\\310'"),
    (WCHAR, "L'Z'", "90 L'Z'"), (WCHAR, "0x263a", "9786 L'\u263a'"),
    (C_BOOL, "true", "true"), (C_BOOL, "0", "false"), (LOGICAL, ".false.", "false"),
    (LOGICAL, ".TRUE.", "true"), (BYTE, "0x5a", "0x5a"), (BYTE, "255", "0xff"),
])
def test_integers_chars_bools_bytes(basic, text, expected):
    assert roundtrip(basic, text) == expected


@pytest.mark.parametrize("basic,text,message", [
    (INT, "2147483648", "2147483648 does not fit MPI_INT (valid -2147483648..2147483647)"),
    (UNSIGNED, "-1", "-1 does not fit MPI_UNSIGNED (valid 0..4294967295)"),
    (INT, "1.5", "'1.5' is not an integer"), (INT, "x", "'x' is not an integer"),
    (INT, "", "'' is not an integer"), (CHAR, "200", "200 does not fit MPI_CHAR"),
    (CHAR, "'\\u263a'", "is not an integer"), (WCHAR, "L'\\x1ffffffff'", "does not fit"),
    (C_BOOL, "2", "2 does not fit MPI_C_BOOL (true, false, 1 or 0)"),
    (BYTE, "256", "256 does not fit MPI_BYTE (valid 0..255)"),
    (FLOAT, "1e39", "1e39 does not fit MPI_FLOAT (beyond the largest finite value)"),
    (DOUBLE, "1e309", "1e309 does not fit MPI_DOUBLE"),
    (DOUBLE, "nan(0x1ffffffffffffff)", "NaN payload 0x1ffffffffffffff does not fit"),
    (DOUBLE, "nan(0x0)", "NaN payload 0x0"), (DOUBLE, "abc", "'abc' is not a number"),
    (C_DOUBLE_COMPLEX, "1 + 2k", "is not a number"),
    (DOUBLE_INT, "1", "cannot be written"),
])
def test_values_that_do_not_fit_are_refused(basic, text, message):
    with pytest.raises(ValueDoesNotFit) as err:
        E.encode_scalar(basic, text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text,values", [
    ("7", ["7"]), ("1 + 2i", ["1 + 2i"]), ("{1, 2, {3, 4}}", ["1", "2", "3", "4"]),
    ("{{1,2},{3,4}}", ["1", "2", "3", "4"]), ("{',', '\\''}", ["','", "'\\''"]),
    ("{nan(0x1), 'a,b'}", ["nan(0x1)", "'a,b'"]), ("{}", []),
])
def test_value_lists_flatten(text, values):
    assert E.split_values(text) == values


@pytest.mark.parametrize("text,message", [
    ("1, 2", "a list of values needs braces: {1, 2}"), ("{1,,2}", "missing value"),
    ("{1", "missing '}'"), ("}", "missing value"), ("{1} 2", "unexpected '2'"),
    ("'a", "unbalanced"), ("{(1, 2}", "unbalanced"),
])
def test_malformed_value_lists(text, message):
    with pytest.raises(ValueDoesNotFit, match=message.replace("{", "\\{").replace("}", "\\}")):
        E.split_values(text)


S_TYPE = struct([1, 3, 5], [0, 8, 32], [INT, DOUBLE, CHAR])


def test_subtree_of_a_buffer_in_typemap_order():
    writes = E.encode_subtree(S_TYPE, 2, (1, 1), ["1.5", "2", "-0.5"])
    rep = S_TYPE.extent
    assert writes == [(rep + 8, st.pack("<d", 1.5)), (rep + 16, st.pack("<d", 2)),
                      (rep + 24, st.pack("<d", -0.5))]
    vec = vector(2, 2, 3, SHORT)
    assert E.encode_subtree(vec, 1, (0,), ["1", "2", "3", "4"]) == [
        (0, b"\x01\x00"), (2, b"\x02\x00"), (6, b"\x03\x00"), (8, b"\x04\x00")]


def test_pairs_take_two_values_or_name_a_member():
    buf = contiguous(2, DOUBLE_INT)
    assert E.encode_subtree(buf, 1, (0, 1), ["-1.5", "7"]) == [
        (16, st.pack("<d", -1.5)), (24, st.pack("<i", 7))]
    assert E.encode_subtree(buf, 1, (0, 1), ["9"], member="index") == [(24, st.pack("<i", 9))]
    assert E.encode_subtree(SHORT_INT, 1, (0,), ["3"], member="value") == [(0, b"\x03\x00")]
    assert E.encode_subtree(TWO_INT, 1, (0,), ["1", "2"]) == [(0, b"\x01\0\0\0"),
                                                             (4, b"\x02\0\0\0")]
    with pytest.raises(ValueDoesNotFit, match="MPI_INT has no member .index"):
        E.encode_subtree(S_TYPE, 1, (0, 0, 0), ["1"], member="index")
    with pytest.raises(ValueDoesNotFit, match="a pair takes two"):
        E.encode_subtree(buf, 1, (0,), ["1", "2", "3"])


def test_subtree_checks_every_value_before_returning_any():
    with pytest.raises(ValueDoesNotFit, match=r"^\[0\]\[2\]\[4\]: 300 does not fit MPI_CHAR"):
        E.encode_subtree(S_TYPE, 1, (0, 2), ["1", "2", "3", "4", "300"])
    with pytest.raises(ValueDoesNotFit, match=r"2 values for the 5 elements of \[0\]\[2\]"):
        E.encode_subtree(S_TYPE, 1, (0, 2), ["1", "2"])
    with pytest.raises(ValueDoesNotFit, match=r"6 values for the 5 scalars of \[0\]\[2\]"):
        E.encode_subtree(S_TYPE, 1, (0, 2), ["1"] * 6)
    with pytest.raises(ValueDoesNotFit, match="holds no elements"):
        E.encode_subtree(contiguous(0, INT), 1, (0,), ["1"])


def test_negative_lb_buffer_offsets():
    t = resized(INT, -8, 24)
    assert E.encode_subtree(t, 3, (2,), ["5"]) == [(48, st.pack("<i", 5))]
