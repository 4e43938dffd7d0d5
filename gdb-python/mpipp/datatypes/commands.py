"""The `mpipp` commands: decode buffers and describe datatypes.

Each command is a thin shell: parse the line, evaluate gdb expressions, ask
the model, write the result.  Every failure a user can cause becomes one
gdb.GdbError line (never a traceback).
"""

import itertools
import json

import gdb

from .. import handles, views
from ..inferior import memory, output, symbols
from ..model import describe, jsonout, paths, render, typemap
from ..model.where import locate
from ..readers.errors import MpippError
from ..text import args as argparse_
from .arguments import address_from, check_span, count_from, datatype_from
from .astype import as_runs

# What the user last looked at through `mpipp` / `mpipp info`, for front
# ends that follow it (the TUI window): a dict, and callables told of it.
last_shown = None
listeners = []


def _shown(**what):
    global last_shown
    last_shown = what
    for listener in list(listeners):
        try:
            listener(what)
        except Exception:  # noqa: BLE001 - a display must never break a command
            pass


def _fail(message):
    raise gdb.GdbError("mpipp: " + message)


def _warn_uncommitted(dt):
    if not dt.committed:
        gdb.write("warning: mpipp: datatype is not committed (MPI would refuse it); "
                  "decoding anyway\n", gdb.STDERR)


class MpippCommand(gdb.Command):
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

    def __init__(self):
        super().__init__("mpipp", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION, True)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        _decode(arg)


