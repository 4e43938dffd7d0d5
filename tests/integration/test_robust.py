"""Right answers on real programs and a gdb that stays whole
(testprogs/robust): MPI_BOTTOM types, names one can type back, expressions
that would call into or change the program, malformed input, deep types,
and a process stopped in a call whose buffer is MPI_BOTTOM."""

import json
import os
import re

import pytest

import gdbrun

CORRUPT = gdbrun.source_python(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "corrupt.py"))

SERIAL = "python import mpipp.views as V; gdb.set_convenience_variable('sub', " \
         "V.registry.get().lookup(int(gdb.parse_and_eval('sub_t'))).serial)"


def typed_back(command):
    """A gdb command running `command` % (the serial of sub_t)."""
    return 'eval "%s", $sub' % command


COMMANDS = [
    "frame function main",
    # MPI_BOTTOM: the guard measures the bytes read, addresses print in hex
    "mpipp far_bottom_t 0", "mpipp -offsets/x far_bottom_t 0", "mpipp typemap far_bottom_t",
    "mpipp info far_bottom_t",
    # names mpipp shows can be typed back
    "mpipp list", "mpipp info MPI_DOUBLE", "mpipp typemap cplx_t", "print complex_name",
    "python print(gdb.execute('mpipp info ' + gdb.parse_and_eval('complex_name').string(), "
    "to_string=True), end='')",
    "mpipp info complex_pair", "mpipp info sub_t", SERIAL, typed_back("mpipp info subarray#%d"),
    typed_back("mpipp info #%d"), typed_back("mpipp info vector#%d"), "mpipp info #99999",
    # never call into the program, never change it
    'mpipp info "str"', "mpipp info getpid()", "mpipp info far_int=3", "mpipp info far_int++",
    "mpipp vec_t vec_buf $rip=0", "mpipp vec_t {1.0, 2.0}", "print far_int",
    "show may-call-functions", "show may-write-memory",
    # malformed input
    "mpipp vec_t vec_buf 2.5", "mpipp vec_t vec_buf 1e20", "mpipp vec_t vec_buf 1 abc",
    "mpipp info *(MPI_Datatype *)0", "mpipp info vec_buf", "show mpipp",
    "mpipp -offsets/x vec_t vec_buf 1 [0][1]", "print $mpipp(vec_t, vec_buf, 2, 1)",
    "print $mpipp(vec_t, vec_buf, 2.0)",
    # deep types are not corrupted
    "mpipp info deep_t", "mpipp deep_t deep_buf 2", "mpipp -json deeper_t deep_buf 2",
    "mpipp signature deeper_t 3", "print deep_t",
    "print -max-depth unlimited -- $mpipp(deeper_t, deep_buf, 2)",
    # corrupted records: cross-checked, capped, printed as the handle and the reason
    CORRUPT, "python corrupt_integer('vec_t', 0, 10**8)",
    "mpipp info vec_t", "print vec_t", "mpipp vec_t vec_buf", "print $mpipp(vec_t, vec_buf)",
    "mpipp typemap -json vec_t", "python restore()",
    "python corrupt_field('vec_t', 'size', 1 << 62, 8)", "mpipp  info vec_t", "python restore() ",
    "python corrupt_field('vec_t', 'n_datatypes', 1 << 23)", "mpipp   info vec_t",
    "print  vec_t", "python  restore()",
    "python corrupt_context_constant('request.call', 1 << 40)", "mpipp requests",
    "python   restore()",
    "python corrupt_context_constant('comm.members', 1 << 40, 'comm.membxrs')", "mpipp comms",
    "python    restore()", "mpipp info  vec_t",
    # stopped inside MPI_Send(MPI_BOTTOM, 1, far_bottom_t, ...)
    "break PMPI_Send", "continue", "mpipp calls", "print (char *)0", "print &far_int",
    "print (char *)&far_int + 1",
    # inside an MPI call, the buffer annotation never asks gdb for the address
    # of an array the printer built (gdb would malloc a copy in the program)
    "break __libc_malloc", "print far_bottom_t", "print $mpipp_type(far_bottom_t)",
    "info breakpoints",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("robust", COMMANDS)


def failure(out, command):
    text = out[command]
    assert isinstance(text, gdbrun.GdbFailure), (command, text)
    assert text.startswith("mpipp: ") and "\n" not in text.strip(), text
    return text


def test_mpi_bottom_decodes_without_all_and_shows_addresses_in_hex(out):
    assert [l.split(" = ")[1] for l in out["mpipp far_bottom_t 0"].splitlines()] == ["2.5", "7"]
    lines = out["mpipp -offsets/x far_bottom_t 0"].splitlines()
    assert re.fullmatch(r"\[0\]\[0\]\[0\] \+0x7ff[0-9a-f]+ 0x7ff[0-9a-f]+ = 0x4004000000000000",
                        lines[0]), lines
    assert re.fullmatch(r"\[0\]\[1\]\[0\] \+0x[0-9a-f]+ 0x[0-9a-f]+ = 0x7", lines[1]), lines
    assert re.fullmatch(r"\{\(MPI_DOUBLE,0x7ff[0-9a-f]+\), \(MPI_INT,0x[0-9a-f]+\)\}\n",
                        out["mpipp typemap far_bottom_t"])
    info = out["mpipp info far_bottom_t"]
    assert re.search(r"array_of_displacements = \{0x7ff[0-9a-f]+, 0x[0-9a-f]+\}", info), info
    assert re.search(r"lb 0x[0-9a-f]+, extent \d+, true lb 0x", info), info


def test_names_typed_back(out):
    listing = out["mpipp list"].splitlines()
    assert listing[0].split()[:3] == ["handle", "serial", "name"]
    assert any(re.match(r"0x[0-9a-f]+ +#\d+ +vec_t +VECTOR", l) for l in listing), listing
    assert out["mpipp info MPI_DOUBLE"].splitlines() == [
        "MPI_DOUBLE", "  predefined: size 8, lb 0, extent 8, true extent 8",
        "  C type: double; Fortran type: REAL(8)"]
    # the complex member is named as MPI names MPI_C_FLOAT_COMPLEX (MPICH: MPI_C_COMPLEX)
    name = re.search(r'"(MPI_\w+)"', out["print complex_name"]).group(1)
    assert out["mpipp typemap cplx_t"].strip() == "{(%s,0), (%s,8)}" % (name, name)
    typed = [c for c in COMMANDS if c.startswith("python print(gdb.execute('mpipp info ' +")][0]
    assert out[typed].splitlines()[0] == name
    assert "  C type: float _Complex; Fortran type: COMPLEX(4)" in out[typed]
    assert out["mpipp info complex_pair"].startswith("contiguous(count=2) of %s" % name)
    sub = out["mpipp info sub_t"]
    assert sub.startswith("subarray(") and out[typed_back("mpipp info subarray#%d")] == sub
    assert out[typed_back("mpipp info #%d")] == sub
    assert "is subarray#" in out[typed_back("mpipp info vector#%d")]
    assert "no live datatype has serial 99999" in failure(out, "mpipp info #99999")


def test_nothing_calls_into_or_changes_the_program(out):
    assert "string literals are not accepted" in failure(out, 'mpipp info "str"')
    assert "may-call-functions is off" in failure(out, "mpipp info getpid()")
    assert "Writing to memory is not allowed" in failure(out, "mpipp info far_int=3")
    assert "Writing to memory is not allowed" in failure(out, "mpipp info far_int++")
    assert "assignments are not accepted" in failure(out, "mpipp vec_t vec_buf $rip=0")
    assert "literal, not in the program's memory" in failure(out, "mpipp vec_t {1.0, 2.0}")
    assert out["print far_int"].strip().endswith("= 7")
    assert out["show may-call-functions"].strip().endswith("is on.")
    assert out["show may-write-memory"].strip().endswith("is on.")


def test_malformed_input_is_one_line(out):
    assert "COUNT '2.5' must be an integer" in failure(out, "mpipp vec_t vec_buf 2.5")
    assert "COUNT '1e20' must be an integer" in failure(out, "mpipp vec_t vec_buf 1e20")
    assert "malformed PATH 'abc'" in failure(out, "mpipp vec_t vec_buf 1 abc")
    assert "datatype '*(MPI_Datatype *)0' is unreadable: Cannot access memory at address 0x0" \
        in failure(out, "mpipp info *(MPI_Datatype *)0")
    assert "is an array, not a handle" in failure(out, "mpipp info vec_buf")
    assert out["show mpipp"].splitlines() == [
        "mpipp context:  Decoding buffers of MPI calls in context is on.",
        "mpipp max-depth:  Datatypes up to 1000 levels deep are shown.",
        "mpipp mi-chunk:  $mpipp values group children in ranges beyond 1000 per level."]
    lines = out["mpipp -offsets/x vec_t vec_buf 1 [0][1]"].splitlines()
    assert [l.split()[:2] + l.split()[3:] for l in lines] == [
        ["[0][1][0]", "+32", "=", "0x4012000000000000"],  # 4.5
        ["[0][1][1]", "+40", "=", "0x4016000000000000"]]  # 5.5
    # repetition [1] starts one extent (80 bytes, 10 doubles) in
    assert "{{10.5, 11.5}, {14.5, 15.5}, {18.5, 19.5}}" in \
        out["print $mpipp(vec_t, vec_buf, 2, 1)"]
    assert "must be an integer" in failure(out, "print $mpipp(vec_t, vec_buf, 2.0)")


def test_deep_types_are_valid(out):
    assert out["mpipp info deep_t"].startswith(
        'vector(count=1, blocklength=1, stride=1) of contiguous#70 "deep_t"')
    first, second = out["mpipp deep_t deep_buf 2"].splitlines()
    stages = first.count("[")
    assert stages > 70 and first == "[0]%s = 11" % ("[0]" * (stages - 1))
    assert second == "[1]%s = 22" % ("[0]" * (stages - 1))
    doc = json.loads(out["mpipp -json deeper_t deep_buf 2"])
    assert [e["value"] for e in doc["elements"]] == [11, 22]
    assert re.fullmatch(r"\[1\](\[0\]){900,}", doc["elements"][1]["path"])
    assert out["mpipp signature deeper_t 3"].strip() == "MPI_INT×3"
    assert "<mpipp" not in out["print deep_t"] and "deep_t" in out["print deep_t"]
    nested = out["print -max-depth unlimited -- $mpipp(deeper_t, deep_buf, 2)"]
    assert re.search(r"= \{+11\}+, \{+22\}+\n$", nested), nested[-200:]


def test_corrupted_records_are_one_line(out):
    corrupted = "datatype record at 0x[0-9a-f]+ \\(serial \\d+\\) is corrupted: "
    count = failure(out, "mpipp info vec_t")
    assert re.search(corrupted + "recorded size 48, its arguments give 1600000000$", count), count
    assert re.fullmatch(r"\$\d+ = (-?\d+|0x[0-9a-f]+) <mpipp: %s.*>\n" % corrupted,
                        out["print vec_t"])  # the handle: a number (MPICH), a pointer (Open MPI)
    for command in ("mpipp vec_t vec_buf", "print $mpipp(vec_t, vec_buf)",
                    "mpipp typemap -json vec_t"):
        assert "is corrupted: recorded size 48" in failure(out, command), command
    assert re.search(corrupted + "recorded size 4611686018427387904, its arguments give 48",
                     failure(out, "mpipp  info vec_t"))
    too_many = re.compile(r"record at 0x[0-9a-f]+ has 67108876 bytes of arguments: more than "
                          r"mpipp reads \(67108864; corrupted\?\)")
    assert too_many.search(failure(out, "mpipp   info vec_t"))
    assert too_many.search(out["print  vec_t"])
    assert "context registry constant request.call = 1099511627776 is out of range" in \
        failure(out, "mpipp requests")
    # one of the four member fields renamed: the others are not read unchecked
    assert "context registry constants table lacks comm.members" in failure(out, "mpipp comms")
    assert out["mpipp info  vec_t"].startswith('vector(count=3, blocklength=2, stride=4)')


def test_null_pointer_is_not_the_mpi_bottom_buffer(out):
    calls = out["mpipp calls"]
    assert "MPI_Send(buf=0x0, count=1, datatype=far_bottom_t, dest=MPI_PROC_NULL" in calls
    assert "[0][0][0] = 2.5" in calls and "[0][1][0] = 7" in calls
    assert "<" not in out["print (char *)0"]
    assert "points at [0][1][0] (MPI_INT) +0 of buf of MPI_Send in thread 1" in \
        out["print &far_int"]
    assert "points at [0][1][0] (MPI_INT) +1 of buf" in out["print (char *)&far_int + 1"]

    malloc = [l for l in out["info breakpoints"].splitlines() if "__libc_malloc" in l]
    assert malloc and "array_of_displacements" in out["print far_bottom_t"]
    assert "already hit" not in out["info breakpoints"].split(malloc[0])[1], \
        out["info breakpoints"]


ORACLE_CHECK = """
import gdb
checked, corrupted = [0], []
class Check(gdb.Breakpoint):
    def stop(self):
        checked[0] += 1
        for command in ("mpipp info t", "mpipp typemap t", "mpipp signature t 2"):
            try:
                gdb.execute(command, to_string=True)
            except gdb.error as err:
                if "not a registered datatype" not in str(err):  # built through PMPI
                    corrupted.append("%s: %s" % (gdb.selected_frame().read_var("what").string(),
                                                 err))
        return False
Check("check_type")
gdb.execute("run")
print("ORACLE checked=%d corrupted=%r" % (checked[0], corrupted))
"""


def test_valid_types_pass_the_cross_check(tmp_path):
    """Every type tests/c/oracle.c builds (every combiner, padding, markers,
    zero counts, negative strides, large counts, f90, nested, freed parts)
    reads back without a size or extent mismatch."""
    script = tmp_path / "oracle_check.py"
    script.write_text(ORACLE_CHECK)
    proc = gdbrun.run(["-ex", "source %s" % script, os.path.join(gdbrun.BUILD, "tests", "oracle")])
    found = re.search(r"ORACLE checked=(\d+) corrupted=(.*)", proc.stdout)
    assert found, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert int(found.group(1)) > 60 and found.group(2) == "[]", found.group(0)
