"""-mpipp-summary: the one-line summaries of pretty-printed values, for the
MI relay (relay.py).

gdb 13 shows the value of a variable object whose printer has children as
`{...}`; the relay asks this command for the printer's own text (its
to_string) and shows that instead.  A value is named as the front end named
it: the root expression of its variable object, then the names of the
children taken below it.  The root's frame is told by its height (the
number of frames older than it), which stays the same while the frame lives
however deep the stack grows:

    -mpipp-summary [--thread T] [--frame F] [-height H] [-child NAME]... EXPR [CHILD...]
    ^done,height="3",summary="vector(count=3, ...) of MPI_DOUBLE \"halo_t\""
    ^done,height="3",children=[{name="oldtype",summary="..."},...]

-child NAME asks instead for the summaries of the value's children of those
names (those whose printer has one), in one walk that ends when the last is
found: what the relay needs for a -var-list-children.
Like every mpipp command it reads memory only: the expression is evaluated
with calls into the program and writes to it disabled.
"""

import gdb

from ..inferior import expressions, output
from ..readers.errors import MpippError

# Children examined per level before giving up on a name (mpipp's own
# printers group more than `mi-chunk` children into ranges).
MAX_CHILDREN = 1 << 16


def _height(frame):
    height = 0
    while frame.older() is not None:
        frame = frame.older()
        height += 1
    return height


def _frame_at(height):
    frames = []
    frame = gdb.newest_frame()
    while frame is not None:
        frames.append(frame)
        frame = frame.older()
    level = len(frames) - 1 - height
    if not 0 <= level < len(frames):
        raise MpippError("no frame at height %d" % height)
    return frames[level]


def _c_children(value):
    """(name, gdb.Value) of an array's elements or a struct's members, named
    as gdb's variable objects name them."""
    kind = value.type.strip_typedefs()
    if kind.code == gdb.TYPE_CODE_ARRAY:
        low, high = kind.range()
        for index in range(low, min(high, low + MAX_CHILDREN - 1) + 1):
            yield str(index), value[index]
    elif kind.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        for field in kind.fields():
            if field.name:
                yield field.name, value[field.name]


def _children(value):
    """(name, gdb.Value) of a value's children: its printer's, else C's."""
    printer = gdb.default_visualizer(value)
    if printer is None:
        yield from _c_children(value)
        return
    if not hasattr(printer, "children"):
        return
    for count, (name, child) in enumerate(printer.children()):
        if count >= MAX_CHILDREN:
            return
        yield name, child if isinstance(child, gdb.Value) else gdb.Value(child)


def _child(value, name):
    for child_name, child in _children(value):
        if child_name == name:
            return child
    raise MpippError("no child %s" % name)


def _summaries(value, wanted):
    """{name, summary} of the children called one of wanted (a set, emptied)."""
    for name, child in _children(value):
        if name in wanted:
            wanted.discard(name)
            text = summary_of(child)
            if text is not None:
                yield {"name": name, "summary": text}
            if not wanted:
                return


def summary_of(value):
    """The printer's to_string as text, or None."""
    printer = gdb.default_visualizer(value)
    text = printer.to_string() if printer is not None and hasattr(printer, "to_string") \
        else None
    if text is None:
        return None
    if hasattr(text, "value") and not isinstance(text, gdb.Value):  # a lazy string
        text = text.value()
    return text.format_string() if isinstance(text, gdb.Value) else str(text)


class SummaryCommand(gdb.MICommand):
    """-mpipp-summary [-height H] [-child NAME]... EXPR [CHILD...]"""

    def __init__(self):
        super().__init__("-mpipp-summary")

    @output.one_line_errors
    def invoke(self, argv):
        height, wanted = None, set()
        while len(argv) > 1 and argv[0] in ("-height", "-child"):
            option, value = argv.pop(0), argv.pop(0)
            if option == "-child":
                wanted.add(value)
            else:
                height = int(value)
        if not argv:
            raise gdb.GdbError("usage: -mpipp-summary [-height H] [-child NAME]... EXPR [CHILD...]")
        selected = gdb.selected_frame()
        frame = selected if height is None else _frame_at(height)
        try:
            frame.select()
            with expressions.no_side_effects():
                value = gdb.parse_and_eval(argv[0])
                for name in argv[1:]:
                    value = _child(value, name)
                answer = {"height": str(_height(frame))}
                if wanted:
                    answer["children"] = list(_summaries(value, wanted))
                else:
                    text = summary_of(value)
                    if text is None:
                        raise MpippError("%s has no summary" % argv[0])
                    answer["summary"] = text
        finally:
            if selected.is_valid():
                selected.select()
        return answer

