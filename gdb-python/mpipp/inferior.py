"""The gdb layer every mpipp package shares: inferior memory, symbols,
user expressions, print limits, batched output, one-line command errors,
and the events that make per-stop views stale.

Readers of libmpireg's tables (datatypes, context) keep one view per stop;
they register an invalidation hook with on_change() and are told whenever
the inferior may have changed (it ran, a new objfile appeared, memory was
written).

Nothing here depends on the current language: symbols are found in the
symbol tables (never by evaluating a C expression), and user expressions
are evaluated in the language of the selected frame (C, Fortran, ...).
"""

import json
import os
import re
from contextlib import contextmanager

import gdb

from . import readlog, remote
from .args import ArgError
from .model.errors import ModelError, ReadError

# The largest single read mpipp asks of gdb.  gdb allocates the whole buffer
# before reading, and aborts ("virtual memory exhausted") when it cannot: a
# corrupted size or extent must give one error line instead.  The readers
# and renderers read far less (records, argument blocks, 4 MiB chunks).
MAX_READ_BYTES = 64 << 20
ADDRESS_LIMIT = 1 << 64



class GdbMemory:
    """Plain memory reads of the selected inferior; never calls into it.
    cache_key names the process, for what readers keep beyond a stop."""

    def __init__(self, inferior):
        self.inferior = inferior
        self.cache_key = (inferior.num, inferior.pid)

    def read(self, address, length):
        if length == 0:
            return b""
        if not 0 < length <= MAX_READ_BYTES or not 0 <= address < ADDRESS_LIMIT - length:
            raise ReadError(address, length, "refusing to read %d bytes at 0x%x (corrupted size?)"
                            % (length, address % ADDRESS_LIMIT))
        try:
            return self.inferior.read_memory(address, length).tobytes()
        except (gdb.MemoryError, gdb.error, OverflowError, ValueError, MemoryError):
            raise ReadError(address, length) from None


# gdb 13 turns a gdb.Value larger than 'max-value-size' (65,536 bytes by
# default) into a C++ error that unwinds through Python's C frames: gdb
# crashes, or its interpreter is silently corrupted and crashes later.  So
# every value mpipp makes from bytes goes through value_from_bytes, which
# stays far below the setting (a quarter of it; 1 MiB when unlimited).
VALUE_SIZE_SHARE = 4
UNLIMITED_VALUE_SIZE = 1 << 20


def value_size_limit():
    """The largest gdb.Value (bytes) mpipp makes from bytes at present."""
    try:
        setting = gdb.parameter("max-value-size")
    except (gdb.error, RuntimeError):
        setting = None
    if setting is None or setting < 0:
        return UNLIMITED_VALUE_SIZE
    return int(setting) // VALUE_SIZE_SHARE


def value_from_bytes(raw, gdb_type):
    """A gdb.Value of gdb_type holding raw, or None when it would be larger
    than value_size_limit() (the caller then shows the data another way)."""
    if len(raw) > value_size_limit() or gdb_type.sizeof != len(raw):
        return None
    return gdb.Value(raw, gdb_type)


_change_hooks = []


def on_change(hook):
    """Call hook(event) whenever cached views of the inferior become stale."""
    _change_hooks.append(hook)


def invalidate(*event):
    for hook in _change_hooks:
        hook(*event)


_INFO_ADDRESS = re.compile(r" (?:address|at) (0x[0-9a-fA-F]+)")


class ObjfileFacts:
    """lookup(key)'s answers for the selected inferior's process, kept until
    objfiles come and go (_forget_static): where a symbol is, or what a code
    address is, does not change at every stop (a lookup costs ~0.4 ms)."""

    def __init__(self, lookup):
        self.lookup = lookup
        self.answers = {}

    def get(self, key):
        inf = gdb.selected_inferior()
        full_key = (inf.num, inf.pid, key)
        if full_key not in self.answers:
            self.answers[full_key] = self.lookup(key)
        return self.answers[full_key]

    def clear(self):
        self.answers.clear()


_OBJFILE_FACTS = []


def _objfile_facts(lookup):
    facts = ObjfileFacts(lookup)
    _OBJFILE_FACTS.append(facts)
    return facts


