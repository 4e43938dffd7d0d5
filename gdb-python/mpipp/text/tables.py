"""Aligned text tables, as `mpipp comms` and mpipp-job's `calls` write them."""


def format_table(rows):
    """Left-aligned columns, two spaces apart."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
