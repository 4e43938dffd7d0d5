# Sourced in gdb at stop_here() of testprogs/types: for every test case,
# `mpipp set` of its first and last element (every element of the basics
# cases) with a new value of the element's type, and the buffer before and
# after (mpipp -json), printed as one JSON line prefixed with EDITS=.
import json

import gdb
from gdb_json import mpipp_json as _mpipp

# A new value per basic type: (text typed after '=', the JSON value mpipp then shows).
NEW_VALUES = {
    "MPI_INT": ("-123456", -123456), "MPI_DOUBLE": ("-2.5e-3", -0.0025),
    "MPI_SHORT": ("-32768", -32768), "MPI_FLOAT": ("0.375", 0.375), "MPI_CHAR": ("'Q'", 81),
    "MPI_SIGNED_CHAR": ("-128", -128), "MPI_UNSIGNED_CHAR": ("255", 255),
    "MPI_UNSIGNED_SHORT": ("0xffff", 65535), "MPI_UNSIGNED": ("4294967295", 4294967295),
    "MPI_LONG": ("-9223372036854775808", -9223372036854775808),
    "MPI_UNSIGNED_LONG": ("18446744073709551615", 18446744073709551615),
    "MPI_LONG_LONG": ("0x7fffffffffffffff", 9223372036854775807),
    "MPI_LONG_LONG_INT": ("0x7fffffffffffffff", 9223372036854775807),
    "MPI_LONG_DOUBLE": ("0.1", 0.1), "MPI_C_FLOAT_COMPLEX": ("1.5 + -2i", [1.5, -2.0]),
    "MPI_C_COMPLEX": ("1.5 + -2i", [1.5, -2.0]),  # the name MPICH gives MPI_C_FLOAT_COMPLEX
    "MPI_C_DOUBLE_COMPLEX": ("-0.25 + 1e300i", [-0.25, 1e300]),
    "MPI_WCHAR": ("L'\\x263a'", 0x263a), "MPI_C_BOOL": ("false", False),
    "MPI_BYTE": ("0x5a", "5a"), "MPI_INT8_T": ("127", 127), "MPI_UINT16_T": ("12345", 12345),
    "MPI_INT32_T": ("-1", -1), "MPI_UINT64_T": ("0", 0), "MPI_REAL": ("-1.25", -1.25),
    "MPI_DOUBLE_PRECISION": ("6.02214076e23", 6.02214076e23), "MPI_INTEGER": ("-42", -42),
    "MPI_LOGICAL": (".false.", False), "MPI_COMPLEX": ("2 - 3i", [2.0, -3.0]),
    "MPI_CHARACTER": ("'F'", 70), "MPI_Type_create_f90_real(15,307)": ("1e-300", 1e-300),
    "MPI_DOUBLE_INT": ("{-7.5, 12}", {"value": -7.5, "index": 12}),
    "MPI_2INT": ("{-1, 2147483647}", {"value": -1, "index": 2147483647}),
    "MPI_LONG_DOUBLE_INT": ("{0.5, -3}", {"value": 0.5, "index": -3}),
}
EVERY_ELEMENT = ("basics", "fortran_basics")


def _case(k):
    c = gdb.parse_and_eval("cases[%d]" % k)
    name = c["name"].string()
    ref = "cases[%d].type cases[%d].buf cases[%d].count" % (k, k, k)
    before = _mpipp("mpipp -json %s" % ref)
    elements = before.get("elements", [])
    chosen = elements if name in EVERY_ELEMENT else elements[:1] + elements[1:][-1:]
    edits = []
    for e in chosen:
        text, expected = NEW_VALUES.get(e["type"], ("0", "no new value for " + e["type"]))
        edits.append({"path": e["path"], "type": e["type"], "expected": expected,
                      "set": _mpipp("mpipp set -json %s %s = %s" % (ref, e["path"], text))})
    return {"name": name, "before": before, "edits": edits,
            "after": _mpipp("mpipp -json %s" % ref)}


if __name__ == "__main__":
    gdb.execute("set print elements unlimited")
    _cases = [_case(k) for k in range(int(gdb.parse_and_eval("n_cases")))]
    gdb.write("EDITS=" + json.dumps(_cases) + "\n")
