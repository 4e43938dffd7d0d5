"""The mpipp commands in real gdb on testprogs/types: values of every basic
kind, paths, options, formats, limits, the describing subcommands, help,
completion, and every error a user can cause (one line, gdb keeps going)."""

import json
import re

import pytest

import gdbrun

S = "cases[11]"  # struct {int, double[3], char[5]} over elems[4]
BASICS = "cases[22]"
FORTRAN = "cases[23]"

COMMANDS = [
    "frame function main",
    "mpipp %s.type %s.buf 2" % (S, S),
    "mpipp -long %s.type %s.buf 1" % (S, S),
    "mpipp -offsets %s.type %s.buf 1 [0][1]" % (S, S),
    "mpipp/x %s.type %s.buf 1 [0][0]" % (S, S),
    "mpipp %s.type %s.buf 4 [3][2][4]" % (S, S),
    "mpipp %s.type %s.buf 4 %s(CONTIGUOUS)[3](STRUCT)[2][4](CHAR)" % (S, S, "buf"),
    "mpipp %s.type %s.buf" % (BASICS, BASICS),
    # runs of bytes read as a C type: a struct of the program, doubles
    "mpipp -as 'struct s_elem' MPI_BYTE %s.buf 80" % S,
    "mpipp -as double %s.type %s.buf" % (S, S),
    "mpipp -as nosuch_t %s.type %s.buf" % (S, S),
    "mpipp %s.type %s.buf" % (FORTRAN, FORTRAN),
    "mpipp cases[18].type cases[18].buf 3",
    "mpipp cases[21].type 0",
    "mpipp typemap %s.type" % S,
    "mpipp typemap cases[1].type 2",
    "mpipp signature %s.type 4" % S,
    "mpipp signature -json %s.type 4" % S,
    "mpipp info %s.type" % S,
    "mpipp info all_types[12]",
    "mpipp list",
    "mpipp list -json",
    "mpipp where %s.type %s.buf &((struct s_elem *)%s.buf)[2].d[1] 4" % (S, S, S),
    "mpipp where -json %s.type %s.buf (char*)%s.buf+37 4" % (S, S, S),
    "mpipp where %s.type %s.buf (char*)%s.buf+1000 4" % (S, S, S),
    "mpipp where stacked_t 0 2",
    "mpipp where -json stacked_t 0 6 2",
    "mpipp where -json overlap_t 0 49382717",
    "mpipp where overlap_t 0 400000020",
    # limits
    "set print elements 4",
    "mpipp %s.type %s.buf 4" % (S, S),
    "mpipp -json %s.type %s.buf 4" % (S, S),
    "set print elements 200",
    "mpipp zeros_t zeros",
    # errors
    "mpipp bogus cases[0].buf",
    "mpipp all_types[0] 0 1",
    "mpipp all_types[0] cases[0].buf -1",
    "mpipp all_types[0] cases[0].buf 1000000000000",
    "mpipp %s.type %s.buf 2 [0][3]" % (S, S),
    "mpipp %s.type %s.buf 2 [0][2][5]" % (S, S),
    "mpipp %s.type %s.buf 2 [0]]x" % (S, S),
    "mpipp %s.type %s.buf 2 buf(CONTIGUOUS)[0](VECTOR)" % (S, S),
    "mpipp uncommitted cases[0].buf",
    "mpipp null_type cases[0].buf",
    "mpipp no_such_var cases[0].buf",
    "mpipp -bogus x y",
    "mpipp info",
    "print 1 + 1",
    "mpipp typemap big_vector",
    "mpipp signature big_vector",
    "mpipp/d %s.type %s.buf 1 [0][2][0]" % (S, S),
    "mpipp/c %s.type %s.buf 1 [0][0]" % (S, S),
    "set var ((struct s_elem *)%s.buf)[3].d[0] = 1.0/0" % S,
    "set var ((struct s_elem *)%s.buf)[3].d[1] = -1.0/0" % S,
    "set var ((struct s_elem *)%s.buf)[3].d[2] = 0.0/0" % S,
    "mpipp -json %s.type %s.buf 4 [3][1]" % (S, S),
    "help mpipp",
    "help mpipp where",
    "complete mpipp i",
    "complete mpipp typemap all_ty",
    # streamed documents: valid and complete at any size
    "mpipp typemap -json zeros_t 2500",
    "set print elements 20000",
    "mpipp -json stacked_t &world_rank",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("types", COMMANDS, setup=[
        "set print repeats 10"])


def lines(text):
    return [l for l in text.splitlines() if l.strip()]


def test_struct_buffer_values_and_paths(out):
    got = lines(out["mpipp %s.type %s.buf 2" % (S, S)])
    assert got[:5] == ["[0][0][0] = 100", "[0][1][0] = 0", "[0][1][1] = 0.25",
                       "[0][1][2] = 0.5", "[0][2][0] = 97 'a'"]
    assert got[8] == "[0][2][4] = 48 '0'"
    assert got[9] == "[1][0][0] = 101"
    assert len(got) == 18


def test_runs_read_as_another_type(out):
    """80 bytes read as two struct s_elem give what the datatype gives; the
    struct's runs as doubles: its int and chars are runs too short for one
    (their bytes), its three doubles one run."""
    values = lambda text: [l.split(" = ")[1] for l in lines(text)]  # noqa: E731
    assert values(out["mpipp -as 'struct s_elem' MPI_BYTE %s.buf 80" % S]) == \
        values(out["mpipp %s.type %s.buf 2" % (S, S)])
    got = lines(out["mpipp -as double %s.type %s.buf" % (S, S)])
    assert got[4:7] == ["[0][1][0] = 0", "[0][1][1] = 0.25", "[0][1][2] = 0.5"]
    assert got[:4] == ["[0][0][0] = 0x64", "[0][0][1] = 0x00", "[0][0][2] = 0x00",
                       "[0][0][3] = 0x00"]
    assert "-as nosuch_t: not a C or Fortran type, nor a datatype" in \
        out["mpipp -as nosuch_t %s.type %s.buf" % (S, S)]


def test_long_paths(out):
    got = lines(out["mpipp -long %s.type %s.buf 1" % (S, S)])
    assert any(re.fullmatch(r"\S*\(CONTIGUOUS\)\[0\]\(STRUCT\)\[2\]\[4\]\(CHAR\) = 48 '0'", l)
               for l in got), got


def test_offsets_and_path_subtree(out):
    got = lines(out["mpipp -offsets %s.type %s.buf 1 [0][1]" % (S, S)])
    assert len(got) == 3
    assert "+8" in got[0] and "+16" in got[1] and "0x" in got[0]


def test_format_letter(out):
    assert lines(out["mpipp/x %s.type %s.buf 1 [0][0]" % (S, S)]) == ["[0][0][0] = 0x64"]


def test_single_element_short_and_long_path_agree(out):
    a = out["mpipp %s.type %s.buf 4 [3][2][4]" % (S, S)]
    b = out["mpipp %s.type %s.buf 4 buf(CONTIGUOUS)[3](STRUCT)[2][4](CHAR)" % (S, S)]
    assert lines(a) == lines(b) == ["[3][2][4] = 51 '3'"]


def test_every_c_basic_kind(out):
    got = dict(l.split(" = ", 1) for l in lines(out["mpipp %s.type %s.buf" % (BASICS, BASICS)]))
    expected = {
        "[0][0][0]": "-5", "[0][1][0]": "200", "[0][2][0]": "-300", "[0][3][0]": "60000",
        "[0][4][0]": "-70000", "[0][5][0]": "4000000000", "[0][6][0]": "-5000000000000",
        "[0][7][0]": "10000000000000000000", "[0][8][0]": "-9000000000000000000",
        "[0][9][0]": "1.5", "[0][10][0]": "0.33333333333333331",
        "[0][11][0]": "0.333333333333333333342", "[0][12][0]": "1 + 2i",
        "[0][13][0]": "-0.5 + 0.25i", "[0][14][0]": "65 'A'", "[0][15][0]": "90 L'Z'",
        "[0][16][0]": "true", "[0][17][0]": "0xde", "[0][17][1]": "0xad", "[0][18][0]": "-7",
        "[0][19][0]": "65535", "[0][20][0]": "123456", "[0][21][0]": "18446744073709551615",
    }
    assert got == expected


def test_fortran_basic_kinds(out):
    got = dict(l.split(" = ", 1) for l in lines(out["mpipp %s.type %s.buf" % (FORTRAN, FORTRAN)]))
    assert got == {"[0][0][0]": "2.5", "[0][1][0]": "-0.125", "[0][2][0]": "42",
                   "[0][3][0]": "true", "[0][4][0]": "3 + -1i", "[0][5][0]": "120 'x'",
                   "[0][5][1]": "121 'y'", "[0][5][2]": "122 'z'"}


def test_pair_type(out):
    got = lines(out["mpipp cases[18].type cases[18].buf 3"])
    assert got[0].startswith("[0][0] = {") and "1.5" in got[0] and "3" in got[0]
    assert "-2.25" in got[1] and "7" in got[1]


def test_mpi_bottom(out):
    got = lines(out["mpipp cases[21].type 0"])
    assert [l.split(" = ")[1] for l in got] == ["3.25", "11", "22"]


def test_typemap_and_signature(out):
    assert out["mpipp typemap %s.type" % S].strip() == (
        "{(MPI_INT,0), (MPI_DOUBLE,8), (MPI_DOUBLE,16), (MPI_DOUBLE,24), (MPI_CHAR,32), "
        "(MPI_CHAR,33), (MPI_CHAR,34), (MPI_CHAR,35), (MPI_CHAR,36)}")
    assert "MPI_DOUBLE" in out["mpipp typemap cases[1].type 2"]
    assert out["mpipp signature %s.type 4" % S].strip() == \
        "(MPI_INT×1, MPI_DOUBLE×3, MPI_CHAR×5)×4"
    doc = json.loads(out["mpipp signature -json %s.type 4" % S])
    assert doc["signature"] == [[[["MPI_INT", 1], ["MPI_DOUBLE", 3], ["MPI_CHAR", 5]], 4]]


def test_info_and_list(out):
    text = out["mpipp info %s.type" % S]
    assert "struct(count=3) of {MPI_INT, MPI_DOUBLE, MPI_CHAR}" in text
    assert "array_of_displacements = {0, 8, 32}" in text
    nested = out["mpipp info all_types[12]"]
    assert "contiguous(count=2) of MPI_INT" in nested and "vector(count=3" in nested
    listing = out["mpipp list"]
    assert "struct_t" in listing and "VECTOR" in listing and "types.c:" in listing
    doc = json.loads(out["mpipp list -json"])
    names = {t["name"] for t in doc["types"]}
    assert {"struct_t", "vector_t", "darray_block_t"} <= names


def test_where(out):
    text = out["mpipp where %s.type %s.buf &((struct s_elem *)%s.buf)[2].d[1] 4" % (S, S, S)]
    assert "[2][1][1]" in text and "+0" in text
    doc = json.loads(out["mpipp where -json %s.type %s.buf (char*)%s.buf+37 4" % (S, S, S)])
    assert doc["where"] == "gap"
    assert doc["prev_path"] == "[0][2][4]" and doc["next_path"] == "[1][0][0]"
    assert "after" in out["mpipp where %s.type %s.buf (char*)%s.buf+1000 4" % (S, S, S)]


def test_where_on_elements_sharing_bytes(out):
    """vector(5*10^7, 1, 0, MPI_INT) and hvector(5*10^7, 1, 4, MPI_DOUBLE):
    every holder counted, the first ten listed in typemap order."""
    text = out["mpipp where stacked_t 0 2"]
    assert text.startswith("0x2 (buffer offset +2) is held by 50000000 elements: "
                           "[0][0][0] (MPI_INT) +2, [0][1][0] (MPI_INT) +2, ")
    assert text.count("(MPI_INT)") == 10 and text.rstrip().endswith("...")
    doc = json.loads(out["mpipp where -json stacked_t 0 6 2"])
    assert (doc["where"], doc["path"], doc["holders_total"]) == ("inside", "[1][0][0]", 50000000)
    assert [h["path"] for h in doc["holders"]][:2] == ["[1][0][0]", "[1][1][0]"]
    doc = json.loads(out["mpipp where -json overlap_t 0 49382717"])
    assert doc["holders_total"] == 2
    assert [(h["path"], h["offset_in_element"]) for h in doc["holders"]] == [
        ("[0][12345678][0]", 5), ("[0][12345679][0]", 1)]
    text = out["mpipp where overlap_t 0 400000020"]
    assert "after the last element [0][49999999][0]" in text


def test_print_elements_limit(out):
    got = lines(out["mpipp %s.type %s.buf 4" % (S, S)])
    assert len(got) == 5 and "set print elements" in got[-1]
    doc = json.loads(out["mpipp -json %s.type %s.buf 4" % (S, S)])
    assert doc["truncated"] is True and len(doc["elements"]) == 4
    expected = {"path": "[0][1][0]", "offset": 8, "type": "MPI_DOUBLE", "value": 0.0,
                "bytes": "0000000000000000"}
    assert {k: doc["elements"][1][k] for k in expected} == expected


def test_print_repeats(out):
    got = lines(out["mpipp zeros_t zeros"])
    assert len(got) == 1 and "<repeats 40 times>" in got[0], got


def test_errors_are_one_line(out):
    for cmd in COMMANDS:
        if cmd.startswith(("mpipp bogus", "mpipp all_types[0] 0", "mpipp all_types[0] cases",
                           "mpipp null", "mpipp no_such", "mpipp -bogus", "mpipp info")) \
                and cmd != "mpipp info %s.type" % S and "all_types[12]" not in cmd:
            assert isinstance(out[cmd], gdbrun.GdbFailure), cmd
            assert "\n" not in out[cmd].strip(), out[cmd]
    assert "not a registered datatype" in out["mpipp bogus cases[0].buf"]
    assert "cannot read element [0][0]" in out["mpipp all_types[0] 0 1"]
    assert "negative" in out["mpipp all_types[0] cases[0].buf -1"]
    assert "-all" in out["mpipp all_types[0] cases[0].buf 1000000000000"]
    assert "valid 0..2" in out["mpipp %s.type %s.buf 2 [0][3]" % (S, S)]
    assert "valid 0..4" in out["mpipp %s.type %s.buf 2 [0][2][5]" % (S, S)]
    assert isinstance(out["mpipp %s.type %s.buf 2 [0]]x" % (S, S)], gdbrun.GdbFailure)
    assert "kind" in out["mpipp %s.type %s.buf 2 buf(CONTIGUOUS)[0](VECTOR)" % (S, S)]
    assert "MPI_DATATYPE_NULL" in out["mpipp null_type cases[0].buf"]
    assert "no_such_var" in out["mpipp no_such_var cases[0].buf"]
    assert "unknown option" in out["mpipp -bogus x y"]
    assert out["print 1 + 1"].strip().endswith("= 2")


def test_uncommitted_still_decodes(out):
    text = out["mpipp uncommitted cases[0].buf"]
    assert not isinstance(text, gdbrun.GdbFailure)
    assert "not committed" in lines(text)[0]
    assert lines(text)[1].startswith("[0][0] = ")


def test_huge_vector_typemap_is_one_line(out):
    text = out["mpipp typemap big_vector"].strip()
    assert "\n" not in text and "250000" in text and len(text) < 300, text
    assert out["mpipp signature big_vector"].strip() == "MPI_DOUBLE×1000000"


def test_more_format_letters(out):
    assert lines(out["mpipp/d %s.type %s.buf 1 [0][2][0]" % (S, S)]) == ["[0][2][0] = 97"]
    assert lines(out["mpipp/c %s.type %s.buf 1 [0][0]" % (S, S)]) == ["[0][0][0] = 100 'd'"]


def test_json_non_finite_floats(out):
    doc = json.loads(out["mpipp -json %s.type %s.buf 4 [3][1]" % (S, S)])
    assert [e["value"] for e in doc["elements"]] == ["inf", "-inf", "nan"]
    assert [e["path"] for e in doc["elements"]] == ["[3][1][0]", "[3][1][1]", "[3][1][2]"]


def test_help_and_completion(out):
    assert "TYPE ADDR [COUNT] [PATH]" in out["help mpipp"]
    for sub in ("info", "typemap", "signature", "list", "where"):
        assert "mpipp " + sub in out["help mpipp"]
    assert "Example" in out["help mpipp where"]
    assert "mpipp info" in out["complete mpipp i"]
    assert "mpipp typemap all_types" in out["complete mpipp typemap all_ty"]


def test_streamed_json_documents_are_whole(out):
    doc = json.loads(out["mpipp typemap -json zeros_t 2500"])
    assert (doc["size"], doc["extent"]) == (4 * 10 ** 5, 4 * 10 ** 5)
    assert doc["typemap"] == [["MPI_INT", 4 * k] for k in range(10 ** 5)]
    doc = json.loads(out["mpipp -json stacked_t &world_rank"])
    assert (doc["count"], doc["truncated"], len(doc["elements"])) == (1, True, 20000)
    rank = doc["elements"][0]
    assert rank["value"] == 0 and rank["type"] == "MPI_INT" and rank["offset"] == 0
    assert {e["address"] for e in doc["elements"]} == {rank["address"]}
    assert doc["elements"][-1]["path"] == "[0][19999][0]"
