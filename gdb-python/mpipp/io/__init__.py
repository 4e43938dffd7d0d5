"""MPI-IO: the files a rank opened, their views, and what an access touches.

readers/files.py (gdb-free) reads libmpireg's MPI-IO state
(libmpireg/context/files.h); model/fileview.py (gdb-free) turns a view and
an access into file byte ranges and cells of a subarray/darray global
array; describe.py (a file as mpipp shows it), commands/ ('mpipp file',
'mpipp view') and printers.py (MPI_File) are the gdb layer.
"""