# Dropped with the facts kept until objfiles change: the readers' static
# data (remote.forget_static) and answers kept across stops -- until memory
# is written, too.
def _forget_static(*_event):
    for facts in _OBJFILE_FACTS:
        facts.clear()
    forget_kept()
    remote.forget_static()


def lwp_of(thread):
    """The kernel thread id libmpireg records for a gdb thread (its LWP; the
    pid where the target gives none, as some core files do)."""
    return thread.ptid[1] or thread.ptid[0]


def symbol_address(name):
    """The address of a global data symbol of the selected inferior, or None
    (kept until objfiles change: $mpi_call and the frame filter ask at every
    stop, also in programs without libmpireg)."""
    return _symbols.get(name)


def _lookup_symbol(name):
    """Looked up in the full symbol tables, then (libmpireg without debug
    information) in the minimal ones through 'info address', which, unlike
    an expression such as '&name', reads the same in every language."""
    try:
        symbol = gdb.lookup_global_symbol(name)
        if symbol is not None and symbol.addr_class == gdb.SYMBOL_LOC_STATIC:
            return int(symbol.value().address)
    except (gdb.error, RuntimeError):
        pass
    try:
        text = gdb.execute("info address %s" % name, to_string=True)
    except gdb.error:
        return None
    found = _INFO_ADDRESS.search(text)
    return int(found.group(1), 16) if found else None


_symbols = _objfile_facts(_lookup_symbol)


class NoProcess(ModelError):
    """The selected inferior has no process (not started yet, or exited):
    libmpireg's tables exist only in a live process or a core file (what
    gdb would read instead is the library's file on disk)."""

    def __init__(self):
        super().__init__("no process (run, attach or load a core file first)")


def has_process(inf=None):
    inf = inf or gdb.selected_inferior()
    return bool(inf.pid or inf.threads())


NOT_LOADED = ("mpipp: libmpireg's %s is not in this process (libmpireg not loaded, or too "
              "old); start the program with scripts/mpipp-gdb, LD_PRELOAD=libmpireg.so, or "
              "link -lmpireg before -lmpi")


# What the views read at this stop, per inferior (readlog.ReadLog): an answer
# kept across stops (kept_across_stops) is checked against it.
_stop_logs = {}


def _forget_stop_reads(*_event):
    _stop_logs.clear()


on_change(_forget_stop_reads)


def _stop_log(inf):
    return _stop_logs.setdefault((inf.num, inf.pid), readlog.ReadLog())


class _Kept:
    """An answer, with the threads and the reads it was built from."""

    def __init__(self, threads, reads, answer):
        self.threads, self.reads, self.answer = threads, reads, answer


# Answers kept across stops, by (name, inferior): dropped when objfiles
# change (symbols and lines may differ) or memory is written.
_kept = {}


def forget_kept(*_event):
    """Drops every answer kept across stops: the next is built anew, as
    after a stop where what it was built from changed."""
    _kept.clear()


def kept_across_stops(name, build):
    """build()'s answer (a command's document made from the views), made
    again only when it may differ: when a read the views made at the stop
    it was built at (readlog) now gives other bytes, when the process's
    threads changed (their gdb numbers are in documents), when objfiles
    changed or memory was written.  A stop where none of that changed costs
    a few reads instead of rebuilding every view."""
    inf = gdb.selected_inferior()
    if not has_process(inf):
        return build()
    threads = tuple((lwp_of(t), t.num) for t in inf.threads())
    key = (name, inf.num, inf.pid)
    kept = _kept.get(key)
    if kept is not None and kept.threads == threads and \
            kept.reads.unchanged(GdbMemory(inf)):
        return kept.answer
    _kept.pop(key, None)
    answer = build()
    reads = _stop_log(inf).snapshot()
    if reads is not None:
        _kept[key] = _Kept(threads, reads, answer)
    return answer


