"""The MPI a program uses (MPICH or Open MPI), found without running it.

libmpireg is built for one MPI; preloaded into a program of the other it
crashes in MPI_Init.  So mpipp-job and mpipp-gdb pick the library from
what the program itself loads:

* an ELF program: its NEEDED libraries, and theirs, resolved as the dynamic
  loader would (RPATH, LD_LIBRARY_PATH, RUNPATH, /etc/ld.so.cache, the
  default directories), nearest first: lmp -> liblammps.so.0 ->
  libmpi.so.40 is Open MPI;
* an interpreter (python3 SCRIPT, or a script whose #! names one): the
  compiled MPI module it would import (mpi4py's MPI*.so), looked up in
  the interpreter's own module path -- the interpreter is asked for its
  path; the user's script is never run;
* a running process: the MPI libraries it has mapped (/proc/PID/maps);
* a launcher (mpiexec): its name (mpiexec.hydra is MPICH's) or what it links.

Library names -> MPI is one table (LIBRARIES).  Standard library only;
scripts/mpipp-gdb runs this file as a program (main), mpipp-job imports it.
"""

import fnmatch
import glob
import os
import re
import shlex
import struct
import subprocess
import sys

MPIS = ("mpich", "openmpi")
TITLES = {"mpich": "MPICH", "openmpi": "Open MPI"}

# A library's file name (as NEEDED names it, or as it is on disk) -> its MPI.
# libmpi.so.12 is MPICH's own name upstream (Debian calls it libmpich.so.12);
# a bare libmpi.so is decided by the file it resolves to.
LIBRARIES = (
    ("libmpich.so*", "mpich"),
    ("libmpichfort.so*", "mpich"),
    ("libmpichcxx.so*", "mpich"),
    ("libmpifort.so.12*", "mpich"),
    ("libmpicxx.so.12*", "mpich"),
    ("libmpi.so.12*", "mpich"),
    ("libmpi.so.20*", "openmpi"),
    ("libmpi.so.40*", "openmpi"),
    ("libmpi_mpifh*.so*", "openmpi"),
    ("libmpi_usempi*.so*", "openmpi"),
    ("libmpi_cxx.so*", "openmpi"),
    ("libmpi_java.so*", "openmpi"),
    ("libopen-pal.so*", "openmpi"),
    ("libopen-rte.so*", "openmpi"),
)
# A launcher's file name (symbolic links followed) -> its MPI.
LAUNCHERS = (
    ("mpiexec.hydra", "mpich"),
    ("mpiexec.mpich", "mpich"),
    ("mpirun.mpich", "mpich"),
    ("orterun", "openmpi"),
    ("prterun", "openmpi"),
    ("mpiexec.openmpi", "openmpi"),
    ("mpirun.openmpi", "openmpi"),
)
# An interpreter's whole name (a regular expression: the interpreter is run
# to tell its module path, so a program merely named python_app must not
# match) -> (the arguments that make it print its module path, a directory
# a line; the compiled MPI modules to look for there).
INTERPRETERS = (
    (r"python(\d+(\.\d+)*)?", ("-c", "import sys; print('\\n'.join(sys.path))"),
     ("mpi4py/MPI.*.so", "mpi4py/MPI.so")),
)
INTERPRETER_TIMEOUT = 20
# Objects looked at before giving up (a program's whole dependency tree is
# rarely above 200; the MPI is usually one or two steps away).
MAX_OBJECTS = 400
MAX_HEADERS = 4096
MAX_STRINGS = 1 << 24

DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 15, 29
PT_LOAD, PT_DYNAMIC = 1, 2
DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                "/lib", "/usr/lib")
LD_SO_CACHE = "/etc/ld.so.cache"
CACHE_MAGIC = b"glibc-ld.so.cache1.1"
CACHE_HEADER = 48           # struct cache_file_new
CACHE_ENTRY = 24            # struct file_entry_new


class MpiMismatch(Exception):
    """--mpi names one MPI, the program uses the other (one-line message)."""


