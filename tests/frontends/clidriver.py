"""Drive gdb's CLI through pipes, as DDD and other CLI front ends do, one
command at a time with a time limit each:

    with Cli("extremes") as cli:     # scripts/mpipp-gdb build/mpich/testprogs/extremes
        cli.cmd("break stop_here")
        text = cli.cmd("run", timeout=120)

`cmd` returns what gdb printed for the command (standard output and error,
prompts and blank lines around it removed).  A command still running at its time limit raises
CliError ("hang"); gdb's output ending raises CliError ("crash"), with the
end of the transcript.
"""

import os
import select
import subprocess
import time

import gdbrun


class CliError(Exception):
    pass


class Cli:
    def __init__(self, prog, args=(), timeout=60):
        self.timeout = timeout
        self.done = 0
        self.transcript = []
        cmd = [gdbrun.MPIPP_GDB, "-nx", "-q", "-iex", "set pagination off",
               "-iex", "set confirm off", "-iex", "set width 0"]
        cmd += list(args) + [gdbrun.program(prog)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)
        self._buf = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def cmd(self, command, timeout=None):
        """The output of one command (an echoed marker ends it)."""
        self.done += 1
        marker = ("@@mpipp-cli-%d@@" % self.done).encode()
        self.proc.stdin.write(command.encode() + b"\necho \\n" + marker + b"\\n\n")
        deadline = time.monotonic() + (timeout or self.timeout)
        fd = self.proc.stdout.fileno()
        while marker not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CliError("hang: '%s' did not finish in %d s; transcript:\n%s"
                               % (command, timeout or self.timeout, self._tail()))
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise CliError("crash: gdb exited during '%s'; transcript:\n%s"
                                   % (command, self._tail()))
                self._buf += chunk
        out, _, self._buf = self._buf.partition(marker)
        self._buf = self._buf.lstrip(b"\n")
        text = out.decode("utf-8", "replace").replace("(gdb) ", "").strip("\n")
        self.transcript.append("> %s\n%s" % (command, text[-2000:]))
        return text + "\n" if text else ""

    def _tail(self):
        return "\n".join(self.transcript[-10:]) + "\n" + self._buf.decode("utf-8", "replace")
