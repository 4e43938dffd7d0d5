"""`mpipp set` and assignment through $mpipp in real gdb: every basic type
and paths of every combiner of testprogs/types (MPI_BOTTOM included),
values that do not fit and paths out of range (one line, nothing written),
and a 2-rank exchange where the receiver gets the edited values."""

import json
import os
import re

import pytest

import gdbrun
from test_oracle import PRESENT

EDITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edit_cases.py")
S = "cases[11].type cases[11].buf 4"        # struct {int, double[3], char[5]} over elems[4]
PAIRS = "cases[18].type cases[18].buf 3"    # MPI_DOUBLE_INT dup over {double, int}[3]

REFUSED = [
    ("[0][2][4] = 300", r"^mpipp: \[0\]\[2\]\[4\]: 300 does not fit MPI_CHAR \(valid -128\.\.127\); "
                        r"nothing was written$"),
    ("[0][2] = {'a', 'b', 'c', 'd', 999}", r"^mpipp: \[0\]\[2\]\[4\]: 999 does not fit MPI_CHAR"),
    ("[0][3] = 1", r"^mpipp: index 3 out of range at stage 1 of \[0\]: valid 0\.\.2$"),
    ("[4][0][0] = 1", r"^mpipp: index 4 out of range at stage 0 of \[\]: valid 0\.\.3$"),
    ("[0][2] = {1, 2}", r"^mpipp: 2 values for the 5 elements of \[0\]\[2\]$"),
    ("[0][1][0] = abc", r"^mpipp: \[0\]\[1\]\[0\]: 'abc' is not a number; nothing was written$"),
    ("[0][1][0] = 1e400", r"1e400 does not fit MPI_DOUBLE \(beyond the largest finite value\)"),
    ("[0][0][0] = 1.5", r"'1\.5' is not an integer"),
    ("[0][0][0] = 1, 2", r"a list of values needs braces: \{1, 2\}"),
    ("[0][0][0].index = 1", r"MPI_INT has no member \.index"),
    ("[0][0][0]", r"^mpipp: usage: mpipp set"),
    ("[0][0][0][1] = 1", r"path continues past leaf MPI_INT"),
]

COMMANDS = (
    ["frame function main", gdbrun.source_python(EDITS),
     "mpipp -json %s" % S]
    + ["mpipp set %s %s" % (S, assignment) for assignment, _ in REFUSED]
    + ["mpipp -json %s [0]" % S,
       "mpipp set %s [1][2] = {'M', 'P', 'I', '\\n', 0}" % S,
       "mpipp set %s [2][1][2] = 6.25" % S,
       "print ((struct s_elem *)cases[11].buf)[2].d[2]",
       "mpipp set %s [0].value = -0.5" % PAIRS,
       "mpipp set %s [1][0].index = 77" % PAIRS,
       "mpipp %s" % PAIRS,
       "set var $mpipp(cases[11].type, cases[11].buf, 4, 3, 1, 0) = 99.25",
       "print ((struct s_elem *)cases[11].buf)[3].d[0]",
       "print $mpipp(cases[11].type, cases[11].buf, 4, 3, 1)",
       "print $mpipp(cases[11].type, cases[11].buf, 4, 3, 1, 0, 2)",
       "print $mpipp(cases[11].type, cases[11].buf, 4, 3, 7)",
       "help mpipp set"])


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("types", COMMANDS, timeout=300)


@pytest.fixture(scope="module")
def edits(out):
    text = out[COMMANDS[1]]
    assert not isinstance(text, gdbrun.GdbFailure), text
    line = next(l for l in text.splitlines() if l.startswith("EDITS="))
    return {c["name"]: c for c in json.loads(line[len("EDITS="):])}


def test_every_case_is_edited(edits):
    assert sorted(edits) == sorted(PRESENT)


@pytest.mark.parametrize("name", PRESENT)
def test_set_writes_exactly_the_element(edits, name):
    case = edits[name]
    before = {e["path"]: e for e in case["before"]["elements"]}
    after = {e["path"]: e for e in case["after"]["elements"]}
    assert list(before) == list(after)
    edited = set()
    for edit in case["edits"]:
        written = edit["set"]
        assert "error" not in written, (edit, written)
        assert written["path"] == edit["path"]
        (element,) = written["written"]
        assert element["value"] == edit["expected"], edit
        assert element["old"] == before[edit["path"]]["value"]
        assert after[edit["path"]]["value"] == edit["expected"]
        edited.add(edit["path"])
    if name not in ("zero_contig", "zero_vector"):
        assert edited, "no element edited"
    for path, element in before.items():
        if path not in edited:
            assert after[path]["bytes"] == element["bytes"], path