class Finding:
    """An MPI found, and the path that led to it: names from the program to
    the library that decided (("lmp", "liblammps.so.0", "libmpi.so.40")).
    weak: only a guess (the mpi4py an interpreter would import, which the
    script may never import): a default, never a reason to refuse --mpi."""

    def __init__(self, mpi, path, weak=False):
        self.mpi, self.path, self.weak = mpi, tuple(path), weak

    def __repr__(self):
        return "Finding(%r, %r%s)" % (self.mpi, self.path, ", weak=True" if self.weak else "")

    def describe(self):
        """'lmp uses Open MPI (lmp -> liblammps.so.0 -> libmpi.so.40)'"""
        return "%s uses %s (%s)" % (self.path[0], TITLES[self.mpi], " -> ".join(self.path))


def library_mpi(name):
    """The MPI a library file name belongs to, or None."""
    base = os.path.basename(name)
    return next((mpi for pattern, mpi in LIBRARIES if fnmatch.fnmatchcase(base, pattern)), None)


# -- ELF ---------------------------------------------------------------------

class Elf:
    """What the dynamic loader reads of one ELF file: its class and machine
    (a library must match its loader's), NEEDED, RPATH, RUNPATH."""

    def __init__(self, path, ident, machine, needed, rpath, runpath):
        self.path, self.ident, self.machine = path, ident, machine
        self.needed, self.rpath, self.runpath = needed, rpath, runpath


def read_elf(path):
    """The Elf of path, or None when it is not a readable ELF file (any
    damage: this reads untrusted files and never raises on their content)."""
    try:
        with open(path, "rb") as f:
            return _parse_elf(path, f)
    except (OSError, struct.error, ValueError, UnicodeDecodeError):
        return None


