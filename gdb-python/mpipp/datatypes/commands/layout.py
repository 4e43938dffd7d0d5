"""`mpipp layout TYPE [COUNT]`: a datatype as a picture, in the terminal, as
SVG or PNG.  The picture is built and drawn by the gdb-free model/picture
package; this module only picks the width and colours from gdb and writes
the files."""

import os
import shutil
import subprocess
import tempfile

import gdb

from ... import views
from ...inferior.commands import Answer, Command, UsageError
from ...model import describe
from ...model.picture import layout, svg, text
from ...readers.errors import MpippError
from ...text import args as argparse_
from ..arguments import count_from, datatype_from
from ..astype import as_runs

DEFAULT_WIDTH = 80
# Types with more constructor arguments than this are titled without them:
# describing 10**6 indexed blocks would cost more than drawing them.
TITLE_ARGUMENTS = 1000
SVG_WIDTH, SVG_ROWS = 120, 48
PNG_TOOL = "rsvg-convert"
PNG_TIMEOUT = 120
FILE_OPTIONS = ("-svg", "-png")


def terminal_width():
    """gdb's 'width' setting; 80 when unlimited (batch mode, pipes)."""
    width = gdb.parameter("width")
    return DEFAULT_WIDTH if not width or width == "unlimited" else int(width)


def use_colour():
    """Colours when gdb styles its output ('set style enabled') and gdb's
    standard output is a terminal, as gdb itself decides for its styles."""
    try:
        styled = bool(gdb.parameter("style enabled"))
    except (gdb.error, RuntimeError):
        styled = False
    return styled and os.isatty(1) and os.environ.get("TERM", "dumb") != "dumb"


def write_png(svg_text, path):
    """Converts SVG to PNG with rsvg-convert (Debian package librsvg2-bin)."""
    tool = shutil.which(PNG_TOOL)
    if tool is None:
        raise MpippError("-png needs %s (Debian package librsvg2-bin)" % PNG_TOOL)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", encoding="utf-8") as tmp:
        tmp.write(svg_text)
        tmp.flush()
        try:
            done = subprocess.run([tool, "-o", path, tmp.name], capture_output=True, text=True,
                                  timeout=PNG_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise MpippError("%s took more than %d s; try -svg"
                             % (PNG_TOOL, PNG_TIMEOUT)) from None
    if done.returncode != 0:
        raise MpippError("%s failed: %s" % (PNG_TOOL, (done.stderr.strip()
                                                        .splitlines() or ["?"])[0]))


def title_of(label, dt, count):
    n_args = len(dt.integers) + len(dt.addresses) + len(dt.large_counts)
    if n_args <= TITLE_ARGUMENTS:
        what = describe.summary(dt)
    else:
        kids = []
        for child in dt.children:
            if child.display_name not in kids:
                kids.append(child.display_name)
        what = "%s(%d arguments) of %s" % (dt.combiner.lower(), n_args, ", ".join(kids[:3])
                                           + (", ..." if len(kids) > 3 else ""))
    return "%s%s: %s" % (label, " × %d" % count if count != 1 else "", what)


class LayoutCommand(Command):
    """Draw a datatype's layout: mpipp layout [-svg FILE|-png FILE] [-as T] TYPE [COUNT]

Shows which bytes of the extent COUNT (default 1) repetitions of TYPE
touch: one row per repetition (a vector's blocks, a buffer's elements) or
per line of the terminal width ('set width'), one cell per element when the
elements are alike, else per byte; each basic type has its letter (capital
at an element's first cell) and, when gdb styles its output, a colour;
'.' is a hole, '#' an overlap.  lb, true_lb, ub (lb + extent) and true_ub
are marked under their row.  Identical repetitions past the first rows are
summarised in one line.  A 2-D subarray or darray is drawn as the grid of
its array with the selected elements filled.

Options:
  -svg FILE   write the picture as SVG (hover an element for its path,
              type and offset)
  -png FILE   write it as PNG (needs rsvg-convert, Debian librsvg2-bin)
  -as T       the contiguous runs of bytes as elements of T (see 'help mpipp')

Example:
  (gdb) mpipp layout column_t
  (gdb) mpipp layout -svg particle.svg particle_t 3"""

    name = "mpipp layout"
    valued = ("-as",)
    arity = (1, 2)

    def parse(self, arg):
        """-svg FILE or -png FILE may come anywhere on the line."""
        files, rest = argparse_.take_valued(argparse_.split_words(arg), FILE_OPTIONS)
        args = super().parse(" ".join(rest))
        if len(files) > 1:
            raise UsageError()
        args.values.update(files)
        return args

    def answer(self, args):
        words = args.words
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        count = count_from(words[1]) if len(words) == 2 else 1
        if "-as" in args.values:
            dt, count = as_runs(dt, count, args.values["-as"], view,
                                lift="too much to read as runs")
        title = title_of(words[0], dt, count)
        files = [(option, args.values[option]) for option in FILE_OPTIONS if option in args.values]
        if not files:
            width = terminal_width()
            picture = layout.build(dt, count, width=max(16, width - 26), title=title)
            return Answer(lines=lambda: text.render(picture, colour=use_colour(), width=width))
        (option, path), = files
        path = os.path.expanduser(path)
        write_picture(option, path, svg.render(layout.build(dt, count, width=SVG_WIDTH,
                                                            max_rows=SVG_ROWS, title=title)))
        return Answer(lines=lambda: ["%s written to %s" % ("SVG" if option == "-svg" else "PNG",
                                                           path)])


def write_picture(option, path, document):
    """The SVG document to the file at path, as SVG (-svg) or PNG (-png)."""
    try:
        if option == "-svg":
            with open(path, "w", encoding="utf-8") as out:
                out.write(document)
        else:
            write_png(document, path)
    except OSError as err:
        raise MpippError("cannot write %s: %s" % (path, err.strerror)) from None
