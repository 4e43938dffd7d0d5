"""`mpipp export TYPE`: a datatype as a lossless JSON document
(model/datatype_json.py) that tools outside gdb rebuild into the same model
Datatype -- the job console does, to compare buffers and signatures of
several ranks with the model's own code."""

import gdb

from .. import views
from ..inferior import output
from ..model.datatype_json import to_json
from ..text import args as argparse_
from .arguments import datatype_from


class ExportCommand(gdb.Command):
    """Print a datatype as a lossless JSON document: mpipp export TYPE [FILE]

The whole type tree -- every constructor's arguments, the recorded sizes
and extents, names, handles, creation sites, predefined types with their
kind (and members for pair types) -- one node per distinct type, children
first, in the format mpipp.model.datatype_json reads back.  With FILE the
document goes to that file instead.

Example:
  (gdb) mpipp export halo_t
  {"format": "mpipp-datatypes/1", "nodes": [...], "roots": {"0": 1}, ...}"""

    def __init__(self):
        super().__init__("mpipp export", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        _opts, _fmt, words = argparse_.parse(arg)
        if len(words) not in (1, 2):
            raise gdb.GdbError("mpipp: usage: mpipp export TYPE [FILE]")
        output.write_json(to_json(datatype_from(words[0], views.registry.require())),
                            words[1] if len(words) == 2 else None)


def install():
    ExportCommand()