def _parse_elf(path, f):
    head = f.read(64)
    if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    wide, end = head[4] == 2, "<" if head[5] == 1 else ">"
    machine = struct.unpack_from(end + "H", head, 18)[0]
    if wide:
        phoff, = struct.unpack_from(end + "Q", head, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 0x36)
        phdr, fields = end + "IIQQQQQQ", (0, 2, 3, 5)     # type, offset, vaddr, filesz
    else:
        phoff, = struct.unpack_from(end + "I", head, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 0x2A)
        phdr, fields = end + "IIIIIIII", (0, 1, 2, 4)
    if phnum > MAX_HEADERS or phentsize < struct.calcsize(phdr):
        return None
    f.seek(phoff)
    table = f.read(phentsize * phnum)
    segments = []
    for k in range(len(table) // phentsize):
        row = struct.unpack_from(phdr, table, k * phentsize)
        segments.append(tuple(row[i] for i in fields))
    loads = [s for s in segments if s[0] == PT_LOAD]
    dynamic = next((s for s in segments if s[0] == PT_DYNAMIC), None)
    ident = head[4:6]
    if dynamic is None:
        return Elf(path, ident, machine, [], [], [])
    entry = end + ("qQ" if wide else "iI")
    f.seek(dynamic[1])
    raw = f.read(min(dynamic[3], MAX_STRINGS))
    tags = []
    for k in range(len(raw) // struct.calcsize(entry)):
        tag, value = struct.unpack_from(entry, raw, k * struct.calcsize(entry))
        if tag == DT_NULL:
            break
        tags.append((tag, value))
    strtab = next((v for t, v in tags if t == DT_STRTAB), None)
    strsz = next((v for t, v in tags if t == DT_STRSZ), 0)
    offset = _file_offset(loads, strtab) if strtab is not None else None
    if offset is None:
        return Elf(path, ident, machine, [], [], [])
    f.seek(offset)
    strings = f.read(min(strsz, MAX_STRINGS))

    def string(at):
        return strings[at:strings.index(b"\0", at)].decode() if at < len(strings) else ""

    def paths(tag):
        return [d for t, v in tags if t == tag for d in string(v).split(":") if d]
    return Elf(path, ident, machine, [string(v) for t, v in tags if t == DT_NEEDED],
               paths(DT_RPATH), paths(DT_RUNPATH))


def _file_offset(loads, address):
    for _type, offset, vaddr, filesz in loads:
        if vaddr <= address < vaddr + filesz:
            return address - vaddr + offset
    return None


def ld_so_cache(path=LD_SO_CACHE):
    """{library name: [paths]} of the dynamic loader's cache (glibc's new
    format; {} when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    start = data.find(CACHE_MAGIC)
    if start < 0 or len(data) < start + CACHE_HEADER:
        return {}
    nlibs, = struct.unpack_from("=I", data, start + len(CACHE_MAGIC))
    out = {}
    for k in range(min(nlibs, (len(data) - start - CACHE_HEADER) // CACHE_ENTRY)):
        _flags, key, value = struct.unpack_from("=iII", data, start + CACHE_HEADER +
                                                k * CACHE_ENTRY)
        name, target = _c_string(data, start + key), _c_string(data, start + value)
        if name and target:
            out.setdefault(name, []).append(target)
    return out


def _c_string(data, at):
    end = data.find(b"\0", at)
    return data[at:end].decode("utf-8", "replace") if 0 <= at < len(data) and end > at else ""


class Loader:
    """The dynamic loader's search, done by reading files only."""

    def __init__(self, env=None, cache=None):
        env = os.environ if env is None else env
        self.library_path = [d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d]
        self._cache = cache

    @property
    def cache(self):
        if self._cache is None:
            self._cache = ld_so_cache()
        return self._cache

    def resolve(self, name, loader, program):
        """The Elf a NEEDED name of loader loads (program: the executable,
        whose RPATH also applies), or None."""
        if "/" in name:
            candidates = [name]
        else:
            rpaths = [] if loader.runpath else loader.rpath + (
                program.rpath if program is not loader and not program.runpath else [])
            dirs = [_origin(d, loader.path) for d in rpaths] + self.library_path + \
                [_origin(d, loader.path) for d in loader.runpath]
            candidates = [os.path.join(d, name) for d in dirs] + self.cache.get(name, []) + \
                [os.path.join(d, name) for d in DEFAULT_DIRS]
        for path in candidates:
            if os.path.isfile(path):
                elf = read_elf(path)
                if elf is not None and (elf.ident, elf.machine) == (loader.ident, loader.machine):
                    return elf
        return None

    def find(self, elf, first_name):
        """The Finding of the MPI nearest to elf in its dependency tree
        (breadth first), or None."""
        seen = {os.path.realpath(elf.path)}
        queue = [(elf, (first_name,))]
        for obj, path in queue:
            if len(seen) > MAX_OBJECTS:
                break
            for name in obj.needed:
                lib = self.resolve(name, obj, elf)
                real = os.path.realpath(lib.path) if lib is not None else None
                mpi = library_mpi(name) or (real and library_mpi(real))
                if mpi:
                    return Finding(mpi, path + (name,))
                if lib is not None and real not in seen:
                    seen.add(real)
                    queue.append((lib, path + (name,)))
        return None


def _origin(directory, path):
    origin = os.path.dirname(os.path.realpath(path))
    return directory.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)


# -- programs ------------------------------------------------------------------

def which(word, env=None):
    """The executable file a program name denotes (a path, or found in PATH)."""
    env = os.environ if env is None else env
    if "/" in word:
        return os.path.abspath(word) if os.path.isfile(word) and os.access(word, os.X_OK) \
            else None
    for directory in env.get("PATH", "").split(os.pathsep):
        path = os.path.join(directory, word)
        if directory and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _interpreter(word, path):
    """INTERPRETERS' row for a program named word (its own name, or the
    file it links to), or None."""
    names = {os.path.basename(word), os.path.basename(os.path.realpath(path))}
    return next((row for row in INTERPRETERS
                 if any(re.fullmatch(row[0], n) for n in names)), None)


def shebang(path):
    """The interpreter a script's #! line names (env's argument followed),
    or None."""
    try:
        with open(path, "rb") as f:
            line = f.readline(256)
    except OSError:
        return None
    if not line.startswith(b"#!"):
        return None
    try:
        words = shlex.split(line[2:].decode("utf-8", "replace"))
    except ValueError:
        return None
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0] if words else None


