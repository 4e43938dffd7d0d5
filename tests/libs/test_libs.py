"""MPI calls made by real libraries without debug information, seen from
the program's gdb: Debian's ScaLAPACK/BLACS and parallel HDF5 (both MPIs)
and PETSc (Open MPI), driven by testprogs/libs/*.c on 2 ranks, one gdb
session per rank and library.

Stopped inside each library's own MPI call: the backtrace shows the call's
arguments (frame decorator), $mpi_call holds them with their MPI types,
mpipp decodes through them, sites name the library function and the
program's line that led there, communicators, windows and files are named.
"""

import json
import os
import re
import struct
import tempfile

import pytest

import gdbrun

PACKAGES = {"blacs": "libscalapack-%s-dev" % gdbrun.MPI,
            "hdf5": "libhdf5-%s-dev" % gdbrun.MPI, "petsc_sf": "petsc-dev"}


def library_program(name):
    """libs/NAME, or a skip saying which Debian package is missing."""
    if name == "petsc_sf" and gdbrun.MPI != "openmpi":
        pytest.skip("Debian builds PETSc for Open MPI only")
    path = os.path.join("libs", name)
    if not os.path.exists(gdbrun.program(path)):
        pytest.skip("%s is not installed (scripts/install-deps installs it)" % PACKAGES[name])
    return path


def source_line(name, text):
    with open(os.path.join(gdbrun.REPO, "testprogs", "libs", name)) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(text)


def run(name, commands, stop, setup=(), env=None):
    """Each rank's {command: output}: both ranks under gdb, stopped in stop."""
    prog = library_program(name)
    return gdbrun.capture(prog, commands + ["delete"], stop=stop, ranks=2, timeout=300,
                          setup=("set breakpoint pending on",) + tuple(setup),
                          launcher=gdbrun.mpiexec(2, env))


# -- ScaLAPACK / BLACS ---------------------------------------------------------

BLACS = ["bt", "print $mpi_call.datatype", "mpipp $mpi_call.datatype $mpi_call.buf",
         "mpipp $mpi_call.datatype $mpi_call.buffer", "mpipp calls", "mpipp list", "mpipp comms",
         "up", "info frame", "info args", "print datatype", "mpipp info datatype", "continue",
         "bt ", "mpipp  $mpi_call.datatype $mpi_call.buf", "mpipp  calls"]


@pytest.fixture(scope="module")
def blacs():
    # rank 1 stops in Cdgerv2d's MPI_Recv, then in Cdgebr2d's MPI_Bcast;
    # rank 0 (which sends with MPI_Isend of packed bytes) in Cdgebs2d's MPI_Bcast
    return run("blacs", BLACS, "PMPI_Bcast", setup=["break PMPI_Recv"])


