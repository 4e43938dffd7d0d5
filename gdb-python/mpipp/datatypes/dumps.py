"""`mpipp dump` and `mpipp diff`: save a buffer to a file, compare a buffer
with a dump or with a second buffer.  File formats (model/dumpfile.py) and
element comparison (model/compare.py) are gdb-free; memory is read in
batches and files are streamed, so a 10**7-element buffer takes bounded
memory."""

import json
import os

import gdb

from .. import views
from ..inferior import memory, output
from ..model import compare, decode, dumpfile, elements, paths, render
from ..model.errors import UnreadableElement
from ..model.offsets import address_of
from ..model.pack import PackedBuffer, unpack
from ..text import args as argparse_
from .arguments import address_from, check_span, count_from, datatype_from
from .astype import as_runs

_FORMAT_OPTIONS = {"-json": "json", "-csv": "csv", "-raw": "raw"}
_EXTENSIONS = {".json": "json", ".csv": "csv", ".raw": "raw", ".bin": "raw"}


def _file_word(word):
    """A FILE argument: quotes removed, ~ expanded."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        word = word[1:-1]
    return os.path.expanduser(word)


def _is_file_word(word):
    return word[:1] in "'\"" or os.path.isfile(_file_word(word))


def _looks_like_file(word):
    return os.sep in word or os.path.splitext(word)[1].lower() in _EXTENSIONS


class DumpCommand(gdb.Command):
    """Save a buffer to a file: mpipp dump [-json|-csv|-raw] [-all] [-as T] TYPE ADDR [COUNT] FILE

Writes COUNT (default 1) repetitions of TYPE at ADDR to FILE:
  -json  the decoded elements with their paths, one JSON object per line
         inside one document (what 'mpipp -json' shows, plus a header)
  -csv   path,offset,type,value,bytes, one row per element
  -raw   the packed bytes, exactly as MPI_Pack would produce them
  -all   allow buffers larger than 1 GiB
  -as T  the buffer's contiguous runs of bytes as elements of T (see 'help
         mpipp'); -raw then copies runs, not bytes
Without an option the format follows FILE's extension (.json, .csv, .raw or
.bin), else JSON.  The file is written as the buffer is read, in batches:
any size takes bounded memory.  More than 1 GiB of data or 2**24 elements
needs -all.  'mpipp diff' compares a buffer with a dump.

