"""A program in a real terminal: Tmux, a terminal on a tmux server of its
own, and converse(), a dialogue with it written as a table (keys typed, then
what must come on screen).  tests/frontends (TUI, Emacs) and tests/job (the
console's readline) use them."""

import os
import shutil
import subprocess
import time


class Tmux:
    """A terminal on a tmux server of its own: a server shared with other
    sessions would start the command in that server's environment (another
    build's MPIPP_BUILD, ...), not in the test's."""

    def __init__(self, command, width=160, height=45, tools=("tmux",)):
        # make check installs them (scripts/install-deps): missing means a broken setup
        for tool in tools:
            assert shutil.which(tool), "%s is not installed: run scripts/install-deps" % tool
        self.name = "mpipp-tui-%d" % os.getpid()
        self.tmux = ["tmux", "-L", self.name, "-f", "/dev/null"]
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)
        subprocess.run(self.tmux + ["new-session", "-d", "-s", self.name, "-x", str(width),
                                    "-y", str(height), command], check=True)

    def keys(self, *keys):
        subprocess.run(self.tmux + ["send-keys", "-t", self.name] + list(keys), check=True)

    def screen(self):
        return subprocess.run(self.tmux + ["capture-pane", "-t", self.name, "-p"], check=True,
                              capture_output=True, text=True).stdout

    def wait_for(self, text, timeout=30, last_line=False):
        """The screen once text is on it (last_line: is its last non-blank
        line, e.g. a prompt with what history recalled)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if last_line:
                lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
                found = bool(lines) and lines[-1] == text
            else:
                found = text in screen
            if found:
                return screen
            time.sleep(0.2)
        raise AssertionError("%r not on screen:\n%s" % (text, self.screen()))

    def close(self):
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)


def converse(tmux, steps, timeout=30):
    """For each (keys, text) of steps: type the keys (tmux key names such as
    "Enter", "Tab", "C-c"; none to only wait), then wait until text is on
    the screen.  Returns the last screen."""
    screen = None
    for keys, text in steps:
        if keys:
            tmux.keys(*keys)
        screen = tmux.wait_for(text, timeout)
    return screen
