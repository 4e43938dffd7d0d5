"""The console in a real terminal (tmux): readline completion of console
commands and of gdb's own (asked of a rank's gdb), history kept across
sessions, ctrl-C at the prompt."""

import pytest

from jobrun import MARK, MPIPP_JOB, PROGRAM, new_job, wait_no_leftovers
from terminal import Tmux, converse


@pytest.fixture
def console(tmp_path):
    marker, piddir = new_job(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    # the pane outlives the console (its shell survives the ctrl-C the
    # console gets) so its last words stay on screen
    command = "env HOME=%s %s=%s JOB_PIDDIR=%s sh -c 'trap : INT; %s -nx -n 2 %s deadlock; " \
        "echo console exited $?; sleep 600'" % (home, MARK, marker, piddir, MPIPP_JOB, PROGRAM)
    t = Tmux(command)
    try:
        t.wait_for("(mpipp-job)", timeout=120)
        yield t, home, marker
    finally:
        t.close()
    wait_no_leftovers(marker)


def test_completion_history_and_ctrl_c(console):
    tmux, home, _marker = console
    converse(tmux, [
        (("foc", "Tab"), "(mpipp-job) focus"),
        (("1", "Enter"), "focus [1]"),
        (("break stop_h", "Tab"), "(mpipp-job) break stop_here"),
        (("Enter",), "Breakpoint 1 at "),
        (("C-c",), "Quit"),
        (("focus all", "Enter"), "focus [0,1]"),
    ])
    tmux.keys("Up", "Up")   # history: the prompt line recalls the line before 'focus all'
    tmux.wait_for("(mpipp-job) break stop_here", last_line=True)
    screen = converse(tmux, [(("C-u", "quit", "Enter"), "console exited 0")], timeout=60)
    assert "Traceback" not in screen
    history = (home / ".mpipp_job_history").read_text()
    assert "focus 1" in history and "break stop_here" in history and "focus all" in history
