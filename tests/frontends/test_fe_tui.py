"""The mpipp TUI window in a real terminal (tmux): `layout mpipp`, then it
follows `mpipp` / `mpipp info` and the stops."""

import pytest

import gdbrun
from terminal import Tmux


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
    pane = mpipp_pane(tmux.wait_for("] = 4242"))   # not the source line "cells[1].id = 4242"
    assert "  [0][0][0][1][0] = -1.5" in pane and "  [1][1][0] = 4242" in pane
    # and `mpipp info` switches it to a type
    tmux.keys("mpipp info halo_t", "Enter")
    pane = mpipp_pane(tmux.wait_for("halo_t: vector"))
    assert pane[0].startswith("halo_t: vector(count=3, blocklength=1, stride=2) of MPI_DOUBLE")
    assert "\"halo_t\" (uncomm" in pane[0]  # cut at the window width
    assert not any(line.startswith("buffer:") for line in pane)
