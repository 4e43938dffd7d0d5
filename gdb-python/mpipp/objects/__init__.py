"""Groups and RMA windows: their reader (gdb-free), `mpipp win`, the MPI_Win and MPI_Group printers."""