class DecodeCommand(gdb.Command):
    """Decode a buffer through an MPI datatype: mpipp decode [OPTIONS] TYPE ADDR [COUNT] [PATH]

The same as 'mpipp [OPTIONS] TYPE ADDR [COUNT] [PATH]' (see 'help mpipp')."""

    def __init__(self):
        super().__init__("mpipp decode", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        _decode(arg)


def _decode(arg):
    """mpipp [OPTIONS] TYPE ADDR [COUNT] [PATH]."""
    opts, fmt, words, values = argparse_.parse_valued(
        arg, ("-json", "-long", "-offsets", "-all"), ("-as",))
    if len(words) < 2 or len(words) > 4:
        _fail("usage: mpipp [-long] [-offsets] [-json] [-all] [-as TYPE] [/FMT] "
              "TYPE ADDR [COUNT] [PATH]")
    path_text = None
    if len(words) >= 3 and words[-1].lstrip().startswith("[") or len(words) == 4:
        path_text = words.pop()
    view = views.registry.require()
    dt = datatype_from(words[0], view)
    base = address_from(words[1])
    count = count_from(words[2]) if len(words) > 2 else 1
    if "-as" in values:
        dt, count = as_runs(dt, count, values["-as"], view)
    prefix = ()
    if path_text is not None:
        parsed = paths.parse_path(path_text)
        if not parsed.indices and not parsed.kinds:
            _fail("malformed PATH '%s': expected [INDEX]... (e.g. [0][2]) or a long path "
                  "such as buf(CONTIGUOUS)[0](STRUCT)[2]" % path_text)
        prefix = paths.resolve_path(dt, count, parsed).indices
    limit = output.print_limit("print elements")
    check_span(dt, count, "-all" in opts, shown=limit)
    _shown(kind="buffer", label=words[0], dt=dt, base=base, count=count, prefix=prefix)
    _warn_uncommitted(dt)
    read = memory.memory_reader(base)
    if "-json" in opts:
        output.write_text(itertools.chain(jsonout.decode_document(
            dt, count, read, prefix=prefix, limit=limit, base_address=base), ("\n",)))
        return
    output.write_text(render.render_text(
        dt, count, read, prefix=prefix, fmt=fmt, long_paths="-long" in opts,
        with_offsets="-offsets" in opts, base_address=base, limit=limit,
        repeats=output.print_limit("print repeats"), root_label=words[0]))


class InfoCommand(gdb.Command):
    """Describe an MPI datatype fully: mpipp info [-json] TYPE|OBJECT

Shows how TYPE was built (combiner and every parameter), its name, committed
state, size, lb, extent, true lb and true extent, where it was created, and
its child datatypes, nested; for a predefined type its size, extents and
the C and Fortran types of one element.  OBJECT is a communicator, group,
window or file as listings name it (comm#3, group#2, win#1, file#1, or a
name given with MPI_Comm_set_name / MPI_Win_set_name): what it is.

Example:
  (gdb) mpipp info halo_t
  (gdb) mpipp info -json types[3]"""

    def __init__(self):
        super().__init__("mpipp info", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) != 1:
            _fail("usage: mpipp info [-json] TYPE|OBJECT")
        if handles.LABEL.match(words[0]) and "-json" not in opts:
            output.write_lines(handles.describe(words[0]))
            return
        view = views.registry.require()
        try:
            dt = datatype_from(words[0], view)
        except gdb.GdbError:
            lines = handles.describe(words[0]) if "-json" not in opts else None
            if lines is None:
                raise
            output.write_lines(lines)
            return
        _shown(kind="type", label=words[0], dt=dt)
        if "-json" in opts:
            gdb.write(json.dumps(describe.as_json(dt, view, symbols.creation_site)) + "\n")
        else:
            output.write_lines(describe.info_lines(dt, view, symbols.creation_site))


class TypemapCommand(gdb.Command):
    """Print a datatype's typemap: mpipp typemap [-json] [-all] TYPE [COUNT]

The typemap in the MPI standard's notation, {(MPI_INT,0), (MPI_DOUBLE,8)},
with long regular runs compressed.  -json gives the fully expanded typemap
(without MPI_LB/MPI_UB markers) and the size and extents; -all lets it
expand more than 2**24 elements (or 1 GiB of data).

Example:
  (gdb) mpipp typemap rowtype
  (gdb) mpipp typemap -json s_type 2"""

    def __init__(self):
        super().__init__("mpipp typemap", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json", "-all"))
        if len(words) not in (1, 2):
            _fail("usage: mpipp typemap [-json] [-all] TYPE [COUNT]")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        count = count_from(words[1]) if len(words) > 1 else 1
        if "-json" not in opts:
            gdb.write(typemap.format_typemap(typemap.typemap_runs(dt, count)) + "\n")
            return
        check_span(dt, count, "-all" in opts)
        output.write_text(itertools.chain(jsonout.typemap_document(
            describe.extents_of(dt, count), typemap.typemap_runs(dt, count)), ("\n",)))


class SignatureCommand(gdb.Command):
    """Print a datatype's compressed type signature: mpipp signature [-json] TYPE [COUNT]

The signature is the typemap without displacements (what must match between
sender and receiver), with repetitions compressed as TYPE×N and (...)×N.
-json gives {"signature": nested [[name, n] or [[...], n]], "text": ...}.

Example:
  (gdb) mpipp signature s_type 4
  (MPI_INT×1, MPI_DOUBLE×3, MPI_CHAR×5)×4"""

    def __init__(self):
        super().__init__("mpipp signature", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) not in (1, 2):
            _fail("usage: mpipp signature [-json] TYPE [COUNT]")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        count = count_from(words[1]) if len(words) > 1 else 1
        signature = typemap.signature(dt, count)
        if "-json" in opts:
            gdb.write(json.dumps({"signature": signature,
                                  "text": typemap.format_signature(signature)}) + "\n")
        else:
            gdb.write(typemap.format_signature(signature) + "\n")


class ListCommand(gdb.Command):
    """List every live registered datatype: mpipp list [-json] [-all]

One line per type: handle, name, combiner, size, extent, creation site (read
from each type's record alone: a line costs the same for any type).  A
record mpipp cannot read is one line saying why.
Types MPI itself creates inside its calls (ROMIO's and OMPIO's helper types
during MPI-IO) are left out; -all lists them too, marked "(MPI's own)".

Example:
  (gdb) mpipp list"""

    def __init__(self):
        super().__init__("mpipp list", gdb.COMMAND_DATA, gdb.COMPLETE_NONE)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json", "-all"))
        if words:
            _fail("usage: mpipp list [-json] [-all]")
        view = views.registry.require()
        rows = []
        for address in view.live_records():
            try:
                mpi_own = view.built_by_mpi(address)
                if mpi_own and "-all" not in opts:
                    continue
                rows.append(describe.list_row(view.summary_at(address), symbols.creation_site,
                                              mpi_own))
            except MpippError as err:   # one bad record is one line, not the end of the list
                rows.append(describe.error_row(address, err))
        if "-json" in opts:
            gdb.write(json.dumps({"types": rows}) + "\n")
        else:
            output.write_lines(describe.list_lines(rows))


class WhereCommand(gdb.Command):
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

    def __init__(self):
        super().__init__("mpipp where", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words = argparse_.parse(arg, ("-json",))
        if len(words) not in (3, 4):
            _fail("usage: mpipp where [-json] TYPE BASE ADDR [COUNT]")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        address = address_from(words[2])
        count = count_from(words[3]) if len(words) > 3 else 1
        where = locate(dt, count, address - base)
        if "-json" in opts:
            gdb.write(json.dumps(describe.where_json(where, address - base)) + "\n")
        else:
            gdb.write(describe.where_text(where, address, base) + "\n")


def install():
    MpippCommand()
    DecodeCommand()
    InfoCommand()
    TypemapCommand()
    SignatureCommand()
    ListCommand()
    WhereCommand()
