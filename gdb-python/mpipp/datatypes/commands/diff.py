"""`mpipp diff`: a buffer compared with a dump (`mpipp dump`) or with a
second buffer, element by element (model/compare.py), streamed: the
differences are printed as they are found."""

import os

from ... import views
from ...inferior import memory, output
from ...inferior.commands import Answer, Command
from ...model import compare, decode, dumpfile, elements, paths
from ...model.errors import UnreadableElement
from ...model.offsets import address_of
from ...model.pack import unpack
from ...readers.errors import MpippError
from ...text import args as argparse_
from ..arguments import address_from, check_span, count_from, datatype_from
from ..astype import as_runs
from .dump import EXTENSIONS, file_word

TOLERANCES = ("-rtol", "-atol")


def is_file_word(word):
    return word[:1] in "'\"" or os.path.isfile(file_word(word))


def looks_like_file(word):
    return os.sep in word or os.path.splitext(word)[1].lower() in EXTENSIONS


class DiffCommand(Command):
    """Compare a buffer with a dump or with another buffer: mpipp diff [-json] [-rtol X] [-atol X] [-all] [-as T] TYPE ADDR [COUNT] FILE
   or: mpipp diff [-json] [-rtol X] [-atol X] [-all] [-as T] TYPE ADDR1 ADDR2 [COUNT]

Prints only the elements that differ, one line each: the path, the value
now (at ADDR, or ADDR1) and in the reference (the dump FILE written by
'mpipp dump' in any format, or the buffer at ADDR2), then how many
elements differ.  A last word that names an existing file (or is quoted)
is the dump.  'set print elements' limits the lines, not the count.

Integers, chars and bools are compared by their bytes.  Floats are
compared as numbers, exactly by default (+0 equals -0; a long double's
padding is ignored), or within |a - b| <= atol + rtol * |b| (b: the
reference) with -rtol/-atol; a NaN equals any NaN and differs from every
number; infinities equal only themselves.  -all allows buffers larger than
1 GiB; -as T compares the contiguous runs of bytes as elements of T (see
'help mpipp').

Example:
  (gdb) mpipp dump particle_t particles 3 good.json
  (gdb) continue
  (gdb) mpipp diff -rtol 1e-12 particle_t particles 3 good.json
  (gdb) mpipp diff halo_t sendbuf recvbuf 2"""

    name = "mpipp diff"
    options = ("-all",)
    valued = ("-as",)
    takes_json = True
    arity = (3, 4)
    usage = ("mpipp diff [-json] [-rtol X] [-atol X] [-all] [-as T] TYPE ADDR [COUNT] FILE  or  "
             "TYPE ADDR1 ADDR2 [COUNT]")

    def parse(self, arg):
        """-rtol X and -atol X may come anywhere on the line, and are checked first."""
        given, rest = argparse_.take_valued(argparse_.split_words(arg), TOLERANCES)
        tolerances = tolerance_values(given)
        args = super().parse(" ".join(rest))
        args.values.update(tolerances)
        return args

    def answer(self, args):
        words = args.words
        tol = compare.Tolerance(args.values["-rtol"], args.values["-atol"])
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        read = memory.memory_reader(base)
        reread = (lambda dt, count: as_runs(dt, count, args.values["-as"], view,
                                            "-all" in args.options)) \
            if "-as" in args.values else (lambda dt, count: (dt, count))
        if is_file_word(words[-1]):
            dt, count = reread(dt, count_from(words[2]) if len(words) == 4 else 1)
            check_span(dt, count, "-all" in args.options)
            path = file_word(words[-1])

            def differences():
                with dumpfile.open_dump(path) as dump:
                    yield from compare.diff_dump(dt, count, read, dump, tol, base)

            return report(dt, count, differences, tol, os.path.basename(path))
        if looks_like_file(words[-1]):
            raise MpippError("no dump file %s" % file_word(words[-1]))
        other = address_from(words[2])
        dt, count = reread(dt, count_from(words[3]) if len(words) == 4 else 1)
        check_span(dt, count, "-all" in args.options)

        def differences():
            try:
                yield from compare.diff_buffers(dt, count, read, memory.memory_reader(other),
                                                tol, base)
            except UnreadableElement as err:
                raise MpippError("cannot read element %s at offset %+d of %s (0x%x) or %s (0x%x)"
                                 % (err.path, err.offset, words[1], address_of(base, err.offset),
                                    words[2], address_of(other, err.offset))) from None

        return report(dt, count, differences, tol, words[2])


def tolerance_values(given):
    """{'-rtol': X, '-atol': X} of the values given as text (0 when not)."""
    values = {"-rtol": 0.0, "-atol": 0.0}
    for name, text in given.items():
        try:
            values[name] = float(text)
        except ValueError:
            values[name] = -1.0
        if not 0 <= values[name] < float("inf"):
            raise MpippError("%s %s: not a finite number >= 0" % (name, text))
    return values


def report(dt, count, differences, tol, label):
    """The answer of a diff: differences() gives them, found as they are
    read; 'print elements' limits those shown, not those counted."""
    limit = output.print_limit("print elements")
    total = elements.count_elements(dt, count)

    def document():
        shown, found = [], 0
        for d in differences():
            found += 1
            if limit is None or found <= limit:
                shown.append({"path": paths.format_path(d.path), "type": d.basic.display_name,
                              "value": decode.json_value(d.basic, unpack(d.basic, d.left)),
                              "reference": decode.json_value(d.basic, unpack(d.basic, d.right))})
        return {"differences": shown, "count": found, "elements": total,
                "truncated": len(shown) < found, "rtol": tol.rtol, "atol": tol.atol}

    def lines():
        found = 0
        for d in differences():
            found += 1
            if limit is None or found <= limit:
                yield "%s = %s (%s: %s)" % (paths.format_path(d.path),
                                            decode.format_one(d.basic, unpack(d.basic, d.left)),
                                            label,
                                            decode.format_one(d.basic, unpack(d.basic, d.right)))
        if not found:
            yield "no differences in %d elements" % total
        elif limit is None or found <= limit:
            yield "%d of %d elements differ" % (found, total)
        else:
            yield "%d of %d elements differ (showing %d; see 'set print elements')" % (
                found, total, limit)

    return Answer(document, lines)
