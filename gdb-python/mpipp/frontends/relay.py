"""The MI relay: gdb behind a process that shows its pretty-printed variable
objects to front ends that read only `numchild` (gdb-free; runs outside gdb).

gdb 13 creates a variable object whose value has a pretty printer with
children as `numchild="0"`, `has_more="1"`, `dynamic="1"` and shows its
value as `{...}`: front ends that honour has_more (Emacs gdb-mi, Microsoft's
MIEngine) expand it but show `{...}`; debug adapters that read numchild only
(cdt-gdb-adapter: VS Code's cdt-gdb-vscode, Theia) show `{...}` and cannot
expand it at all.  The relay passes every byte through, except in the
results of the front end's -var-create, -var-list-children and -var-update,
where such a variable object

  - is reported with one child (`numchild="1"`: the first of its children
    counted, as gdb itself reports once that child was listed), so every
    front end offers to expand it, and
  - shows its printer's summary (its to_string) instead of `{...}`, asked of
    gdb with -mpipp-summary (summary.py) before the result is passed on;

and in -var-info-path-expression, which gdb 13 refuses for a child of a
pretty-printed value (adapters ask it of every child they expand): the
relay answers with the root's expression and the children's names.

cdt-gdb-adapter names a child whose name holds a digit `[NAME]` below the
first level, and turns `[N]` into `N` when it assigns a value, so its
-var-assign misses children named `[3]` (mpipp's paths): the relay gives
such a command the name of the variable object it means, when exactly one
known variable object fits.

Everything else -- other records, their order, the program's output on
gdb's stdout, signals, the exit status -- passes unchanged; the relay's own
commands, their answers and prompts never reach the front end.
`relay.py GDB ARGS...` runs gdb; mpipp-gdb starts it for --interpreter=mi.
"""

import itertools
import re
import signal
import subprocess
import sys
import threading

from ..text import mi

ELLIPSIS = "{...}"
# Tokens of the relay's own commands: far above any front end's counter.
OWN_TOKENS = itertools.count(9_000_000_000_000)
_DELETE = re.compile(rb"^\d*-var-delete\s+(-c\s+)?(\S+)")
_ASSIGN = re.compile(rb"^(\d*-var-assign\s+(?:--(?:thread|frame)\s+\d+\s+)*)(\S+)(.*)$", re.S)
_COMMAND = re.compile(rb"^(\d+)(-var-(?:create|list-children|update|info-path-expression))"
                      rb"\s*(.*)$")
_OPTION = re.compile(r"^--(thread|frame)\s+(\d+)\s*")
# What -mpipp-summary's evaluation without side effects says on the way.
_OWN_NOTICE = re.compile(rb'^=cmd-param-changed,param="may-(call-functions|write-memory)"')


class VarObject:
    """How to name a variable object's value for -mpipp-summary: its root's
    expression, thread and frame (its height once gdb told it), and the
    names of the children taken below the root."""

    __slots__ = ("expression", "thread", "frame", "height", "path")

    def __init__(self, expression, thread=None, frame=None, path=()):
        self.expression, self.thread, self.frame = expression, thread, frame
        self.height, self.path = None, tuple(path)

    def child(self, name):
        child = VarObject(self.expression, self.thread, self.frame, self.path + (name,))
        child.height = self.height
        return child

    def path_expression(self):
        """The root's expression, then the children's names as C writes
        members and elements: readable, evaluable where they are C's own."""
        return self.expression + "".join(
            name if name.startswith("[") else "." + name for name in self.path)

    def summary_command(self, token, children=()):
        """The command for this value's summary, or for its children's
        of those names."""
        options = " --thread %s" % self.thread if self.thread else ""
        if self.height is not None:
            options += " -height %d" % self.height
        elif self.frame is not None:
            options += " --frame %s" % self.frame
        options += "".join(" -child %s" % cstring(name) for name in children)
        names = " ".join(cstring(word) for word in (self.expression,) + self.path)
        return "%d-mpipp-summary%s %s\n" % (token, options, names)


def cstring(text):
    """text as gdb writes an MI C-string: bytes beyond ASCII and control
    characters as octal escapes."""
    out = ['"']
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append("\\%03o" % byte)
    out.append('"')
    return "".join(out)


def split_options(args):
    """{"thread": T, "frame": F} and the rest of a command's arguments."""
    options = {}
    while True:
        m = _OPTION.match(args)
        if not m:
            return options, args
        options[m.group(1)] = m.group(2)
        args = args[m.end():]


