"""Aligned text tables, as `mpipp comms` and mpipp-job's `calls` write
them, and read back (Layout): the console merges tables the ranks wrote
cell by cell and writes them aligned again."""

import re

# Where a cell starts in a table's header line: after two spaces or more.
_CELL_START = re.compile(r"  +(?=\S)")


def format_table(rows):
    """Left-aligned columns, two spaces apart."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def column_starts(header):
    """Where the cells of a table whose header line is header start ([0,
    ...]), or None when header is no table's (one cell, or indented)."""
    if not header or header[0].isspace():
        return None
    starts = [0] + [m.end() for m in _CELL_START.finditer(header)]
    return starts if len(starts) > 1 else None


def row_cells(line, starts):
    """The cells of a line of the table whose columns start at starts, or
    None when the line is not one of its rows (it does not reach the second
    column, or a column is not preceded by two spaces)."""
    if len(line) <= starts[1]:
        return None
    if any(line[s - 2:s] != "  " for s in starts[1:] if s <= len(line)):
        return None
    ends = starts[1:] + [len(line)]
    return [line[s:e].rstrip() for s, e in zip(starts, ends)]


class Layout:
    """A text read as lines and the tables among them (a header line and
    the rows under it that fit its columns, as format_table wrote them):
    fields are the plain lines and every cell, in order; shape says where
    each table is, so two texts with the same shape can be merged field by
    field and written again (text(fields)) with every table aligned."""

    def __init__(self, text):
        self.fields, self.shape = [], []
        lines = text.split("\n")
        k = 0
        while k < len(lines):
            starts = column_starts(lines[k])
            rows = []
            if starts is not None:
                for line in lines[k:]:
                    cells = row_cells(line, starts)
                    if cells is None:
                        break
                    rows.append(cells)
            if len(rows) >= 2:
                self.shape.append(("table", len(rows), len(starts)))
                self.fields.extend(cell for row in rows for cell in row)
                k += len(rows)
            else:
                self.shape.append(("line",))
                self.fields.append(lines[k])
                k += 1

    def text(self, fields):
        """The text with fields in place of this layout's own."""
        out, k = [], 0
        for part in self.shape:
            if part[0] == "line":
                out.append(fields[k])
                k += 1
                continue
            _, nrows, ncols = part
            rows = [fields[k + r * ncols:k + (r + 1) * ncols] for r in range(nrows)]
            out.extend(format_table(rows))
            k += nrows * ncols
        return "\n".join(out)
