"""A registry caught mid-update, corrupted, or pointing at garbage: every
command gives one line, printing falls back to the raw handle with a reason,
and gdb keeps working (the registry is read from memory we scribble on)."""

import pytest

import gdbrun

SEQ = "*(unsigned long *)((char *)&mpireg_root + 16)"
MAGIC = "*(unsigned long *)&mpireg_root"
MAP = "*(unsigned long *)((char *)&mpireg_root + 24)"

COMMANDS = [
    "frame function main",
    "python import gdb; gdb.set_convenience_variable('seq', gdb.parse_and_eval('%s'))" % SEQ,
    "set var %s = $seq + 1" % SEQ,
    "mpipp info vector_type",
    "print vector_type",
    "set var %s = $seq" % SEQ,
    "mpipp info (vector_type)",
    "set var %s = 0" % MAGIC,
    "mpipp list",
    "print predefined",
    "set var %s = 0x3147455249504d6d" % MAGIC,
    "set var %s = 16" % MAP,
    "mpipp info ((vector_type))",
    "mpipp list -json",
    "print 6 * 7",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("types", COMMANDS)


def test_mid_update_is_detected(out):
    err = out[COMMANDS[3]]
    assert isinstance(err, gdbrun.GdbFailure) and "middle of an update" in err
    assert "middle of an update" in out["print vector_type"]
    assert not isinstance(out[COMMANDS[6]], gdbrun.GdbFailure)


def test_bad_magic(out):
    assert isinstance(out["mpipp list"], gdbrun.GdbFailure)
    assert "magic" in out["mpipp list"]
    assert "magic" in out["print predefined"]


def test_garbage_map_pointer(out):
    err = out[COMMANDS[12]]
    assert isinstance(err, gdbrun.GdbFailure) and "cannot read" in err
    assert "\n" not in err.strip()
    assert out["print 6 * 7"].strip().endswith("= 42")


def test_table_caught_while_it_grows():
    """Stopped inside the table's rebuild (the first type makes the empty
    table grow), the registry is mid-update: every command says so."""
    out = gdbrun.capture("types", ["print mpireg_root.seq % 2", "mpipp list",
                                   "print 6 * 7"], stop="rebuild",
                         setup=["set breakpoint pending on"])
    assert out["print mpireg_root.seq % 2"].split("= ")[1].strip() == "1"
    err = out["mpipp list"]
    assert isinstance(err, gdbrun.GdbFailure) and "middle of an update" in err
    assert out["print 6 * 7"].strip().endswith("= 42")
