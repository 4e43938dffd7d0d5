"""The man pages (man/): each renders with `man -l` without a warning, and
names everything the programs themselves offer: every command `help mpipp`
lists with every option its help names (under that command), every
convenience function, convenience variable, frame filter and setting of
mpipp (mpipp.7), every option of `mpipp-job --help` and every console
command (mpipp-job.1), every command and option of the `mpipp` program's
usage (mpipp.1).  The lists come from the programs, so a command or
option added later without its man page fails here."""

import os
import re
import subprocess
import sys

import pytest

import gdbrun

MAN = os.path.join(gdbrun.REPO, "man")
PAGES = ["mpipp-gdb.1", "mpipp-job.1", "mpipp.1", "mpipp.7"]
MPIPP_JOB = os.path.join(gdbrun.REPO, "scripts", "mpipp-job")
MPIPP = os.path.join(gdbrun.REPO, "scripts", "mpipp")


def man(page, *options, width=80):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH=str(width), MAN_DISABLE_SECCOMP="1")
    return subprocess.run(["man", *options, "-l", os.path.join(MAN, page)], env=env,
                          capture_output=True, text=True, timeout=60)


def rendered(page):
    """The page as text, one paragraph a line (no wrapping, no hyphenation)."""
    proc = man(page, "-P", "cat", width=2000)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.replace("\u2010", "-")


@pytest.mark.parametrize("page", PAGES)
def test_renders_without_warnings(page):
    proc = man(page, "--warnings", "-E", "UTF-8", "-Tutf8", "-Z")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def gdb_lists():
    """From gdb with mpipp loaded: the subcommands of `mpipp`, the
    convenience functions and the settings mpipp defines."""
    out = gdbrun.run(["-ex", "help mpipp", "-ex", "help function", "-ex", "help show mpipp"],
                     timeout=60).stdout
    commands = re.findall(r"^mpipp (\S+) -- ", out, re.M)
    functions = re.findall(r"^function (mpipp\w*) -- ", out, re.M)
    settings = re.findall(r"^show mpipp (\S+) -- ", out, re.M)
    assert len(commands) > 15 and functions and settings, out
    return commands, functions, settings


def test_mpipp7_names_every_command_function_and_setting():
    text = rendered("mpipp.7")
    commands, functions, settings = gdb_lists()
    missing = [c for c in commands if "mpipp %s " % c not in text]
    missing += ["$%s(" % f for f in functions if "$%s(" % f not in text]
    missing += [s for s in settings if "set mpipp %s " % s not in text]
    assert not missing, missing


OPTION = re.compile(r"(?<![\w-])-[a-z][\w-]*")


def options_of(help_text):
    """The options a command's help names: in its usage (the first line and
    'or:' lines) and in its list of options (lines '  -x ...')."""
    lines = help_text.splitlines()
    usage = [lines[0].split(": ", 1)[-1]] + [l for l in lines if l.lstrip().startswith("or: ")]
    listed = [l.split()[0] for l in lines if re.match(r"^  -[a-z]", l)]
    return set(OPTION.findall(" ".join(usage))) | set(listed)


def command_paragraphs(text):
    """{subcommand ('' for the decoding command itself): its paragraph} of
    mpipp.7's COMMANDS section, the tag lines and their description."""
    section = text.split("\nCOMMANDS\n", 1)[1].split("\nPRINTERS\n", 1)[0]
    paragraphs = {}
    for paragraph in re.split(r"\n\s*\n", section):
        words = paragraph.split()
        if len(words) > 1 and words[0] == "mpipp":
            paragraphs["" if words[1].startswith("[") else words[1]] = paragraph
    return paragraphs


@pytest.fixture(scope="module")
def stopped_in_a_call():
    """gdb with mpipp stopped inside an MPI call of the demo: the help of
    every command, the convenience variables and the frame filters."""
    commands, _functions, _settings = gdb_lists()
    args = ["-ex", "break stop_here", "-ex", "run", "-ex", "break PMPI_Sendrecv",
            "-ex", "continue", "-ex", "echo @@ \\n",
            "-ex", "help mpipp"]
    for command in commands:
        args += ["-ex", "echo @@%s\\n" % command, "-ex", "help mpipp %s" % command]
    args += ["-ex", "echo @@show convenience\\n", "-ex", "show convenience",
             "-ex", "echo @@info frame-filter\\n", "-ex", "info frame-filter", "-ex", "kill"]
    out = gdbrun.run(args + [gdbrun.program("demo")], timeout=120).stdout
    parts = re.split(r"^@@(.*)$", out, flags=re.M)
    found = {name.strip(): body.strip("\n") for name, body in zip(parts[1::2], parts[2::2])}
    found[""] = found[""].split("\nList of mpipp subcommands", 1)[0]
    assert set(commands) <= set(found), out
    return found