def test_blacs_receive_inside_the_library(blacs):
    out = blacs[1]
    lib = "libscalapack-%s.so" % gdbrun.MPI
    assert re.search(r"in MPI_Recv \(buf=0x[0-9a-f]+, count=1, datatype=vector#\d+, source=0, "
                     r"tag=\d+, comm=comm#\d+ \[[^]]*rank 1 of 2\]\)", out["bt"]), out["bt"]
    assert "<optimized out>" not in out["bt"].split("MPI_Recv", 1)[1].split("\n")[0]
    assert out["print $mpi_call.datatype"].split(" = ", 1)[1].startswith(
        "vector(count=4, blocklength=3, stride=5) of MPI_DOUBLE")
    # not received yet: the receive buffer still holds rank 1's -1s
    assert set(l.split(" = ")[1] for l in
               out["mpipp $mpi_call.datatype $mpi_call.buf"].splitlines()) == {"-1"}
    # `up` to the wrapper's own frame, whose arguments survive
    # the PMPI call (volatile parameters), so `info frame`, `info args` and plain
    # `print datatype` work inside a library without debug information
    vector = "vector(count=4, blocklength=3, stride=5) of MPI_DOUBLE"
    assert re.search(r"args: buf=0x[0-9a-f]+ .*, count=1, datatype=%s = \{\.\.\.\}, "
                     r"source=0, tag=\d+, comm=comm#\d+ \[[^]]*rank 1 of 2\], status=0x"
                     % re.escape(vector), out["info frame"]), out["info frame"]
    assert "<optimized out>" not in out["info frame"] + out["info args"], out["info args"]
    assert re.search(r"^count = 1$", out["info args"], re.M), out["info args"]
    assert out["print datatype"].split(" = ", 1)[1].startswith(vector), out["print datatype"]
    assert out["mpipp info datatype"].startswith(vector), out["mpipp info datatype"]
    calls = out["mpipp calls"]
    assert re.search(r"    at BI_Srecv in %s[.\d]*, called from testprogs/libs/blacs.c:%d through "
                     r"Cdgerv2d → BI_Srecv$" % (re.escape(lib), source_line(
                         "blacs.c", "Cdgerv2d(context")), calls, re.M), calls
    assert re.search(r"^0x\w+ +#\d+ +- +VECTOR +96 +144 +BI_GetMpiGeType in %s" % re.escape(lib),
                     out["mpipp list"], re.M), out["mpipp list"]
    comms = out["mpipp comms"]
    # BLACS's communicators: a subset of MPI_COMM_WORLD, its dup and the grid's row
    # and column splits
    assert re.search(r"^0x\w+ +comm#1 +2 +1 +0,1 +subset of MPI_COMM_WORLD$", comms, re.M), comms
    assert re.search(r"comm#\d+ +2 +1 +0,1 +dup of comm#1$", comms, re.M), comms
    assert re.search(r"comm#\d+ +1 +0 +1 +split of comm#1 \(color 1\)$", comms, re.M), comms


def test_blacs_broadcast_from_the_root(blacs):
    root = blacs[0]
    assert re.search(r"in MPI_Bcast \(buffer=0x[0-9a-f]+, count=1, datatype=vector#\d+, root=0, "
                     r"comm=comm#\d+ \[subset of [^]]*, rank 0 of 2\]\)", root["bt"]), root["bt"]
    # the 2 x 2 block of a from row 1, column 1: a(i, j) = 10 i + j
    # MPI_Bcast's buffer is `buffer`, in bt and $mpi_call alike
    values = [l.split(" = ")[1] for l in
              root["mpipp $mpi_call.datatype $mpi_call.buffer"].splitlines()]
    assert values == ["11", "21", "12", "22"]
    assert "called from testprogs/libs/blacs.c:%d through Cdgebs2d" % source_line(
        "blacs.c", "Cdgebs2d(context") in root["mpipp calls"]
    # rank 1, in its broadcast after the receive: the block it received is in place
    out = blacs[1]
    assert "in MPI_Bcast (buffer=0x" in out["bt "]
    assert "called from testprogs/libs/blacs.c:%d through Cdgebr2d" % source_line(
        "blacs.c", "Cdgebr2d(context") in out["mpipp  calls"]


# -- parallel HDF5 --------------------------------------------------------------

HDF5 = ["bt", "mpipp calls -brief", "mpipp -as double $mpi_call.datatype $mpi_call.buf",
        "mpipp -json -as double $mpi_call.datatype $mpi_call.buf", "mpipp view", "mpipp view -json",
        "mpipp file", "mpipp file $mpi_call.fh", "print $mpi_call.fh",
        "mpipp layout $mpi_call.datatype",
        "mpipp layout -as double $mpi_call.datatype", "mpipp list", "continue"]


@pytest.fixture(scope="module")
def hdf5():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "grid.h5")
        outs = run("hdf5", HDF5, "PMPI_File_write_at_all", setup=["set args " + path])
        with open(path, "rb") as f:
            yield outs, path, f.read()


