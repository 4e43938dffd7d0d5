"""mpipp's pretty-printers as gdb lists them (inferior/printing.py): one
collection, "mpipp", of named subprinters that `info pretty-printer` lists
and `disable/enable pretty-printer` switch; registered once, globally when
mpipp-gdb sources mpipp, with libmpireg's objfile when its auto-load script
loads it; and the value a `finish` returns, known without a hook-finish."""

import os
import re
import subprocess

import pytest

import gdbrun
from gdbrun import BUILD, REPO

SUBPRINTERS = ("MPI_Comm", "MPI_Datatype", "MPI_File", "MPI_Group", "MPI_Op", "MPI_Request",
               "MPI_Win", "call-buffers", "synthetic")
# gdb lists a collection's subprinters sorted, indented under its name.
LISTING = "  mpipp\n" + "".join("    %s\n" % name for name in SUBPRINTERS)
# (subprinter, a value it prints) in testprogs/ctx_requests, stopped with
# requests pending: rbuf is the buffer of one of them.
SUBJECTS = (("MPI_Datatype", "row_t"), ("MPI_Comm", "dup_comm"), ("MPI_Request", "reqs[0]"),
            ("MPI_Op", "my_op"), ("call-buffers", "rbuf"), ("synthetic", "$mpipp_type(row_t)"))
LIMIT = "python import sys; print(sys.getrecursionlimit())"


def _switching(name, expression):
    """Commands printing expression as mpipp shows it, raw, with the
    subprinter disabled, and once it is enabled again (each command once:
    they key the answers)."""
    return ["print %s" % expression, "print/r %s" % expression,
            "disable pretty-printer global mpipp;%s" % name, "output %s" % expression,
            "enable pretty-printer global mpipp;%s" % name, "call %s" % expression]


@pytest.fixture(scope="module")
def out():
    commands = ["info pretty-printer", "disable pretty-printer global mpipp;MPI_Win",
                "info pretty-printer global mpipp", "enable pretty-printer global mpipp;MPI_Win"]
    for name, expression in SUBJECTS:
        commands += _switching(name, expression)
    return gdbrun.capture("ctx_requests", [LIMIT] + commands + ["mpipp info row_t", LIMIT + " "],
                          stop="stop_pending")


def test_the_recursion_limit_stays_gdbs_own(out):
    """mpipp raises it around its own work only (model.datatype.RoomForDeepTrees)."""
    assert out[LIMIT] == out[LIMIT + " "], out
    assert int(out[LIMIT]) < 16000, out


def _value(printed):
    """What print or call shows after '$N = '."""
    return printed.split(" = ", 1)[1]


def test_one_collection_of_named_subprinters_globally(out):
    listing = out["info pretty-printer"]
    assert listing.count("  mpipp\n") == 1, listing
    assert "global pretty-printers:\n" in listing
    assert LISTING in listing.split("global pretty-printers:\n", 1)[1], listing
    disabled = out["info pretty-printer global mpipp"]
    assert "    MPI_Win [disabled]\n" in disabled and "    MPI_Comm\n" in disabled, disabled


@pytest.mark.parametrize("name, expression", SUBJECTS)
def test_a_disabled_subprinter_shows_the_raw_value(out, name, expression):
    shown, raw = out["print %s" % expression], out["print/r %s" % expression]
    assert _value(shown) != _value(raw), (shown, raw)
    assert out["output %s" % expression] == _value(raw).rstrip("\n"), out
    assert _value(out["call %s" % expression]) == _value(shown)


def _plain_gdb(args):
    """gdb itself (not mpipp-gdb): mpipp comes by libmpireg's auto-load script."""
    lib = os.path.join(BUILD, "libmpireg.so")
    proc = subprocess.run(["gdb", "-nx", "-batch", "-iex", "add-auto-load-safe-path " + BUILD,
                           "-ex", "set environment LD_PRELOAD=" + lib] + args,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc


def test_registered_with_libmpireg_when_its_auto_load_script_loads_mpipp():
    """Once, with libmpireg's objfile; with its new objfile when the program
    runs again; not globally as well when mpipp is then sourced by hand."""
    listing = ["-ex", "info pretty-printer"]
    proc = _plain_gdb(["-ex", "break stop_here", "-ex", "run"] + listing
                      + ["-ex", "run"] + listing
                      + ["-ex", "source " + os.path.join(REPO, "gdb-python", "mpipp.py")]
                      + listing + ["--args", gdbrun.program("types")])
    listings = proc.stdout.split("global pretty-printers:\n")[1:]
    assert len(listings) == 3, proc.stdout + proc.stderr
    for listing in listings:
        assert listing.count("  mpipp\n") == 1, listing
        objfile = re.search(r"^objfile (\S+) pretty-printers:\n%s" % re.escape(LISTING),
                            listing, re.M)
        assert objfile and objfile.group(1).endswith("/libmpireg.so"), listing


FINISHED = re.compile(r'Value returned is \$\d+ = struct\(count=9000\) of \{MPI_INT, MPI_DOUBLE\} '
                      r'"struct_many"')


def test_finish_from_a_frame_selected_with_up():
    proc = gdbrun.run(["-ex", "break make_type", "-ex", "run", "-ex", "step", "-ex", "up",
                       "-ex", "finish", "--args", gdbrun.program("extremes")])
    # make_type finished, not named (the newest frame)
    assert re.search(r"^0x[0-9a-f]+ in main \(", proc.stdout, re.M), proc.stdout
    assert FINISHED.search(proc.stdout), proc.stdout


def test_a_users_own_hook_finish_is_theirs(tmp_path):
    """mpipp defines no hook-finish: the user's runs, and finish still
    shows the returned datatype."""
    script = tmp_path / "hook.gdb"
    script.write_text("define hook-finish\necho [the user's hook]\\n\nend\n")
    proc = gdbrun.run(["-x", str(script), "-ex", "break make_type", "-ex", "run",
                       "-ex", "finish", "-ex", "help user-defined",
                       "--args", gdbrun.program("extremes")])
    assert "[the user's hook]" in proc.stdout, proc.stdout
    assert FINISHED.search(proc.stdout), proc.stdout