Example:
  (gdb) mpipp dump particle_t particles 3 good.json
  (gdb) mpipp dump -raw column_t &grid[0][1] 1 /tmp/column.raw"""

    def __init__(self):
        super().__init__("mpipp dump", gdb.COMMAND_DATA, gdb.COMPLETE_FILENAME)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        opts, _fmt, words, values = argparse_.parse_valued(
            arg, tuple(_FORMAT_OPTIONS) + ("-all",), ("-as",))
        chosen = [_FORMAT_OPTIONS[o] for o in _FORMAT_OPTIONS if o in opts]
        if len(words) not in (3, 4) or len(chosen) > 1:
            raise gdb.GdbError("mpipp: usage: mpipp dump [-json|-csv|-raw] [-all] [-as T] "
                               "TYPE ADDR [COUNT] FILE")
        path = _file_word(words[-1])
        fmt = chosen[0] if chosen else _EXTENSIONS.get(os.path.splitext(path)[1].lower(),
                                                       "json")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        count = count_from(words[2]) if len(words) == 4 else 1
        if "-as" in values:
            dt, count = as_runs(dt, count, values["-as"], view)
        check_span(dt, count, "-all" in opts)
        read = memory.memory_reader(base)
        try:
            with open(path, "wb" if fmt == "raw" else "w", encoding=None if fmt == "raw"
                      else "utf-8") as out:
                written = self._write(fmt, out, dt, count, read, base, words[0])
        except OSError as err:
            raise gdb.GdbError("mpipp: cannot write %s: %s" % (path, err.strerror)) from None
        n = elements.count_elements(dt, count)
        gdb.write("%s × %d: %d elements (%d bytes packed) written to %s (%s)%s\n"
                  % (words[0], count, n, count * dt.size, path, fmt,
                     "" if fmt != "raw" else ", %d bytes" % written))

    @staticmethod
    def _write(fmt, out, dt, count, read, base, label):
        if fmt == "json":
            header = {"type": label, "name": dt.display_name, "count": count,
                      "size": count * dt.size, "extent": dt.extent, "address": base}
            return dumpfile.write_json(out, header, render.iter_json_elements(
                dt, count, read, base_address=base))
        if fmt == "csv":
            return dumpfile.write_csv(out, render.read_pieces(dt, count, read, base_address=base))
        return dumpfile.write_raw(out, PackedBuffer(dt, count, read, base).stream())


def _tolerances(words):
    """(Tolerance, the other words) from -rtol X / -atol X among words."""
    given, rest = argparse_.take_valued(words, ("-rtol", "-atol"))
    values = {"-rtol": 0.0, "-atol": 0.0}
    for name, text in given.items():
        try:
            values[name] = float(text)
        except ValueError:
            values[name] = -1.0
        if not 0 <= values[name] < float("inf"):
            raise gdb.GdbError("mpipp: %s %s: not a finite number >= 0" % (name, text))
    return compare.Tolerance(values["-rtol"], values["-atol"]), rest


class DiffCommand(gdb.Command):
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

    def __init__(self):
        super().__init__("mpipp diff", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    @output.one_line_errors
    def invoke(self, arg, from_tty):
        tol, rest = _tolerances(argparse_.split_words(arg))
        opts, _fmt, words, values = argparse_.parse_valued(" ".join(rest), ("-json", "-all"),
                                                           ("-as",))
        if len(words) not in (3, 4):
            raise gdb.GdbError("mpipp: usage: mpipp diff [-json] [-rtol X] [-atol X] [-all] "
                               "[-as T] TYPE ADDR [COUNT] FILE  or  TYPE ADDR1 ADDR2 [COUNT]")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        read = memory.memory_reader(base)
        reread = (lambda dt, count: as_runs(dt, count, values["-as"], view)) \
            if "-as" in values else (lambda dt, count: (dt, count))
        if _is_file_word(words[-1]):
            dt, count = reread(dt, count_from(words[2]) if len(words) == 4 else 1)
            check_span(dt, count, "-all" in opts)
            path = _file_word(words[-1])
            with dumpfile.open_dump(path) as dump:
                self._report(dt, count, compare.diff_dump(dt, count, read, dump, tol, base), tol,
                             os.path.basename(path), "-json" in opts)
            return
        if _looks_like_file(words[-1]):
            raise gdb.GdbError("mpipp: no dump file %s" % _file_word(words[-1]))
        other = address_from(words[2])
        dt, count = reread(dt, count_from(words[3]) if len(words) == 4 else 1)
        check_span(dt, count, "-all" in opts)
        try:
            differences = compare.diff_buffers(dt, count, read, memory.memory_reader(other),
                                               tol, base)
            self._report(dt, count, differences, tol, words[2], "-json" in opts)
        except UnreadableElement as err:
            raise gdb.GdbError("mpipp: cannot read element %s at offset %+d of %s (0x%x) or %s "
                               "(0x%x)" % (err.path, err.offset, words[1],
                                           address_of(base, err.offset), words[2],
                                           address_of(other, err.offset))) from None

    @staticmethod
    def _report(dt, count, differences, tol, label, as_json):
        limit = output.print_limit("print elements")
        total = elements.count_elements(dt, count)
        shown, found, lines = [], 0, []
        for d in differences:
            found += 1
            if limit is not None and found > limit:
                continue
            now = unpack(d.basic, d.left)
            then = unpack(d.basic, d.right)
            if as_json:
                shown.append({"path": paths.format_path(d.path), "type": d.basic.display_name,
                              "value": decode.json_value(d.basic, now),
                              "reference": decode.json_value(d.basic, then)})
            else:
                lines.append("%s = %s (%s: %s)" % (paths.format_path(d.path),
                                                   decode.format_one(d.basic, now), label,
                                                   decode.format_one(d.basic, then)))
                if len(lines) >= output.OUTPUT_BATCH:
                    output.write_lines(lines)
                    lines = []
        if as_json:
            gdb.write(json.dumps({"differences": shown, "count": found, "elements": total,
                                  "truncated": len(shown) < found, "rtol": tol.rtol,
                                  "atol": tol.atol}) + "\n")
            return
        output.write_lines(lines)
        if found:
            gdb.write("%d of %d elements differ%s\n" % (
                found, total, "" if limit is None or found <= limit
                else " (showing %d; see 'set print elements')" % limit))
        else:
            gdb.write("no differences in %d elements\n" % total)


def install():
    DumpCommand()
    DiffCommand()