class StopViews:
    """The view a reader makes of a libmpireg root (make(memory, address)),
    one per inferior: made on first use at a stop, dropped whenever the
    inferior may have changed (on_change).  `what` names the root in the
    error require() gives when it is absent."""

    def __init__(self, root_symbol, make, what="registry"):
        self.root_symbol = root_symbol
        self.make = make
        self.what = what
        self._views = {}
        on_change(self.clear)

    def clear(self, *_event):
        self._views.clear()

    def get(self):
        """The view of the selected inferior, None when the root symbol is
        absent; raises the reader's one-line error (a ModelError), which is
        kept like a view: printers ask for every value gdb prints; NoProcess
        when there is no process to read."""
        inf = gdb.selected_inferior()
        if not has_process(inf):
            raise NoProcess()
        key = (inf.num, inf.pid)
        if key not in self._views:
            address = symbol_address(self.root_symbol)
            memory = readlog.LoggedMemory(GdbMemory(inf), _stop_log(inf))
            try:
                self._views[key] = None if address is None else self.make(memory, address)
            except ModelError as err:
                self._views[key] = err
        view = self._views[key]
        if isinstance(view, ModelError):
            raise view.with_traceback(None)
        return view

    def find(self):
        """The view, or None when there is none (absent, unreadable, no
        process): for printers and listings that do without it."""
        try:
            return self.get()
        except ModelError:
            return None

    def require(self):
        """The view, or a one-line gdb error saying why there is none."""
        try:
            view = self.get()
        except ModelError as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        if view is None:
            raise gdb.GdbError(NOT_LOADED % self.what)
        return view


def memory_reader(base):
    """read(offset, length) relative to base, as the model's renderers take it."""
    memory = GdbMemory(gdb.selected_inferior())
    return lambda offset, length: memory.read(base + offset, length)


# -- user expressions ---------------------------------------------------------

# Switched off while mpipp evaluates a user expression: gdb then refuses to
# call a function in the program (an explicit call, or the malloc it calls
# to copy a string or array literal into the program) and to write its
# memory (assignments, ++, --).  gdb refuses to change may-write-registers
# while the program runs, so assignments to registers ($pc = ...) are
# rejected from the text (REGISTER_ASSIGNMENT).
_SIDE_EFFECT_SETTINGS = ("may-call-functions", "may-write-memory")
REGISTER_ASSIGNMENT = re.compile(r"\$\w+\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\$\w+\s*(?:\+\+|--)"
                                 r"|(?:\+\+|--)\s*\$\w+")


@contextmanager
def no_side_effects():
    """While active, gdb evaluates without calling into or changing the program."""
    changed = []
    try:
        for name in _SIDE_EFFECT_SETTINGS:
            if gdb.parameter(name):
                gdb.execute("set %s off" % name, to_string=True)
                changed.append(name)
        yield
    finally:
        for name in changed:
            gdb.execute("set %s on" % name, to_string=True)


def _fail(message):
    raise gdb.GdbError("mpipp: " + message)


def memory_address(value):
    """The address of a value that lives in the program's memory, else None.

    gdb answers `value.address` for an array that is not in memory (a
    literal, an array built in Python) by copying it into the program,
    calling malloc there; with may-call-functions off it refuses instead,
    and the address is None."""
    with no_side_effects():
        address = value.address
    return None if address is None else int(address)


_SCALAR_CODES = (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL,
                 gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_RANGE)
_FLOAT_CODES = (gdb.TYPE_CODE_FLT, gdb.TYPE_CODE_DECFLOAT, gdb.TYPE_CODE_COMPLEX)
HANDLE_FIELD = "mpi_val"  # mpi_f08: TYPE(MPI_Datatype) holds the handle in MPI_VAL


def in_fortran():
    """Whether expressions are read as Fortran (the selected frame's language)."""
    try:
        return gdb.current_language() == "fortran"
    except (gdb.error, RuntimeError, AttributeError):
        return False


def _address_of(value, subject, expression):
    """Where an address is expected, a Fortran variable or array element
    (an lvalue: Fortran passes arguments by reference, and MPI's buffer
    arguments are such references) stands for its address; a C one does
    not (the message says to take it)."""
    if value.address is not None and in_fortran():
        return int(value.address)
    if expression is None:
        hint = "take its address (loc(x) in Fortran, &x in C)"
    else:
        hint = "use " + ("loc(%s)" if in_fortran() else "&%s") % expression
    _fail("%s is a %s, not an address: %s" % (subject, value.type, hint))


