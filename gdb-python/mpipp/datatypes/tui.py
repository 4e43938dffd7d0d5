"""The `mpipp` TUI window: the selected datatype's tree and its decoded buffer.

    (gdb) layout mpipp                 # source | mpipp, over the command window
    (gdb) mpipp cell_t cells 4         # the window follows mpipp / mpipp info
    (gdb) tui new-layout mine mpipp 1 cmd 1   # or any layout of your own

The window shows what the last `mpipp TYPE ADDR [COUNT]` or `mpipp info TYPE`
command showed: the type tree (one line per node: combiner, parameters,
name, freed/uncommitted state; struct blocks with their blocklength and
displacement), then, for a buffer, its elements as PATH = VALUE, read again
at every stop.  Only the visible lines are computed.  Scroll it with the
mouse wheel or `focus mpipp` and the arrow keys.
"""

import gdb

from ..inferior import memory
from ..model import describe, render
from ..model.datatype import with_room_for_deep_trees
from ..model.offsets import format_offset
from ..readers.errors import MpippError

MAX_TREE_LINES = 2000
LAYOUT = "tui new-layout mpipp {-horizontal src 1 mpipp 1} 2 status 0 cmd 1"

# What the user last looked at through `mpipp` / `mpipp info` (a dict), and
# the callables told of it (the windows open).
last_shown = None
listeners = []


def shown(**what):
    """What `mpipp` or `mpipp info` shows now: the windows follow it."""
    global last_shown
    last_shown = what
    for listener in list(listeners):
        try:
            listener(what)
        except Exception:  # noqa: BLE001 - a display must never break a command
            pass


def tree_lines(dt, label=None, limit=MAX_TREE_LINES):
    """The type tree as text lines (box drawing), at most `limit` lines."""
    out = []

    def add(text):
        if len(out) < limit:
            out.append(text)
        return len(out) < limit

    def visit(node, head, prefix, seen):
        if not add(prefix[0] + head + describe.summary(node)):
            return
        if node.is_leaf:
            return
        if id(node) in seen:
            add(prefix[1] + "   (described above)")
            return
        seen = seen | {id(node)}
        kids = []
        params = dict(describe.parameters(node))
        if node.combiner.startswith("STRUCT"):
            for i, (bl, disp, child) in enumerate(zip(params["array_of_blocklengths"],
                                                      params["array_of_displacements"],
                                                      params["array_of_types"])):
                kids.append(("[%d] %d × at %s: " % (i, bl, format_offset(disp, signed=True)), child))
        else:
            for child in node.children:
                if all(child is not k for _h, k in kids):
                    kids.append(("", child))
        for n, (h, child) in enumerate(kids):
            last = n == len(kids) - 1
            visit(child, h, (prefix[1] + ("└─ " if last else "├─ "),
                             prefix[1] + ("   " if last else "│  ")), seen)

    visit(dt, (label + ": ") if label else "", ("", ""), frozenset())
    return out


def view_lines(what, want):
    """Lines for what the user last showed, computing about `want` lines."""
    if what is None:
        return ["mpipp: nothing shown yet.",
                "Run 'mpipp TYPE ADDR [COUNT]' or 'mpipp info TYPE'; this window follows."]
    dt = what["dt"]
    lines = tree_lines(dt, what["label"], limit=max(want, 1))
    if what["kind"] != "buffer":
        return lines
    base, count = what["base"], what["count"]
    lines.append("")
    lines.append("buffer: %d × %s at 0x%x" % (count, what["label"], base))
    try:
        for line in render.render_elements(
                dt, count, memory.memory_reader(base),
                prefix=what.get("prefix", ()), base_address=base,
                limit=max(want - len(lines), 1)):
            lines.append("  " + line)
            if len(lines) >= want:
                break
    except MpippError as err:
        lines.append("  <mpipp: %s>" % err)
    return lines


class MpippWindow:
    """A TUI window; see the module doc."""

    def __init__(self, tui_window):
        self.win = tui_window
        self.win.title = "mpipp"
        self.top = 0
        self.left = 0
        listeners.append(self._changed)
        gdb.events.before_prompt.connect(self._prompt)
        self._dirty = True

    def _changed(self, _what):
        self.top = 0
        self._dirty = True

    def _prompt(self):
        self.render()

    def close(self):
        if self._changed in listeners:
            listeners.remove(self._changed)
        try:
            gdb.events.before_prompt.disconnect(self._prompt)
        except (RuntimeError, ValueError):
            pass

    @with_room_for_deep_trees  # gdb calls it before a prompt, or as the window scrolls
    def render(self):
        try:
            if not self.win.is_valid():
                return
            height, width = self.win.height, self.win.width
            try:
                lines = view_lines(last_shown, self.top + height)
            except (MpippError, gdb.error) as err:
                lines = ["<mpipp: %s>" % err]
            shown = lines[self.top:self.top + height]
            # full-width rows, no newlines: a newline after a full row would
            # leave an empty row
            text = "".join(line[self.left:self.left + width].ljust(width) for line in shown)
            self.win.erase()
            self.win.write(text)
        except Exception as err:  # noqa: BLE001 - never a traceback in the TUI
            try:
                self.win.erase()
                self.win.write("<mpipp: %s>\n" % err)
            except Exception:  # noqa: BLE001
                pass

    def vscroll(self, num):
        self.top = max(0, self.top + num)
        self.render()

    def hscroll(self, num):
        self.left = max(0, self.left + num)
        self.render()

    def click(self, _x, _y, _button):
        pass


def install():
    if not hasattr(gdb, "register_window_type"):
        return  # gdb without TUI support
    try:
        gdb.register_window_type("mpipp", MpippWindow)
        gdb.execute(LAYOUT, to_string=True)
    except (gdb.error, RuntimeError):
        pass
