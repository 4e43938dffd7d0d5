"""Pictures of datatypes (model/picture): cell unit, rows per repetition,
wrapping, markers, summaries of 10**6-element types, grids of subarrays
and darrays, colours on and off, and SVG documents with element titles."""

import os
import xml.etree.ElementTree as ET

from dtypes import (BLOCK, CHAR, CYCLIC, DFLT, DOUBLE, DOUBLE_INT, FLOAT, INT, LB, ORDER_C,
                    ORDER_F, UB, contiguous, darray, hvector, indexed, resized, struct,
                    subarray, vector)
from mpipp.model.picture import layout, svg, text

S_TYPE = resized(struct([1, 3, 5], [0, 8, 32], [INT, DOUBLE, CHAR]), 0, 40)
SVG = "{http://www.w3.org/2000/svg}"


def draw(dt, count=1, width=70, max_rows=24, colour=False):
    return text.render(layout.build(dt, count, width=width, max_rows=max_rows, title="t"),
                       colour=colour, width=width + 26)


def rows(lines):
    """The row lines of a byte picture: (head, cells)."""
    return [(l.split("|")[0].strip(), l.split("|")[1]) for l in lines if l.count("|") == 2]


def test_vector_is_drawn_as_the_column_it_selects():
    got = rows(draw(vector(4, 1, 6, DOUBLE)))
    assert got == [("+0 [0][0]", "D....."), ("+48 [0][1]", "D....."),
                   ("+96 [0][2]", "D....."), ("+144 [0][3]", "D")]


def test_struct_cells_are_bytes_with_padding_holes_and_repetitions_rows():
    lines = draw(S_TYPE, 2)
    assert rows(lines) == [("+0 [0]", "Iiii....DdddddddDdddddddDdddddddCCCCC..."),
                           ("+40 [1]", "Iiii....DdddddddDdddddddDdddddddCCCCC...")]
    assert "  1 cell = 1 byte; 40 bytes a row" in lines
    assert lines[-1] == "  I MPI_INT (4 bytes)   D MPI_DOUBLE (8 bytes)   C MPI_CHAR (1 byte)" \
                        "   . hole"


def test_markers_sit_under_their_row():
    lines = draw(resized(INT, -8, 24), 3)
    i = lines.index("        -8 [0] |..I...|")
    assert [l.strip() for l in lines[i + 1:i + 5]] == [
        "^ lb (-8)", "^ true_lb (+0)", "^ true_ub (+4)", "^ ub (+16)"]
    col = lines[i].index("|") + 1
    assert lines[i + 1].index("^") == col and lines[i + 4].index("^") == col + 6


def test_indexed_holes_and_small_dense_repetitions_share_a_row():
    assert rows(draw(indexed([2, 0, 3], [0, 3, 5], FLOAT), 2)) == [
        ("+0 [0]", "FF...FFF"), ("+32 [1]", "FF...FFF")]
    assert rows(draw(contiguous(2, INT), 4)) == [("+0 [0..3]", "IIIIIIII")]


def test_wide_repetitions_wrap_within_the_width():
    got = rows(draw(S_TYPE, 2, width=20))
    assert got == [("+0 [0]", "Iiii....DdddddddDddd"), ("+20 [0]", "ddddDdddddddCCCCC..."),
                   ("+40 [1]", "Iiii....DdddddddDddd"), ("+60 [1]", "ddddDdddddddCCCCC...")]


def test_markers_widen_the_picture_and_elements_overlap():
    lines = draw(struct([1, 1, 1], [-4, 0, 8], [LB, INT, UB]), 1)
    assert rows(lines) == [("-4", ".I.")]
    overlapping = draw(hvector(2, 1, 2, INT))
    assert rows(overlapping)[0][1] == "I#i"      # 2-byte cells: the ints share one
    assert "# overlap" in overlapping[-1]


def test_a_million_elements_are_summarised():
    pic = layout.build(vector(250000, 4, 8, DOUBLE), 1, width=70, max_rows=6)
    kinds = [type(r).__name__ for r in pic.rows]
    assert kinds == ["Row"] * 5 + ["Gap", "Row"]
    assert pic.rows[5].rows == 249994 and pic.rows[5].periodic
    assert pic.rows[-1].label == "[0][249999]"
    irregular = indexed([1] * 100000, list(range(0, 300000, 3)), DOUBLE)
    lines = draw(irregular, max_rows=4)
    assert "             ... 4283 rows not drawn (+1680 .. +2399983)" in lines
    assert "  (drawn from the first 20000 runs of elements)" in lines


