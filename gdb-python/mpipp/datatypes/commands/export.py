"""`mpipp export TYPE [FILE]`: a datatype as a lossless JSON document
(model/datatype_json.py) that tools outside gdb rebuild into the same model
Datatype -- the job console does, to compare buffers and signatures of
several ranks with the model's own code."""

from ... import views
from ...inferior import output
from ...inferior.commands import Answer, Command
from ...model.datatype_json import to_json
from ..arguments import datatype_from


class ExportCommand(Command):
    """Print a datatype as a lossless JSON document: mpipp export TYPE [FILE]

The whole type tree -- every constructor's arguments, the recorded sizes
and extents, names, handles, creation sites, predefined types with their
kind (and members for pair types) -- one node per distinct type, children
first, in the format mpipp.model.datatype_json reads back.  With FILE the
document goes to that file instead.

Example:
  (gdb) mpipp export halo_t
  {"format": "mpipp-datatypes/1", "nodes": [...], "roots": {"0": 1}, ...}"""

    name = "mpipp export"
    arity = (1, 2)

    def answer(self, args):
        """The document is all export says: written here, to gdb or to FILE."""
        document = to_json(datatype_from(args.words[0], views.registry.require()))
        output.write_json(document, args.words[1] if len(args.words) == 2 else None)
        return Answer()
