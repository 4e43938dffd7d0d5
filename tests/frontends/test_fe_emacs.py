"""A real Emacs (emacs-nox, gdb-mi: M-x gdb with scripts/mpipp-gdb -i=mi) in
tmux, stopped at a breakpoint: its locals buffer shows an MPI_Datatype local
pretty-printed, and Emacs's own watch-expression code (gdb-var-create-handler,
gdb-var-list-children: what the speedbar's expand button runs) creates and
expands varobjs over the datatype and over $mpipp(...) down to an element.
Run alone:  /usr/bin/python3 -m pytest -q tests/frontends/test_fe_emacs.py"""

import os
import tempfile
import time

import gdbrun
from terminal import Tmux, converse


def test_emacs_gdb_mi_locals_show_the_datatype():
    gdb_cmd = "%s -i=mi %s" % (gdbrun.MPIPP_GDB, gdbrun.program("frontend"))
    lisp = '(progn (setq gdb-many-windows nil) (gdb "%s"))' % gdb_cmd
    t = Tmux("emacs -nw -Q --eval '%s'" % lisp, width=200, height=50, tools=("emacs", "tmux"))
    try:
        screen = converse(t, [
            ((), "Reading symbols from"),
            ((), "(gdb)"),
            (("break frontend.c:66", "Enter"), "Breakpoint 1 at"),
            (("run", "Enter"), "hit Breakpoint 1, main"),
            (("M-x", "gdb-display-locals-buffer", "Enter"), "(Locals: main"),
            ((), "INER_STRUCT"),
        ])
        col = next(line.index("|Locals") for line in screen.splitlines() if "|Locals" in line)
        text = "".join(line[col + 1:].rstrip().rstrip("\\") for line in screen.splitlines()
                       if line[col:col + 1] == "|")
        assert 'local_cell    struct(count=2) of {halo_t, MPI_INT} "cell_t" = {combiner = MPI_COMB' \
            in text
        assert "freed by the program" in text
        assert "freed_halo    MPI_DATATYPE_NULL" in text
        watch_and_expand(t)
    finally:
        t.close()


WATCH_EL = """
(defun mpipp-test-var (exp)
  (car (seq-find (lambda (v) (equal (nth 1 v) exp)) gdb-var-list)))
(defun mpipp-test-step (steps)
  (when steps
    (funcall (car steps))
    (run-at-time 1.5 nil #'mpipp-test-step (cdr steps))))
(mpipp-test-step
 (list
  (lambda ()
    (gdb-input "-var-create - * \\"%(dt)s\\""
               (lambda () (gdb-var-create-handler "%(dt)s")))
    (gdb-input "-var-create - * \\"$mpipp(local_cell, cellbuf, 2)\\""
               (lambda () (gdb-var-create-handler "$mpipp(local_cell, cellbuf, 2)"))))
  (lambda ()
    (gdb-var-list-children (mpipp-test-var "%(dt)s"))
    (gdb-var-list-children (mpipp-test-var "$mpipp(local_cell, cellbuf, 2)")))
  (lambda ()
    (gdb-var-list-children (concat (mpipp-test-var "%(dt)s") ".array_of_types"))
    (gdb-var-list-children (concat (mpipp-test-var "$mpipp(local_cell, cellbuf, 2)") ".[1]")))
  (lambda ()
    (gdb-var-list-children (concat (mpipp-test-var "%(dt)s") ".array_of_types.0"))
    (gdb-var-list-children (concat (mpipp-test-var "$mpipp(local_cell, cellbuf, 2)") ".[1].[1]")))
  (lambda ()
    (with-temp-file "%(out)s"
      (dolist (v gdb-var-list)
        (insert (format "%%s\\t%%s\\t%%s\\t%%s\\t%%s\\n"
                        (nth 0 v) (nth 1 v) (nth 2 v) (nth 3 v) (nth 4 v))))))))
"""


def watch_and_expand(t):
    """Emacs's watch expressions over the datatype and a buffer, expanded
    node by node.  Where MPI_Datatype is a pointer (Open MPI) the datatype
    is watched as $mpipp_type(local_cell): gdb 13 fails an assertion when
    Emacs updates a child of an MPI_Datatype node (datatypes/printers.py)."""
    dt = "$mpipp_type(local_cell)" if gdbrun.handles_are_pointers("frontend") else "local_cell"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "vars.tsv")
        script = os.path.join(tmp, "watch.el")
        with open(script, "w") as f:
            f.write(WATCH_EL % {"out": out, "dt": dt})
        converse(t, [(("M-x",), "M-x"), (("load-file", "Enter"), "Load file:")])
        t.keys(script, "Enter")
        deadline = time.monotonic() + 30
        while not os.path.exists(out) and time.monotonic() < deadline:
            time.sleep(0.2)
        with open(out) as f:  # name -> [expression, numchild, type, value]
            rows = {line.split("\t")[0]: line.rstrip("\n").split("\t")[1:] for line in f}
    cell = next(name for name, row in rows.items() if row[0] == dt)
    assert rows[cell + ".combiner"][3] == "MPI_COMBINER_STRUCT"
    assert cell + ".array_of_types.1" in rows
    assert rows[cell + ".name"][3] == "cell_t"
    buf = next(name for name, row in rows.items() if row[0] == "$mpipp(local_cell, cellbuf, 2)")
    assert rows[buf + ".[1].[1].[0]"][2:] == ["int", "101"]
