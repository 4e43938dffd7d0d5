"""Helpers for the tests/c registry tests (imported by test_registry_*.py)."""
import os
import subprocess

from gdbrun import BUILD, MPI, REPO as ROOT, mpiexec  # noqa: F401  (MPI: for the tests)

LIB = os.path.join(BUILD, "libmpireg.so")
TESTS = os.path.join(BUILD, "tests")
TIMEOUT = 120


# libmpireg's folders (the Makefile's LIB_DIRS): registry, communication
# context, record/replay, usage checks; the generated wrappers.c includes
# headers of all four.
LIB_DIRS = [os.path.join(ROOT, "libmpireg", part) for part in ("registry", "context", "replay", "checks")]
# The compiler's -I options for them.
LIB_INCLUDES = ["-I" + d for d in LIB_DIRS]


def library_sources(wrappers=None):
    """Every C source of libmpireg (as the Makefile builds it), plus the generated wrappers."""
    srcs = [os.path.join(d, f) for d in LIB_DIRS for f in sorted(os.listdir(d)) if f.endswith(".c")]
    wrappers = wrappers or os.path.join(BUILD, "wrappers.c")
    assert os.path.exists(wrappers), "%s missing: run make first" % wrappers
    return srcs + [str(wrappers)]


def prog(name):
    path = os.path.join(TESTS, name)
    assert os.path.exists(path), "%s missing: run make first" % path
    return path


def run(argv, nprocs=None, preload=False, env=None, timeout=TIMEOUT):
    """Runs argv (under mpiexec -n nprocs if given); returns CompletedProcess."""
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    if env:
        e.update(env)
    if preload:
        assert os.path.exists(LIB), "%s missing: run make first" % LIB
        if not nprocs:
            e["LD_PRELOAD"] = LIB
    cmd = list(argv)
    if nprocs:
        cmd = mpiexec(nprocs, {"LD_PRELOAD": LIB} if preload else None) + list(argv)
    return subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)


def check_ok(res, what, nprocs=1):
    out = res.stdout + res.stderr
    assert res.returncode == 0, "%s exited %d:\n%s" % (what, res.returncode, out[-6000:])
    assert "FAIL" not in out, out[-6000:]
    assert "%s: OK (0 failures)" % what in res.stdout, out[-6000:]
