"""MPI-IO on four ranks (testprogs/io2d): `mpipp file`, `mpipp view`, the
MPI_File printer, MPI-IO calls in `mpipp calls` and `mpipp requests`, and
the types MPI builds inside its calls left out of `mpipp list`.

The byte ranges `mpipp view` gives each rank before anything is written
are checked against the files the run leaves behind: read in access order
they hold exactly that rank's values (rank r wrote 1000*r + k as its k-th
int), the ranks' ranges tile the file, and the global-array cells the view
names are those the file shows the rank wrote."""

import json
import os
import struct
import tempfile

import pytest

import gdbrun

RANKS = 4
ROWS, COLS, LOCAL = 8, 12, 24
HEADER = 16  # bytes rank 0 writes at the start of darray.dat, before the view

AT_STOP = [
    "mpipp file fh_sub", "mpipp file -json fh_sub", "mpipp file -json fh_darray",
    "mpipp file -json fh_pending", "print fh_sub", "print fh_pending", "print fh_null",
    "mpipp view fh_sub", "mpipp view -json fh_sub", "mpipp view fh_darray",
    "mpipp view -json fh_darray", "mpipp view -json fh_pending 16*my_rank 16",
    "mpipp list", "mpipp list -json", "mpipp list -all", "mpipp list -all -json",
    # bad input: one line each, gdb keeps going
    "mpipp file fh_null", "mpipp file local[1]", "mpipp file", "mpipp file fh_sub fh_null",
    "mpipp file file#9", "mpipp file win#1", "mpipp view fh_sub 0",
    "mpipp view fh_sub -1 4", "mpipp file nosuch",
    # a huge access: the ranges listed are bounded
    "mpipp view fh_sub 0 100000000000000", "mpipp view -json fh_sub 0 100000000000000",
]
IN_WRITE_ALL = ["break PMPI_File_write_all", "continue", "mpipp calls", "mpipp calls -json",
                "mpipp view -json  fh_sub", "mpipp view -json", "mpipp view -json file#1",
                "mpipp  file"]
IN_WRITE_AT_ALL = ["break PMPI_File_write_at_all", "continue ", "mpipp  calls",
                   "mpipp  calls -json", "mpipp  view -json fh_darray"]
AT_PENDING = ["break stop_pending", "continue  ", "mpipp requests", "mpipp requests -json",
              "mpipp file -json  fh_sub", "mpipp file -json  fh_darray",
              "mpipp file -json  fh_pending"]
IN_WRITE_ORDERED = ["break PMPI_File_write_ordered", "continue   ", "mpipp calls -brief",
                    "mpipp calls -brief -json", "mpipp view fh_pending"]
COMMANDS = AT_STOP + IN_WRITE_ALL + IN_WRITE_AT_ALL + AT_PENDING + IN_WRITE_ORDERED


@pytest.fixture(scope="module")
def run():
    """(per-rank outputs, {file name: bytes} after the run, the folder)."""
    with tempfile.TemporaryDirectory() as folder:
        env = {"IO2D_DIR": folder}
        outs = gdbrun.capture("io2d", COMMANDS, ranks=RANKS, timeout=300,
                              launcher=gdbrun.mpiexec(RANKS, env))
        files = {}
        for name in ("sub.dat", "darray.dat", "pending.dat"):
            with open(os.path.join(folder, name), "rb") as f:
                files[name] = f.read()
        yield outs, files, folder


