"""Call sites of a record as file:line.

A site is the return address of an MPI call in the recorded process.  Its
memory map (DIR/rank.N.maps, the executable mappings libmpireg copied at
MPI_Init) says which file it is in and at what file offset; the file's ELF
program headers turn the offset into the address its debug information
uses; addr2line (binutils) says the function and line, one batch per file.
Without a map, a file, or addr2line, a site stays an address."""

import os
import struct
import subprocess

ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
PROGRAM_HEADER = struct.Struct("<IIQQQQQQ")
PT_LOAD = 1


class Site:
    """Where a call was made: `address`, and when known `function`, `file`
    (its base name) and `line`."""

    __slots__ = ("address", "function", "file", "line")

    def __init__(self, address, function=None, file=None, line=None):
        self.address, self.function, self.file, self.line = address, function, file, line

    def __str__(self):
        if self.file and self.line:
            return "%s:%d" % (self.file, self.line)
        return "0x%x" % self.address

    def to_json(self):
        doc = {"address": "0x%x" % self.address}
        if self.file:
            doc.update(function=self.function, file=self.file, line=self.line)
        return doc


def read_maps(path):
    """[(start, end, offset, file)] of a maps file (empty when unreadable)."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    start, end = (int(x, 16) for x in parts[0].split("-"))
                    out.append((start, end, int(parts[2], 16), parts[5].strip()))
    except (OSError, ValueError):
        return []
    return out


def load_segments(path):
    """[(file offset, size, address)] of an ELF file's loadable segments."""
    try:
        with open(path, "rb") as f:
            head = f.read(ELF_HEADER.size)
            if len(head) < ELF_HEADER.size or head[:4] != b"\x7fELF" or head[4] != 2:
                return []
            fields = ELF_HEADER.unpack(head)
            phoff, phentsize, phnum = fields[5], fields[9], fields[10]
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return []
    out = []
    for k in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = PROGRAM_HEADER.unpack_from(
            table, k * phentsize)
        if p_type == PT_LOAD:
            out.append((p_offset, p_filesz, p_vaddr))
    return out


def _file_address(segments, offset):
    for start, size, vaddr in segments:
        if start <= offset < start + size:
            return vaddr + offset - start
    return None


def _addr2line(path, addresses):
    """{address: (function, file, line)} for addresses of one ELF file."""
    try:
        proc = subprocess.run(["addr2line", "-f", "-C", "-e", path]
                              + ["0x%x" % a for a in addresses],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    lines = proc.stdout.splitlines()
    out = {}
    for k, address in enumerate(addresses):
        if 2 * k + 1 >= len(lines):
            break
        function, where = lines[2 * k], lines[2 * k + 1]
        name, _, number = where.rpartition(":")
        number = number.split()[0] if number else ""
        if name and name != "??" and number.isdigit() and int(number):
            out[address] = (function, os.path.basename(name), int(number))
    return out


def resolve(maps_path, addresses):
    """{address: Site} of return addresses in the process whose maps file
    is maps_path (the line is the call's: the address before the return)."""
    maps = read_maps(maps_path)
    by_file = {}
    for address in set(addresses):
        for start, end, offset, path in maps:
            if start <= address - 1 < end:
                by_file.setdefault(path, []).append((address, address - 1 - start + offset))
                break
    sites = {a: Site(a) for a in addresses}
    for path, pairs in by_file.items():
        segments = load_segments(path)
        wanted = {}
        for address, offset in pairs:
            file_address = _file_address(segments, offset)
            if file_address is not None:
                wanted[file_address] = address
        for file_address, (function, name, line) in _addr2line(path, sorted(wanted)).items():
            sites[wanted[file_address]] = Site(wanted[file_address], function, name, line)
    return sites
