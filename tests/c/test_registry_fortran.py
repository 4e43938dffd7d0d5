"""Types built from Fortran (use mpi and mpif.h) reach libmpireg: MPICH's
Fortran bindings call the C MPI_Type_* symbols.  The unmodified mpif90
program runs with LD_PRELOAD and MPIREG_DUMP; the dump must describe the
types the program printed."""
import os
import re
import subprocess

import pytest

from gdbrun import MPIF90

from mpireg_testutil import ROOT, prog, run

SOURCE = os.path.join(ROOT, "tests", "c", "ftypes.f90")
CALLS = {"fvec": "call MPI_Type_vector(", "fstruct": "call MPI_Type_create_struct(",
         "fsub": "call MPI_Type_create_subarray(", "fres": "call MPI_Type_create_resized(",
         "ff90": "call MPI_Type_create_f90_real(", "fhv": "call MPI_TYPE_CREATE_HVECTOR(",
         "fidx": "call MPI_TYPE_INDEXED("}


def source_line(text):
    for n, line in enumerate(open(SOURCE), 1):
        if text in line:
            return n
    raise AssertionError(text)


def site_line(site):
    """file:line of a dumped creation site (file+offset of a return address)."""
    path, off = site.rsplit("+", 1)
    out = subprocess.run(["addr2line", "-e", path, hex(int(off, 16) - 1)], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout.strip()
    return out.rsplit("/", 1)[-1]

COMBINER = {"VECTOR": 4, "CONTIGUOUS": 3, "HVECTOR": 6, "INDEXED": 7, "STRUCT": 12,
            "SUBARRAY": 13, "F90_REAL": 15, "RESIZED": 18}


def parse_dump(text):
    head = re.search(r"mpireg live_records=(\d+) seq=(\d+)", text)
    assert head, text
    recs = {}
    for line in text.splitlines():
        if line.startswith("record "):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            recs[int(f["handle"], 16)] = f
    return int(head.group(1)), int(head.group(2)), recs


@pytest.mark.parametrize("nprocs", [None, 2], ids=["1rank", "2ranks"])
def test_fortran_types(tmp_path, nprocs):
    dump = tmp_path / "dump.%p"
    res = run([prog("ftypes")], nprocs=nprocs, preload=True, env={"MPIREG_DUMP": str(dump)})
    assert res.returncode == 0, res.stdout + res.stderr
    handles = {m.group(1): int(m.group(2)) & 0xffffffff
               for m in re.finditer(r"HANDLE (\w+) (-?\d+)", res.stdout)}
    assert len(handles) == 7, res.stdout
    files = sorted(tmp_path.glob("dump.*"))
    assert len(files) == (nprocs or 1)
    for f in files:
        live, seq, recs = parse_dump(f.read_text())
        assert seq % 2 == 0
        # 7 live types + the freed contiguous kept alive by the struct
        assert live == 8 == len(recs)
        by_serial = {int(r["serial"]): r for r in recs.values()}

        def rec(name, combiner):
            r = recs.get(handles[name])
            assert r, "%s (0x%x) not in the registry" % (name, handles[name])
            assert int(r["combiner"]) == COMBINER[combiner], r
            return r

        r = rec("fvec", "VECTOR")
        assert (r["I"], r["D"], r["name"], r["flags"]) == ("3,2,5", "MPI_DOUBLE_PRECISION", "fvec", "9")  # COMMITTED | NAMED
        r = rec("fstruct", "STRUCT")
        assert (r["I"], r["A"], r["name"]) == ("2,1,2", "0,16", "fstruct")
        child, real = r["D"].split(",")
        assert real == "MPI_REAL"
        base = by_serial[int(child.lstrip("#"))]
        assert int(base["combiner"]) == COMBINER["CONTIGUOUS"] and base["I"] == "4"
        assert (base["flags"], base["user_refs"], base["parent_refs"]) == ("2", "0", "1")  # FREED
        r = rec("fsub", "SUBARRAY")
        assert (r["I"], r["D"]) == ("2,10,20,2,3,1,4,57", "MPI_REAL")
        r = rec("fres", "RESIZED")
        assert r["A"] == "-8,64" and r["lb"] == "-8" and r["extent"] == "64"
        assert by_serial[int(r["D"].lstrip("#"))] is recs[handles["fvec"]]
        r = rec("ff90", "F90_REAL")
        assert r["I"] == "10,100"
        r = rec("fhv", "HVECTOR")
        assert (r["I"], r["A"], r["D"]) == ("2,1", "24", "MPI_INTEGER")
        r = rec("fidx", "INDEXED")
        assert (r["I"], r["D"], r["flags"]) == ("3,1,0,2,0,3,7", "MPI_INTEGER", "1")
        # creation sites are the Fortran calls, not MPI's binding layer
        for name, call in CALLS.items():
            assert site_line(recs[handles[name]]["site"]) == "ftypes.f90:%d" % source_line(call), name


def test_fortran_linked(tmp_path):
    """The same program linked with libmpireg (no LD_PRELOAD), using the
    link flags of mpireg.pc: the program references no libmpireg symbol itself
    (its calls reach MPI_Type_* from libmpichfort), so the library must be
    linked --no-as-needed (Debian's toolchain links --as-needed)."""
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
    handles = {m.group(1): int(m.group(2)) & 0xffffffff
               for m in re.finditer(r"HANDLE (\w+) (-?\d+)", res.stdout)}
    live, seq, recs = parse_dump(dump.read_text())
    assert live == 8 and seq % 2 == 0
    assert recs[handles["fvec"]]["name"] == "fvec"
    assert recs[handles["fsub"]]["I"] == "2,10,20,2,3,1,4,57"
    for name, call in CALLS.items():
        path, off = recs[handles[name]]["site"].rsplit("+", 1)
        out = subprocess.run(["addr2line", "-e", path, hex(int(off, 16) - 1)], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout.strip()
        assert out.endswith("ftypes.f90:%d" % source_line(call)), (name, out)
