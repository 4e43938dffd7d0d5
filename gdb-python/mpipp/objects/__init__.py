"""Groups and RMA windows (read by readers/objects.py): how mpipp shows
them (describe.py), `mpipp win` (commands/), the MPI_Win and MPI_Group
printers."""
