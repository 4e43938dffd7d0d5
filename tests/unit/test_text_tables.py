"""text/tables.py: tables written aligned and read back cell by cell."""

from mpipp.text.tables import Layout, column_starts, format_table, row_cells

CALLS = [("ranks", "call", "peer", "tag", "comm"),
         ("0", "MPI_Wait", "-", "-", "-"),
         ("", "  waits for MPI_Irecv", "source=1", "9", "MPI_COMM_WORLD"),
         ("1-3", "(not in an MPI call)", "", "", "")]


def test_a_table_reads_back_as_its_cells():
    lines = format_table(CALLS)
    starts = column_starts(lines[0])
    assert [row_cells(line, starts) for line in lines] == [list(row) for row in CALLS]


def test_layout_round_trip_and_what_is_no_table():
    text = "\n".join(["[0-3]", "handle  name"] + format_table(CALLS) +
                     ["    indented  text", "0 live datatypes", ""])
    layout = Layout(text)
    assert layout.text(layout.fields) == text
    assert [part[0] for part in layout.shape] == ["line", "line", "table", "line", "line", "line"]
    assert layout.fields[:2] == ["[0-3]", "handle  name"]
    assert layout.shape[2] == ("table", 4, 5)


def test_cells_that_grow_keep_the_columns_aligned():
    layout = Layout("\n".join(format_table(CALLS)))
    fields = list(layout.fields)
    fields[fields.index("source=1")] = "source=<[0]: 1 | [2]: 3>"
    lines = layout.text(fields).split("\n")
    assert len({line.index("MPI_COMM_WORLD") for line in lines if "MPI_COMM_WORLD" in line}) == 1
    assert lines[0].index("tag") == lines[2].index("9") == lines[2].index(">") + 3
    assert column_starts("  indented  header") is None and column_starts("one cell") is None