def words(args):
    """A command's arguments (bytes): words, C-strings unquoted."""
    out, pos = [], 0
    while pos < len(args):
        if args[pos:pos + 1].isspace():
            pos += 1
        elif args[pos:pos + 1] == b'"':
            text, pos = mi._string(args, pos)
            out.append(text)
        else:
            end = pos
            while end < len(args) and not args[end:end + 1].isspace():
                end += 1
            out.append(args[pos:end].decode("utf-8", "replace"))
            pos = end
    return out


def listed(args):
    """The variable object a -var-list-children lists (after its print values)."""
    if args and (args[0] in ("0", "1", "2") or args[0].startswith("--")):
        args = args[1:]
    return args[0] if args else None


def parse_command(line):
    """(token, command, options, arguments) of a front end's command the
    relay answers for, else None."""
    m = _COMMAND.match(line.rstrip(b"\r\n"))
    if not m:
        return None
    options, args = split_options(m.group(3).decode("utf-8", "replace"))
    try:
        return int(m.group(1)), m.group(2).decode(), options, words(args.encode())
    except mi.MIError:  # gdb will say what is wrong with it
        return None


def _pretty(fields):
    """Whether gdb showed this variable object's printer as `{...}`."""
    return fields.get("dynamic") == "1" and fields.get("value") == ELLIPSIS


class Query:
    """One -mpipp-summary: for the value of var (children False) or for its
    children; edits: [(varobj name, fields, key of its summary)]."""

    def __init__(self, var, children, edits):
        self.var, self.children, self.edits = var, children, edits

    def command(self, token):
        return self.var.summary_command(
            token, [key for _name, _fields, key in self.edits] if self.children else ())


def plan(record, command, options, args, varobjs):
    """The summaries one result needs, as Queries; registers the new
    variable objects it names."""
    results = record.results
    if command == "-var-create" and "name" in results and args:
        var = VarObject(args[-1], options.get("thread"), options.get("frame"))
        if args[-2:-1] == ["@"]:
            var.frame = None  # floating: always the selected frame
        varobjs[results["name"]] = var
        return [Query(var, False, [(results["name"], results, None)])] \
            if _pretty(results) else []
    if command == "-var-list-children":
        parent = varobjs.get(listed(args))
        edits = []
        for item in results.get("children") or []:
            child = item.get("child") if isinstance(item, dict) else None
            if parent is None or not isinstance(child, dict) or "exp" not in child:
                continue
            varobjs[child.get("name")] = parent.child(child["exp"])
            if _pretty(child):
                edits.append((child["name"], child, child["exp"]))
        return [Query(parent, True, edits)] if edits else []
    if command == "-var-update":
        return [Query(varobjs[change["name"]], False, [(change["name"], change, None)])
                for change in results.get("changelist") or []
                if isinstance(change, dict) and change.get("name") in varobjs
                and _pretty(change)]
    return []


def patch(line, edits):
    """line with, in the tuple of each named variable object, its fields
    replaced: edits is [(name, {field: (old, new)})], in order of appearance.
    The patterns are structural MI (`field="old"` with unescaped quotes),
    which no C-string inside a value can contain."""
    out, pos = [], 0
    for name, fields in edits:
        start = line.find(b"name=" + cstring(name).encode(), pos)
        if start < 0:
            continue
        end = line.find(b"{name=", start + 1)
        end = len(line) if end < 0 else end
        segment = line[start:end]
        for field, (old, new) in fields.items():
            segment = segment.replace(b'%s="%s"' % (field.encode(), old.encode()),
                                      b"%s=%s" % (field.encode(), cstring(new).encode()), 1)
        out += [line[pos:start], segment]
        pos = end
    out.append(line[pos:])
    return b"".join(out)


