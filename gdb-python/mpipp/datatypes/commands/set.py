"""`mpipp set TYPE ADDR [COUNT] PATH = VALUE`: write elements of a buffer
through an MPI datatype.

The model turns the value texts into bytes (model/encode.py) and checks
every one of them first; only then are the bytes written, with plain
memory writes (never a call into the process).
"""

import re

import gdb

from ... import views
from ...inferior import memory, output
from ...inferior.commands import Answer, Command
from ...model import encode, paths, render
from ...model.basics import PAIR_MEMBERS
from ...model.offsets import address_of
from ...readers.errors import MpippError
from ...text.args import ArgError
from ..arguments import address_from, count_from, datatype_from

_MEMBER = re.compile(r"\.(%s)\s*\Z" % "|".join(PAIR_MEMBERS))
_COMPARISONS = ("==", "!=", "<=", ">=")


def split_assignment(text):
    """(left, right) of 'LEFT = RIGHT' at the first '=' outside brackets,
    braces, parentheses and quotes that is not part of ==, !=, <=, >=."""
    depth, quote = 0, None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0 and text[i - 1:i + 1] not in _COMPARISONS \
                and text[i:i + 2] != "==":
            return text[:i], text[i + 1:]
    raise ArgError("usage: mpipp set [-json] TYPE ADDR [COUNT] PATH = VALUE (or = {V1, V2, ...})")


def _merged(writes):
    """Adjacent (offset, bytes) writes joined, in address order."""
    out = []
    for offset, data in sorted(writes):
        if out and out[-1][0] + len(out[-1][1]) == offset:
            out[-1] = (out[-1][0], out[-1][1] + data)
        else:
            out.append((offset, data))
    return out


class SetCommand(Command):
    """Write elements of a buffer through an MPI datatype: mpipp set [-json] TYPE ADDR [COUNT] PATH = VALUE

Writes VALUE into the basic element PATH of COUNT (default 1) repetitions
of TYPE at ADDR, then prints the element as 'mpipp' does.  PATH may name a
subtree: then VALUE is a list {V1, V2, ...} of one value per element in
typemap order (nested braces are flattened).  A pair element
(MPI_DOUBLE_INT, ...) takes two values, value then index, or name one
member: PATH.value, PATH.index.

Values: integers (42, -7, 0x2a, 'A'), reals (1.5, -2e-3, 0x1.8p3, inf,
nan, nan(0x8000000000000)), complex (1.5 + -2i), chars ('A', '\\n', L'Z'),
bools (true, false).  A value that does not fit its element (an integer out
of range, a float beyond the largest finite value, text that is no number,
a wrong number of values) is refused and nothing is written.

Options:
  -json   print {"path", "written": [{"path", "offset", "address", "type",
          "old", "value", "bytes"}]}

Examples:
  (gdb) mpipp set s_type items 4 [2][1][0] = 3.5
  (gdb) mpipp set s_type items 4 [2][2] = {'a', 'b', 'c', 'd', 0}
  (gdb) mpipp set pair_t pairs 3 [1].index = 7"""

    name = "mpipp set"
    takes_json = True
    arity = (3, 4)

    def parse(self, arg):
        """The options and words before '='; what follows it is the last word."""
        target, value_text = split_assignment(arg)
        args = super().parse(target)
        args.words.append(value_text)
        return args

    def answer(self, args):
        *words, value_text = args.words
        path_text, member = words[-1], None
        found = _MEMBER.search(path_text)
        if found:
            path_text, member = path_text[:found.start()], found.group(1)
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        count = count_from(words[2]) if len(words) == 4 else 1
        prefix = paths.resolve_path(dt, count, paths.parse_path(path_text)).indices
        writes = encode.encode_subtree(dt, count, prefix, encode.split_values(value_text),
                                       member)
        read = memory.memory_reader(base)
        old = list(render.iter_json_elements(dt, count, read, prefix=prefix, base_address=base))
        write_memory(base, writes)

        def document():
            new = list(render.iter_json_elements(dt, count, read, prefix=prefix,
                                                 base_address=base))
            for before, after in zip(old, new):
                after["old"] = before["value"]
            return {"path": paths.format_path(prefix), "written": new}

        return Answer(document, lambda: render.render_elements(
            dt, count, read, prefix=prefix, base_address=base,
            limit=output.print_limit("print elements"),
            repeats=output.print_limit("print repeats")))


def write_memory(base, writes):
    """The (offset, bytes) writes into the buffer at base, adjacent ones joined."""
    inf = gdb.selected_inferior()
    for offset, data in _merged(writes):
        address = address_of(base, offset)
        try:
            inf.write_memory(address, data)
        except (gdb.MemoryError, gdb.error) as err:
            raise MpippError("cannot write %d bytes at 0x%x: %s"
                             % (len(data), address, err)) from None
