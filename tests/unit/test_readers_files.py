"""The gdb-free MPI-IO reader (readers/files.py) on fake memory: files,
their views and pointers read back; a corrupted, foreign or half-updated
root, a list with a cycle, a record past its struct are one-line IOError_s."""

import struct

import pytest

from mpipp.readers.files import FILE_FIELDS, LAYOUT, MAGIC, ROOT, Files, IOError_
from mpipp.readers.remote import CONSTANT

from fakemem import Blobs as Memory

ROOT_AT, CONSTANTS_AT = 0x1000, 0x2000
MODES = {"MPI_MODE_RDONLY": 2, "MPI_MODE_RDWR": 8, "MPI_MODE_WRONLY": 4, "MPI_MODE_CREATE": 1,
         "MPI_MODE_EXCL": 64, "MPI_MODE_DELETE_ON_CLOSE": 16, "MPI_MODE_UNIQUE_OPEN": 32,
         "MPI_MODE_SEQUENTIAL": 256, "MPI_MODE_APPEND": 128}


def layout_constants(name_max=32, datarep_max=16):
    """Every field of the reader's LAYOUT packed in order (with `prev`, which
    the reader never reads, where libmpireg has it)."""
    out = {"sizeof.MPI_File": 4, "MPI_FILE_NULL": 0, "file.name_max": name_max,
           "file.datarep_max": datarep_max, **MODES}
    (size_name, _limit, fields), = LAYOUT
    offset = 0
    for name, width in fields:
        out[name] = offset
        offset += width if isinstance(width, int) else out[width]
        if name == "file.next":
            out["file.prev"] = offset
            offset += 8
    out[size_name] = offset
    return out


BASE = layout_constants()


def record(c, name, next_=0, **values):
    raw = bytearray(c["sizeof.file"])
    for field, fmt in FILE_FIELDS:
        struct.pack_into(fmt, raw, c["file." + field], values.get(field, 0))
    struct.pack_into("<Q", raw, c["file.next"], next_)
    encoded = name.encode()[:c["file.name_max"] - 1]
    raw[c["file.name"]:c["file.name"] + len(encoded)] = encoded
    rep = values.get("datarep", "native").encode()
    raw[c["file.datarep"]:c["file.datarep"] + len(rep)] = rep
    return bytes(raw)


def image(files, constants=BASE, magic=MAGIC, version=1, seq=0, open_files=None):
    """Memory with the root, the constants and files [(address, record)]."""
    table = b"".join(CONSTANT.pack(n.encode(), v) for n, v in constants.items())
    head = files[0][0] if files else 0
    n_open = len(files) if open_files is None else open_files
    root = ROOT.pack(magic, version, ROOT.size, seq, len(constants), n_open, CONSTANTS_AT, head)
    blobs = {ROOT_AT: root, CONSTANTS_AT: table}
    blobs.update(dict(files))
    return Memory(blobs)


def two_files(c=BASE):
    return [(0x3000, record(c, "/data/grid.dat", 0x4000, handle=0x84000001, comm=0x44000000,
                            disp=16, etype=0x7000, filetype=0x7100, position=24,
                            amode=MODES["MPI_MODE_WRONLY"] | MODES["MPI_MODE_CREATE"],
                            position_known=1, created_at=0x401234)),
            (0x4000, record(c, "log.txt", 0, handle=0x84000002, amode=MODES["MPI_MODE_RDONLY"] |
                            MODES["MPI_MODE_SEQUENTIAL"], position=0, position_known=0,
                            datarep="external32"))]


def test_files_are_read_back():
    view = Files(image(two_files()), ROOT_AT)
    files = view.files()
    assert list(files) == [0x84000001, 0x84000002]
    grid = view.file(0xFFFFFFFF84000001)  # a handle as a wider integer
    assert grid is files[0x84000001]
    assert (grid.name, grid.disp, grid.etype, grid.filetype) == ("/data/grid.dat", 16, 0x7000,
                                                                 0x7100)
    assert (grid.position, grid.position_known, grid.comm) == (24, True, 0x44000000)
    assert grid.modes(view.c) == ["MPI_MODE_WRONLY", "MPI_MODE_CREATE"]
    assert grid.datarep == "native" and grid.created_at == 0x401234
    log = files[0x84000002]
    assert log.modes(view.c) == ["MPI_MODE_RDONLY", "MPI_MODE_SEQUENTIAL"]
    assert not log.position_known and log.datarep == "external32"
    assert view.file(0x84000003) is None and view.file_null == 0


def test_name_is_cut_at_its_field():
    c = layout_constants(name_max=8)
    view = Files(image([(0x3000, record(c, "a-very-long-name.dat", handle=1))], constants=c),
                 ROOT_AT)
    assert view.files()[1].name == "a-very-"


def test_no_open_file():
    assert Files(image([]), ROOT_AT).files() == {}


@pytest.mark.parametrize("change,message", [
    (dict(magic=1), "bad magic"),
    (dict(version=9), "version 9 is not supported"),
    (dict(seq=7), "middle of an update"),
])
def test_foreign_or_busy_root(change, message):
    with pytest.raises(IOError_, match=message):
        Files(image(two_files(), **change), ROOT_AT)


def test_cycle_in_the_list():
    files = two_files()
    looped = record(BASE, "log.txt", 0x3000, handle=2)
    with pytest.raises(IOError_, match="cycle"):
        Files(image([files[0], (0x4000, looped)]), ROOT_AT).files()


def test_unreadable_record():
    files = [(0x3000, record(BASE, "grid.dat", 0x9000, handle=1))]
    with pytest.raises(IOError_, match="cannot read a file record at 0x9000"):
        Files(image(files), ROOT_AT).files()


def test_field_outside_its_record():
    c = dict(BASE)
    c["file.position"] = c["sizeof.file"] - 4
    with pytest.raises(IOError_, match="file.position .* out of range"):
        Files(image([], constants=c), ROOT_AT)


def test_missing_constant():
    c = {k: v for k, v in BASE.items() if k != "sizeof.MPI_File"}
    with pytest.raises(IOError_, match="lacks sizeof.MPI_File"):
        Files(image([], constants=c), ROOT_AT)
