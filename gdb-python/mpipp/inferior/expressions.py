"""User expressions: evaluated in the selected frame's language (C,
Fortran, ...), never calling into the program or changing it, every failure
one line (an ArgError); and the handle and integer types they are read as."""

import re
from contextlib import contextmanager

import gdb

from ..text.args import ArgError

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
    raise ArgError(message)


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
    program or changing it; every failure is one line (an ArgError)."""
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