def _as_int(value, subject, arrays, expression=None):
    """The integer a value denotes (see evaluate_int); subject names it in errors."""
    gdb_type = value.type.strip_typedefs()
    code = gdb_type.code
    if arrays and code != gdb.TYPE_CODE_PTR and code != gdb.TYPE_CODE_ARRAY and (
            code in _FLOAT_CODES or code == gdb.TYPE_CODE_STRUCT or
            value.address is not None and in_fortran()):
        return _address_of(value, subject, expression)
    if code == gdb.TYPE_CODE_STRUCT:
        fields = [f.name for f in gdb_type.fields()]
        if [f.lower() for f in fields if f] == [HANDLE_FIELD]:
            return _as_int(value[fields[0]], subject, arrays)
    if code == gdb.TYPE_CODE_ARRAY:
        if not arrays:
            _fail("%s is an array, not a handle" % subject)
        address = memory_address(value)
        if address is None:
            _fail("%s is a literal, not in the program's memory" % subject)
        return address
    if code in _FLOAT_CODES:
        _fail("%s must be an integer, not %s" % (subject, value.format_string()))
    if code not in _SCALAR_CODES:
        _fail("%s is not a number or an address (its type is %s)" % (subject, value.type))
    return int(value)


def _checked_int(evaluate, subject, arrays, expression=None):
    try:
        return _as_int(evaluate(), subject, arrays, expression)
    except gdb.MemoryError as err:
        _fail("%s is unreadable: %s" % (subject, err))
    except gdb.error as err:
        _fail("cannot evaluate %s: %s" % (subject, err))
    except (OverflowError, ValueError) as err:
        _fail("%s is out of range: %s" % (subject, err))


_evaluate_hooks = []


def on_evaluate(hook):
    """Call hook(expression) before mpipp evaluates a user expression (e.g.
    to bring a convenience variable it names up to date)."""
    _evaluate_hooks.append(hook)


def evaluate_int(expression, what, arrays=False, prepare=None):
    """The integer value of a user expression: a handle, a count, or (with
    arrays: an array stands for its address) an address.  prepare(value),
    when given, picks the value to convert (e.g. follows a pointer).

    Evaluated in the selected frame's language, never calling into the
    program or changing it; every failure is one gdb error line."""
    subject = "%s '%s'" % (what, expression)
    if '"' in expression:
        _fail("%s: string literals are not accepted (gdb would copy them into the "
              "program's memory)" % subject)
    if REGISTER_ASSIGNMENT.search(expression):
        _fail("%s: assignments are not accepted (mpipp never changes the program)" % subject)
    prepare = prepare or (lambda value: value)
    for hook in _evaluate_hooks:
        hook(expression)
    with no_side_effects():
        return _checked_int(lambda: prepare(gdb.parse_and_eval(expression)), subject, arrays,
                            expression)


def value_int(value, what, arrays=False):
    """The integer an already evaluated gdb.Value denotes (a $mpipp argument):
    checked like evaluate_int, and a literal is never copied into the program."""
    return _checked_int(lambda: value, what, arrays)


# -- types ---------------------------------------------------------------------

def handle_type_name(gdb_type, names):
    """The name in `names` (MPI_Datatype, MPI_Request, ...) that gdb_type is,
    directly or through typedefs; None for any other type."""
    for _ in range(8):
        if gdb_type is None:
            return None
        if gdb_type.name in names:
            return gdb_type.name
        if gdb_type.code != gdb.TYPE_CODE_TYPEDEF:
            return None
        gdb_type = gdb_type.target()
    return None


_INTEGER_NAMES = {(1, True): "signed char", (2, True): "short", (4, True): "int",
                  (8, True): "long", (1, False): "unsigned char", (2, False): "unsigned short",
                  (4, False): "unsigned int", (8, False): "unsigned long long"}


def integer_type(size, signed=True):
    """The C integer type of that size, whatever the current language (a
    Fortran frame has no 'long'; the architecture always has the type)."""
    try:
        found = gdb.lookup_type(_INTEGER_NAMES[size, signed])
        if found.sizeof == size:
            return found
    except (gdb.error, RuntimeError):
        pass
    return gdb.selected_inferior().architecture().integer_type(8 * size, signed)


