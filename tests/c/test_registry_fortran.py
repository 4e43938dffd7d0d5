"""Types built from Fortran (use mpi and mpif.h) reach libmpireg through its
Fortran entry points (mpi_type_vector_ ...), whether the MPI's Fortran
bindings call the C MPI_Type_* symbols (MPICH) or PMPI_ directly (Open MPI).
The unmodified mpif90 program runs with LD_PRELOAD and MPIREG_DUMP; the
dump must describe the types the program built, each found by its creation
site, which must be the return address of the program's own Fortran call
(Open MPI's Fortran handles are table indices, not the C handles the
registry is keyed by, so handles cannot identify them).  The MPI constants
come from the program (they differ: MPI_COMBINER_VECTOR is 4 in MPICH, 3 in
Open MPI)."""
import os
import re
import subprocess

import pytest

from gdbrun import MPIF90

from mpireg_testutil import ROOT, prog, run

SOURCE = os.path.join(ROOT, "tests", "c", "ftypes.f90")
# type -> the Fortran function called to build it (mpif.h / use mpi, gfortran's names)
CALLS = {"fvec": "mpi_type_vector_", "fstruct": "mpi_type_create_struct_",
         "fsub": "mpi_type_create_subarray_", "fres": "mpi_type_create_resized_",
         "ff90": "mpi_type_create_f90_real_", "fhv": "mpi_type_create_hvector_",
         "fidx": "mpi_type_indexed_", "fcont": "mpi_type_contiguous_"}


def return_sites(exe):
    """{offset of the instruction after a call: the function called} in exe:
    a creation site is the return address of the program's own call."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], stdout=subprocess.PIPE,
                          universal_newlines=True, check=True).stdout
    sites, pending = {}, None
    for line in text.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if not m:
            continue
        if pending:
            sites[int(m.group(1), 16)] = pending
            pending = None
        call = re.search(r"<(\w+)@plt>", m.group(3)) if m.group(2) == "call" else None
        pending = call and call.group(1)
    return sites


def by_call(recs, exe):
    """{name in CALLS: record}, through the records' creation sites."""
    sites = return_sites(exe)
    found = {}
    for r in recs.values():
        path, _, off = r["site"].rpartition("+")
        called = sites.get(int(off, 16)) if os.path.basename(path) == os.path.basename(exe) else None
        names = [n for n, f in CALLS.items() if f == called]
        if names:
            assert names[0] not in found, "two records created by %s calls" % called
            found[names[0]] = r
    return found


def constants(stdout):
    """The MPI's own values of the constants the dump shows as numbers."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"CONST (\w+) (-?\d+)", stdout)}


def parse_dump(text):
    head = re.search(r"mpireg live_records=(\d+) seq=(\d+)", text)
    assert head, text
    recs = {}
    for line in text.splitlines():
        if line.startswith("record "):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            recs[int(f["handle"], 16)] = f
    return int(head.group(1)), int(head.group(2)), recs


def check_records(recs, exe, const):
    by_serial = {int(r["serial"]): r for r in recs.values()}
    found = by_call(recs, exe)
    assert sorted(found) == sorted(CALLS), found.keys()

    def rec(name, combiner):
        r = found[name]
        assert int(r["combiner"]) == const[combiner], r
        return r

    r = rec("fvec", "VECTOR")
    assert (r["I"], r["D"], r["name"], r["flags"]) == ("3,2,5", "MPI_DOUBLE_PRECISION", "fvec", "9")  # COMMITTED | NAMED
    r = rec("fstruct", "STRUCT")
    assert (r["I"], r["A"], r["name"]) == ("2,1,2", "0,16", "fstruct")
    child, real = r["D"].split(",")
    assert real == "MPI_REAL"
    base = by_serial[int(child.lstrip("#"))]
    assert base is rec("fcont", "CONTIGUOUS") and base["I"] == "4"
    assert (base["flags"], base["user_refs"], base["parent_refs"]) == ("2", "0", "1")  # FREED
    r = rec("fsub", "SUBARRAY")
    assert (r["I"], r["D"]) == ("2,10,20,2,3,1,4,%d" % const["MPI_ORDER_FORTRAN"], "MPI_REAL")
    r = rec("fres", "RESIZED")
    assert r["A"] == "-8,64" and r["lb"] == "-8" and r["extent"] == "64"
    assert by_serial[int(r["D"].lstrip("#"))] is found["fvec"]
    r = rec("ff90", "F90_REAL")
    assert r["I"] == "10,100"
    r = rec("fhv", "HVECTOR")
    assert (r["I"], r["A"], r["D"]) == ("2,1", "24", "MPI_INTEGER")
    r = rec("fidx", "INDEXED")
    assert (r["I"], r["D"], r["flags"]) == ("3,1,0,2,0,3,7", "MPI_INTEGER", "1")


@pytest.mark.parametrize("nprocs", [None, 2], ids=["1rank", "2ranks"])
def test_fortran_types(tmp_path, nprocs):
    dump = tmp_path / "dump.%p"
    res = run([prog("ftypes")], nprocs=nprocs, preload=True, env={"MPIREG_DUMP": str(dump)})
    assert res.returncode == 0, res.stdout + res.stderr
    const = constants(res.stdout)
    files = sorted(tmp_path.glob("dump.*"))
    assert len(files) == (nprocs or 1)
    for f in files:
        live, seq, recs = parse_dump(f.read_text())
        assert seq % 2 == 0
        # 7 live types + the freed contiguous kept alive by the struct
        assert live == 8 == len(recs)
        check_records(recs, prog("ftypes"), const)


def test_fortran_linked(tmp_path):
    """The same program linked with libmpireg (no LD_PRELOAD), using the
    link flags of mpireg.pc (--no-as-needed: with an MPI whose Fortran
    bindings call the C functions, the program itself references no
    libmpireg symbol, and Debian's toolchain links --as-needed)."""
    from mpireg_testutil import BUILD
    pc = open(os.path.join(BUILD, "mpireg.pc")).read()
    libs = re.search(r"^Libs: (.*)$", pc, re.M).group(1).replace("${libdir}", BUILD).split()
    assert "-lmpireg" in libs and not any(a.startswith("-L") and a != "-L" + BUILD for a in libs)
    exe = tmp_path / "ftypes_linked"
    subprocess.run([MPIF90, "-g", "-o", str(exe), SOURCE] + libs + ["-Wl,-rpath," + BUILD], check=True)
    needed = subprocess.run(["readelf", "-d", str(exe)], stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert "libmpireg.so" in needed
    dump = tmp_path / "dump.txt"
    res = run([str(exe)], env={"MPIREG_DUMP": str(dump)})
    assert res.returncode == 0, res.stdout + res.stderr
    live, seq, recs = parse_dump(dump.read_text())
    assert live == 8 and seq % 2 == 0
    check_records(recs, str(exe), constants(res.stdout))
