"""Dump files of buffers (`mpipp dump`) and reading them back (`mpipp diff`).

Three formats, all written and read as streams (one batch of elements at a
time, never the whole buffer):

json  One JSON document whose first line is the header and whose every
      following line is one element (so it is read back line by line)::

        {"mpipp_dump": 1, "type": "particle_t", "count": 3, "size": 111, "elements": [
        {"path": "[0][0][0][0]", "offset": 0, "address": 140737, "type": "MPI_INT", "value": 0, "bytes": "00000000"},
        ...
        ]}
      ("value" as in `mpipp -json`; "bytes": the element's bytes in memory.)
csv   path,offset,type,value,bytes with a header row; value as gdb prints it.
raw   The packed bytes, exactly what MPI_Pack produces (pack.py).

A dump is recognized by its first bytes: '{"mpipp_dump"' (json), the csv
header row, anything else is raw.
"""

import csv
import json

from ..readers.errors import MpippError
from . import decode
from .basics import element_span
from .pack import pack, packed_size
from .paths import format_path, shift_index

FORMATS = ("json", "csv", "raw")
CSV_HEADER = ["path", "offset", "type", "value", "bytes"]
JSON_MAGIC = '{"mpipp_dump": 1'


class DumpError(MpippError):
    """A dump file that cannot be read, or does not match the buffer."""


# ---------------------------------------------------------------- writing

def write_json(out, header, elements):
    """header: dict (type, count, size, ...); elements: dicts as
    render.iter_json_elements yields them.  Returns the element count."""
    head = json.dumps(dict({"mpipp_dump": 1}, **header))
    out.write(head[:-1] + ', "elements": [\n')
    n = 0
    for element in elements:
        out.write(("" if n == 0 else ",\n") + json.dumps(element))
        n += 1
    out.write("\n]}\n")
    return n


def write_csv(out, pieces):
    """pieces: render.Piece objects.  Returns the element count."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    n = 0
    for piece in pieces:
        basic = piece.basic
        span = element_span(basic)
        rel = piece.offset - piece.base
        texts = decode.formatter(basic)(piece.buf, rel, piece.n, piece.stride)
        name = basic.display_name
        writer.writerows(
            (format_path(piece.path(k)), piece.offset + k * piece.stride, name, texts[k],
             bytes(piece.buf[rel + k * piece.stride:rel + k * piece.stride + span]).hex())
            for k in range(piece.n))
        n += piece.n
    return n


def write_raw(out, chunks):
    """Packed bytes (pack.PackedBuffer.stream).  Returns the number of bytes written."""
    n = 0
    for data in chunks:
        out.write(data)
        n += len(data)
    return n


# ---------------------------------------------------------------- reading

def open_dump(path):
    """A reference (RawDump, JsonDump or CsvDump) over the dump file at path."""
    try:
        f = open(path, "rb")
    except OSError as err:
        raise DumpError("cannot open %s: %s" % (path, err.strerror)) from None
    start = f.read(64)
    f.seek(0)
    if start.startswith(JSON_MAGIC.encode()):
        return JsonDump(path, f)
    if start.startswith(",".join(CSV_HEADER).encode()):
        return CsvDump(path, f)
    return RawDump(path, f)


class _Dump:
    """take(full, vpos, basic, n) -> packed bytes of the next n elements,
    checked against the buffer's element paths and types; finish()."""

    format = None

    def __init__(self, path, f):
        self.path = path
        self.file = f
        self.taken = 0

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RawDump(_Dump):
    format = "raw"

    def take_bytes(self, n):
        """The next n packed bytes."""
        data = self.file.read(n)
        if len(data) < n:
            raise DumpError("%s ends after %d bytes; the buffer packs to more"
                            % (self.path, self.taken + len(data)))
        self.taken += n
        return data

    def take(self, full, vpos, basic, n):
        want = n * packed_size(basic)
        data = self.file.read(want)
        if len(data) < want:
            raise DumpError("%s ends after %d bytes, before element %s of the buffer"
                            % (self.path, self.taken + len(data),
                               format_path(shift_index(full, vpos,
                                                       len(data) // packed_size(basic)))))
        self.taken += want
        return data

    def finish(self):
        rest = len(self.file.read(1 << 16))
        if rest:
            raise DumpError("%s has more bytes than the buffer packs to (%d)"
                            % (self.path, self.taken))


class _Records(_Dump):
    """Dumps with one record per element: subclasses define records(), an
    iterator of (path text, type name, hex of the bytes in memory)."""

    def __init__(self, path, f):
        super().__init__(path, f)
        self._records = self.records()

    def take(self, full, vpos, basic, n):
        out = []
        name = basic.display_name
        for k in range(n):
            path = format_path(shift_index(full, vpos, k))
            record = next(self._records, None)
            if record is None:
                raise DumpError("%s ends after %d elements, before %s of the buffer"
                                % (self.path, self.taken, path))
            got_path, got_type, hexbytes = record
            if got_path != path or got_type != name:
                raise DumpError("%s does not match the buffer: element %d is %s (%s) in the"
                                " dump, %s (%s) in the buffer"
                                % (self.path, self.taken, got_path, got_type, path, name))
            try:
                raw = bytes.fromhex(hexbytes)
            except (TypeError, ValueError):
                raise DumpError("%s: element %s has bad bytes %r"
                                % (self.path, path, hexbytes)) from None
            if len(raw) < element_span(basic):
                raise DumpError("%s: element %s has %d bytes, %s needs %d"
                                % (self.path, path, len(raw), name, element_span(basic)))
            out.append(pack(basic, raw))
            self.taken += 1
        return b"".join(out)

    def finish(self):
        if next(self._records, None) is not None:
            raise DumpError("%s has more elements than the buffer (%d)"
                            % (self.path, self.taken))


class JsonDump(_Records):
    format = "json"

    def records(self):
        lines = (line.decode("utf-8") for line in self.file)
        head = next(lines)
        try:
            self.header = json.loads(head.rstrip().removesuffix("[") + "[]}")
        except ValueError:
            raise DumpError("%s: not an mpipp dump (bad header line)" % self.path) from None
        for number, line in enumerate(lines, 2):
            line = line.strip().rstrip(",")
            if not line:
                continue
            if line == "]}":
                return
            try:
                element = json.loads(line)
                yield element["path"], element["type"], element["bytes"]
            except (ValueError, KeyError, TypeError):
                raise DumpError("%s:%d: not an element of an mpipp dump" % (self.path, number)) \
                    from None
        raise DumpError("%s: truncated (no closing ']}')" % self.path)


class CsvDump(_Records):
    format = "csv"

    def records(self):
        rows = csv.reader(line.decode("utf-8") for line in self.file)
        if next(rows, None) != CSV_HEADER:
            raise DumpError("%s: not an mpipp CSV dump (header %s)" % (self.path,
                                                                      ",".join(CSV_HEADER)))
        for number, row in enumerate(rows, 2):
            if len(row) != len(CSV_HEADER):
                raise DumpError("%s:%d: expected %d columns" % (self.path, number,
                                                                len(CSV_HEADER)))
            yield row[0], row[2], row[4]

