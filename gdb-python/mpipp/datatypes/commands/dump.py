"""`mpipp dump TYPE ADDR [COUNT] FILE`: a buffer saved to a file, as JSON,
CSV or packed bytes (file formats: model/dumpfile.py).  Memory is read in
batches and the file written as it is read: a 10**7-element buffer takes
bounded memory."""

import os

from ... import views
from ...inferior import memory
from ...inferior.commands import Answer, Command, UsageError
from ...model import dumpfile, elements, render
from ...model.pack import PackedBuffer
from ...readers.errors import MpippError
from ..arguments import address_from, check_span, count_from, datatype_from
from ..astype import as_runs

FORMAT_OPTIONS = {"-json": "json", "-csv": "csv", "-raw": "raw"}
EXTENSIONS = {".json": "json", ".csv": "csv", ".raw": "raw", ".bin": "raw"}


def file_word(word):
    """A FILE argument: quotes removed, ~ expanded."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        word = word[1:-1]
    return os.path.expanduser(word)


class DumpCommand(Command):
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

    name = "mpipp dump"
    options = tuple(FORMAT_OPTIONS) + ("-all",)
    valued = ("-as",)
    arity = (3, 4)

    def answer(self, args):
        words = args.words
        chosen = [FORMAT_OPTIONS[o] for o in FORMAT_OPTIONS if o in args.options]
        if len(chosen) > 1:
            raise UsageError()
        path = file_word(words[-1])
        fmt = chosen[0] if chosen else EXTENSIONS.get(os.path.splitext(path)[1].lower(), "json")
        view = views.registry.require()
        dt = datatype_from(words[0], view)
        base = address_from(words[1])
        count = count_from(words[2]) if len(words) == 4 else 1
        if "-as" in args.values:
            dt, count = as_runs(dt, count, args.values["-as"], view, "-all" in args.options)
        check_span(dt, count, "-all" in args.options)
        read = memory.memory_reader(base)
        try:
            with open(path, "wb" if fmt == "raw" else "w", encoding=None if fmt == "raw"
                      else "utf-8") as out:
                written = write_dump(fmt, out, dt, count, read, base, words[0])
        except OSError as err:
            raise MpippError("cannot write %s: %s" % (path, err.strerror)) from None
        n = elements.count_elements(dt, count)
        return Answer(lines=lambda: ["%s × %d: %d elements (%d bytes packed) written to %s (%s)%s"
                                     % (words[0], count, n, count * dt.size, path, fmt,
                                        "" if fmt != "raw" else ", %d bytes" % written)])


def write_dump(fmt, out, dt, count, read, base, label):
    """Writes the buffer to the open file out in format fmt."""
    if fmt == "json":
        header = {"type": label, "name": dt.display_name, "count": count,
                  "size": count * dt.size, "extent": dt.extent, "address": base}
        return dumpfile.write_json(out, header, render.iter_json_elements(
            dt, count, read, base_address=base))
    if fmt == "csv":
        return dumpfile.write_csv(out, render.read_pieces(dt, count, read, base_address=base))
    return dumpfile.write_raw(out, PackedBuffer(dt, count, read, base).stream())
