"""`mpipp TYPE ADDR [COUNT] [PATH]` (also `mpipp decode`): a buffer decoded
through an MPI datatype, one line per basic element or one JSON document,
streamed as it is read."""

import gdb

from ... import views
from ...inferior import memory, output
from ...inferior.commands import Answer, Command, Text
from ...model import jsonout, paths, render
from ...readers.errors import MpippError
from .. import tui
from ..arguments import address_from, check_span, count_at, datatype_from
from ..astype import as_runs


class MpippCommand(Command):
    """Decode a buffer through an MPI datatype: mpipp [OPTIONS] TYPE ADDR [COUNT] [PATH]

Prints COUNT (default 1) repetitions of the datatype TYPE stored at ADDR,
one line per basic element, as PATH = VALUE.  PATH names the element by its
type-tree path: the repetition, then the child taken at each stage of the
type tree ([0][2][5] is element 5 of block 2 of the first repetition).
TYPE, ADDR and COUNT are gdb expressions.

Options:
  -as T      read each contiguous run of the buffer's bytes as elements of
             the C or Fortran type T (double, int32, real(8), 'struct
             particle') or datatype T: paths [0][RUN][ELEMENT].  For types
             built from bytes (HDF5's, PnetCDF's)
  -long      write paths in the long form: name(STRUCT)[2][5](CHAR)
  -offsets   add each element's byte offset and address
  -json      print one JSON document {"count", "elements", "truncated"}
  -all       allow buffers of more than 1 GiB of data, and, with 'print
             elements unlimited', of more than 2**24 elements
  /FMT       print values as print/FMT would (/x, /d, /c, /t, ...)
  PATH       only that element or subtree, e.g. [0][2] or [1][2][5]

'set print elements' and 'set print repeats' apply.  ADDR 0 with absolute
displacements (MPI_BOTTOM) works.

Example:
  (gdb) mpipp rowtype matrix 2
  (gdb) mpipp/x -offsets s_type &items[1] 1 [0][2]
  (gdb) mpipp -as double $mpi_call.datatype $mpi_call.buf

Subcommands describe datatypes; see 'help mpipp info' and the list below.
A TYPE that begins like a subcommand is a TYPE all the same ('mpipp v buf'
decodes the variable v; subcommands are written out in full)."""

    name = "mpipp"
    prefix = True
    options = ("-long", "-offsets", "-all")
    valued = ("-as",)
    takes_json = True
    arity = (2, 4)
    usage = "mpipp [-long] [-offsets] [-json] [-all] [-as TYPE] [/FMT] TYPE ADDR [COUNT] [PATH]"

    def answer(self, args):
        words = args.words
        path_text = None
        if len(words) >= 3 and words[-1].lstrip().startswith("[") or len(words) == 4:
            path_text = words.pop()
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        count = count_at(words, 2)
        if "-as" in args.values:
            dt, count = as_runs(dt, count, args.values["-as"], view, "-all" in args.options)
        prefix = () if path_text is None else path_prefix(dt, count, path_text)
        limit = output.print_limit("print elements")
        check_span(dt, count, "-all" in args.options, shown=limit)
        tui.shown(kind="buffer", label=words[0], dt=dt, base=base, count=count, prefix=prefix)
        warn_uncommitted(dt)
        read = memory.memory_reader(base)
        return Answer(
            lambda: Text(jsonout.decode_document(dt, count, read, prefix=prefix, limit=limit,
                                                 base_address=base)),
            lambda: Text(render.render_text(
                dt, count, read, prefix=prefix, fmt=args.fmt, long_paths="-long" in args.options,
                with_offsets="-offsets" in args.options, base_address=base, limit=limit,
                repeats=output.print_limit("print repeats"), root_label=words[0])))


class DecodeCommand(MpippCommand):
    """Decode a buffer through an MPI datatype: mpipp decode [OPTIONS] TYPE ADDR [COUNT] [PATH]

The same as 'mpipp [OPTIONS] TYPE ADDR [COUNT] [PATH]' (see 'help mpipp')."""

    name = "mpipp decode"
    prefix = False


def path_prefix(dt, count, path_text):
    """The indices of the element or subtree PATH names."""
    parsed = paths.parse_path(path_text)
    if not parsed.indices and not parsed.kinds:
        raise MpippError("malformed PATH '%s': expected [INDEX]... (e.g. [0][2]) or a long path "
                         "such as buf(CONTIGUOUS)[0](STRUCT)[2]" % path_text)
    return paths.resolve_path(dt, count, parsed).indices


def warn_uncommitted(dt):
    if not dt.committed:
        gdb.write("warning: mpipp: datatype is not committed (MPI would refuse it); "
                  "decoding anyway\n", gdb.STDERR)
