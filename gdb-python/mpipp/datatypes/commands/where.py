"""`mpipp where TYPE BASE ADDR [COUNT]`: the element of a buffer an address
falls in, or the gap or side of the buffer."""

from ... import views
from ...inferior.commands import Answer, Command
from ...model import describe
from ...model.where import locate
from ..arguments import address_from, count_at, datatype_from


class WhereCommand(Command):
    """Find the element an address belongs to: mpipp where [-json] TYPE BASE ADDR [COUNT]

For COUNT (default 1) repetitions of TYPE at BASE, tells which element
holds the byte at ADDR (its path and the offset inside it), or which gap or
side of the buffer ADDR falls in.  A type may map several elements onto one
byte (a vector with stride 0, an hvector with a stride shorter than its
child): then every holder is counted and the first 10 are listed, in
typemap order.  The answer is computed from the type tree, whatever COUNT
and the type's counts.

Example:
  (gdb) mpipp where s_type items &items[2].d[1] 4"""

    name = "mpipp where"
    takes_json = True
    arity = (3, 4)

    def answer(self, args):
        view = views.registry.require()
        dt = datatype_from(args.words[0], view)
        base = address_from(args.words[1])
        address = address_from(args.words[2])
        count = count_at(args.words, 3)
        where = locate(dt, count, address - base)
        return Answer(lambda: describe.where_json(where, address - base),
                      lambda: [describe.where_text(where, address, base)])