def test_every_basic_type_is_written(edits):
    types = {e["type"] for e in edits["basics"]["edits"] + edits["fortran_basics"]["edits"]
             + edits["f90_real"]["edits"] + edits["pair_long_double_int"]["edits"]}
    assert len(types) >= 28, types


@pytest.mark.parametrize("assignment,message", REFUSED)
def test_refused_with_one_line_and_nothing_written(out, assignment, message):
    got = out["mpipp set %s %s" % (S, assignment)]
    assert isinstance(got, gdbrun.GdbFailure), got
    assert re.search(message, got), got
    assert "\n" not in got.strip()


def test_refusals_left_the_buffer_as_it_was(out):
    before = json.loads(out["mpipp -json %s" % S])["elements"]
    after = json.loads(out["mpipp -json %s [0]" % S])["elements"]
    assert after == [e for e in before if e["path"].startswith("[0]")]


def test_list_assignment_and_the_program_sees_it(out):
    assert out["mpipp set %s [1][2] = {'M', 'P', 'I', '\\n', 0}" % S].splitlines() == [
        "[1][2][0] = 77 'M'", "[1][2][1] = 80 'P'", "[1][2][2] = 73 'I'",
        "[1][2][3] = 10 '\\n'", "[1][2][4] = 0 '\\000'"]
    assert out["mpipp set %s [2][1][2] = 6.25" % S].strip() == "[2][1][2] = 6.25"
    assert out["print ((struct s_elem *)cases[11].buf)[2].d[2]"].split(" = ")[1].strip() == "6.25"


def test_pair_members(out):
    # edit_cases.py wrote {-7.5, 12} into the first and the last pair
    assert out["mpipp set %s [0].value = -0.5" % PAIRS].strip() == \
        "[0][0] = {value = -0.5, index = 12}"
    assert out["mpipp %s" % PAIRS].splitlines() == [
        "[0][0] = {value = -0.5, index = 12}", "[1][0] = {value = -2.25, index = 77}",
        "[2][0] = {value = -7.5, index = 12}"]


def test_set_var_through_mpipp_indices(out):
    assert out["print ((struct s_elem *)cases[11].buf)[3].d[0]"].split(" = ")[1].strip() == \
        "99.25"
    assert out["print $mpipp(cases[11].type, cases[11].buf, 4, 3, 1)"].split(" = ")[1].strip() \
        == "{99.25, 3.25, 3.5}"
    assert out["print $mpipp(cases[11].type, cases[11].buf, 4, 3, 1, 0, 2)"] == gdbrun.GdbFailure(
        "mpipp: $mpipp: path [3][1][0][2] continues past an element")
    assert out["print $mpipp(cases[11].type, cases[11].buf, 4, 3, 7)"] == gdbrun.GdbFailure(
        "mpipp: $mpipp: index 7 out of range at [3]: valid 0..2")


def test_help(out):
    assert "mpipp set [-json] TYPE ADDR [COUNT] PATH = VALUE" in out["help mpipp set"]


def test_edited_values_arrive_at_the_other_rank():
    """Each rank edits its send buffers at stop_here (through `mpipp set` and
    `set var $mpipp(...)`), then the exchange runs: the receiver prints what
    MPI delivered."""
    edits = [
        "mpipp set particle_t out_particles 2 [1][0][0][0] = 777",
        "mpipp set particle_t out_particles 2 [0][0][1] = {3.25, -1e300}",
        "mpipp set particle_t out_particles 2 [0][0][2] = {'M', 'P', 'I', 0}",
        "set var $mpipp(column_t, &out_grid[0][1], 1, 0, 2, 0) = 42.5",
        "mpipp set pair_type &out_pair 1 [0].index = 5",
    ]
    args = ["-ex", "set pagination off", "-ex", "break stop_here", "-ex", "run",
            "-ex", "frame function main"]
    for e in edits:
        args += ["-ex", e]
    args += ["-ex", "continue", gdbrun.program("exchange")]
    proc = gdbrun.run(args, launcher=gdbrun.mpiexec(2))
    received = set(re.findall(r"^rank \d received .*$", proc.stdout, re.M))
    for rank, partner in ((0, 1), (1, 0)):
        assert ("rank %d received particle 0: id=%d pos=3.25,-1.0000000000000001e+300 tag=MPI"
                % (rank, 10 * partner)) in received, proc.stdout
        assert ("rank %d received particle 1: id=777 pos=%s,-1 tag=r%dp"
                % (rank, partner + 0.5, partner)) in received, proc.stdout
        assert ("rank %d received column: %d %d 42.5" % (rank, 100 * partner + 1,
                                                         100 * partner + 11)) in received
        assert "rank %d received pair: %s 5" % (rank, partner + 0.25) in received
