"""Call sites of a record, named as the live console names them: file:line
where debug information has it, else the function and the library
('LAMMPS_NS::CommBrick::exchange() in liblammps.so.0'), else the address in
the library.

A site is the return address of an MPI call in the recorded process.  Its
memory map (DIR/rank.N.maps, the executable mappings libmpireg copied at
MPI_Init) says which file it is in and at what file offset; the file's ELF
program headers turn the offset into the address its symbols and debug
information use; addr2line (binutils) says the line, one batch per file;
the file's own symbol tables (.symtab, else .dynsym: a library without
debug information still exports its functions) say the function, c++filt
demangles it.  Without a map or a file, a site stays an address."""

import bisect
import os
import struct
import subprocess

ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
PROGRAM_HEADER = struct.Struct("<IIQQQQQQ")
SECTION_HEADER = struct.Struct("<IIQQQQIIQQ")
SYMBOL = struct.Struct("<IBBHQQ")
PT_LOAD = 1
SHT_SYMTAB, SHT_DYNAMIC, SHT_DYNSYM = 2, 6, 11
DYNAMIC = struct.Struct("<qQ")
DT_SONAME = 14
STT_FUNC, STT_GNU_IFUNC = 2, 10


class Site:
    """Where a call was made: `address`, and when known `function`, `file`
    (its base name), `line` and `library` (the base name of the ELF file
    holding it)."""

    __slots__ = ("address", "function", "file", "line", "library")

    def __init__(self, address, function=None, file=None, line=None, library=None):
        self.address, self.function, self.file, self.line = address, function, file, line
        self.library = library

    def __str__(self):
        if self.file and self.line:
            return "%s:%d" % (self.file, self.line)
        if self.function and self.library:
            return "%s in %s" % (self.function, self.library)
        if self.library:
            return "0x%x in %s" % (self.address, self.library)
        return "0x%x" % self.address

    def to_json(self):
        doc = {"address": "0x%x" % self.address}
        for name in ("function", "file", "line", "library"):
            if getattr(self, name):
                doc[name] = getattr(self, name)
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


def _sections(data):
    """[(type, offset, size, link, entsize)] of an ELF file's section headers."""
    head = ELF_HEADER.unpack_from(data)
    shoff, shentsize, shnum = head[6], head[11], head[12]
    if shentsize < SECTION_HEADER.size or shoff + shentsize * shnum > len(data):
        return []
    out = []
    for k in range(shnum):
        _, kind, _, _, offset, size, link, _, _, entsize = SECTION_HEADER.unpack_from(
            data, shoff + k * shentsize)
        out.append((kind, offset, size, link, entsize))
    return out


def _string(data, at):
    return data[at:data.find(b"\0", at)].decode("utf-8", "replace")


def _soname(data, sections):
    """The DT_SONAME of a shared library (what gdb and ldd call it), or None."""
    for kind, offset, size, link, _ in sections:
        if kind != SHT_DYNAMIC or link >= len(sections) or offset + size > len(data):
            continue
        for at in range(offset, offset + size - DYNAMIC.size + 1, DYNAMIC.size):
            tag, value = DYNAMIC.unpack_from(data, at)
            if tag == DT_SONAME:
                return _string(data, sections[link][1] + value)
    return None


def elf_names(path):
    """(the library's name, [(start, end, function)] sorted) of an ELF file:
    its soname (else the file's name), its .symtab's functions, else its
    .dynsym's (none when it is no ELF file it can read)."""
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < ELF_HEADER.size or data[:4] != b"\x7fELF" or data[4] != 2:
            return name, []
        sections = _sections(data)
        name = _soname(data, sections) or name
        for wanted in (SHT_SYMTAB, SHT_DYNSYM):
            out = []
            for kind, offset, size, link, entsize in sections:
                if kind != wanted or entsize < SYMBOL.size or link >= len(sections) or \
                        offset + size > len(data):
                    continue
                strings = sections[link][1]
                for at in range(offset, offset + size - SYMBOL.size + 1, entsize):
                    symbol, info, _, shndx, value, length = SYMBOL.unpack_from(data, at)
                    if info & 15 in (STT_FUNC, STT_GNU_IFUNC) and shndx and length and symbol:
                        out.append((value, value + length, _string(data, strings + symbol)))
            if out:
                return name, sorted(out)
    except (OSError, struct.error, IndexError):
        pass
    return name, []


def _function_at(table, address):
    k = bisect.bisect_right(table, (address, float("inf"), "")) - 1
    return table[k][2] if k >= 0 and table[k][0] <= address < table[k][1] else None


def _demangled(names):
    """{name: demangled} (c++filt; names stay as they are without it)."""
    names = sorted(set(n for n in names if n.startswith("_Z")))
    if not names:
        return {}
    try:
        proc = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    out = proc.stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {}


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
        library, table = elf_names(path)
        segments = load_segments(path)
        wanted = {}
        for address, offset in pairs:
            sites[address].library = library
            file_address = _file_address(segments, offset)
            if file_address is not None:
                wanted[file_address] = address
        lines = _addr2line(path, sorted(wanted))
        named = {a: _function_at(table, a) for a in wanted if a not in lines}
        plain = _demangled(n for n in named.values() if n)
        for file_address, address in wanted.items():
            if file_address in lines:
                function, name, line = lines[file_address]
                sites[address] = Site(address, function, name, line, library)
            elif named[file_address]:
                function = named[file_address]
                sites[address] = Site(address, plain.get(function, function), library=library)
    return sites
