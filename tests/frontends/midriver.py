"""Drive gdb's MI interpreter the way Emacs gdb-mi and VS Code do.

    with Mi("types") as mi:          # scripts/mpipp-gdb --interpreter=mi3 build/mpich/testprogs/types
        mi.run_to("stop_here")
        r = mi.cmd('-var-create - * "$mpipp(t, buf, 2)"')
        r["name"], r["numchild"]

`cmd` sends one command with a token, waits for its result record and returns
the parsed results as a dict (`^error` raises MiError); `console` collects
the console stream of a CLI command.
"""

import os
import re
import select
import subprocess
import time

import gdbrun


class MiError(Exception):
    pass


def parse_mi(text):
    """key=value,... of a result record -> dict (lists as lists, tuples as dicts)."""
    value, pos = _results(text, 0, "")
    return value


def _results(s, pos, end):
    out = {}
    while pos < len(s) and s[pos] != end:
        m = re.compile(r"[\w-]+").match(s, pos)
        key = m.group(0)
        pos = m.end() + 1  # '='
        value, pos = _value(s, pos)
        if key in out:  # repeated keys (child=..., child=...) become a list
            if not isinstance(out[key], list) or key not in out.get("__multi__", ()):
                out[key] = [out[key]]
                out.setdefault("__multi__", set()).add(key)
            out[key].append(value)
        else:
            out[key] = value
        if pos < len(s) and s[pos] == ",":
            pos += 1
    out.pop("__multi__", None)
    return out, pos


def _value(s, pos):
    c = s[pos]
    if c == '"':
        return _cstring(s, pos)
    if c == "{":
        value, pos = _results(s, pos + 1, "}")
        return value, pos + 1
    if c == "[":
        pos += 1
        items = []
        while s[pos] != "]":
            if s[pos] in '"{[':
                value, pos = _value(s, pos)
            else:  # name=value inside a list: keep the value
                m = re.compile(r"[\w-]+=").match(s, pos)
                value, pos = _value(s, m.end())
            items.append(value)
            if s[pos] == ",":
                pos += 1
        return items, pos + 1
    raise ValueError("bad MI at %d: %r" % (pos, s[pos:pos + 40]))


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v", "e": "\x1b"}


def _cstring(s, pos):
    out = []
    pos += 1
    while s[pos] != '"':
        c = s[pos]
        if c == "\\":
            n = s[pos + 1]
            if n in "01234567":
                m = re.compile(r"[0-7]{1,3}").match(s, pos + 1)
                out.append(chr(int(m.group(0), 8)))
                pos = m.end()
                continue
            out.append(_ESCAPES.get(n, n))
            pos += 2
            continue
        out.append(c)
        pos += 1
    text = "".join(out)
    try:  # gdb writes each byte beyond ASCII as an octal escape: UTF-8 text
        text = text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return text, pos + 1


class Mi:
    def __init__(self, prog, args=(), timeout=60):
        self.timeout = timeout
        self.token = 100
        self.log = []
        cmd = [gdbrun.MPIPP_GDB, "-nx", "--interpreter=mi3", "-iex", "set pagination off"]
        cmd += list(args) + [gdbrun.program(prog)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)
        self._buf = b""
        self.read_until(lambda line: line.startswith("(gdb)"))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"-gdb-exit\n")
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()

    def _line(self, deadline):
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MiError("timeout; transcript:\n" + "\n".join(self.log[-40:]))
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise MiError("gdb exited; transcript:\n" + "\n".join(self.log[-40:]))
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        text = line.decode("utf-8", "replace").rstrip("\r")
        self.log.append(text)
        assert "Traceback" not in text and "Python Exception" not in text, text
        return text

    def read_until(self, pred, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        lines = []
        while True:
            line = self._line(deadline)
            lines.append(line)
            if pred(line):
                return lines

    def send(self, text):
        self.log.append("> " + text)
        self.proc.stdin.write(text.encode() + b"\n")

    def raw(self, command, timeout=None):
        """(result line, all lines) of one command."""
        self.token += 1
        tok = str(self.token)
        self.send(tok + command)
        lines = self.read_until(lambda l: re.match(tok + r"\^", l) is not None, timeout)
        return lines[-1], lines

    def cmd(self, command, timeout=None):
        line, _lines = self.raw(command, timeout)
        kind, _, rest = line[len(str(self.token)) + 1:].partition(",")
        result = parse_mi(rest) if rest else {}
        if kind == "error":
            raise MiError(result.get("msg", line))
        return result

    def console(self, command):
        line, lines = self.raw("-interpreter-exec console %s" % _quote(command))
        if "^error" in line:
            raise MiError(parse_mi(line.split(",", 1)[1])["msg"])
        return "".join(_cstring(l, 1)[0] for l in lines if l.startswith('~"'))

    def run_to(self, function):
        self.cmd("-break-insert %s" % function)
        self.cmd("-exec-run")
        self.read_until(lambda l: l.startswith("*stopped"))

    def wait_stopped(self):
        return self.read_until(lambda l: l.startswith("*stopped"))

    def children(self, var, frm=None, to=None, values="--all-values"):
        rng = "" if frm is None else " %d %d" % (frm, to)
        r = self.cmd("-var-list-children %s %s%s" % (values, var, rng))
        kids = r.get("children", [])
        return kids, r

    def handles_are_pointers(self):
        """Whether this MPI's MPI_Datatype is a pointer (Open MPI), not an int (MPICH)."""
        return self.console("ptype MPI_Datatype").rstrip().endswith("*")

    def datatype_var(self, expression):
        """A varobj to browse the MPI datatype `expression`: the MPI_Datatype
        varobj itself where handles are integers; where they are pointers
        that varobj has no children (it shows the whole description as its
        value: gdb 13 cannot update children of a pointer to an opaque
        struct, see datatypes/printers.py), so $mpipp_type(expression)."""
        r = self.cmd('-var-create - * "%s"' % expression)
        if not self.handles_are_pointers():
            assert r["dynamic"] == "1" and r["has_more"] == "1", r
            return r
        assert r["numchild"] == "0" and r.get("has_more", "0") == "0", r
        assert " = {combiner = MPI_COMBINER_" in r["value"], r
        self.cmd("-var-delete " + r["name"])
        r = self.cmd('-var-create - * "$mpipp_type(%s)"' % expression)
        assert r["dynamic"] == "1" and r["has_more"] == "1", r
        return r


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')
