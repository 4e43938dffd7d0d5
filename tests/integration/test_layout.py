"""`mpipp layout` in real gdb on testprogs/types, on 2 ranks (a darray
selects a different part of its array on each): golden pictures of a
vector, an indexed type with holes, a struct with padding, a resized type
with negative lb, a 2-D subarray, a darray and a summarised 10**6-element
vector; the SVG parses and titles every element with its path, type and
offset; its PNG renders (rsvg-convert) and is not blank."""

import os
import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

import gdbrun

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
PICTURES = {  # golden file -> command (its output on rank 0; darray: on each rank)
    "layout_vector.txt": "mpipp layout cases[1].type 2",
    "layout_indexed.txt": "mpipp layout cases[3].type 2",
    "layout_struct.txt": "mpipp layout cases[11].type 2",
    "layout_resized_neg_lb.txt": "mpipp layout cases[7].type 3",
    "layout_subarray.txt": "mpipp layout cases[13].type",
    "layout_darray_rank{rank}.txt": "mpipp layout cases[16].type",
    "layout_big_vector.txt": "mpipp layout big_vector",
}
SVG_NS = "{http://www.w3.org/2000/svg}"


def commands(tmp):
    return ["frame function main", "set width 80"] + list(PICTURES.values())


def file_commands(tmp):
    return ["frame function main",
        "mpipp layout -svg %s/struct.svg cases[11].type 2" % tmp,
        "mpipp layout -png %s/struct.png cases[11].type 2" % tmp,
        "mpipp layout -svg %s/darray.svg cases[16].type" % tmp,
        "mpipp layout -svg %s/big.svg big_vector" % tmp,
        "mpipp layout -png %s/no/such/dir.png cases[11].type" % tmp,
        "mpipp layout -svg x.svg -png y.png cases[11].type",
        "mpipp layout cases[11].type -1",
        "help mpipp layout",
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("layout"))
    return tmp, gdbrun.capture("types", commands(tmp), launcher=gdbrun.mpiexec(2), ranks=2,
                               timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Pictures written to files, by one rank."""
    tmp = str(tmp_path_factory.mktemp("layout_files"))
    return tmp, gdbrun.capture("types", file_commands(tmp))


def golden(name):
    with open(os.path.join(GOLDEN, name)) as f:
        return f.read()


@pytest.mark.parametrize("name", [n for n in PICTURES if "{rank}" not in n])
def test_golden_pictures(run, name):
    assert run[1][0][PICTURES[name]] == golden(name)


@pytest.mark.parametrize("rank", [0, 1])
def test_darray_grid_is_the_part_each_rank_owns(run, rank):
    name = "layout_darray_rank{rank}.txt"
    assert run[1][rank][PICTURES[name]] == golden(name.format(rank=rank))


def svg_titles(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG_NS + "svg"
    return [t.text for t in root.iter(SVG_NS + "title")]


def test_svg_titles_name_every_element(files):
    tmp, out = files
    assert out["mpipp layout -svg %s/struct.svg cases[11].type 2" % tmp] == \
        "SVG written to %s/struct.svg\n" % tmp
    titles = svg_titles(os.path.join(tmp, "struct.svg"))
    # {int, double[3], char[5]} twice: 18 elements, each with path, type and offset
    assert len(titles) == 18
    assert titles[0] == "[0][0][0] MPI_INT +0"
    assert titles[1] == "[0][1][0] MPI_DOUBLE +8"
    assert titles[-1] == "[1][2][4] MPI_CHAR +76"


def test_svg_of_a_grid_titles_selected_cells(files):
    tmp, _ = files
    titles = svg_titles(os.path.join(tmp, "darray.svg"))
    # 8x6 doubles, cyclic over a 1x1 process grid on one rank: every cell
    assert len(titles) == 48
    assert titles[0] == "[0][0][0] MPI_DOUBLE +0, array element (0, 0)"
    assert "[0][2][1] MPI_DOUBLE +104, array element (2, 1)" in titles


def test_svg_of_a_large_type_is_summarised(files):
    tmp, _ = files
    path = os.path.join(tmp, "big.svg")
    titles = svg_titles(path)
    assert len(titles) < 400 and os.path.getsize(path) < 200000
    assert "[0][249999][3] MPI_DOUBLE +15999960" in titles


def png_pixels(path):
    """(width, height, decompressed image data) of a PNG file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(idat)


def test_png_renders_and_is_not_blank(files):
    tmp, out = files
    assert out["mpipp layout -png %s/struct.png cases[11].type 2" % tmp] == \
        "PNG written to %s/struct.png\n" % tmp
    width, height, pixels = png_pixels(os.path.join(tmp, "struct.png"))
    assert width > 300 and height > 100
    assert len(set(pixels)) > 20          # colours, text and lines, not one flat colour


@pytest.mark.parametrize("index,message", [
    (-4, "mpipp: rsvg-convert failed: "),
    (-3, "mpipp: usage: mpipp layout [-svg FILE|-png FILE] [-as T] TYPE [COUNT]"),
    (-2, "mpipp: COUNT must not be negative (got -1)"),
])
def test_errors(files, index, message):
    tmp, out = files
    got = out[file_commands(tmp)[index]]
    assert isinstance(got, gdbrun.GdbFailure) and got.startswith(message), got


def test_help(files):
    assert "2-D subarray or darray is drawn as the grid" in files[1]["help mpipp layout"]


def test_colours_in_a_terminal_only_while_gdb_styles():
    """In a terminal (a pty made by script(1)) gdb styles its output, and the
    picture has ANSI colours; after 'set style enabled off' plain letters."""
    gdb = " ".join([gdbrun.MPIPP_GDB, "-nx", "-q", "-ex 'set pagination off'",
                    "-ex 'set confirm off'",
                    "-ex 'break stop_here'", "-ex run", "-ex 'frame function main'",
                    "-ex 'mpipp layout cases[1].type'", "-ex 'set style enabled off'",
                    "-ex 'mpipp layout cases[1].type'", "-ex kill", "-ex quit",
                    gdbrun.program("types")])
    proc = gdbrun.subprocess.run(["script", "-qec", gdb, "/dev/null"], capture_output=True,
                                 text=True, timeout=120, env=dict(os.environ, TERM="xterm"),
                                 stdin=gdbrun.subprocess.DEVNULL)
    rows = [l.rstrip("\r") for l in proc.stdout.splitlines() if l.startswith("        +0 ")]
    assert rows == ["        +0 [0][0] |\x1b[44;97mDD\x1b[0m..|", "        +0 [0][0] |DD..|"], \
        proc.stdout


def test_a_png_tool_that_hangs_is_one_error_line(tmp_path):
    """rsvg-convert past its time limit: one 'mpipp:' line, not an internal error."""
    tool = tmp_path / "rsvg-convert"
    tool.write_text("#!/bin/sh\nsleep 30\n")
    tool.chmod(0o755)
    command = "mpipp layout -png %s/slow.png cases[11].type" % tmp_path
    out = gdbrun.capture("types", ["frame function main",
                                   "python import mpipp.datatypes.commands.layout as p; p.PNG_TIMEOUT = 1",
                                   command],
                         env={"PATH": "%s:%s" % (tmp_path, os.environ["PATH"])})
    got = out[command]
    assert isinstance(got, gdbrun.GdbFailure), got
    assert got == "mpipp: rsvg-convert took more than 1 s; try -svg", got
