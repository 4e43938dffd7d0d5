"""The terminal rendering of a Picture: one line per row, one character per
cell (the basic type's letter, capital at the first cell of each element),
'.' for holes, '#' where elements overlap; markers (lb, true_lb, ub,
true_ub) as carets under the row they fall in; a legend.  With colour,
each basic type also gets an ANSI background colour."""

import re

from ..offsets import format_offset

HOLE, OVERLAP = ".", "#"
# ANSI backgrounds (black text) per Key, in order; then they repeat
PALETTE = ("44;97", "42;30", "43;30", "45;97", "46;30", "41;97", "104;30", "102;30", "103;30",
           "105;30", "106;30", "101;30", "47;30", "100;97")
RESET = "\x1b[0m"
_ESCAPE = re.compile("\x1b\\[[0-9;]*m")


def _paint(text, key, colour):
    if not colour or key is None:
        return text
    return "\x1b[%sm%s%s" % (PALETTE[key % len(PALETTE)], text, RESET)


def _cells(picture, row):
    """[(char, key)] of a row (key None for holes, -1 for overlaps)."""
    out = [(HOLE, None)] * row.cells
    for seg in row.segments:
        letter = picture.keys[seg.key].letter
        for k in range(seg.n):
            base = seg.cell + k * seg.per
            for c in range(max(0, base), min(row.cells, base + seg.per)):
                if out[c][1] is not None:
                    out[c] = (OVERLAP, -1)
                else:
                    out[c] = (letter.upper() if c == base else letter, seg.key)
    return out


def _runs(cells, colour):
    """The row's text, colour codes once per run of one key."""
    parts, k = [], 0
    while k < len(cells):
        key = cells[k][1]
        j = k
        while j < len(cells) and cells[j][1] == key:
            j += 1
        parts.append(_paint("".join(ch for ch, _ in cells[k:j]),
                            key if key is not None and key >= 0 else None, colour))
        k = j
    return "".join(parts)


def _marker_lines(picture, row, column):
    """Caret lines for the markers inside this row."""
    return ["%s^ %s (%s)" % (" " * (column + cell), " = ".join(m.name for m in ms),
                             format_offset(ms[0].offset, signed=True))
            for cell, ms in picture.row_markers(row)]


def fold_text(picture, row):
    """The one line of rows not drawn: identical repetitions, rows past the
    picture's end, or a run of holes (with the markers inside it)."""
    span = "%s .. %s" % (format_offset(row.first_offset, signed=True),
                         format_offset(row.last_offset - 1, signed=True))
    if not hasattr(row, "periodic"):
        inside = [m for m in picture.markers if row.first_offset <= m.offset <= row.last_offset
                  and not (m.offset == row.last_offset and m.name in ("lb", "true_lb"))]
        marks = "; %s" % ", ".join("%s at %s" % (m.name, format_offset(m.offset, signed=True))
                                   for m in inside) if inside else ""
        return "... %d bytes of holes (%s%s) ..." % (row.last_offset - row.first_offset, span,
                                                     marks)
    if row.periodic:
        return "... %d identical repetitions (%s)" % (row.rows, span)
    return "... %d rows not drawn (%s)" % (row.rows, span)


def render(picture, colour=False, width=80):
    """The picture as a list of lines (the legend wraps at width)."""
    lines = [picture.title,
             "  " + ", ".join("%s %s" % (name, value) for name, value in picture.facts)]
    if picture.grid is not None:
        lines += _grid_lines(picture, colour)
    elif picture.rows:
        lines += _byte_lines(picture, colour)
    if picture.note:
        lines.append("  (%s)" % picture.note)
    legend = ["%s %s (%d byte%s)" % (_paint(k.letter.upper(), i, colour), k.name, k.size,
                                     "" if k.size == 1 else "s")
              for i, k in enumerate(picture.keys)]
    if picture.grid is not None:
        legend.append("%s not selected" % HOLE)
    elif picture.rows:
        legend.append("%s hole" % HOLE)
        if any(ch == OVERLAP for r in picture.rows if hasattr(r, "segments")
               for ch, _ in _cells(picture, r)):
            legend.append("%s overlap" % OVERLAP)
    line = ""
    for entry in legend:
        if line and _visible(line) + 3 + _visible(entry) > width:
            lines.append(line)
            line = ""
        line = (line + "   " if line else "  ") + entry
    lines.append(line)
    return lines


def _visible(text):
    """Length of text as the terminal shows it (without colour codes)."""
    return len(_ESCAPE.sub("", text))


def _byte_lines(picture, colour):
    labels = [r.label or "" for r in picture.rows if hasattr(r, "label")]
    width = max(len(x) for x in labels) if labels else 0
    offsets = [format_offset(r.offset, signed=True) for r in picture.rows if hasattr(r, "label")]
    column = max([10] + [len(o) for o in offsets])
    lines = ["  1 cell = %d byte%s; %d bytes a row" % (
        picture.unit, "" if picture.unit == 1 else "s", picture.row_cells * picture.unit)]
    for row in picture.rows:
        if not hasattr(row, "segments"):
            lines.append("%*s %s  %s" % (column, "", " " * width, fold_text(picture, row)))
            continue
        head = "%*s %-*s |" % (column, format_offset(row.offset, signed=True), width,
                               row.label or "")
        lines.append(head + _runs(_cells(picture, row), colour) + "|")
        lines += _marker_lines(picture, row, len(head))
    return lines


def grid_cells(picture):
    """[[state]] per drawn grid cell: 'full', 'part' or None, and the
    (row, column) array ranges of each drawn row and column."""
    g = picture.grid
    (nr, nc), (br, bc) = g.shape, g.block
    rows = [range(r, min(nr, r + br)) for r in range(0, nr, br)]
    cols = [range(c, min(nc, c + bc)) for c in range(0, nc, bc)]
    r_hits = [g.selected[0].count(rr.start, rr.stop) for rr in rows]
    c_hits = [g.selected[1].count(cc.start, cc.stop) for cc in cols]
    states = []
    for rr, rh in zip(rows, r_hits):
        line = []
        for cc, ch in zip(cols, c_hits):
            hit = rh * ch
            line.append(None if hit == 0 else "full" if hit == len(rr) * len(cc) else "part")
        states.append(line)
    return states, rows, cols


def _grid_lines(picture, colour):
    g = picture.grid
    states, rows, cols = grid_cells(picture)
    letter = picture.keys[g.key].letter.upper()
    lines = ["  %d×%d array%s; selected cells filled" % (
        g.shape[0], g.shape[1], "" if g.block == (1, 1) else
        ", 1 cell = %d×%d elements (+: some selected)" % g.block)]
    label = max(8, len(str(rows[-1].start)) if rows else 0)
    if g.block[1] == 1:
        lines.append("%*s  %s" % (label, "", " ".join(str(c.start % 10) for c in cols)))
    for rr, line in zip(rows, states):
        cells = []
        for state in line:
            if state is None:
                cells.append(HOLE)
            else:
                cells.append(_paint(letter if state == "full" else "+", g.key, colour))
        lines.append("%*d  %s" % (label, rr.start, " ".join(cells)))
    return lines
