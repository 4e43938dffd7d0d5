"""The mpipp TUI window in a real terminal (tmux): `layout mpipp`, then it
follows `mpipp` / `mpipp info` and the stops."""

import os
import shutil
import subprocess
import time

import pytest

import gdbrun



@pytest.fixture(autouse=True)
def terminal_tools():
    """make check installs these (scripts/install-deps); missing means a broken setup."""
    for tool in ("tmux",):
        assert shutil.which(tool), "%s is not installed: run scripts/install-deps" % tool


class Tmux:
    """A terminal on a tmux server of its own: a server shared with other
    sessions would start the command in that server's environment (another
    build's MPIPP_BUILD, ...), not in the test's."""

    def __init__(self, command, width=160, height=45):
        self.name = "mpipp-tui-%d" % os.getpid()
        self.tmux = ["tmux", "-L", self.name, "-f", "/dev/null"]
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)
        subprocess.run(self.tmux + ["new-session", "-d", "-s", self.name, "-x", str(width),
                                    "-y", str(height), command], check=True)

    def keys(self, *keys):
        subprocess.run(self.tmux + ["send-keys", "-t", self.name] + list(keys), check=True)

    def screen(self):
        return subprocess.run(self.tmux + ["capture-pane", "-t", self.name, "-p"], check=True,
                              capture_output=True, text=True).stdout

    def wait_for(self, text, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError("%r not on screen:\n%s" % (text, self.screen()))

    def close(self):
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)


def mpipp_pane(screen):
    """The text inside the mpipp window's border."""
    lines = screen.splitlines()
    top = next(k for k, line in enumerate(lines) if "─mpipp─" in line)
    left = lines[top].index("─mpipp─") - 1
    rows = []
    for line in lines[top + 1:]:
        if line[left:left + 1] != "│":
            break
        rows.append(line[left + 1:].rstrip().rstrip("│").rstrip())
    return rows


@pytest.fixture
def tmux():
    cmd = "%s -nx -q -ex 'set pagination off' -ex 'break stop_here' -ex run " \
          "-ex 'frame function main' %s" % (gdbrun.MPIPP_GDB, gdbrun.program("frontend"))
    t = Tmux(cmd)
    try:
        t.wait_for("(gdb)")
        yield t
    finally:
        t.close()


def test_tui_window_shows_struct_of_vector_tree_and_buffer(tmux):
    tmux.keys("layout mpipp", "Enter")
    tmux.wait_for("nothing shown yet")
    tmux.keys("mpipp cell_t cells 2", "Enter")
    pane = mpipp_pane(tmux.wait_for("buffer: 2"))
    assert pane[0] == 'cell_t: struct(count=2) of {halo_t, MPI_INT} "cell_t"'
    assert pane[1].startswith("├─ [0] 1 × at +0: vector(count=3, blocklength=1, stride=2) of "
                              "MPI_DOUBLE")
    assert pane[2] == "│  └─ MPI_DOUBLE"
    assert pane[3] == "└─ [1] 1 × at +48: MPI_INT"
    assert pane[5].startswith("buffer: 2 × cell_t at 0x")
    assert pane[6:10] == ["  [0][0][0][0][0] = 0", "  [0][0][0][1][0] = 2",
                          "  [0][0][0][2][0] = 4", "  [0][1][0] = 100"]
    # it follows the program: values are read again at the next stop
    tmux.keys("break stop_again", "Enter")
    tmux.keys("continue", "Enter")
    tmux.wait_for("stop_again ()")
    pane = mpipp_pane(tmux.wait_for("= 4242"))
    assert "  [0][0][0][1][0] = -1.5" in pane and "  [1][1][0] = 4242" in pane
    # and `mpipp info` switches it to a type
    tmux.keys("mpipp info halo_t", "Enter")
    pane = mpipp_pane(tmux.wait_for("halo_t: vector"))
    assert pane[0].startswith("halo_t: vector(count=3, blocklength=1, stride=2) of MPI_DOUBLE")
    assert "\"halo_t\" (uncomm" in pane[0]  # cut at the window width
    assert not any(line.startswith("buffer:") for line in pane)
