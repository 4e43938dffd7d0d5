"""Every command and printer in a Fortran frame (testprogs/fortran.f90):
expressions are evaluated in Fortran, an INTEGER handle (and an mpi_f08
TYPE(MPI_Datatype), through its MPI_VAL) is a datatype, and the registry is
found whatever the frame's language; a type built through `use mpi_f08`
(which calls PMPI_ under both MPIs) is recorded like one built through
`use mpi`."""

import re

import pytest

import gdbrun

COMMANDS = [
    "show language", "print t", "mpipp info t", "mpipp info -json t08", "mpipp -- t b",
    "mpipp typemap t08", "mpipp info c08", "mpipp typemap c08", "mpipp signature t 2", "mpipp where t b loc(b(7))", "mpipp list",
    "mpipp info MPI_DOUBLE_PRECISION", "print $mpipp(t, b, 2)", "print $mpipp(t08, b)",
    "mpipp -- t b 2.5", "mpipp info 'abc'", "mpipp info t == 3",
    # an array element where an address is expected is its address; labels
    # and names as strings in the convenience functions
    "mpipp vector#1 b(7)", "mpipp -- t b(7)+1", "print $mpipp('fvec', b)",
    "print $mpipp('vector#1', b(6), 1, 0, 1, 0)", "print $mpipp_type('fvec')",
    # into MPI_Send(buf, 1, tvec, ...): the MPI's Fortran binding (PMPI_SEND) first,
    # then the C call; back in the program's frame
    "break PMPI_Send", "continue", "continue ", "frame function MAIN__", "mpipp calls", "print buf",
    "show language ", "print $mpi_call%datatype", "mpipp $mpi_call%datatype $mpi_call%buf", "bt",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("fortran", COMMANDS)


def test_commands_in_a_fortran_frame(out):
    assert 'currently fortran' in out["show language"]
    assert re.fullmatch(r"\$1 = -?\d+\n", out["print t"])
    assert out["mpipp info t"].startswith(
        'vector(count=3, blocklength=2, stride=5) of MPI_DOUBLE_PRECISION "fvec"')
    assert '"name": "fvec"' in out["mpipp info -json t08"]
    assert [l.split(" = ")[1] for l in out["mpipp -- t b"].splitlines()] == \
        ["1", "2", "6", "7", "11", "12"]
    assert out["mpipp typemap t08"].startswith("{(MPI_DOUBLE_PRECISION,0), (MPI_DOUBLE_PRECISION,8)")
    assert out["mpipp signature t 2"].strip() == "MPI_DOUBLE_PRECISION×12"
    assert "is [0][1][1] (MPI_DOUBLE_PRECISION) +0" in out["mpipp where t b loc(b(7))"]
    assert "fvec" in out["mpipp list"] and "fortran.f90:" in out["mpipp list"]
    assert out["mpipp info MPI_DOUBLE_PRECISION"].splitlines() == [
        "MPI_DOUBLE_PRECISION", "  predefined: size 8, lb 0, extent 8, true extent 8",
        "  C type: double; Fortran type: DOUBLE PRECISION"]
    assert "{{{1, 2}, {6, 7}, {11, 12}}, {{13, 14}, {18, 19}" in out["print $mpipp(t, b, 2)"]
    assert "{{{1, 2}, {6, 7}, {11, 12}}}" in out["print $mpipp(t08, b)"]


def test_a_type_built_through_mpi_f08(out):
    """Named and committed through mpi_f08 too; created at the program's
    own call (not inside MPI's binding library)."""
    info = out["mpipp info c08"]
    assert info.startswith('contiguous(count=5) of MPI_REAL "f08cont"'), info
    assert "committed" in info and re.search(r"created at .*fortran\.f90:10\b", info), info
    assert out["mpipp typemap c08"].startswith("{(MPI_REAL,0), (MPI_REAL,4), (MPI_REAL,8)")
    assert "f08cont" in out["mpipp list"]


def test_array_elements_and_labels(out):
    values = [l.split(" = ")[1] for l in out["mpipp vector#1 b(7)"].splitlines()]
    assert values == ["7", "8", "12", "13", "17", "18"]
    assert "use loc(b(7)+1)" in out["mpipp -- t b(7)+1"]
    assert "{{{1, 2}, {6, 7}, {11, 12}}}" in out["print $mpipp('fvec', b)"]
    assert out["print $mpipp('vector#1', b(6), 1, 0, 1, 0)"].endswith(" = 11\n")
    assert out["print $mpipp_type('fvec')"].startswith(
        '$%d = vector(count=3, blocklength=2, stride=5) of MPI_DOUBLE_PRECISION "fvec"'
        % int(out["print $mpipp_type('fvec')"][1:].split(" ")[0]))


def test_fortran_errors_are_one_line(out):
    for command in ("mpipp -- t b 2.5", "mpipp info 'abc'", "mpipp info t == 3"):
        text = out[command]
        assert isinstance(text, gdbrun.GdbFailure) and text.startswith("mpipp: "), text
    assert "must be an integer" in out["mpipp -- t b 2.5"]


def test_call_from_fortran(out):
    calls = out["mpipp calls"]
    assert re.search(r"^thread 1 \(LWP \d+\): MPI_Send\(buf=0x[0-9a-f]+, count=1, datatype=fvec, "
                     r"dest=MPI_PROC_NULL, tag=5, comm=MPI_COMM_WORLD\)$", calls, re.M), calls
    assert "at testprogs/fortran.f90:" in calls and "[0][2][1] = 12" in calls
    assert "<buf of MPI_Send in thread 1: fvec × 1>" in out["print buf"]
    assert 'currently fortran' in out["show language "]
    # the call's own arguments, in the Fortran frame and in the backtrace
    assert '"fvec"' in out["print $mpi_call%datatype"]
    values = [l.split(" = ")[1] for l in out["mpipp $mpi_call%datatype $mpi_call%buf"].splitlines()]
    assert values == ["1", "2", "6", "7", "11", "12"]
    assert re.search(r"in mpi_send_ \(buf=0x[0-9a-f]+, count=1, datatype=fvec, dest=MPI_PROC_NULL, "
                     r"tag=5, comm=MPI_COMM_WORLD\)", out["bt"]), out["bt"]
