"""`mpipp export TYPE`: a datatype as a lossless JSON document
(model/datatype_json.py) that tools outside gdb rebuild into the same model
Datatype -- the job console does, to compare buffers and signatures of
several ranks with the model's own code."""

import json

import gdb

from .. import args as argparse_
from .. import inferior
from ..model.datatype_json import to_json
from .commands import datatype_from
from .view import require_registry


class ExportCommand(gdb.Command):
    """Print a datatype as a lossless JSON document: mpipp export TYPE

The whole type tree -- every constructor's arguments, the recorded sizes
and extents, names, handles, creation sites, predefined types with their
kind (and members for pair types) -- one node per distinct type, children
first, in the format mpipp.model.datatype_json reads back.

Example:
  (gdb) mpipp export halo_t
  {"format": "mpipp-datatypes/1", "nodes": [...], "roots": {"0": 1}, ...}"""

    def __init__(self):
        super().__init__("mpipp export", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @inferior.one_line_errors
    def invoke(self, arg, from_tty):
        _opts, _fmt, words = argparse_.parse(arg)
        if len(words) != 1:
            raise gdb.GdbError("mpipp: usage: mpipp export TYPE")
        gdb.write(json.dumps(to_json(datatype_from(words[0], require_registry()))) + "\n")


def install():
    ExportCommand()
