"""Reader of libmpireg's MPI-IO state (layout: libmpireg/context/files.h).

The open files, each with its name, access mode, communicator, view (disp,
etype and filetype as registry record addresses, datarep) and individual
file pointer, read with plain memory reads through `memory.read(address,
length)` like the other readers (remote.RemoteView): no gdb here, every
failure one IOError_ line, every count and list bounded.
"""

import struct

from .errors import MpippError
from .remote import RemoteView, c_string

MAGIC = 0x31304F4950504D6D  # "mMPPIO01"
LAYOUT_VERSION = 1
ROOT = struct.Struct("<QIIQIIQQ")
MAX_FILES = 1 << 16
MAX_RECORD = 1 << 16

FILE_FIELDS = (("handle", "<Q"), ("next", "<Q"), ("comm", "<Q"), ("created_at", "<Q"),
               ("disp", "<q"), ("etype", "<Q"), ("filetype", "<Q"), ("position", "<q"),
               ("amode", "<i"), ("position_known", "<i"))
LAYOUT = (("sizeof.file", MAX_RECORD,
           [("file." + name, struct.calcsize(fmt)) for name, fmt in FILE_FIELDS]
           + [("file.name", "file.name_max"), ("file.datarep", "file.datarep_max")]),)
# Newer libraries number the files (file.serial).
SERIAL_LAYOUT = (("sizeof.file", MAX_RECORD, [("file.serial", 8)]),)
NEEDED = ("sizeof.MPI_File",)
# access mode bits, in the order MPI lists them
MODES = ("MPI_MODE_RDONLY", "MPI_MODE_WRONLY", "MPI_MODE_RDWR", "MPI_MODE_CREATE",
         "MPI_MODE_EXCL", "MPI_MODE_DELETE_ON_CLOSE", "MPI_MODE_UNIQUE_OPEN",
         "MPI_MODE_SEQUENTIAL", "MPI_MODE_APPEND")


class IOError_(MpippError):
    """The MPI-IO state is corrupted or caught in the middle of an update."""


class File:
    """One open file, as libmpireg recorded it."""

    __slots__ = ("address", "handle", "next", "comm", "created_at", "disp", "etype",
                 "filetype", "position", "amode", "position_known", "name", "datarep", "serial")

    @property
    def label(self):
        """'file#2' (the order this process opened its files in), or the
        handle in hex for a library too old to number them."""
        return "file#%d" % self.serial if self.serial else "0x%x" % self.handle

    def modes(self, constants):
        """['MPI_MODE_WRONLY', 'MPI_MODE_CREATE']: the access mode's bits."""
        return [m for m in MODES if m in constants and constants[m] and
                self.amode & constants[m] == constants[m]]


class Files(RemoteView):
    """One view of the MPI-IO state, valid while the inferior is stopped."""

    error = IOError_
    subject = "MPI-IO state"

    def __init__(self, memory, root_address):
        super().__init__(memory)
        raw = self.read(root_address, ROOT.size, "MPI-IO root")
        (magic, version, _size, seq, n_constants, self.open_files, constants,
         self.head) = ROOT.unpack(raw)
        if magic != MAGIC:
            raise IOError_("MPI-IO root at 0x%x has a bad magic number" % root_address)
        if version != LAYOUT_VERSION:
            raise IOError_("MPI-IO layout version %d is not supported (expected %d)"
                           % (version, LAYOUT_VERSION))
        if seq & 1:
            raise IOError_("MPI-IO state caught in the middle of an update (sequence %d); "
                           "step past the MPI_File call and retry" % seq)
        self.c = self.read_constants(constants, n_constants, NEEDED, LAYOUT)
        if "file.serial" in self.c:
            self.check_layout(self.c, SERIAL_LAYOUT)
        self.handle_mask = self.handle_mask_of(self.c, "sizeof.MPI_File")
        self.file_null = self.c.get("MPI_FILE_NULL")
        self._files = None

    def _field(self, raw, name, fmt):
        return struct.unpack_from(fmt, raw, self.c["file." + name])[0]

    def _text(self, raw, name):
        start = self.c["file." + name]
        end = start + self.c["file.%s_max" % name]
        return c_string(raw[start:end]) or ""

    def files(self):
        """{handle key: File}, most recently opened first (dicts keep order)."""
        if self._files is None:
            out, seen, address = {}, set(), self.head
            while address:
                if address in seen or len(seen) > min(self.open_files, MAX_FILES) + 16:
                    raise IOError_("MPI-IO file list is corrupted (cycle or wrong count)")
                seen.add(address)
                raw = self.read(address, self.c["sizeof.file"], "a file record")
                f = File()
                f.address = address
                for name, fmt in FILE_FIELDS:
                    setattr(f, name, self._field(raw, name, fmt))
                f.position_known = bool(f.position_known)
                f.name = self._text(raw, "name")
                f.datarep = self._text(raw, "datarep")
                f.serial = self._field(raw, "serial", "<Q") if "file.serial" in self.c else 0
                out.setdefault(f.handle, f)
                address = f.next
            self._files = out
        return self._files

    def key(self, handle):
        return int(handle) & self.handle_mask

    def file(self, handle):
        """The File of an MPI_File handle, or None."""
        return self.files().get(self.key(handle))

    def by_label(self, text):
        """The File labelled text ('file#2'), or None."""
        for f in self.files().values():
            if f.serial and text == f.label:
                return f
        return None
