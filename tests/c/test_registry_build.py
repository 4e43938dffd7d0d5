"""The library as built: exported symbols, a statically initialised root that
survives strip --strip-debug, -fvisibility=hidden, the static archive, the
wrapper generator (one spec line = one wrapper) and memory per record."""
import os
import re
import struct
import subprocess
import sys

import pytest

from gdbrun import MPICC

from mpireg_testutil import BUILD, LIB, LIB_INCLUDES, ROOT, check_ok, library_sources, prog, run

SPEC = os.path.join(ROOT, "libmpireg", "registry", "wrappers.spec")
COMM_SPEC = os.path.join(ROOT, "libmpireg", "context", "comm.spec")
GEN = os.path.join(ROOT, "libmpireg", "genwrappers.py")
MAGIC = struct.pack("<Q", 0x3147455249504D6D)


sys.path.insert(0, os.path.dirname(GEN))
import genwrappers  # noqa: E402


def spec_rows(paths=(SPEC,)):
    return sum((genwrappers.read_rows(path, set()) for path in paths), [])


def spec_functions():
    return [name for name, _, _, _ in spec_rows()]


def declared():
    """The functions the mpi.h of this build declares."""
    with open(os.path.join(BUILD, "mpi.i")) as f:
        return genwrappers.declared_functions(f.read())


# the tables gdb reads: datatypes, communication context, MPI-IO, groups and
# windows, channel counters
ROOTS = ("mpireg_root", "mpireg_comm_root", "mpireg_io_root", "mpireg_obj_root",
         "mpireg_chan_root")
# exported for their type in the debug information (gdb's $mpi_call)
DEBUG_TYPES = ("mpireg_mpi_call_type",)
READ_API = ("mpireg_lookup", "mpireg_datatypes", "mpireg_addresses", "mpireg_large_counts",
            "mpireg_integers", "mpireg_name", "mpireg_foreach")


