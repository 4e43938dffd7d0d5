"""Drive scripts/mpipp-job on real MPI jobs (the MPI under test: gdbrun.MPI).

Every console runs with a unique MPIPP_TEST_JOB value in its environment,
which every process it starts inherits (gdbs, mpiexec, launchers,
gdbservers, ranks): `leftovers(marker)` finds any that outlived it.
"""

import os
import select
import signal
import subprocess
import time
import uuid

import gdbrun

MPIPP_JOB = os.environ.get("MPIPP_JOB_SCRIPT", os.path.join(gdbrun.REPO, "scripts", "mpipp-job"))
PROGRAM = gdbrun.program("job")
MARK = "MPIPP_TEST_JOB"
END = "@@mpipp-job-test@@"


def environment(marker, piddir, extra=None):
    env = dict(os.environ, JOB_PIDDIR=piddir, **{MARK: marker})
    env.update(extra or {})
    return env


def check_output(text):
    assert "Traceback" not in text, text
    assert "Python Exception" not in text, text


def batch(args, marker, piddir, timeout=300):
    """Run a console with -batch; returns its output (stdout and stderr)."""
    proc = subprocess.run([MPIPP_JOB, "-nx", "-batch"] + list(args), capture_output=True,
                          text=True, timeout=timeout, env=environment(marker, piddir),
                          stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    check_output(out)
    assert proc.returncode == 0, out
    return out


class Console:
    """An interactive console on pipes: run() sends one line and returns what
    the console printed for it (an `echo` marker ends each answer)."""

    def __init__(self, args, marker, piddir):
        self.proc = subprocess.Popen([MPIPP_JOB, "-nx"] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=environment(marker, piddir))
        self.transcript = ""
        self.pending = b""

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def read_until(self, marker, timeout=180):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while marker.encode() not in self.pending:
            left = deadline - time.monotonic()
            assert left > 0, "no %r from the console:\n%s%s" % (marker, self.transcript,
                                                                self.pending.decode())
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                data = os.read(fd, 65536)
                assert data, "the console exited:\n" + self.transcript + self.pending.decode()
                self.pending += data
        head, _, self.pending = self.pending.partition(marker.encode())
        text = head.decode("utf-8", "replace")
        self.transcript += text
        check_output(text)
        return text

    def run(self, line, timeout=180):
        self.send(line)
        self.send("echo %s\\n" % END)
        return self.read_until(END + "\n", timeout)

    def interrupt(self):
        self.proc.send_signal(signal.SIGINT)

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def quit(self, timeout=120):
        self.send("quit")
        self.proc.stdin.close()
        rest = self.proc.stdout.read().decode("utf-8", "replace")
        self.transcript += rest
        check_output(rest)
        assert self.proc.wait(timeout=timeout) == 0, self.transcript
        return rest


def leftovers(marker):
    """[(pid, command line)] of processes still carrying the marker."""
    needle = ("%s=%s" % (MARK, marker)).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                found.append((int(entry), f.read().replace(b"\0", b" ").decode()))
        except OSError:
            continue
    return found


def wait_no_leftovers(marker, timeout=20):
    deadline = time.monotonic() + timeout
    while leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftovers(marker) == []


def wait_files(piddir, what, n, timeout=120):
    """{rank: pid} once every rank wrote piddir/what.RANK."""
    deadline = time.monotonic() + timeout
    while True:
        names = ["%s/%s.%d" % (piddir, what, r) for r in range(n)]
        if all(os.path.exists(p) for p in names):
            return {r: int(open(p).read()) for r, p in enumerate(names)}
        assert time.monotonic() < deadline, "ranks never wrote %s files" % what
        time.sleep(0.1)


def new_job(directory):
    """(marker, piddir) for one scenario; piddir is made in directory."""
    piddir = os.path.join(str(directory), "pids")
    os.makedirs(piddir, exist_ok=True)
    return uuid.uuid4().hex, piddir
