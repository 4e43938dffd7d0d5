"""What DDD and other CLI-driving front ends read: print, display and mpipp
output through a pipe (no terminal), with the buffer value $mpipp()."""

import re

import gdbrun


def test_cli_output_is_plain_text_for_ddd():
    proc = gdbrun.run([
        "-ex", "break stop_here", "-ex", "run", "-ex", "frame function main",
        "-ex", "print cell_t", "-ex", "print halo_t",
        "-ex", "print $mpipp(cell_t, cells, 2)",
        "-ex", "display $mpipp(halo_t, cells[0].halo, 1)", "-ex", "display",
        "-ex", "print/x $mpipp(cell_t, cells, 1)",
        "-ex", "set print elements 4", "-ex", "print $mpipp(double_t, big, 10000000)",
        "-ex", "mpipp cell_t cells 1",
        "-ex", "print $mpipp(0, cells)",
        "-ex", "print double_t",
        gdbrun.program("frontend")])
    out = proc.stdout
    assert "\x1b" not in out + proc.stderr  # no terminal styling when not a terminal
    assert re.search(r'\$1 = struct\(count=2\) of \{halo_t, MPI_INT\} "cell_t" = '
                     r'\{combiner = MPI_COMBINER_STRUCT, name = cell_t, committed = true', out)
    assert "freed = true" in out and "(freed by the program)" in out
    assert re.search(r'\$3 = 2 × struct\(count=2\) of \{halo_t, MPI_INT\} "cell_t" at 0x[0-9a-f]+ = '
                     r'\{\{\{\{\{0\}, \{2\}, \{4\}\}\}, \{100\}\}, \{\{\{\{10\}, \{12\}, \{14\}\}\}, '
                     r'\{101\}\}\}\n', out)
    assert re.search(r"\d: \$mpipp\(halo_t, cells\[0\].halo, 1\) = 1 × vector.* = "
                     r"\{\{\{0\}, \{2\}, \{4\}\}\}\n", out)
    # groups of a large buffer print as {...} in the CLI: the mpipp command lists elements
    assert re.search(r"10000000 × MPI_DOUBLE at 0x[0-9a-f]+ = \{\[0\.\.999999\] = \{\.\.\.\}", out) \
        or "{{...}, {...}, {...}, {...}...}" in out
    # print/x of the value itself shows its raw synthetic number (gdb applies
    # formats to scalars before pretty printers): use mpipp/x for a buffer
    assert "[0][1][0] = 100" in out
    assert "mpipp: $mpipp: handle 0x0 is not a registered datatype" in proc.stderr
    assert re.search(r"\$\d+ = MPI_DOUBLE\n", out)
