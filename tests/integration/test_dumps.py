"""`mpipp dump` and `mpipp diff` in real gdb on testprogs/types: a dump in
every format of every combiner's buffer (MPI_BOTTOM included) compares
equal to the buffer, and after an edit shows exactly the edited element;
two-buffer diffs; tolerances and NaN; dumps that do not match; errors.
(`dump -raw` against MPI_Pack: test_oracle.py.)"""

import json
import os

import pytest

import gdbrun
from test_oracle import PRESENT

HERE = os.path.dirname(os.path.abspath(__file__))
DIFFS = os.path.join(HERE, "diff_cases.py")
S = "cases[11].type cases[11].buf"   # struct {int, double[3], char[5]} over elems[4]
SECOND = "(char*)cases[11].buf+cases[11].extent"


def commands(tmp):
    f = {ext: os.path.join(tmp, "s." + ext) for ext in ("json", "csv", "raw")}
    return f, [
        "frame function main", gdbrun.source_python(DIFFS),
        "mpipp dump %s 4 %s" % (S, f["json"]),
        "mpipp dump %s 4 %s" % (S, f["csv"]),
        "mpipp dump %s 4 %s" % (S, f["raw"]),
        "mpipp set %s 4 [2][1] = {2.0000001, nan, -0.0}" % S,
        "mpipp diff %s 4 %s" % (S, f["json"]),
        "mpipp diff -rtol 1e-6 %s 4 %s" % (S, f["csv"]),
        "mpipp diff -atol 0.5 -json %s 4 %s" % (S, f["raw"]),
        "set var ((struct s_elem *)cases[11].buf)[2].d[0] = 0.0/0",
        "mpipp diff %s 4 '%s'" % (S, f["json"]),
        "mpipp dump %s 4 %s" % (S, f["json"] + ".nan"),
        "mpipp set %s 4 [2][1][1] = -nan(0x1)" % S,
        "mpipp diff %s 4 %s.nan" % (S, f["json"]),
        "mpipp diff %s %s 2" % (S, SECOND),
        "set print elements 3",
        "mpipp diff %s %s 3" % (S, SECOND),
        "set print elements 200",
        "mpipp diff %s 3 %s" % (S, f["raw"]),
        "mpipp diff %s 3 %s" % (S, f["json"]),
        "mpipp diff cases[1].type cases[1].buf 2 %s" % f["csv"],
        "mpipp diff %s 4 %s" % (S, os.path.join(tmp, "missing.json")),
        "mpipp diff %s 0 2" % S,
        "mpipp diff -rtol -1 %s 4 %s" % (S, f["json"]),
        "mpipp diff -atol %s 4 %s" % (S, f["json"]),
        "mpipp dump %s 4 %s" % (S, os.path.join(tmp, "no", "such", "dir.json")),
        "mpipp dump -raw -csv %s 4 %s" % (S, f["raw"]),
        "mpipp dump all_types[0] cases[0].buf 1000000000000 %s" % f["raw"],
        "help mpipp dump", "help mpipp diff",
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("dumps"))
    files, cmds = commands(tmp)
    out = gdbrun.capture("types", cmds, timeout=300)
    text = out[cmds[1]]
    assert not isinstance(text, gdbrun.GdbFailure), text
    line = next(l for l in text.splitlines() if l.startswith("DIFFS="))
    return files, out, {c["name"]: c for c in json.loads(line[len("DIFFS="):])}


def test_every_case(run):
    assert sorted(run[2]) == sorted(PRESENT)


@pytest.mark.parametrize("name", PRESENT)
def test_round_trip(run, name):
    case = run[2][name]
    for fmt in ("json", "csv", "raw"):
        assert "written to" in case["dump"][fmt], case["dump"][fmt]
        same = case["same"][fmt]
        assert "error" not in same, same
        assert same["count"] == 0 and same["differences"] == []
    assert case["self"]["count"] == 0, case["self"]
    if case["edited"] is None:
        assert name in ("zero_contig", "zero_vector")
        return
    for fmt in ("json", "csv", "raw"):
        changed = case["changed"][fmt]
        assert "error" not in changed, changed
        assert [d["path"] for d in changed["differences"]] == [case["edited"]], (fmt, changed)
        assert changed["count"] == 1


def test_differences_show_both_values_and_a_count(run):
    files, out, _ = run
    assert out["mpipp diff %s 4 %s" % (S, files["json"])].splitlines() == [
        "[2][1][0] = 2.0000000999999998 (s.json: 2)",
        "[2][1][1] = nan(0x8000000000000) (s.json: 2.25)",
        "[2][1][2] = -0 (s.json: 2.5)",
        "3 of 36 elements differ"]


def test_tolerances(run):
    files, out, _ = run
    # rtol 1e-6 accepts 2.0000001 against 2; NaN and 2.25, -0 and 2.5 still differ
    assert out["mpipp diff -rtol 1e-6 %s 4 %s" % (S, files["csv"])].splitlines()[-1] == \
        "2 of 36 elements differ"
    got = json.loads(out["mpipp diff -atol 0.5 -json %s 4 %s" % (S, files["raw"])])
    assert [d["path"] for d in got["differences"]] == ["[2][1][1]", "[2][1][2]"]
    assert got["differences"][0] == {"path": "[2][1][1]", "type": "MPI_DOUBLE",
                                     "value": "nan", "reference": 2.25}
    assert got["atol"] == 0.5 and got["count"] == 2 and got["elements"] == 36


def test_quoted_file_name(run):
    files, out, _ = run
    assert out["mpipp diff %s 4 '%s'" % (S, files["json"])].splitlines()[0] == \
        "[2][1][0] = -nan(0x8000000000000) (s.json: 2)"


def test_nan_equals_any_nan(run):
    files, out, _ = run
    assert out["mpipp diff %s 4 %s.nan" % (S, files["json"])] == "no differences in 36 elements\n"


def test_two_buffers(run):
    _, out, _ = run
    lines = out["mpipp diff %s %s 2" % (S, SECOND)].splitlines()
    assert lines[0] == "[0][0][0] = 100 (%s: 101)" % SECOND
    assert lines[-1] == "10 of 18 elements differ"
    limited = out["mpipp diff %s %s 3" % (S, SECOND)].splitlines()
    assert len(limited) == 4
    assert limited[-1] == "15 of 27 elements differ (showing 3; see 'set print elements')"


@pytest.mark.parametrize("index,message", [
    (18, "s.raw has more bytes than the buffer packs to (99)"),
    (19, "s.json has more elements than the buffer (27)"),
    (20, "does not match the buffer: element 0 is [0][0][0] (MPI_INT) in the dump, "
         "[0][0][0] (MPI_DOUBLE) in the buffer"),
    (21, "mpipp: no dump file "),
    (22, "mpipp: cannot read element [0][0][0] at offset +0 of cases[11].buf (0x"),
    (23, "mpipp: -rtol -1: not a finite number >= 0"),
    (24, "mpipp: -atol cases[11].type: not a finite number >= 0"),
    (25, "mpipp: cannot write "),
    (26, "mpipp: usage: mpipp dump"),
    (27, "pass -all"),
])
def test_errors_are_one_line(run, index, message):
    files, out, _ = run
    cmds = commands(os.path.dirname(files["json"]))[1]
    got = out[cmds[index]]
    assert isinstance(got, gdbrun.GdbFailure), (cmds[index], got)
    assert message in got and "\n" not in got.strip(), got


def test_help(run):
    _, out, _ = run
    assert "exactly as MPI_Pack would produce them" in out["help mpipp dump"]
    assert "a NaN equals any NaN" in out["help mpipp diff"]
