"""The registry against MPI's own answers (tests/c/oracle.c, badinput.c),
linked before -lmpi and LD_PRELOADed into unmodified binaries, 1 and 4 ranks."""
import re

import pytest

from gdbrun import MPICC

from mpireg_testutil import BUILD, check_ok, library_sources, prog, run

CASES = [
    # (program, built with -lmpireg?)
    ("oracle", True),
    ("oracle.preload", False),
    ("badinput", True),
    ("badinput.preload", False),
]


@pytest.mark.parametrize("nprocs", [None, 4], ids=["1rank", "4ranks"])
@pytest.mark.parametrize("name,linked", CASES, ids=[c[0] for c in CASES])
def test_program(name, linked, nprocs):
    res = run([prog(name)], nprocs=nprocs, preload=not linked)
    check_ok(res, name.split(".")[0])
    if nprocs:
        # every rank ran the checks: rt_finish sums failures over all ranks
        assert res.stdout.count("OK (0 failures)") == 1


def test_badinput_covers_cases():
    """Every case ran: 24 (25 when the MPI detects a freed handle), plus the
    6 large-count ones of an MPI-4 library (the program says which MPI it is)."""
    res = run([prog("badinput")])
    check_ok(res, "badinput")
    m = re.search(r"badinput: (\d+) cases, (\d+) of them MPI-(\d+) large-count ones", res.stdout)
    assert m, res.stdout
    cases, large, version = map(int, m.groups())
    assert large == (6 if version >= 4 else 0) and cases - large in (24, 25), res.stdout


def test_preload_binary_is_unmodified():
    """The .preload programs do not link libmpireg: without LD_PRELOAD they
    cannot find the registry and say so."""
    res = run([prog("oracle.preload")])
    assert res.returncode == 2
    assert "mpireg_root not found" in res.stderr


def test_oracle_detects_wrong_recipe(tmp_path):
    """The oracle really compares: a library built from a spec with a wrong
    recipe (subarray sizes and subsizes swapped) makes it fail."""
    import os
    import subprocess
    from mpireg_testutil import LIB_INCLUDES, ROOT
    spec = open(os.path.join(ROOT, "libmpireg", "registry", "wrappers.spec")).read()
    good = "create(newtype, SUBARRAY) I(ndims, array_of_sizes[ndims], array_of_subsizes[ndims]"
    assert good in spec
    bad = spec.replace(good, "create(newtype, SUBARRAY) I(ndims, array_of_subsizes[ndims], array_of_sizes[ndims]")
    (tmp_path / "bad.spec").write_text(bad)
    wrappers = tmp_path / "wrappers.c"
    gen = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "libmpireg", "genwrappers.py"),
                          "--declared", os.path.join(BUILD, "mpi.i"), str(tmp_path / "bad.spec")],
                         stdout=subprocess.PIPE, check=True)
    wrappers.write_bytes(gen.stdout)
    lib = tmp_path / "libmpireg.so"
    subprocess.run([MPICC, "-O1", "-shared", "-fPIC", "-pthread", *LIB_INCLUDES,
                    "-o", str(lib)] + library_sources(wrappers), check=True)
    env = {"LD_PRELOAD": str(lib)}
    res = subprocess.run([prog("oracle.preload")], env=dict(os.environ, **env), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert res.returncode != 0
    assert "subarray(C): integers[1]" in res.stderr, res.stderr[-3000:]


def test_lazy_predefined_fill():
    check_ok(run([prog("lazyinit")]), "lazyinit")


def test_sessions():
    """An MPI-4 sessions program gets its types recorded; an MPI-3 library
    (asked at run time) has no sessions."""
    res = run([prog("sessions")])
    m = re.search(r"sessions: none in MPI (\d+)\.\d+", res.stdout)
    if m:
        assert res.returncode == 0 and int(m.group(1)) < 4, res.stdout + res.stderr
    else:
        check_ok(res, "sessions")
