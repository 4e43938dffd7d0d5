"""The SVG rendering of a Picture: the terminal picture's rows (or grid) as
rectangles coloured per basic type, holes light grey, markers as vertical
lines, a legend; every element carries a
<title> with its path, type and offset, which viewers show on hover (the
layout draws at most max_rows rows of at most width cells, so the document
stays small whatever the type)."""

from xml.sax.saxutils import escape

from ..offsets import address_of, format_offset
from ..paths import format_path, shift_index
from .text import fold_text, grid_cells

PALETTE = ("#4e79a7", "#59a14f", "#edc948", "#b07aa1", "#76b7b2", "#e15759", "#ff9da7",
           "#9c755f", "#f28e2b", "#bab0ac", "#86bcb6", "#d4a6c8")
HOLE_FILL, EDGE, INK, MARK = "#eeeeee", "#ffffff", "#222222", "#d62728"
ROW_H, GAP_H, CHAR_W = 24, 20, 7.2


def _colour(key):
    return PALETTE[key % len(PALETTE)]


class _Svg:
    def __init__(self):
        self.parts = []

    def rect(self, x, y, w, h, fill, title=None, stroke=EDGE, extra=""):
        body = "<title>%s</title>" % escape(title) if title else ""
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" '
                          'stroke="%s"%s>%s</rect>' % (x, y, w, h, fill, stroke, extra, body)
                          if body else
                          '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" '
                          'stroke="%s"%s/>' % (x, y, w, h, fill, stroke, extra))

    def text(self, x, y, string, size=12, anchor="start", weight="normal", fill=INK):
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" '
                          'font-weight="%s" fill="%s">%s</text>'
                          % (x, y, size, anchor, weight, fill, escape(string)))

    def line(self, x1, y1, x2, y2, colour=MARK, width=2):
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                          'stroke-width="%d"/>' % (x1, y1, x2, y2, colour, width))

    def document(self, width, height):
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, monospace">\n'
                '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
                % (width, height, width, height, "\n".join(self.parts)))


def render(picture, base_address=None):
    """The picture as an SVG document (a string)."""
    svg = _Svg()
    svg.text(10, 20, picture.title, 14, weight="bold")
    facts = ", ".join("%s %s" % (name, value) for name, value in picture.facts)
    svg.text(10, 38, facts, 11)
    y = 52
    width = 40 + CHAR_W * max(len(picture.title) * 1.2, len(facts))
    if picture.grid is not None:
        y, w = _grid(svg, picture, y, base_address)
    else:
        y, w = _rows(svg, picture, y, base_address)
    width = max(width, w)
    if picture.note:
        svg.text(10, y + 14, "(%s)" % picture.note, 11)
        y += 20
    x = 10
    y += 12
    for i, key in enumerate(picture.keys):
        svg.rect(x, y, 14, 14, _colour(i), stroke=INK)
        label = "%s (%d byte%s)" % (key.name, key.size, "" if key.size == 1 else "s")
        svg.text(x + 20, y + 12, label, 12)
        x += 40 + CHAR_W * len(label)
    svg.rect(x, y, 14, 14, HOLE_FILL if picture.grid is None else "white", stroke=INK)
    svg.text(x + 20, y + 12, "hole" if picture.grid is None else "not selected", 12)
    x += 40 + CHAR_W * 12
    width = max(width, x)
    return svg.document(int(width) + 10, int(y + 30))


def _element_title(picture, seg, k, base_address):
    key = picture.keys[seg.key]
    offset = seg.offset + k * seg.per * picture.unit
    where = "" if base_address is None else " (0x%x)" % address_of(base_address, offset)
    path = format_path(shift_index(seg.full, seg.vpos, k))
    return "%s %s %s%s" % (path, key.name, format_offset(offset, signed=True), where)


