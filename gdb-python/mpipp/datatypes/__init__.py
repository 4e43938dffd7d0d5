"""MPI datatypes in gdb: registry reader, descriptions, printer, commands."""
