"""GDB/MI output records, parsed (gdb-free).

    output  -> ( out-of-band-record )* [ result-record ] "(gdb)"
    result  -> [token] "^" class ( "," name "=" value )*
    async   -> [token] ("*" | "+" | "=") class ( "," name "=" value )*
    stream  -> ("~" | "@" | "&") c-string
    value   -> c-string | "{" results "}" | "[" values-or-results "]"

Lines are bytes as gdb writes them.  C-strings may carry octal escapes for
non-ASCII bytes, so they are unescaped to bytes and then decoded as UTF-8.
A line that is not MI (a program writing to gdb's terminal) is a Record of
kind "text".
"""

import codecs
import re

STREAM_KINDS = {ord("~"): "console", ord("@"): "target", ord("&"): "log"}
ASYNC_KINDS = {ord("^"): "result", ord("*"): "exec", ord("+"): "status", ord("="): "notify"}
_TOKEN = re.compile(rb"\d*")
_NAME = re.compile(rb"[A-Za-z_][\w-]*")
_STRING_END = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"')


class MIError(ValueError):
    """A line that looks like MI but does not parse."""


class Record:
    """kind: result/exec/status/notify (with token, cls, results), console/
    target/log (with text), prompt, or text (a non-MI line, in text)."""

    __slots__ = ("kind", "token", "cls", "results", "text")

    def __init__(self, kind, token=None, cls=None, results=None, text=None):
        self.kind, self.token, self.cls = kind, token, cls
        self.results, self.text = results if results is not None else {}, text

    def __repr__(self):
        return "Record(%s %s %s %r)" % (self.kind, self.token, self.cls,
                                         self.text if self.text is not None else self.results)


def unescape(raw):
    """The text of a C-string body (without its quotes)."""
    if b"\\" in raw:
        raw = codecs.escape_decode(raw)[0]
    return raw.decode("utf-8", "replace")


def _string(line, pos):
    """(text, position after the closing quote); line[pos] is the opening quote."""
    m = _STRING_END.match(line, pos + 1)
    if not m:
        raise MIError("unterminated string")
    return unescape(line[pos + 1:m.end() - 1]), m.end()


def _value(line, pos):
    c = line[pos:pos + 1]
    if c == b'"':
        return _string(line, pos)
    if c == b"{":
        if line[pos + 1:pos + 2] == b"}":
            return {}, pos + 2
        out, pos = _results(line, pos + 1)
        return out, _expect(line, pos, b"}")
    if c == b"[":
        items = []
        pos += 1
        if line[pos:pos + 1] == b"]":
            return items, pos + 1
        while True:
            if line[pos:pos + 1] in (b'"', b"{", b"["):
                value, pos = _value(line, pos)
            else:
                name, pos = _name(line, pos)
                value, pos = _value(line, _expect(line, pos, b"="))
                value = {name: value}  # a list of results: keep each name
            items.append(value)
            if line[pos:pos + 1] == b",":
                pos += 1
                continue
            return items, _expect(line, pos, b"]")
    raise MIError("unexpected %r at %d" % (c, pos))


def _name(line, pos):
    m = _NAME.match(line, pos)
    if not m:
        raise MIError("expected a name at %d" % pos)
    return m.group().decode("ascii"), m.end()


def _expect(line, pos, char):
    if line[pos:pos + 1] != char:
        raise MIError("expected %r at %d" % (char, pos))
    return pos + 1


def _results(line, pos):
    """name=value pairs up to the end or a closing bracket; a name repeated
    (frame=..., frame=...) collects its values in a list."""
    out = {}
    while True:
        name, pos = _name(line, pos)
        value, pos = _value(line, _expect(line, pos, b"="))
        if name in out:
            if not isinstance(out[name], _Repeated):
                out[name] = _Repeated([out[name]])
            out[name].append(value)
        else:
            out[name] = value
        if line[pos:pos + 1] != b",":
            return out, pos
        pos += 1


class _Repeated(list):
    """Values of a name repeated inside one tuple."""


def parse(line):
    """The Record of one output line (bytes, without its newline)."""
    line = line.rstrip(b"\r")
    if line.startswith(b"(gdb)"):
        return Record("prompt")
    if not line:
        return Record("text", text="")
    first = line[0]
    if first in STREAM_KINDS and line[1:2] == b'"':
        try:
            text, end = _string(line, 1)
        except MIError:
            return Record("text", text=line.decode("utf-8", "replace"))
        return Record(STREAM_KINDS[first], text=text)
    m = _TOKEN.match(line)
    pos = m.end()
    kind = ASYNC_KINDS.get(line[pos]) if pos < len(line) else None
    if kind is None:
        return Record("text", text=line.decode("utf-8", "replace"))
    token = int(m.group()) if m.group() else None
    cls_match = _NAME.match(line, pos + 1)
    if not cls_match:
        return Record("text", text=line.decode("utf-8", "replace"))
    cls = cls_match.group().decode("ascii")
    pos = cls_match.end()
    results = {}
    if line[pos:pos + 1] == b",":
        try:
            results, _end = _results(line, pos + 1)
        except MIError as err:
            results = {"unparsed": line[pos + 1:].decode("utf-8", "replace"),
                       "error": str(err)}
    return Record(kind, token, cls, results)


def quote(text):
    """A C-string for an MI command argument."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
