"""A real Emacs (emacs-nox, gdb-mi: M-x gdb with scripts/mpipp-gdb -i=mi) in
tmux, stopped at a breakpoint: its locals buffer shows an MPI_Datatype local
pretty-printed.  Skipped when emacs or tmux is missing.
Run alone:  /usr/bin/python3 -m pytest -q tests/frontends/test_fe_emacs.py"""

import shutil

import pytest

import gdbrun
from test_fe_tui import Tmux

pytestmark = pytest.mark.skipif(shutil.which("emacs") is None or shutil.which("tmux") is None,
                                reason="emacs (emacs-nox) or tmux not installed")


def test_emacs_gdb_mi_locals_show_the_datatype():
    gdb_cmd = "%s -i=mi %s" % (gdbrun.MPIPP_GDB, gdbrun.program("frontend"))
    lisp = '(progn (setq gdb-many-windows nil) (gdb "%s"))' % gdb_cmd
    t = Tmux("emacs -nw -Q --eval '%s'" % lisp, width=200, height=50)
    try:
        t.wait_for("Reading symbols from")
        t.wait_for("(gdb)")
        t.keys("break frontend.c:66", "Enter")
        t.wait_for("Breakpoint 1 at")
        t.keys("run", "Enter")
        t.wait_for("hit Breakpoint 1, main")
        t.keys("M-x")
        t.keys("gdb-display-locals-buffer", "Enter")
        t.wait_for("(Locals: main")
        screen = t.wait_for("INER_STRUCT")
        col = next(line.index("|Locals") for line in screen.splitlines() if "|Locals" in line)
        text = "".join(line[col + 1:].rstrip().rstrip("\\") for line in screen.splitlines()
                       if line[col:col + 1] == "|")
        assert 'local_cell    struct(count=2) of {halo_t, MPI_INT} "cell_t" = {combiner = MPI_COMB' \
            in text
        assert "freed by the program" in text
        assert "freed_halo    MPI_DATATYPE_NULL" in text
    finally:
        t.close()
