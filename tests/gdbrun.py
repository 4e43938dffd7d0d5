"""Drive real gdb (through scripts/mpipp-gdb) on the test programs.

`capture(program, commands)` runs one batch gdb session: it stops the
program in stop_here(), runs every command with gdb.execute(to_string=True)
and returns {command: output}; a command that fails maps to
GdbFailure(message).  One gdb per scenario keeps the suite fast.
"""

import json
import os
import re
import signal
import subprocess
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TESTS)
# make check MPI=... exports these; a bare pytest run tests the MPICH build.
MPI = os.environ.get("MPIPP_MPI", "mpich")
BUILD = os.environ.get("MPIPP_BUILD", os.path.join(REPO, "build", MPI))
MPIEXEC = os.environ.get("MPIPP_MPIEXEC", "mpiexec." + MPI)
MPICC = "mpicc." + MPI
MPIF90 = "mpif90." + MPI
# The tools under test: this checkout's, or others (CI: the installed packages').
MPIPP_GDB = os.environ.get("MPIPP_GDB_SCRIPT", os.path.join(REPO, "scripts", "mpipp-gdb"))
DRIVER = os.path.join(TESTS, "gdb_driver.py")


class GdbFailure(str):
    """The one-line error a command gave, instead of its output."""


def mpiexec(nprocs, env=None):
    """The launcher argv for nprocs ranks of the MPI under test, passing env
    (a dict) to every rank whatever the MPI's own flag for that is."""
    cmd = [MPIEXEC]
    if MPI == "openmpi":
        cmd.append("--oversubscribe")
        for name, value in (env or {}).items():
            cmd += ["-x", "%s=%s" % (name, value)]
    else:
        for name, value in (env or {}).items():
            cmd += ["-genv", name, value]
    return cmd + ["-n", str(nprocs)]


def source_python(script):
    """A gdb command running a Python script of the tests inside gdb, with the
    script's folder importable (for helpers such as integration/gdb_json.py)."""
    folder = os.path.dirname(os.path.abspath(script))
    return "python import sys; sys.path.insert(0, %r); exec(open(%r).read())" % (folder, script)


def stop_job(proc):
    """Kill a job started with start_new_session=True (mpiexec and its ranks)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def handles_are_pointers(prog):
    """Whether MPI_Datatype is a pointer (Open MPI) in the test program, not
    an int (MPICH): asked of gdb, from the program's debug information."""
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "ptype MPI_Datatype", program(prog)],
                         capture_output=True, text=True, timeout=60).stdout
    assert "type = " in out, out
    return out.rstrip().endswith("*")


def program_globals(prog, names):
    """{name: value} of int globals of a test program, read by gdb from the
    executable's initialised data (the program is not run)."""
    args = sum((["-ex", "print (long)%s" % name] for name in names), [])
    out = subprocess.run(["gdb", "-nx", "-batch"] + args + [program(prog)],
                         capture_output=True, text=True, timeout=60).stdout
    values = [int(v) for v in re.findall(r"^\$\d+ = (-?\d+)$", out, re.M)]
    assert len(values) == len(names), out
    return dict(zip(names, values))


def program(name):
    return os.path.join(BUILD, "testprogs", name)


def run(args, timeout=120, env=None, launcher=()):
    """Runs mpipp-gdb with args; returns the CompletedProcess (text)."""
    full_env = dict(os.environ, **(env or {}))
    cmd = list(launcher) + [MPIPP_GDB, "-nx", "-batch"] + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "Python Exception" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc


def capture(prog, commands, stop="stop_here", setup=(), timeout=120, launcher=(),
            ranks=1, gdb_args=(), env=None, core=None):
    """Output of each command at the first stop in `stop`; one dict per rank.
    With core (a core file of prog), the commands run on the core instead."""
    assert len(set(commands)) == len(commands), "commands are keys: make them unique"
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "commands.json")
        with open(spec, "w") as f:
            json.dump(commands, f)
        out = os.path.join(tmp, "out")
        exe = program(prog) if not os.path.isabs(prog) else prog
        start = ["-ex", "break %s" % stop, "-ex", "run"] if core is None else []
        # Killing one rank makes mpiexec tear down the others before they
        # report; letting every rank finish MPI keeps the job whole.
        end = [] if core is not None else ["-ex", "continue" if ranks > 1 else "kill"]
        args = list(gdb_args) + [
            "-ex", "set pagination off",
            "-ex", "set confirm off",
            *sum((["-ex", s] for s in setup), []),
            *start,
            "-ex", "python MPIPP_TEST_SPEC = %r; MPIPP_TEST_OUT = %r" % (spec, out),
            "-ex", "source %s" % DRIVER,
            *end,
        ] + (["--args", exe] if core is None else [exe, core])
        proc = run(args, timeout=timeout, launcher=launcher, env=env)
        results = []
        for rank in range(ranks):
            path = "%s.%d" % (out, rank)
            assert os.path.exists(path), "gdb produced no results:\n%s\n%s" % (
                proc.stdout, proc.stderr)
            with open(path) as f:
                raw = json.load(f)
            results.append({cmd: (GdbFailure(text) if failed else text)
                            for cmd, failed, text in raw})
        return results[0] if ranks == 1 else results