def test_mpipp7_names_every_option_under_its_command(stopped_in_a_call):
    paragraphs = command_paragraphs(rendered("mpipp.7"))
    commands = [c for c in stopped_in_a_call if c not in ("show convenience", "info frame-filter")]
    missing = [" ".join(("mpipp", c, o) if c in paragraphs else ("mpipp", c))
               for c in commands for o in sorted(options_of(stopped_in_a_call[c]))
               if c not in paragraphs or not re.search(r"(?<![\w-])%s(?![\w-])" % o,
                                                       paragraphs[c])]
    assert "-as" in options_of(stopped_in_a_call[""]), stopped_in_a_call[""]
    assert not missing, missing


def test_mpipp7_names_every_convenience_variable_and_frame_filter(stopped_in_a_call):
    text = rendered("mpipp.7")
    variables = [name for name, value in re.findall(
        r"^\$([A-Za-z]\w*) = (.*)$", stopped_in_a_call["show convenience"], re.M)
        if not value.startswith("<internal function") and name != "bpnum"]
    filters = re.findall(r"^\s+\d+\s+(?:Yes|No)\s+(\S+)$",
                         stopped_in_a_call["info frame-filter"], re.M)
    assert "mpi_call" in variables and "mpipp" in filters, stopped_in_a_call
    missing = ["$%s" % v for v in variables if "$%s" % v not in text]
    missing += ["frame-filter global %s" % f for f in filters
                if "frame-filter global %s " % f not in text]
    assert not missing, missing


def job_options():
    """Every option `mpipp-job --help` shows, and its ways in."""
    proc = subprocess.run([MPIPP_JOB, "--help"], capture_output=True, text=True, timeout=60)
    text = proc.stdout + proc.stderr
    options = set(re.findall(r"(?:^|\s|\[)(--?[a-z][a-z-]*)", text))
    assert {"-batch", "-ex", "--mpi", "--attach-job", "--core", "-n"} <= options, text
    return sorted(options)


def console_commands():
    sys.path.insert(0, os.path.join(gdbrun.REPO, "gdb-python"))
    from mpipp.job.console.commands import COMMANDS
    return sorted(COMMANDS)


def test_mpipp_job1_names_every_option_and_console_command():
    text = rendered("mpipp-job.1")
    words = set(re.findall(r"[\w!-]+", text))
    missing = [o for o in job_options() if o not in words]
    missing += [c for c in console_commands() if c not in words]
    assert not missing, missing


def test_mpipp_gdb1_names_its_environment():
    text = rendered("mpipp-gdb.1")
    script = open(os.path.join(gdbrun.REPO, "scripts", "mpipp-gdb")).read()
    variables = set(re.findall(r"\$\{?(MPIPP_\w+|GDB|PYTHON)\b", script))
    assert {"MPIPP_LIB", "MPIPP_MPI"} <= variables
    assert not [v for v in variables if v not in text]


def test_mpipp1_names_every_command_and_option():
    """scripts/mpipp's usage (what it prints when asked nothing): each
    command with its paragraph under COMMANDS, naming the command's options."""
    proc = subprocess.run([MPIPP], capture_output=True, text=True, timeout=60)
    usage = re.findall(r"mpipp (\w+) DIR((?: \[-\w+\])*)", proc.stderr)
    assert proc.returncode == 2 and len(usage) >= 2, proc.stderr
    paragraphs = rendered("mpipp.1").split("\nCOMMANDS\n", 1)[1].split("\n\n")
    missing = []
    for command, options in usage:
        paragraph = next((p for p in paragraphs if p.split()[:1] == [command]), None)
        if paragraph is None:
            missing.append("mpipp " + command)
            continue
        missing += ["mpipp %s %s" % (command, o) for o in re.findall(r"-\w+", options)
                    if not re.search(r"(?<![\w-])%s(?![\w-])" % o, paragraph)]
    assert not missing, missing


def test_mpipp_gdb1_names_its_own_options():
    """The options scripts/mpipp-gdb takes before gdb's (the `case` of its
    loop on $1), each named with its argument."""
    text = rendered("mpipp-gdb.1")
    script = open(os.path.join(gdbrun.REPO, "scripts", "mpipp-gdb")).read()
    options = re.findall(r"--[a-z-]+", " ".join(re.findall(
        r"^\s*(--[a-z-]+(?: \| --[a-z-]+)*)\)$", script, re.M)))
    assert "--record" in options, options
    assert not [o for o in options if not re.search(r"%s (dir|name)\b" % o, text)]