# -- output -------------------------------------------------------------------

def print_limit(name):
    """A 'print elements'-like gdb setting as an int, None when unlimited."""
    value = gdb.parameter(name)
    return None if value in (None, 0) or value == "unlimited" else int(value)


OUTPUT_BATCH = 2000


def write_lines(lines):
    """Streams lines to gdb in batches (a line at a time is slow; all at once is late)."""
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) >= OUTPUT_BATCH:
            gdb.write("\n".join(batch) + "\n")
            batch = []
    if batch:
        gdb.write("\n".join(batch) + "\n")


def write_json(doc, path=None):
    """A JSON document to gdb's output or, for tools such as mpipp-job, to the
    file at path: gdb escapes every character it writes over MI, which costs
    about a microsecond per byte; a file costs nothing like it."""
    write_json_text(json.dumps(doc), path)


def write_json_text(text, path=None):
    """write_json of a document already serialized."""
    if path is None:
        gdb.write(text + "\n")
        return
    data = text.encode("utf-8")
    try:    # a plain write: Python's text files cost twice the system calls' time
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
    except OSError as err:
        raise gdb.GdbError("mpipp: cannot write %s: %s" % (path, err.strerror)) from None


def write_doc(as_json, doc, lines_of):
    """A command's document: as JSON (-json), else as lines_of(doc)."""
    if as_json:
        write_json(doc)
    else:
        write_lines(lines_of(doc))


WRITE_BATCH = 1 << 16


def write_text(pieces):
    """Streams text pieces to gdb, small ones gathered up to WRITE_BATCH
    characters (a gdb.write per piece is slow; all at once is late)."""
    batch, size = [], 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= WRITE_BATCH:
            gdb.write("".join(batch))
            batch, size = [], 0
    if batch:
        gdb.write("".join(batch))


def line_site(address):
    """'file.c:42' for a return address with line information, or None."""
    if not address or not 0 < address < ADDRESS_LIMIT:
        return None
    return _line_sites.get(address)


def _lookup_line(address):
    try:
        sal = gdb.find_pc_line(address - 1)
    except (gdb.error, RuntimeError, OverflowError, ValueError):
        return None
    if sal.symtab is None or not sal.line:
        return None
    return "%s:%d" % (sal.symtab.filename, sal.line)


_line_sites = _objfile_facts(_lookup_line)


_INFO_SYMBOL = re.compile(r"^(.*?)(?: \+ \d+)? in section \S+(?: of (\S+))?")


def symbol_site(address):
    """'BI_GetMpiGeType in libscalapack-mpich.so.2.2' for a code address
    without line information (the function from the minimal symbols, as
    'info symbol' names it; the address when the library has none), or
    None when no object file holds the address."""
    if not address or not 0 < address < ADDRESS_LIMIT:
        return None
    return _code_sites.get(address)


def _lookup_code(address):
    try:
        library = gdb.solib_name(address)
        text = gdb.execute("info symbol 0x%x" % (address - 1), to_string=True)
    except (gdb.error, RuntimeError, OverflowError, ValueError):
        return None
    found = _INFO_SYMBOL.match(text.strip())
    where = os.path.basename(library or (found.group(2) if found and found.group(2) else "")
                             or (gdb.current_progspace().filename or ""))
    if found:
        return "%s in %s" % (found.group(1), where) if where else found.group(1)
    return "0x%x in %s" % (address, where) if library else None


_code_sites = _objfile_facts(_lookup_code)


def creation_site(address):
    """Where a call that returns to address was made: 'file.c:42', else
    'function in library' (see symbol_site), or None."""
    return line_site(address) or symbol_site(address)


def internal_error(err):
    """The one line for an error mpipp did not expect: still no traceback."""
    return "mpipp: internal error (%s: %s); please report it" % (type(err).__name__, err)


def error_reason(err):
    """'mpipp: ...' for an error shown inside a printed value."""
    if isinstance(err, gdb.GdbError):  # already one line, 'mpipp: ...'
        return str(err)
    if isinstance(err, (ModelError, ArgError, gdb.error)):
        return "mpipp: %s" % err
    return internal_error(err)


