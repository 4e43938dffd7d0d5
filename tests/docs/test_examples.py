"""Every example of the manual (README.md and docs/*.md) runs, and prints
what the page shows: gdb sessions through mpipp-gdb on the test programs,
job sessions through mpipp-job (the format: examples.py)."""

import glob
import json
import os
import re
import subprocess
import tempfile

import pytest

import gdbrun
from examples import DocError, matches, sessions

PAGES = [os.path.join(gdbrun.REPO, "README.md")] + \
    sorted(glob.glob(os.path.join(gdbrun.REPO, "docs", "*.md")))
DRIVER = os.path.join(gdbrun.TESTS, "gdb_driver.py")
MARK = "@@mpipp-doc-step %d@@"


def all_sessions():
    found = []
    for page in PAGES:
        try:
            found += sessions(open(page).read(), os.path.relpath(page, gdbrun.REPO))
        except DocError:
            pass  # test_every_example_is_in_a_session says where
    return found


SESSIONS = all_sessions()


def run_gdb(session):
    """Each command's output (or error), in order, at the first stop in
    stop_here() of the program, after the hidden commands."""
    commands = session.setup + [command for command, _, _ in session.steps]
    with tempfile.TemporaryDirectory() as tmp:
        spec, out = os.path.join(tmp, "spec.json"), os.path.join(tmp, "out")
        with open(spec, "w") as f:
            json.dump(commands, f)
        # in a directory of its own: files the examples write land there
        proc = subprocess.run(
            [gdbrun.MPIPP_GDB, "-nx", "-batch", "-ex", "set pagination off",
             "-ex", "set confirm off", "-ex", "set width 0", "-ex", "break stop_here",
             "-ex", "run", "-ex", "python MPIPP_TEST_SPEC = %r; MPIPP_TEST_OUT = %r" % (spec, out),
             "-ex", "source %s" % DRIVER, "-ex", "kill",
             "--args", gdbrun.program(session.target[0])] + session.target[1:],
            capture_output=True, text=True, timeout=300, cwd=tmp)
        assert os.path.exists(out + ".0"), proc.stdout + proc.stderr
        with open(out + ".0") as f:
            results = json.load(f)
    return [text for _command, _failed, text in results[len(session.setup):]]


def run_job(session):
    """Each console command's output, in order, after the hidden commands."""
    lines = list(session.setup)
    for k, (command, _, _) in enumerate(session.steps):
        lines += ["echo %s\\n" % (MARK % k), command]
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "commands")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\nquit\n")
        args = session.target
        for k, word in enumerate(args):
            if os.path.exists(gdbrun.program(word)):
                args = args[:k] + [gdbrun.program(word)] + args[k + 1:]
                break
        env = dict(os.environ, JOB_PIDDIR=tmp, IO2D_DIR=tmp)
        proc = subprocess.run([os.environ.get("MPIPP_JOB_SCRIPT", os.path.join(
            gdbrun.REPO, "scripts", "mpipp-job")), "-nx", "-batch", "-x", script] + args,
            capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL,
            cwd=tmp)
    text = proc.stdout
    assert "Traceback" not in text + proc.stderr, text + proc.stderr
    pieces = re.split(r"^@@mpipp-doc-step (\d+)@@\n", text, flags=re.M)
    outputs = dict(zip(pieces[1::2], pieces[2::2]))
    return [outputs.get(str(k), "<no output: %s>" % proc.stderr[-500:])
            for k in range(len(session.steps))]


def test_every_example_is_in_a_session():
    for page in PAGES:
        try:
            sessions(open(page).read(), page)
        except DocError as err:
            pytest.fail(str(err))
    assert SESSIONS, "the manual has no examples"


def require_library_program(session):
    """The programs of testprogs/libs are built only where their library's
    Debian package is installed (Makefile, LIBPROGS): without one, a skip
    saying so."""
    for word in session.target:
        if word.startswith("libs/") and not os.path.exists(gdbrun.program(word)):
            pytest.skip("%s is not built: its library's package is missing "
                        "(scripts/install-deps installs it)" % word)


@pytest.mark.parametrize("session", SESSIONS, ids=[s.where for s in SESSIONS])
def test_examples_print_what_the_manual_shows(session):
    require_library_program(session)
    outputs = (run_gdb if session.kind == "gdb" else run_job)(session)
    wrong = ["%s: (%s) %s\n--- the manual shows:\n%s\n--- it prints:\n%s" % (
        where, session.kind, command, "\n".join(expected), actual)
        for (command, expected, where), actual in zip(session.steps, outputs)
        if not matches(expected, actual)]
    assert not wrong, "\n\n".join(wrong)
