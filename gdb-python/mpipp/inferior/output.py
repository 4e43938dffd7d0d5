"""What mpipp writes: print limits, batched and streamed output, JSON
documents (to gdb or to a file), and every error as one line.  (What
printers show: printing.py.)"""

import itertools
import json
import os

import gdb

from ..model.datatype import RoomForDeepTrees
from ..readers.errors import MpippError
from ..text.args import ArgError


def print_limit(name):
    """A 'print elements'-like gdb setting as an int, None when unlimited."""
    value = gdb.parameter(name)
    return None if value in (None, 0) or value == "unlimited" else int(value)


OUTPUT_BATCH = 2000


def write_lines(lines):
    """Streams lines to gdb in batches (a line at a time is slow; all at once is late)."""
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) >= OUTPUT_BATCH:
            gdb.write("\n".join(batch) + "\n")
            batch = []
    if batch:
        gdb.write("\n".join(batch) + "\n")


def write_json(doc, path=None):
    """A JSON document to gdb's output or, for tools such as mpipp-job, to the
    file at path: gdb escapes every character it writes over MI, which costs
    about a microsecond per byte; a file costs nothing like it."""
    write_json_text(json.dumps(doc), path)


def write_json_text(text, path=None):
    """write_json of a document already serialized."""
    if path is None:
        gdb.write(text + "\n")
        return
    data = text.encode("utf-8")
    try:    # a plain write: Python's text files cost twice the system calls' time
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
    except OSError as err:
        raise MpippError("cannot write %s: %s" % (path, err.strerror)) from None


def write_json_pieces(pieces, path=None):
    """write_json of a document serialized in pieces: streamed to gdb as
    they come, or written whole to the file at path."""
    if path is None:
        write_text(itertools.chain(pieces, ("\n",)), lines=False)
    else:
        write_json_text("".join(pieces), path)


WRITE_BATCH = 1 << 16


def write_text(pieces, lines=True):
    """Streams text pieces to gdb, small ones gathered up to WRITE_BATCH
    characters (a gdb.write per piece is slow; all at once is late).  When
    making the pieces of lines fails (an element memory does not hold), the
    lines made before are written, then the error goes on to its one line
    (a document's pieces are not: half a small JSON document is no use)."""
    batch, size = [], 0
    try:
        for piece in pieces:
            batch.append(piece)
            size += len(piece)
            if size >= WRITE_BATCH:
                gdb.write("".join(batch))
                batch, size = [], 0
    except Exception:
        if lines and batch:
            gdb.write("".join(batch))
        raise
    if batch:
        gdb.write("".join(batch))


def internal_error(err):
    """The one line for an error mpipp did not expect: still no traceback."""
    return "mpipp: internal error (%s: %s); please report it" % (type(err).__name__, err)


def one_line_errors(func):
    """Turns every error of a command (or $function) into one gdb error line;
    runs it with room for deep type trees (every command, $function and MI
    command of mpipp is an entry point of the model's walks)."""
    def invoke(self, *args):
        try:
            with RoomForDeepTrees():
                return func(self, *args)
        except (MpippError, ArgError) as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        except (gdb.GdbError, KeyboardInterrupt):
            raise
        except gdb.error as err:
            raise gdb.GdbError("mpipp: %s" % err) from None
        except (RecursionError, MemoryError) as err:
            raise gdb.GdbError("mpipp: too large or too deep to show (%s)"
                               % type(err).__name__) from None
        except Exception as err:  # noqa: BLE001 - never a traceback
            raise gdb.GdbError(internal_error(err)) from None
    invoke.__doc__ = func.__doc__
    return invoke
