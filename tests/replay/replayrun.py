"""Running testprogs/replay under mpiexec (the MPI under test), recording
or replaying, and reading what it printed."""

import os
import re
import select
import subprocess
import time

import gdbrun

PROGRAM = gdbrun.program("replay")
LIB = os.path.join(gdbrun.BUILD, "libmpireg.so")
MPIPP = os.path.join(gdbrun.REPO, "scripts", "mpipp")
TIMEOUT = 120


def command(args, nprocs=4, **env):
    """The mpiexec command line running `replay ARGS` with libmpireg and env
    (MPIPP_RECORD=..., MPIPP_REPLAY=...) in every rank."""
    env = dict(env, LD_PRELOAD=LIB)
    return gdbrun.mpiexec(nprocs, env) + [PROGRAM] + [str(a) for a in args]


def run(args, nprocs=4, **env):
    """Runs to the end: (exit status, stdout + stderr)."""
    proc = subprocess.run(command(args, nprocs, **env), capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout + proc.stderr


def run_until(args, done, nprocs=4, timeout=TIMEOUT, **env):
    """Runs until done(output so far) holds or the job ends, then kills it:
    (output, whether the job ended by itself)."""
    proc = subprocess.Popen(command(args, nprocs, **env), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    out, deadline = b"", time.monotonic() + timeout
    try:
        while not done(out.decode("utf-8", "replace")):
            left = deadline - time.monotonic()
            assert left > 0, "the job never printed what was awaited:\n" + out.decode()
            ready, _, _ = select.select([proc.stdout], [], [], left)
            data = os.read(proc.stdout.fileno(), 65536) if ready else b""
            if ready and not data:
                proc.wait()
                return out.decode("utf-8", "replace"), True
            out += data
        return out.decode("utf-8", "replace"), False
    finally:
        if proc.poll() is None:
            gdbrun.stop_job(proc)
        proc.stdout.close()


def outcomes(output):
    """The lines the program printed about what MPI chose (its pids aside), sorted."""
    return sorted(line for line in output.splitlines()
                  if re.match(r"^rank \d+: ", line) and ": pid " not in line)


def pids(output):
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^rank (\d+): pid (\d+)$", output, re.M)}


def mpipp(*args):
    proc = subprocess.run([MPIPP] + list(args), capture_output=True, text=True, timeout=TIMEOUT)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout + proc.stderr


def master_line(output):
    m = re.search(r"^rank 0: order (\S+) sum (\d+) \(right: (\d+)\) stops to (\S+)$", output, re.M)
    return m and m.group(0), m and {"order": m.group(1), "sum": int(m.group(2)),
                                     "right": int(m.group(3)), "stops": m.group(4)}


def hangs(fields):
    """Whether the master stopped some worker twice (and another never)."""
    return sorted(fields["stops"].split(",")) != ["1", "2", "3"]


def master_settled(output):
    """The master printed its line and every worker it stopped said so:
    from here no rank makes a call that returns (the job ends or hangs)."""
    line, fields = master_line(output)
    return bool(line) and all("rank %s: stopped" % w in output
                              for w in set(fields["stops"].split(",")))
