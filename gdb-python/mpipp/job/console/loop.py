"""The console's loop: lines read with readline (history, completion of
the console's commands and of gdb's, asked of a rank) or from a pipe."""

import os
import sys

from ...text.mi import quote
from ..link.session import wait_answers

PROMPT = "(mpipp-job) "
HISTORY = os.path.expanduser("~/.mpipp_job_history")


def complete_with_gdb(console, text, line):
    """Completions of a gdb command line, asked of the first rank in focus."""
    sessions = [s for s in (console.job.sessions.get(r) for r in console.focus)
                if s is not None and s.live and s.state == "stopped"]
    if not sessions:
        return []
    answer = sessions[0].send("-complete " + quote(line))
    wait_answers(console.job.reactor, [answer], 5)
    if not answer.ok:
        return []
    prefix = line[:len(line) - len(text)]
    return [m[len(prefix):] for m in answer.results.get("matches", []) if m.startswith(prefix)]


def setup_readline(console):
    import readline
    try:
        readline.read_history_file(HISTORY)
    except OSError:
        pass
    readline.set_completer_delims(" \t\n")

    def completer(text, state):
        if state == 0:
            line = readline.get_line_buffer()[:readline.get_endidx()]
            if " " not in line.lstrip():
                builtins = [c for c in console.commands if c.startswith(text)]
                completer.matches = sorted(set(builtins + complete_with_gdb(console, text, line)))
            else:
                completer.matches = complete_with_gdb(console, text, line)
            if len(completer.matches) == 1:     # Python's readline appends nothing itself
                completer.matches = [completer.matches[0] + " "]
        return completer.matches[state] if state < len(completer.matches) else None
    completer.matches = []
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")
    return readline


def interactive(console):
    readline = setup_readline(console) if sys.stdin.isatty() else None
    try:
        while not console.done:
            try:
                line = input(PROMPT) if readline else sys.stdin.readline()
            except KeyboardInterrupt:
                console.write("Quit")
                continue
            except EOFError:
                break
            if readline is None and not line:
                break
            try:
                console.execute(line)
            except KeyboardInterrupt:
                console.write("Quit")
    finally:
        if readline is not None:
            try:
                readline.write_history_file(HISTORY)
            except OSError:
                pass
