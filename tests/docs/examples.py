"""The examples of the manual, as doctest reads a docstring (gdb-free).

An example is a fenced block with prompts: `(gdb) COMMAND` or
`(mpipp-job) COMMAND` lines, each followed by the output it must print.  In
expected output `...` stands for any text (a whole line of `...`: any
lines), as doctest's ELLIPSIS.  Every example runs in the session an HTML
comment before it opens (readers do not see it):

    <!-- session: gdb demo; up -->
        mpipp-gdb on build/MPI/testprogs/demo, stopped in stop_here(), then
        the hidden commands after ';' (here: up)
    <!-- session: job -n 4 job deadlock
    break stop_here
    continue
    -->
        mpipp-job -n 4 build/MPI/testprogs/job deadlock, then the hidden
        commands, one a line (JOB_PIDDIR and IO2D_DIR name a scratch
        directory)

The blocks after a session comment, up to the next one, share its session
in order.  A block with prompts and no session before it is an error.
"""

import re

PROMPTS = ("(gdb) ", "(mpipp-job) ")
_SESSION = re.compile(r"^<!--\s*session:\s*(gdb|job)\s+(.*?)\s*(-->)?$")
_FENCE = re.compile(r"^ {0,3}```")


class Session:
    """kind: gdb or job; target: the program (gdb) or mpipp-job's
    arguments (job); setup: hidden commands; steps: [(command, expected)]."""

    def __init__(self, kind, spec, where):
        self.kind, self.where = kind, where
        target, *setup = [part.strip() for part in spec.split(";")]
        self.target, self.setup = target.split(), [c for c in setup if c]
        self.steps = []
        self.open = False   # a multi-line comment: its lines are more setup


class DocError(ValueError):
    pass


def sessions(text, name):
    """The sessions of one page, with their examples' steps."""
    found, current, block, fence = [], None, None, None
    for number, line in enumerate(text.splitlines(), 1):
        if current is not None and current.open:
            if line.strip() == "-->":
                current.open = False
            else:
                current.setup.append(line.strip())
            continue
        m = _SESSION.match(line)
        if m and block is None:
            current = Session(m.group(1), m.group(2), "%s:%d" % (name, number))
            current.open = m.group(3) is None
            found.append(current)
            continue
        if _FENCE.match(line):
            if block is None:
                block, fence = [], number
            else:
                _add_example(current, block, "%s:%d" % (name, fence))
                block = None
            continue
        if block is not None:
            block.append(line)
    return found


def _add_example(session, lines, where):
    if not any(line.startswith(PROMPTS) for line in lines):
        return
    if session is None:
        raise DocError("%s: an example outside any session (add <!-- session: ... -->)" % where)
    prompt = "(gdb) " if session.kind == "gdb" else "(mpipp-job) "
    if not lines[0].startswith(prompt):
        raise DocError("%s: a %s example starts with %r" % (where, session.kind, prompt))
    for line in lines:
        if line.startswith(prompt):
            session.steps.append((line[len(prompt):], [], where))
        else:
            session.steps[-1][1].append(line)


def matches(expected_lines, actual):
    """Whether actual output is what the expected lines show ('...' any)."""
    parts = []
    for line in expected_lines:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(piece) for piece in line.rstrip().split("..."))
                         + r"[ \t]*\n")
    pattern = "".join(parts)
    text = "\n".join(l.rstrip() for l in actual.rstrip("\n").split("\n")) + "\n" \
        if actual.strip() else ""
    return re.fullmatch(pattern, text, re.S) is not None
