"""The program's MPI, found from what it loads (text/program_mpi.py), on
programs and libraries built here: a chain of libraries found through
RUNPATH/$ORIGIN, RPATH and LD_LIBRARY_PATH, a program found on PATH, a
script's #! interpreter and a python3 whose module path holds a compiled
mpi4py module.  No gdb, no MPI run; the libraries are named as the MPIs
name theirs (what the table decides on), built empty by gcc."""

import os
import random
import subprocess

import pytest

from mpipp.text import program_mpi as pm
from mpipp.text.program_mpi import Finding, MpiMismatch, choose, library_mpi, program_mpi


def gcc(*args):
    subprocess.run(["gcc", "-o"] + [str(a) for a in args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def shared(path, soname, *links):
    """An empty shared library at path, NEEDED every library of links."""
    source = path.parent / ("%s.c" % path.name.replace(".", "_"))
    source.write_text("int %s_symbol;\n" % path.name.replace(".", "_").replace("-", "_"))
    gcc(path, "-shared", "-fPIC", "-Wl,-soname," + soname, "-Wl,--no-as-needed", source, *links)
    return path


def program(path, *links):
    source = path.parent / "main.c"
    source.write_text("int main(void) { return 0; }\n")
    gcc(path, source, "-Wl,--no-as-needed", *links)
    return path


@pytest.fixture
def chain(tmp_path):
    """bin/app -> lib/libmiddle.so.1 (RUNPATH $ORIGIN) -> mpi/libmpi.so.40
    (RUNPATH $ORIGIN/../mpi): Open MPI two steps away."""
    for d in ("bin", "lib", "mpi"):
        (tmp_path / d).mkdir()
    mpi = shared(tmp_path / "mpi" / "libmpi.so.40", "libmpi.so.40")
    middle = shared(tmp_path / "lib" / "libmiddle.so.1", "libmiddle.so.1", mpi,
                    "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../mpi")
    app = program(tmp_path / "bin" / "app", middle, "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib")
    return tmp_path, app


def test_the_table_names_both_mpis_libraries():
    assert [library_mpi(n) for n in ("libmpich.so.12", "libmpichfort.so.12", "libmpi.so.12",
                                     "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.5",
                                     "libmpi_mpifh.so.40", "libmpi_usempif08.so.40",
                                     "libopen-pal.so.40", "libmpi.so", "libc.so.6",
                                     "libmpireg.so")] == \
        ["mpich", "mpich", "mpich", "openmpi", "openmpi", "openmpi", "openmpi", None, None, None]


def test_a_library_two_steps_away_through_runpath_and_origin(chain):
    _root, app = chain
    found = program_mpi(str(app), env={"PATH": ""})
    assert (found.mpi, found.path) == ("openmpi", ("app", "libmiddle.so.1", "libmpi.so.40"))
    assert found.describe() == "app uses Open MPI (app -> libmiddle.so.1 -> libmpi.so.40)"


def test_a_program_found_on_path_by_its_name(chain):
    root, _app = chain
    assert program_mpi("app", env={"PATH": "/nonexistent:%s" % (root / "bin")}).mpi == "openmpi"
    assert program_mpi("app", env={"PATH": "/nonexistent"}) is None


def test_rpath_and_ld_library_path_are_searched(tmp_path):
    """app -> libone.so.1 -> libtwo.so.1 -> libmpich.so.12, the two middle
    libraries without paths of their own: the program's old-style RPATH
    finds both (the loader uses it for every library when no RUNPATH is
    set); without it, only LD_LIBRARY_PATH does."""
    (tmp_path / "a").mkdir()
    mpich = shared(tmp_path / "a" / "libmpich.so.12", "libmpich.so.12")
    two = shared(tmp_path / "a" / "libtwo.so.1", "libtwo.so.1", mpich)
    one = shared(tmp_path / "a" / "libone.so.1", "libone.so.1", two)
    app = program(tmp_path / "app", one, "-Wl,--disable-new-dtags,-rpath," + str(tmp_path / "a"))
    assert program_mpi(str(app), env={}).path == ("app", "libone.so.1", "libtwo.so.1",
                                                  "libmpich.so.12")
    bare = program(tmp_path / "bare", one)
    assert program_mpi(str(bare), env={}) is None
    assert program_mpi(str(bare), env={"LD_LIBRARY_PATH": str(tmp_path / "a")}).mpi == "mpich"


def test_a_bare_library_name_is_decided_by_the_file_it_resolves_to(tmp_path):
    shared(tmp_path / "libmpi.so.40.30.5", "libmpi.so")
    os.symlink("libmpi.so.40.30.5", tmp_path / "libmpi.so")
    app = program(tmp_path / "app", tmp_path / "libmpi.so",
                  "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
    assert program_mpi(str(app), env={}).mpi == "openmpi"


def test_no_mpi_anywhere_is_none(tmp_path):
    assert program_mpi(str(program(tmp_path / "app")), env={}) is None
    assert program_mpi("/nonexistent/app", env={}) is None


def fake_python(tmp_path, mpi_library, soname):
    """A python3 (a script answering the module path query) whose module
    path holds mpi4py/MPI.cpython-311-x86_64-linux-gnu.so linking mpi_library."""
    site = tmp_path / "site"
    (site / "mpi4py").mkdir(parents=True)
    (tmp_path / "mpi").mkdir()
    mpi = shared(tmp_path / "mpi" / mpi_library, soname)
    shared(site / "mpi4py" / "MPI.cpython-311-x86_64-linux-gnu.so", "MPI.so", mpi,
           "-Wl,--enable-new-dtags,-rpath," + str(tmp_path / "mpi"))
    (tmp_path / "bin").mkdir()
    python = tmp_path / "bin" / "python3"
    python.write_text("#!/bin/sh\necho /nonexistent\necho %s\n" % site)
    python.chmod(0o755)
    return python


def test_python_is_decided_by_the_mpi4py_module_of_its_module_path(tmp_path):
    python = fake_python(tmp_path, "libmpich.so.12", "libmpich.so.12")
    env = {"PATH": str(python.parent)}
    found = program_mpi("python3", env=env)
    assert found.path == ("python3", "mpi4py/MPI.cpython-311-x86_64-linux-gnu.so",
                          "libmpich.so.12")
    assert found.mpi == "mpich"
    # a script whose #! names it, through env
    script = tmp_path / "prog.py"
    script.write_text("#!/usr/bin/env python3\nfrom mpi4py import MPI\n")
    script.chmod(0o755)
    assert program_mpi(str(script), env=env).mpi == "mpich"


def test_an_interpreters_mpi4py_is_a_default_never_a_mismatch(tmp_path, capsys, monkeypatch):
    """python3 SCRIPT: the script may never import mpi4py, so the MPI its
    mpi4py links only fills in a missing --mpi; --mpi openmpi stands."""
    python = fake_python(tmp_path, "libmpich.so.12", "libmpich.so.12")
    env = {"PATH": str(python.parent)}
    found = program_mpi("python3", env=env)
    assert (found.mpi, found.weak) == ("mpich", True)
    assert choose(None, found, fallback="openmpi") == "mpich"
    assert choose("openmpi", found) == "openmpi"
    monkeypatch.setenv("PATH", str(python.parent))
    monkeypatch.delenv("MPIPP_MPI", raising=False)
    assert pm.main(["--mpi", "openmpi", "python3"]) == 0
    assert capsys.readouterr().out == "openmpi\n"
    # a compiled program's own MPI is no guess
    assert not Finding("openmpi", ("lmp", "libmpi.so.40")).weak


def test_only_an_interpreter_is_ever_run(tmp_path):
    """A program merely named like one (python_app, python3-tool) is read,
    not asked for a module path: it would run."""
    for name in ("python_app", "python3-tool", "mypython3"):
        witness = tmp_path / (name + ".ran")
        (tmp_path / name).write_text("#!/bin/sh\ntouch %s\n" % witness)
        (tmp_path / name).chmod(0o755)
        assert program_mpi(str(tmp_path / name), env={}) is None
        assert not witness.exists(), name


def test_a_python_without_mpi4py_decides_nothing(tmp_path):
    (tmp_path / "python3").write_text("#!/bin/sh\necho %s\n" % tmp_path)
    (tmp_path / "python3").chmod(0o755)
    assert program_mpi(str(tmp_path / "python3"), env={}) is None


def test_the_launcher_by_its_name_or_what_it_links(tmp_path):
    os.symlink("/bin/true", tmp_path / "mpiexec.hydra")
    os.symlink("mpiexec.hydra", tmp_path / "mpiexec")
    assert pm.launcher_mpi("mpiexec", {"PATH": str(tmp_path)}).mpi == "mpich"
    (tmp_path / "lib").mkdir()
    rte = shared(tmp_path / "lib" / "libopen-rte.so.40", "libopen-rte.so.40")
    program(tmp_path / "mpirun", rte, "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib")
    assert pm.launcher_mpi(str(tmp_path / "mpirun"), {}).mpi == "openmpi"


def test_a_process_by_the_libraries_it_maps():
    # this interpreter maps no MPI, and is no launcher
    assert pm.process_mpi(os.getpid()) is None
    assert pm.process_mpi(2 ** 22 + 1) is None


def test_choose_precedence_and_mismatch(tmp_path):
    openmpi = Finding("openmpi", ("lmp", "liblammps.so.0", "libmpi.so.40"))
    assert choose(None, openmpi, fallback="mpich") == "openmpi"
    assert choose("openmpi", openmpi) == "openmpi"
    with pytest.raises(MpiMismatch) as err:
        choose("mpich", openmpi)
    assert str(err.value) == ("--mpi mpich, but lmp uses Open MPI (lmp -> liblammps.so.0 -> "
                              "libmpi.so.40): leave out --mpi, or say --mpi openmpi")
    assert choose("mpich", None) == "mpich"
    os.symlink("/bin/true", tmp_path / "orterun")
    os.symlink("orterun", tmp_path / "mpiexec")
    launcher = str(tmp_path / "mpiexec")
    # nothing found: --mpiexec's MPI, then $MPIPP_MPI, then mpiexec's on PATH, then mpich
    assert choose(None, None, launcher, "mpich") == "openmpi"
    assert choose(None, None, None, "mpich", env={"PATH": str(tmp_path)}) == "mpich"
    assert choose(None, None, None, None, env={"PATH": str(tmp_path)}) == "openmpi"
    assert choose(None, None, None, None, env={"PATH": ""}) == "mpich"


def test_main_prints_the_mpi_or_the_mismatch(chain, capsys, monkeypatch):
    _root, app = chain
    monkeypatch.delenv("MPIPP_MPI", raising=False)
    assert pm.main([str(app)]) == 0
    assert capsys.readouterr().out == "openmpi\n"
    assert pm.main(["--mpi", "mpich", str(app)]) == 2
    assert capsys.readouterr().err.startswith("mpipp-gdb: --mpi mpich, but app uses Open MPI")
    assert pm.main(["--mpi", "lam"]) == 2
    assert "--mpi must be one of mpich, openmpi" in capsys.readouterr().err


def test_damaged_elf_files_never_raise(chain):
    """read_elf reads untrusted files: truncated or bit-flipped copies of a
    real program give an Elf or None, never an exception, and the search
    through them ends."""
    _root, app = chain
    data = (app.parent.parent / "lib" / "libmiddle.so.1").read_bytes()
    rng = random.Random(28)
    damaged = app.parent / "damaged"
    for turn in range(300):
        copy = bytearray(data[:rng.randrange(len(data))] if turn % 3 == 0 else data)
        for _ in range(rng.randrange(1, 8)):
            at = rng.randrange(min(len(copy), 4096)) if copy else 0
            if copy:
                copy[at] = rng.randrange(256)
        damaged.write_bytes(bytes(copy))
        elf = pm.read_elf(str(damaged))
        if elf is not None:
            pm.Loader({}, cache={}).find(elf, "damaged")
    assert pm.read_elf(str(app)).needed[0] == "libmiddle.so.1"


def test_the_loader_cache_is_read_from_its_file(tmp_path):
    cache = pm.ld_so_cache()
    libc = [p for p in cache.get("libc.so.6", ()) if os.path.exists(p)]
    assert libc and all(os.path.basename(p) == "libc.so.6" for p in libc)
    (tmp_path / "cache").write_bytes(b"garbage" * 10)
    assert pm.ld_so_cache(str(tmp_path / "cache")) == {}
    assert pm.ld_so_cache(str(tmp_path / "none")) == {}


def test_nothing_is_run_but_the_interpreter(chain, monkeypatch):
    """An ELF program is only read, never run: subprocess is not touched."""
    _root, app = chain
    monkeypatch.setattr(pm.subprocess, "run", lambda *a, **k: pytest.fail("ran %r" % (a,)))
    assert program_mpi(str(app), env={}).mpi == "openmpi"