def test_no_elements():
    lines = draw(contiguous(0, INT))
    assert "  (no elements: nothing to draw)" in lines


def test_subarray_grid_in_both_orders():
    for order in (ORDER_C, ORDER_F):
        lines = draw(subarray([4, 6], [2, 4], [1, 1], order, DOUBLE))
        grid = lines[lines.index("          0 1 2 3 4 5"):][1:5]
        assert grid == ["       0  . . . . . .", "       1  . D D D D .",
                        "       2  . D D D D .", "       3  . . . . . ."]


def test_darray_grid_is_this_ranks_part():
    dt = darray(4, 1, [8, 6], [BLOCK, CYCLIC], [DFLT, 2], [2, 2], ORDER_C, DOUBLE)
    lines = draw(dt)
    assert "       0  . . D D . ." in lines and "       4  . . . . . ." in lines
    assert "rank 1 of 4, process grid 2×2" in lines[1]


def test_large_grids_are_drawn_in_blocks():
    lines = draw(subarray([1000, 1000], [10, 500], [0, 0], ORDER_C, INT), width=40)
    head = "  1000×1000 array, 1 cell = 42×50 elements (+: some selected); selected cells filled"
    assert lines[2] == head
    assert lines[3] == "       0  + + + + + + + + + + . . . . . . . . . ."
    assert lines[4] == "      42  " + " ".join(["."] * 20)


def test_colours_only_when_asked():
    plain = "\n".join(draw(S_TYPE, colour=False))
    coloured = "\n".join(draw(S_TYPE, colour=True))
    assert "\x1b[" not in plain
    assert "\x1b[44;97mIiii\x1b[0m" in coloured and "\x1b[42;30mD\x1b[0m" in coloured
    assert text._visible(coloured.splitlines()[3]) == len(plain.splitlines()[3])


def test_svg_titles_every_element_and_parses():
    doc = svg.render(layout.build(S_TYPE, 2, width=120, title="particle"), base_address=0x1000)
    root = ET.fromstring(doc)
    titles = [t.text for t in root.iter(SVG + "title")]
    assert len(titles) == 18
    assert titles[1] == "[0][0][1][0] MPI_DOUBLE +8 (0x1008)"
    assert titles[-1] == "[1][0][2][4] MPI_CHAR +76 (0x104c)"
    assert "particle" in [t.text for t in root.iter(SVG + "text")]


def test_svg_stays_small_for_long_types():
    doc = svg.render(layout.build(contiguous(10 ** 6, DOUBLE), 1, width=120, max_rows=24))
    titles = [t.text for t in ET.fromstring(doc).iter(SVG + "title")]
    assert len(titles) == 23 * 120 and titles[-1] == "[0][2759] MPI_DOUBLE +22072"


def test_svg_grid_titles_local_path_and_array_element():
    doc = svg.render(layout.build(subarray([4, 6], [2, 4], [1, 1], ORDER_C, DOUBLE), 1))
    titles = [t.text for t in ET.fromstring(doc).iter(SVG + "title")]
    assert titles[0] == "[0][0][0] MPI_DOUBLE +56, array element (1, 1)"
    assert len(titles) == 8


def test_pairs_are_one_element():
    assert rows(draw(contiguous(1, DOUBLE_INT), 2)) == [("+0 [0]", "Ddd."), ("+16 [1]", "Ddd.")]


def golden(name):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", name)) as f:
        return f.read().splitlines()


def test_holes_are_folded_and_rows_start_at_the_data():
    """HDF5's 4 x 6 block of doubles in an array with a 64-cell halo, built
    from bytes: 69120 bytes of holes before the data, 972 between rows."""
    from test_model_runs import hdf5_block
    assert draw(hdf5_block(4, 6, 64), width=54) == golden("picture_hdf5_block.txt")


def test_absolute_offsets_are_hex():
    """An MPI_BOTTOM struct of three variables far apart (stack and data)."""
    base = 0x7ffd5e2c1a30
    t = struct([1, 2, 1], [base, base + 0x100, 0x555555558040], [INT, DOUBLE, CHAR])
    assert draw(t, width=54) == golden("picture_absolute.txt")