def test_hdf5_collective_write(hdf5):
    outs, path, _data = hdf5
    for rank, out in enumerate(outs):
        assert re.search(r'in MPI_File_write_at_all \(fh=file#\d+ "%s", offset=0, buf=0x[0-9a-f]+, '
                         r"count=1, datatype=resized#\d+, comm=comm#\d+ \[[^]]*rank %d of 2\]\)"
                         % (re.escape(path), rank), out["bt"]), out["bt"]
        assert re.search(r"called from testprogs/libs/hdf5.c:%d through H5Dwrite → " % source_line(
            "hdf5.c", "H5Dwrite("), out["mpipp calls -brief"]), out["mpipp calls -brief"]
        # HDF5's byte-built memory type, read as doubles: the interior of the local array
        lines = out["mpipp -as double $mpi_call.datatype $mpi_call.buf"].splitlines()
        expected = ["[0][%d][%d] = %d" % (i, j, 1000 * rank + 10 * i + j)
                    for i in range(4) for j in range(6)]
        assert lines == expected
        doc = json.loads(out["mpipp -json -as double $mpi_call.datatype $mpi_call.buf"])
        assert [e["value"] for e in doc["elements"][:3]] == [1000 * rank, 1000 * rank + 1,
                                                              1000 * rank + 2]
        assert doc["elements"][0]["type"] == "MPI_DOUBLE"
        assert out["print $mpi_call.fh"].split(" = ", 1)[1].startswith("0x")
        assert out["mpipp file"].startswith('file#')
        assert out["mpipp file $mpi_call.fh"] == out["mpipp file"]


def test_hdf5_view_of_the_current_call(hdf5):
    outs, path, data = hdf5
    for rank, out in enumerate(outs):
        assert "from etype 0 (the offset of the current MPI_File_write_at_all)" in out["mpipp view"]
        doc = json.loads(out["mpipp view -json"])
        assert doc["file"] == path and doc["length"] == 4 * 6 * 8
        # the bytes the view names hold this rank's rows in the file
        (start, length), = doc["bytes"]
        assert list(struct.unpack("<24d", data[start:start + length])) == [
            1000 * rank + 10 * i + j for i in range(4) for j in range(6)]


def test_hdf5_pictures_of_byte_chains(hdf5):
    outs, _path, _data = hdf5
    text = outs[0]["mpipp layout $mpi_call.datatype"]
    assert "... 72 bytes of holes (+0 .. +71; lb at +0) ..." in text, text
    assert "B MPI_BYTE (1 byte)" in text
    doubles = outs[0]["mpipp layout -as double $mpi_call.datatype"]
    assert "|DDDDDD..DDDDDD..DDDDDD..DDDDDD|" in doubles, doubles


# -- PETSc ----------------------------------------------------------------------

PETSC = ["bt 4", "mpipp calls", "mpipp win", "mpipp win $mpi_call.win",
         "print $mpi_call.target_datatype",
         "break PMPI_Accumulate", "continue", "mpipp calls -brief", "mpipp  win"]


@pytest.fixture(scope="module")
def petsc():
    return run("petsc_sf", PETSC, "PMPI_Get")


def test_petsc_window_star_forest(petsc):
    for rank, out in enumerate(petsc):
        other = 1 - rank
        assert re.search(r"in MPI_Get \(origin_addr=0x[0-9a-f]+, origin_count=1, "
                         r"origin_datatype=indexed_block#\d+, target_rank=%d, target_disp=0, "
                         r"target_count=1, target_datatype=indexed_block#\d+, win=win#1 \[create "
                         r"on comm#\d+, rank %d of 2; fence epoch" % (other, rank),
                         out["bt 4"]), out["bt 4"]
        assert " in  (" not in out["bt 4"]     # PETSc's static functions show as ??
        calls = out["mpipp calls"]
        assert "called from testprogs/libs/petsc_sf.c:%d through PetscSFBcastBegin" % source_line(
            "petsc_sf.c", "PetscSFBcastBegin(") in calls
        assert ("target region: target rank %d (world rank %d) of win#1, disp 0: another "
                "process's memory" % (other, other)) in calls
        assert "epoch: fence epoch (1 fence so far)" in out["mpipp win"]
        assert out["mpipp win $mpi_call.win"] == out["mpipp win"]
        assert out["print $mpi_call.target_datatype"].split(" = ", 1)[1].startswith(
            "indexed_block(count=3, blocklength=1, displacements=[0, 2, 3]) of ")
        assert re.search(r"MPI_Accumulate\(.*target_rank=%d, target_disp=0, target_count=1, "
                         r"target_datatype=indexed_block#\d+, op=MPI_SUM, win=win#2" % other,
                         out["mpipp calls -brief"]), out["mpipp calls -brief"]