def dynsyms(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    return {l.split()[-1]: l.split()[-2] for l in out.splitlines() if l.strip()}


def check_exports(path):
    syms = dynsyms(path)
    for root in ROOTS:
        assert syms.get(root) in ("D", "B"), (root, syms.get(root))
    for f in READ_API:
        assert syms.get(f) == "T", f
    for name in DEBUG_TYPES:
        assert name in syms, name
    have = declared()
    for name, params, hooks, lineno in spec_rows((SPEC, COMM_SPEC)):
        if "P" + name in have:
            assert syms.get(name) == "T", "wrapper %s not exported" % name
            check_fortran_entries(syms, name, params, hooks, lineno)
        else:  # e.g. the MPI-4 large-count functions of an MPI-3 library (Open MPI 4.1)
            assert name not in syms, "wrapper for %s, which mpi.h lacks" % name
    internal = [s for s in syms if s.startswith("mpireg_") and
                s not in ROOTS + READ_API + DEBUG_TYPES]
    assert internal == []


def check_fortran_entries(syms, name, params, hooks, lineno):
    """The Fortran entries of a row, under every compiler's name and Open
    MPI's ompi_NAME_f (use mpi_f08): those marked fortran() run its recipe;
    the others record and replay need tell when they go unseen; under
    MPICH, those without a choice buffer also have MPICH's use mpi_f08
    name."""
    names = genwrappers.fortran_names(name)
    marked = any(hook == "fortran" for hook, _ in hooks)
    needed = not name.endswith("_c") and \
        genwrappers.RowCode(name, params, hooks, lineno).rr.needed
    for fortran in names:
        assert (syms.get(fortran) == "T") == (marked or needed), fortran
    f08 = "mpi_%s_f08_" % name[len("MPI_"):].lower()
    has_f08 = MPICC.endswith("mpich") and (marked or needed) and \
        genwrappers.has_mpich_f08_entry(params)
    assert (syms.get(f08) == "T") == has_f08, f08


def test_exports():
    check_exports(LIB)
    assert len(spec_functions()) >= 36
    assert len([n for n in spec_functions() if "P" + n in declared()]) >= 20


def test_root_survives_strip(tmp_path):
    stripped = tmp_path / "libmpireg.so"
    subprocess.run(["strip", "--strip-debug", "-o", str(stripped), LIB], check=True)
    assert "debug_info" not in subprocess.run(["readelf", "-S", str(stripped)], stdout=subprocess.PIPE,
                                              universal_newlines=True).stdout
    # the root is found through the dynamic symbol table and holds its magic
    # number in the file image (statically initialised, in .data)
    out = subprocess.run(["readelf", "-W", "--dyn-syms", str(stripped)], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    m = re.search(r"\s([0-9a-f]+)\s+(\d+)\s+OBJECT\s+GLOBAL\s+DEFAULT\s+\d+\s+mpireg_root$", out, re.M)
    assert m, out
    vaddr, size = int(m.group(1), 16), int(m.group(2))
    sections = subprocess.run(["readelf", "-W", "-S", str(stripped)], stdout=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout
    data = stripped.read_bytes()
    for line in sections.splitlines():
        f = re.search(r"\]\s+(\.\S+)\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if f and int(f.group(2), 16) <= vaddr < int(f.group(2), 16) + int(f.group(4), 16):
            off = int(f.group(3), 16) + vaddr - int(f.group(2), 16)
            assert data[off:off + 8] == MAGIC
            version, root_size = struct.unpack("<II", data[off + 8:off + 16])
            assert version == 2 and root_size == size
            break
    else:
        pytest.fail("mpireg_root not in a PROGBITS section")
    # and the stripped library works when preloaded
    res = subprocess.run([prog("oracle.preload")], env=dict(os.environ, LD_PRELOAD=str(stripped)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert "oracle: OK (0 failures)" in res.stdout, res.stderr[-3000:]


def test_hidden_visibility_build(tmp_path):
    lib = tmp_path / "libmpireg.so"
    subprocess.run([MPICC, "-O2", "-fvisibility=hidden", "-shared", "-fPIC", "-pthread",
                    *LIB_INCLUDES, "-o", str(lib)] + library_sources(),
                   check=True)
    check_exports(str(lib))


def test_static_archive(tmp_path):
    exe = tmp_path / "oracle_static"
    subprocess.run([MPICC, "-O1", "-pthread", *LIB_INCLUDES, "-o", str(exe),
                    os.path.join(ROOT, "tests", "c", "oracle.c"), os.path.join(BUILD, "libmpireg.a")],
                   check=True)
    assert "libmpireg" not in subprocess.run(["ldd", str(exe)], stdout=subprocess.PIPE,
                                             universal_newlines=True).stdout
    check_ok(run([str(exe)]), "oracle")


def test_pkgconfig():
    pc = open(os.path.join(BUILD, "mpireg.pc")).read()
    assert "@" not in pc and re.search(r"^libdir=/", pc, re.M)
    assert "-lmpireg" in pc


def generate(tmp_path, rows):
    spec = tmp_path / "t.spec"
    spec.write_text("# test\n" + "\n".join(rows) + "\n")
    return subprocess.run(["/usr/bin/python3", GEN, str(spec)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def test_generator_one_line_one_wrapper(tmp_path):
    row = ("MPI_Type_create_hvector | int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, "
           "MPI_Datatype *newtype | create(newtype, HVECTOR) I(count, blocklength) A(stride) D(oldtype)")
    res = generate(tmp_path, [row])
    assert res.returncode == 0, res.stderr
    c = res.stdout
    # volatile parameters: gdb shows them while MPI runs (a top-level
    # qualifier, so the definition still matches mpi.h's prototype)
    assert ("int MPI_Type_create_hvector(int volatile count, int volatile blocklength, "
            "MPI_Aint volatile stride") in c
    assert "PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype)" in c
    assert "MPI_COMBINER_HVECTOR" in c and "__builtin_return_address(0)" in c
    assert c.count("MPIREG_EXPORT int ") == 1
    # it compiles against mpi.h (prototype checked by the compiler)
    (tmp_path / "w.c").write_text(c)
    subprocess.run([MPICC, "-c", "-Wall", "-Werror", *LIB_INCLUDES,
                    "-o", str(tmp_path / "w.o"), str(tmp_path / "w.c")], check=True)


def test_generator_rejects_prototype_mismatch(tmp_path):
    row = "MPI_Type_dup | MPI_Datatype oldtype, MPI_Aint *newtype | create(newtype, DUP) D(oldtype)"
    res = generate(tmp_path, [row])
    assert res.returncode == 0
    (tmp_path / "w.c").write_text(res.stdout)
    cc = subprocess.run([MPICC, "-c", *LIB_INCLUDES, "-o", str(tmp_path / "w.o"),
                         str(tmp_path / "w.c")], stderr=subprocess.PIPE, universal_newlines=True)
    assert cc.returncode != 0 and "conflicting types" in cc.stderr


@pytest.mark.parametrize("row,msg", [
    ("MPI_Type_dup | MPI_Datatype oldtype, MPI_Datatype *newtype | frobnicate(newtype)", "unknown hook"),
    ("MPI_Type_dup | MPI_Datatype oldtype, MPI_Datatype *newtype | D(oldtype)", "without create"),
    ("MPI_Type_dup | MPI_Datatype oldtype", "expected NAME | PARAMETERS | RECIPE"),
    ("MPI_Type_commit | MPI_Datatype *datatype | commit(datatype, x)", "takes 1 arguments"),
])
def test_generator_errors(tmp_path, row, msg):
    res = generate(tmp_path, [row])
    assert res.returncode == 1 and msg in res.stderr, res.stderr


def test_record_size():
    res = run([prog("recsize")])
    check_ok(res, "recsize")
    sizes = {m.group(1): int(m.group(2))
             for m in re.finditer(r"RECSIZE (\w+) bytes=(\d+)", res.stdout)}
    # one pool block: the 72-byte record, then its argument arrays
    assert sizes["vector"] == 72 + 8 + 3 * 4
    assert sizes["struct100"] == 72 + 100 * 8 + 100 * 8 + 101 * 4
    print(res.stdout)


def test_core_file_with_stripped_library(tmp_path):
    """A core file of a process with the strip --strip-debug'ed library
    preloaded: gdb finds mpireg_root through .dynsym and reads the root."""
    lib = tmp_path / "libmpireg.so"
    subprocess.run(["strip", "--strip-debug", "-o", str(lib), LIB], check=True)
    core = tmp_path / "core"
    exe = prog("oracle.preload")
    subprocess.run(["gdb", "-nx", "-batch", "-ex", "set startup-with-shell off", "-ex", "set breakpoint pending on",
                    "-ex", "set environment LD_PRELOAD=%s" % lib, "-ex", "break PMPI_Finalize", "-ex", "run",
                    "-ex", "gcore %s" % core, "-ex", "kill", exe],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, check=True)
    assert core.exists()
    out = subprocess.run(["gdb", "-nx", "-batch",
                          "-ex", "print/x ((unsigned long *)&mpireg_root)[0]",   # magic
                          "-ex", "print ((unsigned long *)&mpireg_root)[2]",     # seq
                          "-ex", "print ((unsigned int *)&mpireg_root)[9]",      # types.count
                          exe, str(core)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=60).stdout
    values = re.findall(r"^\$\d+ = (\S+)$", out, re.M)
    assert values[0] == "0x3147455249504d6d", out
    assert int(values[1]) % 2 == 0, out
    assert int(values[2]) == 3, out  # the three f90 types oracle leaves alive


def test_seq_is_odd_inside_an_update():
    """Stopped inside an update (resolving a child while inserting a record),
    a reader sees an odd root.seq."""
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "set breakpoint pending on",
                          "-ex", "break mpireg_predefined_find if mpireg_root.seq > 0", "-ex", "run",
                          "-ex", "print mpireg_root.seq", "-ex", 'print $_any_caller_is("mpireg_publish", 5)',
                          "-ex", "kill", prog("recsize")],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                         timeout=60).stdout
    values = re.findall(r"^\$\d+ = (\S+)$", out, re.M)
    assert len(values) == 2, out
    assert int(values[0]) % 2 == 1 and values[1] == "1", out