def _rows(svg, picture, y, base_address):
    cw = max(4.0, min(22.0, 900.0 / max(1, picture.row_cells)))
    labels = ["%s %s" % (format_offset(r.offset, signed=True), r.label or "")
              for r in picture.rows if hasattr(r, "cells")]
    left = 20 + CHAR_W * max((len(x) for x in labels), default=0)
    right = left
    for row in picture.rows:
        if not hasattr(row, "cells"):
            svg.text(left, y + 14, "⋮ " + fold_text(picture, row).strip(". "), 12)
            y += GAP_H
            continue
        svg.text(left - 8, y + 16, "%s %s" % (format_offset(row.offset, signed=True),
                                              row.label or ""), 12, "end")
        svg.rect(left, y, row.cells * cw, ROW_H, HOLE_FILL, stroke="#bbbbbb")
        for seg in row.segments:
            _segment(svg, picture, row, seg, left, y, cw, base_address)
        right = max(right, left + row.cells * cw)
        y = _markers(svg, picture, row, left, y, cw)
    return y, right + 20


def _segment(svg, picture, row, seg, left, y, cw, base_address):
    colour = _colour(seg.key)
    letter = picture.keys[seg.key].letter.upper()

    def clip(cell, n):
        a, b = max(0, cell), min(row.cells, cell + n)
        return (a, b - a) if b > a else None

    for k in range(seg.n):
        span = clip(seg.cell + k * seg.per, seg.per)
        if span is None:
            continue
        x = left + span[0] * cw
        svg.rect(x, y, span[1] * cw, ROW_H, colour, _element_title(picture, seg, k,
                                                                    base_address))
        if span[1] * cw >= 10:
            svg.text(x + span[1] * cw / 2, y + 16, letter, 11, "middle")


def _markers(svg, picture, row, left, y, cw):
    """Vertical lines for the markers in this row and their names below it."""
    at = picture.row_markers(row)
    y += ROW_H
    for n, (cell, ms) in enumerate(at):
        x = left + cell * cw
        svg.line(x, y - ROW_H - 3, x, y + 4 + 14 * n)
        name = "%s %s" % (" = ".join(m.name for m in ms), format_offset(ms[0].offset,
                                                                        signed=True))
        if cell > picture.row_cells / 2:    # names right of the middle end at their line
            svg.text(x - 3, y + 14 + 14 * n, name, 11, "end", fill=MARK)
        else:
            svg.text(x + 3, y + 14 + 14 * n, name, 11, fill=MARK)
    return y + 8 + 14 * len(at)


def _grid(svg, picture, y, base_address):
    g = picture.grid
    states, rows, cols = grid_cells(picture)
    size = max(8.0, min(28.0, 700.0 / max(len(cols), 1)))
    left = 60
    colour = _colour(g.key)
    key = picture.keys[g.key]
    for j, cc in enumerate(cols):
        if len(cols) <= 40 or j % 5 == 0:
            svg.text(left + j * size + size / 2, y + 12, str(cc.start), 10, "middle")
    y += 18
    for i, (rr, line) in enumerate(zip(rows, states)):
        svg.text(left - 6, y + i * size + size * 0.7, str(rr.start), 10, "end")
        for j, (cc, state) in enumerate(zip(cols, line)):
            x = left + j * size
            if state is None:
                svg.rect(x, y + i * size, size, size, "white", stroke="#bbbbbb")
                continue
            svg.rect(x, y + i * size, size, size, colour if state == "full" else "#cccccc",
                     _grid_title(g, key, rr, cc, state, base_address))
    return y + len(rows) * size + 10, left + len(cols) * size + 20


def _grid_title(g, key, rr, cc, state, base_address):
    if g.block != (1, 1):
        return "array rows %d..%d, columns %d..%d: %s selected" % (
            rr.start, rr.stop - 1, cc.start, cc.stop - 1, "all" if state == "full" else "some")
    i, j = rr.start, cc.start
    local = (g.selected[0].below(i), g.selected[1].below(j))
    offset = i * g.strides[0] + j * g.strides[1]
    where = "" if base_address is None else " (0x%x)" % address_of(base_address, offset)
    return "[0][%d][%d] %s %+d%s, array element (%d, %d)" % (local[0], local[1], key.name,
                                                             offset, where, i, j)