def ints(data):
    return list(struct.unpack("<%di" % (len(data) // 4), data))


def rank_values(rank, n=LOCAL):
    return [1000 * rank + k for k in range(n)]


def bytes_at(data, ranges):
    return b"".join(data[offset:offset + length] for offset, length in ranges)


def cells_written(data, rank, start=0):
    """{(row, column)} of the global array whose int in the file is rank's."""
    values = ints(data[start:start + ROWS * COLS * 4])
    return {(i // COLS, i % COLS) for i, v in enumerate(values) if v // 1000 == rank}


def cells_named(doc):
    """{(row, column)} of the global array a `mpipp view -json` names."""
    assert doc["array"]["sizes"] == [ROWS, COLS] and doc["array"]["order"] == "C"
    out = set()
    for cell in doc["array"]["cells"]:
        assert cell["tile"] == 0
        (row,) = cell["outer"]
        out |= {(row, column) for column in range(cell["first"], cell["last"] + 1)}
    return out


@pytest.mark.parametrize("name,fh,disp", [("sub.dat", "fh_sub", 0),
                                          ("darray.dat", "fh_darray", HEADER)])
def test_view_gives_the_bytes_each_rank_writes(run, name, fh, disp):
    outs, files, _folder = run
    data = files[name]
    assert len(data) == disp + ROWS * COLS * 4
    covered = []
    for rank, out in enumerate(outs):
        doc = json.loads(out["mpipp view -json %s" % fh])
        assert doc["offset"] == 0 and doc["count"] == LOCAL and doc["disp"] == disp
        assert doc["from"] == "the individual file pointer" and not doc["truncated"]
        # in access order, the ranges hold the rank's buffer
        assert ints(bytes_at(data, doc["bytes"])) == rank_values(rank)
        assert cells_named(doc) == cells_written(data, rank, disp)
        covered += [range(o, o + n) for o, n in doc["bytes"]]
    every = sorted(b for r in covered for b in r)
    assert every == list(range(disp, len(data)))  # the ranks tile the file, no overlap
    assert data[:disp] == b"H" * disp


def test_view_names_the_cells_of_the_global_array(run):
    outs, _files, _folder = run
    for rank, out in enumerate(outs):
        r0, c0 = (rank // 2) * 4, (rank % 2) * 6
        assert "rows %d..%d: columns %d..%d" % (r0, r0 + 3, c0, c0 + 5) in out["mpipp view fh_sub"]
        # columns CYCLIC(2) over two process columns
        c = (rank % 2) * 2
        assert ("rows %d..%d: columns %d..%d, %d..%d, %d..%d"
                % (r0, r0 + 3, c, c + 1, c + 4, c + 5, c + 8, c + 9)
                in out["mpipp view fh_darray"])
        assert "file bytes [" in out["mpipp view fh_darray"]


def test_view_with_offset_and_count(run):
    outs, files, _folder = run
    for rank, out in enumerate(outs):
        doc = json.loads(out["mpipp view -json fh_pending 16*my_rank 16"])
        assert doc["bytes"] == [[16 * rank, 16]] and doc["from"] == "given"
        assert "array" not in doc  # the default view's filetype is MPI_BYTE
        assert ints(bytes_at(files["pending.dat"], doc["bytes"])) == rank_values(rank, 4)


def test_file_shows_name_mode_view_and_pointer(run):
    outs, _files, folder = run
    for rank, out in enumerate(outs):
        text = out["mpipp file fh_sub"].splitlines()
        assert text[0] == ('file#1 "%s/sub.dat" (MPI_MODE_WRONLY|MPI_MODE_CREATE) on '
                           "MPI_COMM_WORLD [rank %d of 4], opened at testprogs/io2d.c:%d"
                           % (folder, rank, open_line()))
        assert text[1].startswith("  view: disp 0, etype MPI_INT, filetype subarray(ndims=2, "
                                  "sizes=[8, 12], subsizes=[4, 6], starts=[%d, %d], order=C) "
                                  'of MPI_INT "block_t"' % ((rank // 2) * 4, (rank % 2) * 6))
        assert text[1].endswith("datarep native")
        assert text[2] == "  individual file pointer: 0 etypes into the view"
        doc = json.loads(out["mpipp file -json fh_darray"])
        assert doc["name"] == folder + "/darray.dat"
        assert doc["amode"] == ["MPI_MODE_RDWR", "MPI_MODE_CREATE"]
        assert doc["comm"] == "MPI_COMM_WORLD [rank %d of 4]" % rank and doc["position"] == 0
        view = doc["view"]
        assert view["disp"] == HEADER and view["etype"] == "MPI_INT"
        # the program freed darray_t: the view still holds it, as MPI does
        assert view["filetype"].startswith("darray(group_size=4, rank=%d, " % rank)
        assert view["filetype"].endswith('"darray_t" (freed by the program)')
        assert view["datarep"] == "native"
        doc = json.loads(out["mpipp file -json fh_pending"])
        assert doc["view"] == {"disp": 0, "etype": "MPI_BYTE", "filetype": "MPI_BYTE",
                               "datarep": "native"}


def open_line():
    with open(os.path.join(gdbrun.REPO, "testprogs", "io2d.c")) as f:
        for number, line in enumerate(f, 1):
            if "MPI_File_open(" in line:
                return number
    raise AssertionError("no MPI_File_open in io2d.c")


def test_file_printer(run):
    outs, _files, folder = run
    for out in outs:
        handle = json.loads(out["mpipp file -json fh_sub"])["handle"]
        assert out["print fh_sub"].split(" = ", 1)[1].startswith(
            '%s <file#1 "%s/sub.dat" wronly|create, view disp 0 etype MPI_INT filetype subarray('
            % (handle, folder))
        assert out["print fh_sub"].rstrip().endswith('"block_t", pointer 0>')
        assert out["print fh_pending"].rstrip().endswith(
            "view disp 0 etype MPI_BYTE filetype MPI_BYTE, pointer 0>")
        assert out["print fh_null"].split(" = ", 1)[1].strip() == "MPI_FILE_NULL"


def test_bad_input_is_one_line(run):
    outs, _files, _folder = run
    out = outs[0]
    expected = {
        "mpipp file fh_null": "'fh_null' is MPI_FILE_NULL",
        "mpipp file local[1]": "'local[1]' (0x1) is not an open file",
        "mpipp file": "the selected thread is not in an MPI_File call: give FH",
        "mpipp file fh_sub fh_null": "usage: mpipp file [-json] [FH]",
        "mpipp file file#9": "no file is labelled file#9",
        "mpipp file win#1": "win#1 is a window, not a file",
        "mpipp view fh_sub 0": "usage: mpipp view [-json] [FH [OFFSET COUNT]]",
        "mpipp view fh_sub -1 4": "negative offset or count",
        "mpipp file nosuch": "No symbol \"nosuch\"",
    }
    for command, message in expected.items():
        failure = out[command]
        assert isinstance(failure, gdbrun.GdbFailure), (command, failure)
        assert message in failure and "\n" not in failure.strip(), (command, failure)


def test_huge_access_lists_bounded_ranges(run):
    outs, _files, _folder = run
    out = outs[0]
    text = out["mpipp view fh_sub 0 100000000000000"]
    ranges = text.splitlines()[1]
    assert ranges.endswith(", ... (400000000000000 bytes)")
    assert ranges.count("[") == 200  # 'set print elements'
    doc = json.loads(out["mpipp view -json fh_sub 0 100000000000000"])
    assert doc["truncated"] and len(doc["bytes"]) == 1 << 16
    assert doc["length"] == 4 * 100000000000000


def test_calls_inside_write_all_show_the_file_access(run):
    outs, _files, folder = run
    for rank, out in enumerate(outs):
        text = out["mpipp calls"]
        assert ('MPI_File_write_all(fh=file#1 "%s/sub.dat", offset=0 (individual file pointer), '
                "buf=0x" % folder) in text
        # collective over the communicator the file was opened on
        assert "count=24, datatype=MPI_INT, comm=MPI_COMM_WORLD)" in text
        assert "[1] = %d" % (1000 * rank + 1) in text
        call = next(t["call"] for t in json.loads(out["mpipp calls -json"])["threads"]
                    if "call" in t)
        assert call["function"] == "MPI_File_write_all"
        assert call["file"]["name"] == folder + "/sub.dat"
        assert call["file"]["pointer"] == "individual" and call["file"]["offset"] == 0
        (piece,) = call["buffers"][0]["pieces"]
        assert piece["count"] == 24 and piece["datatype"] == "MPI_INT"
        # inside the call, the view decodes the call's own access
        doc = json.loads(out["mpipp view -json  fh_sub"])
        assert doc["from"] == "the individual file pointer of the current MPI_File_write_all"
        assert doc["bytes"] == json.loads(out["mpipp view -json fh_sub"])["bytes"]
        # the file of the current call, by default or by its label
        assert json.loads(out["mpipp view -json"]) == doc
        assert json.loads(out["mpipp view -json file#1"]) == doc
        assert out["mpipp  file"].startswith('file#1 "%s/sub.dat"' % folder)


def test_calls_inside_write_at_all_show_the_explicit_offset(run):
    outs, _files, folder = run
    for out in outs:
        assert ('MPI_File_write_at_all(fh=file#2 "%s/darray.dat", offset=0, buf=0x' % folder
                in out["mpipp  calls"])
        assert "count=24, datatype=MPI_INT, comm=MPI_COMM_WORLD)" in out["mpipp  calls"]
        call = next(t["call"] for t in json.loads(out["mpipp  calls -json"])["threads"]
                    if "call" in t)
        assert call["file"]["pointer"] == "explicit" and call["file"]["offset"] == 0
        doc = json.loads(out["mpipp  view -json fh_darray"])
        assert doc["from"] == "the offset of the current MPI_File_write_at_all"
        assert doc["bytes"] == json.loads(out["mpipp view -json fh_darray"])["bytes"]


def test_requests_show_the_pending_iwrites(run):
    outs, files, folder = run
    for rank, out in enumerate(outs):
        lines = [l for l in out["mpipp requests"].splitlines() if l.startswith("request ")]
        assert len(lines) == 2, out["mpipp requests"]
        assert ('MPI_File_iwrite_at(fh=file#3 "%s/pending.dat", offset=%d, buf=0x' % (folder, 16 * rank)
                in lines[0])
        # after MPI_File_seek: the individual file pointer, in etypes (bytes here)
        assert ('MPI_File_iwrite(fh=file#3 "%s/pending.dat", offset=%d (individual file pointer), '
                "buf=0x" % (folder, 64 + 16 * rank) in lines[1])
        # independent calls: no communicator
        assert all(l.endswith("count=4, datatype=MPI_INT) pending") for l in lines)
        reqs = json.loads(out["mpipp requests -json"])["requests"]
        assert [r["function"] for r in reqs] == ["MPI_File_iwrite_at", "MPI_File_iwrite"]
        handle = json.loads(out["mpipp file -json fh_pending"])["handle"]
        assert [r["file"] for r in reqs] == [
            {"handle": handle, "name": folder + "/pending.dat", "pointer": "explicit",
             "offset": 16 * rank},
            {"handle": handle, "name": folder + "/pending.dat", "pointer": "individual",
             "offset": 64 + 16 * rank}]
        # what the two requests wrote, once complete
        data = files["pending.dat"]
        assert ints(data[16 * rank:16 * rank + 16]) == rank_values(rank, 4)
        assert ints(data[64 + 16 * rank:80 + 16 * rank]) == rank_values(rank, 8)[4:]


def test_file_pointer_follows_the_accesses(run):
    outs, _files, _folder = run
    for rank, out in enumerate(outs):
        # write_all moved the individual pointer by its 24 etypes; an
        # explicit-offset access moves nothing
        assert json.loads(out["mpipp file -json  fh_sub"])["position"] == LOCAL
        assert json.loads(out["mpipp file -json  fh_darray"])["position"] == 0
        # MPI_File_seek, then a nonblocking write moves it when posted
        assert json.loads(out["mpipp file -json  fh_pending"])["position"] == 80 + 16 * rank


def test_types_mpi_builds_are_not_the_programs(run):
    outs, _files, _folder = run
    for out in outs:
        listed = json.loads(out["mpipp list -json"])["types"]
        assert [t["name"] for t in listed] == ["block_t", "darray_t"]
        assert not any(t["mpi_own"] for t in listed)
        every = json.loads(out["mpipp list -all -json"])["types"]
        own = [t for t in every if t["mpi_own"]]
        assert [t for t in every if not t["mpi_own"]] == listed
        assert "2 live datatypes" in out["mpipp list"]
        if gdbrun.MPI == "mpich":
            # ROMIO flattens the views with MPI_Type_* calls inside
            # MPI_File_set_view; OMPIO builds its copies with Open MPI's
            # internal datatype functions, which never reach libmpireg
            assert own
            assert "(MPI's own)" in out["mpipp list -all"]
        else:
            assert not own
        assert "%d live datatypes" % len(every) in out["mpipp list -all"]


def test_shared_file_pointer_calls(run):
    outs, files, folder = run
    for rank, out in enumerate(outs):
        text = out["mpipp calls -brief"]
        assert ('MPI_File_write_ordered(fh=file#3 "%s/pending.dat", offset=shared file pointer, buf=0x'
                % folder in text)
        assert "count=1, datatype=MPI_INT, comm=MPI_COMM_WORLD)" in text
        call = next(t["call"] for t in json.loads(out["mpipp calls -brief -json"])["threads"]
                    if "call" in t)
        assert call["file"]["pointer"] == "shared" and call["file"]["offset"] is None
        failure = out["mpipp view fh_pending"]
        assert isinstance(failure, gdbrun.GdbFailure)
        assert "shared file pointer, which libmpireg does not track" in failure
    # in rank order from byte 128
    assert ints(files["pending.dat"][128:]) == [1000 * rank for rank in range(RANKS)]
