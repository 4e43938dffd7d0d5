"""MPI datatypes in gdb: the arguments every command takes (arguments.py,
astype.py), the MPI_Datatype printer, $mpipp buffers, the TUI window, the
`mpipp` commands (commands/, one module per command) and the settings."""