class Relay:
    def __init__(self, gdb_argv):
        self.gdb = subprocess.Popen(gdb_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pending = {}   # token -> (command, options, arguments)
        self.varobjs = {}   # name -> VarObject
        self.lock = threading.Lock()        # pending
        self.write_lock = threading.Lock()  # gdb's stdin
        self.backlog = []   # gdb's lines read while the relay awaited its own answers
        self.out = sys.stdout.buffer

    def to_gdb(self, data):
        with self.write_lock:
            try:
                self.gdb.stdin.write(data)
                self.gdb.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def forward_input(self):
        """The front end's commands to gdb (noting those the relay answers
        for, mending the names in cdt-gdb-adapter's -var-assign)."""
        for line in iter(sys.stdin.buffer.readline, b""):
            command = parse_command(line)
            with self.lock:
                if command:
                    self.pending[command[0]] = command[1:]
                line = self.mend_assign(line)
                self.forget(line)
            self.to_gdb(line)
        # the front end is gone: so is gdb's input (gdb ends as it would alone)
        with self.write_lock:
            try:
                self.gdb.stdin.close()
            except BrokenPipeError:
                pass

    def forget(self, line):
        """A -var-delete: the variable object (unless -c) and its children
        are gone."""
        m = _DELETE.match(line)
        if m:
            name = m.group(2).decode("utf-8", "replace")
            self.varobjs = {key: var for key, var in self.varobjs.items()
                            if not key.startswith(name + ".") and (key != name or m.group(1))}

    def mend_assign(self, line):
        m = _ASSIGN.match(line)
        if not m:
            return line
        name = m.group(2).decode("utf-8", "replace")
        parent, dot, last = name.rpartition(".")
        if not dot or name in self.varobjs:
            return line
        fits = {parent + "." + candidate for candidate in ("[%s]" % last, last[1:-1])
                if parent + "." + candidate in self.varobjs}
        if len(fits) != 1:
            return line
        return m.group(1) + fits.pop().encode() + m.group(3)

    def next_line(self):
        return self.backlog.pop(0) if self.backlog else self.gdb.stdout.readline()

    def ask(self, queries):
        """Runs the queries' -mpipp-summary commands: {query: results}.
        gdb's other output meanwhile is kept, in order, for after.  gdb
        answers one command at a time, each result followed by its prompt:
        a prompt is the relay's when the result before it was."""
        tokens = {next(OWN_TOKENS): query for query in queries}
        commands = b"".join(query.command(token).encode() for token, query in tokens.items())
        # written aside: gdb may fill its output pipe before it reads them all
        threading.Thread(target=self.to_gdb, args=(commands,), daemon=True).start()
        answers, own_prompt = {}, False
        while tokens or own_prompt:
            line = self.gdb.stdout.readline()
            if not line:
                break
            record = mi.parse(line.rstrip(b"\n"))
            if record.kind == "prompt" and own_prompt:
                own_prompt = False
                continue
            if record.kind == "result":
                own_prompt = record.token in tokens
                if own_prompt:
                    query = tokens.pop(record.token)
                    if record.cls == "done":
                        answers[query] = record.results
                    continue
            if not _OWN_NOTICE.match(line):
                self.backlog.append(line)
        return answers

    def summaries(self, queries):
        """{varobj name: summary} for the queries' edits."""
        found = {}
        for query, results in self.ask(queries).items():
            height = results.get("height", "")
            if query.var.height is None and height.isdigit():
                query.var.height = int(height)
            if query.children:
                texts = {item.get("name"): item.get("summary")
                         for item in results.get("children") or [] if isinstance(item, dict)}
            else:
                texts = {None: results.get("summary")}
            for name, _fields, key in query.edits:
                if texts.get(key) not in (None, ELLIPSIS):
                    found[name] = texts[key]
        return found

    def rewrite(self, line):
        record = mi.parse(line.rstrip(b"\n"))
        if record.kind != "result" or record.token is None:
            return line
        with self.lock:
            command = self.pending.pop(record.token, None)
        if command is None:
            return line
        if command[0] == "-var-info-path-expression":
            return self.path_expression(record, command[2], line)
        with self.lock:
            queries = plan(record, *command, self.varobjs) if record.cls == "done" else []
        if not queries:
            return line
        texts = self.summaries(queries)
        edits = []
        for query in queries:
            for name, fields, _key in query.edits:
                change = {"value": (ELLIPSIS, texts[name])} if name in texts else {}
                if fields.get("numchild") == "0" and fields.get("has_more", "1") == "1":
                    change["numchild"] = ("0", "1")
                edits.append((name, change))
        return patch(line, edits)

    def path_expression(self, record, args, line):
        """gdb 13 refuses -var-info-path-expression for a child of a
        pretty-printed value: the relay answers with the names it knows."""
        var = self.varobjs.get(args[-1]) if args else None
        if record.cls != "error" or var is None or not var.path:
            return line
        return b"%d^done,path_expr=%s\n" % (record.token,
                                             cstring(var.path_expression()).encode())

    def forward_output(self):
        for line in iter(self.next_line, b""):
            try:
                line = self.rewrite(line)
            except Exception:  # noqa: BLE001 - gdb's own line is always right
                pass
            self.out.write(line)
            self.out.flush()

    def run(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda number, _frame: self.gdb.send_signal(number))
        threading.Thread(target=self.forward_input, daemon=True).start()
        try:
            self.forward_output()
        except BrokenPipeError:
            self.gdb.kill()
        return self.gdb.wait()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        sys.stderr.write("usage: relay.py GDB [ARGS...]\n")
        return 2
    status = Relay(argv).run()
    return 128 - status if status < 0 else status