class TextPrinter:
    """A value shown as fixed text (a name, a one-line description, or a
    synthetic value that carries one), with no children."""

    def __init__(self, text):
        self.text = text

    def to_string(self):
        return self.text


class RawPrinter:
    """A handle mpipp cannot describe: its value, then <the reason>."""

    def __init__(self, value, reason):
        self.value = value
        self.reason = reason

    def to_string(self):
        """The handle as gdb shows it raw: a number (MPICH) or an address (Open MPI)."""
        try:
            pointer = self.value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR
            number = ("0x%x" if pointer else "%d") % int(self.value)
        except (gdb.error, ValueError, OverflowError):
            number = "?"
        return "%s <%s>" % (number, self.reason)


def one_line_errors(func):
    """Turns every error of a command (or $function) into one gdb error line."""
    def invoke(self, *args):
        try:
            return func(self, *args)
        except (ModelError, ArgError) as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        except (gdb.GdbError, KeyboardInterrupt):
            raise
        except gdb.error as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        except (RecursionError, MemoryError) as err:
            raise gdb.GdbError("mpipp: too large or too deep to show (%s)"
                               % type(err).__name__) from None
        except Exception as err:  # noqa: BLE001 - never a traceback
            raise gdb.GdbError(internal_error(err)) from None
    invoke.__doc__ = func.__doc__
    return invoke


# -- commands -----------------------------------------------------------------

def words_over_abbreviations(prefix, target):
    """Makes every abbreviation of a subcommand of `prefix` a word for
    `target` instead: gdb runs 'mpipp v buf' as 'mpipp view buf' (a unique
    prefix names a subcommand) and refuses 'mpipp l buf' as ambiguous, but
    the user meant the variables v and l.  gdb prefers a command's exact
    name to an abbreviation, so each proper prefix of a subcommand name
    becomes an alias 'PREFIX p' = 'TARGET -- p', deprecated to keep it out
    of 'help'.  gdb warns once about a deprecated command, when it is
    looked up: that once is here, in 'help', whose output is captured.
    Call after every subcommand exists."""
    listing = gdb.execute("help %s" % prefix, to_string=True)
    names = set(re.findall(r"^%s ([\w-]+)" % re.escape(prefix), listing, re.M))
    words = {name[:n] for name in names for n in range(1, len(name))} - names
    for word in sorted(words):
        alias = "%s %s" % (prefix, word)
        gdb.execute("alias -a -- %s = %s -- %s" % (alias, target, word), to_string=True)
        gdb.execute("maintenance deprecate %s" % alias, to_string=True)
        gdb.execute("help %s" % alias, to_string=True)


# -- settings -----------------------------------------------------------------

_settings = []


class _SettingsPrefix(gdb.Command):
    """The 'set mpipp' / 'show mpipp' prefix; 'show mpipp' alone lists every setting."""

    def __init__(self, word):
        self.__doc__ = "%s mpipp settings." % word.capitalize()
        self.word = word
        super().__init__("%s mpipp" % word, gdb.COMMAND_DATA, gdb.COMPLETE_COMMAND, True)

    def invoke(self, arg, from_tty):
        if self.word == "set" or arg.strip():
            raise gdb.GdbError("mpipp: '%s mpipp' takes a setting: %s"
                               % (self.word, ", ".join(sorted(_settings))))
        for name in sorted(_settings):
            text = gdb.execute("show mpipp %s" % name, to_string=True)
            gdb.write("mpipp %s:  %s" % (name, text))


def add_setting(name, make):
    """The gdb parameter 'mpipp NAME' that make() creates, under the
    'set mpipp' / 'show mpipp' prefixes (made once, here)."""
    if not _settings:
        _SettingsPrefix("set")
        _SettingsPrefix("show")
    _settings.append(name)
    return make()


def connect_events():
    for registry_ in (gdb.events.new_objfile, gdb.events.clear_objfiles,
                      gdb.events.memory_changed, gdb.events.exited):
        registry_.connect(_forget_static)
    for registry_ in (gdb.events.stop, gdb.events.cont, gdb.events.exited,
                      gdb.events.new_objfile, gdb.events.memory_changed,
                      gdb.events.inferior_call, gdb.events.clear_objfiles):
        registry_.connect(invalidate)