def module_path(interpreter, query, env=None):
    """The interpreter's module path, asked of the interpreter itself (it
    runs its own startup only: the user's script is not given to it)."""
    try:
        done = subprocess.run([interpreter] + list(query), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=env, timeout=INTERPRETER_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [d for d in done.stdout.decode("utf-8", "replace").splitlines() if d]


def interpreted_mpi(word, interpreter, row, env=None, loader=None):
    """The Finding of the compiled MPI module an interpreter would import."""
    _name, query, modules = row
    loader = loader or Loader(env)
    for directory in module_path(interpreter, query, env):
        for pattern in modules:
            for module in sorted(glob.glob(os.path.join(glob.escape(directory), pattern))):
                elf = read_elf(module)
                if elf is None:
                    continue
                found = loader.find(elf, os.path.relpath(module, directory))
                if found is not None:
                    return Finding(found.mpi, (os.path.basename(word),) + found.path,
                                   weak=True)
    return None


def program_mpi(word, env=None, loader=None):
    """The Finding of the MPI of program word (a path, or a name found in
    PATH), or None when nothing it loads names one."""
    path = which(word, env)
    if path is None:
        return None
    loader = loader or Loader(env)
    row = _interpreter(word, path)
    if row is not None:
        return interpreted_mpi(word, path, row, env, loader)
    elf = read_elf(path)
    if elf is not None:
        return loader.find(elf, os.path.basename(word))
    named = shebang(path)
    interpreter = named and which(named, env)
    row = interpreter and _interpreter(named, interpreter)
    if row:
        return interpreted_mpi(word, interpreter, row, env, loader)
    return None


def launcher_mpi(word="mpiexec", env=None):
    """The Finding of the MPI of a launcher: from its name or the name of a
    link on the way to its file (mpiexec -> /etc/alternatives/mpiexec ->
    mpiexec.openmpi -> orterun), else from what it links; None when
    neither says."""
    path = which(word, env)
    if path is None:
        return None
    for name in _link_names(path):
        mpi = _launcher_name_mpi(name)
        if mpi:
            return Finding(mpi, (word, name))
    elf = read_elf(path)
    return Loader(env).find(elf, os.path.basename(word)) if elf is not None else None


def _launcher_name_mpi(name):
    """The MPI a launcher's file name belongs to (mpiexec.hydra, orterun), or None."""
    return next((m for pattern, m in LAUNCHERS if fnmatch.fnmatchcase(name, pattern)), None)


def _link_names(path, hops=40):
    """The file names of path and of every symbolic link it leads through."""
    names = [os.path.basename(path)]
    for _ in range(hops):
        try:
            target = os.readlink(path)
        except OSError:
            break
        path = os.path.join(os.path.dirname(path), target)
        names.append(os.path.basename(path))
    return names


def process_mpi(pid):
    """The Finding of the MPI a running process has mapped, else of its
    executable's name as a launcher (mpiexec's pid), or None."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            files = [line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6]
    except (OSError, ValueError):
        files = []
    for name in files:
        mpi = library_mpi(name)
        if mpi:
            return Finding(mpi, ("process %d" % pid, os.path.basename(name)))
    try:
        exe = os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None
    base = os.path.basename(exe)
    mpi = _launcher_name_mpi(base)
    return Finding(mpi, ("process %d" % pid, base)) if mpi else None


def choose(requested=None, found=None, launcher=None, fallback=None, env=None):
    """The MPI to use: requested (--mpi) when given -- a MpiMismatch when
    the program was found to use the other (a weak finding, an interpreter's
    mpi4py, never refuses it) --, else the one found, else
    the MPI of the launcher named (--mpiexec), else fallback ($MPIPP_MPI),
    else the MPI of mpiexec on PATH, else mpich."""
    if requested:
        if found is not None and not found.weak and found.mpi != requested:
            raise MpiMismatch("--mpi %s, but %s: leave out --mpi, or say --mpi %s"
                              % (requested, found.describe(), found.mpi))
        return requested
    if found is not None:
        return found.mpi
    for guess in (launcher and launcher_mpi(launcher, env), fallback,
                  launcher_mpi("mpiexec", env)):
        if guess:
            return guess if isinstance(guess, str) else guess.mpi
    return "mpich"


def main(argv=None):
    """[--mpi NAME] [--pid PID | PROGRAM]: print the MPI mpipp-gdb uses;
    a mismatch: its line on stderr, status 2."""
    argv = sys.argv[1:] if argv is None else argv
    requested = pid = program = None
    while argv:
        word = argv.pop(0)
        if word in ("--mpi", "--pid") and argv:
            value = argv.pop(0)
            requested, pid = (value, pid) if word == "--mpi" else (requested, value)
        else:
            program = word
            break
    if requested is not None and requested not in MPIS:
        sys.stderr.write("mpipp-gdb: --mpi must be one of %s\n" % ", ".join(MPIS))
        return 2
    found = process_mpi(int(pid)) if pid and pid.isdigit() else \
        program_mpi(program) if program else None
    fallback = os.environ.get("MPIPP_MPI")
    try:
        print(choose(requested, found, fallback=fallback if fallback in MPIS else None))
    except MpiMismatch as err:
        sys.stderr.write("mpipp-gdb: %s\n" % err)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
