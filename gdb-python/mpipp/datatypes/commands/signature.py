"""`mpipp signature TYPE [COUNT]`: a datatype's type signature, compressed."""

from ... import views
from ...inferior.commands import Answer, Command
from ...model import typemap
from ..arguments import count_at, datatype_from


class SignatureCommand(Command):
    """Print a datatype's compressed type signature: mpipp signature [-json] TYPE [COUNT]

The signature is the typemap without displacements (what must match between
sender and receiver), with repetitions compressed as TYPE×N and (...)×N.
-json gives {"signature": nested [[name, n] or [[...], n]], "text": ...}.

Example:
  (gdb) mpipp signature s_type 4
  (MPI_INT×1, MPI_DOUBLE×3, MPI_CHAR×5)×4"""

    name = "mpipp signature"
    takes_json = True
    arity = (1, 2)

    def answer(self, args):
        view = views.registry.require()
        dt = datatype_from(args.words[0], view)
        count = count_at(args.words, 1)
        signature = typemap.signature(dt, count)
        text = typemap.format_signature(signature)
        return Answer(lambda: {"signature": signature, "text": text}, lambda: [text])
