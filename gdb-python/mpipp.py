"""Load mpipp into gdb by hand:  (gdb) source /path/to/gdb-python/mpipp.py"""
import os
import sys

_here = os.path.dirname(os.path.abspath(os.path.expanduser(__file__)))
if _here not in sys.path:
    sys.path.insert(0, _here)

import mpipp  # noqa: E402  (the package next to this file)

mpipp.register()
