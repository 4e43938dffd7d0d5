"""The selected inferior's memory, and everything mpipp keeps of it.

GdbMemory is the memory object the readers are fed: plain reads, never a
call into the program.  Every cache mpipp keeps of the inferior is
registered here, with one of two lifetimes:

* for one stop (on_change: dropped whenever the inferior may have changed --
  it ran, a new objfile appeared, memory was written, a function was
  called):
    views.py             each StopView's view of a libmpireg root, per inferior
    memory._stop_logs    the reads those views made (readlog.ReadLog)
    context/printers.py  _index: the buffers of the current calls and pending
                         requests, sorted for the buffer printer
* until objfiles change (on_objfiles_change, _forget_static: objfiles come
  or go, memory is written, the process exits):
    symbols.py           ObjfileFacts: where a symbol is, what line and what
                         code an address is (_symbols, _line_sites, _code_sites)
    readers/remote.py    _static: libmpireg's string literals, per process
    memory._kept         answers kept across stops (kept_across_stops)
    context/current.py   _type: struct mpireg_mpi_call, the type of $mpi_call
    datatypes/buffers.py _type_cache: the C type of each basic MPI type
    datatypes/synthetic.py  _type: the integer type of synthetic values

Not caches of the inferior, so tied to neither:
    readers/remote.py    _tables: parsed constants tables, kept by their
                         bytes (what they say cannot go stale), at most 16
    datatypes/synthetic.py  _by_id, _by_key: what each synthetic value stands
                         for, for the session (gdb holds the values: a
                         varobj's child, $1), at most MAX_ENTRIES
    datatypes/printers.py   _noticed: the processes told libmpireg is missing
    context/current.py   _told: whether the session was told $mpi_call
                         cannot be built
    datatypes/commands.py   last_shown: what the TUI window follows (the
                         last `mpipp TYPE ADDR` or `mpipp info`), read anew
                         at each stop

connect_events() ties both lifetimes to gdb's events (register() calls
it); nothing else connects to them for invalidation.
"""

import gdb

from ..readers import readlog, remote
from ..readers.errors import MpippError, ReadError

# The largest single read mpipp asks of gdb.  gdb allocates the whole buffer
# before reading, and aborts ("virtual memory exhausted") when it cannot: a
# corrupted size or extent must give one error line instead.  The readers
# and renderers read far less (records, argument blocks, 4 MiB chunks).
MAX_READ_BYTES = 64 << 20


ADDRESS_LIMIT = 1 << 64


class GdbMemory:
    """Plain memory reads of the selected inferior; never calls into it.
    cache_key names the process, for what readers keep beyond a stop."""

    def __init__(self, inferior):
        self.inferior = inferior
        self.cache_key = (inferior.num, inferior.pid)

    def read(self, address, length):
        if length == 0:
            return b""
        if not 0 < length <= MAX_READ_BYTES or not 0 <= address < ADDRESS_LIMIT - length:
            raise ReadError(address, length, "refusing to read %d bytes at 0x%x (corrupted size?)"
                            % (length, address % ADDRESS_LIMIT))
        try:
            return self.inferior.read_memory(address, length).tobytes()
        except (gdb.MemoryError, gdb.error, OverflowError, ValueError, MemoryError):
            raise ReadError(address, length) from None


# gdb 13 turns a gdb.Value larger than 'max-value-size' (65,536 bytes by
# default) into a C++ error that unwinds through Python's C frames: gdb
# crashes, or its interpreter is silently corrupted and crashes later.  So
# every value mpipp makes from bytes goes through value_from_bytes, which
# stays far below the setting (a quarter of it; 1 MiB when unlimited).
VALUE_SIZE_SHARE = 4


UNLIMITED_VALUE_SIZE = 1 << 20


def value_size_limit():
    """The largest gdb.Value (bytes) mpipp makes from bytes at present."""
    try:
        setting = gdb.parameter("max-value-size")
    except (gdb.error, RuntimeError):
        setting = None
    if setting is None or setting < 0:
        return UNLIMITED_VALUE_SIZE
    return int(setting) // VALUE_SIZE_SHARE


def value_from_bytes(raw, gdb_type):
    """A gdb.Value of gdb_type holding raw, or None when it would be larger
    than value_size_limit() (the caller then shows the data another way)."""
    if len(raw) > value_size_limit() or gdb_type.sizeof != len(raw):
        return None
    return gdb.Value(raw, gdb_type)


_change_hooks = []


def on_change(hook):
    """Call hook(event) whenever cached views of the inferior become stale."""
    _change_hooks.append(hook)


def invalidate(*event):
    for hook in _change_hooks:
        hook(*event)


class ObjfileFacts:
    """lookup(key)'s answers for the selected inferior's process, kept until
    objfiles come and go (_forget_static): where a symbol is, or what a code
    address is, does not change at every stop (a lookup costs ~0.4 ms)."""

    def __init__(self, lookup):
        self.lookup = lookup
        self.answers = {}

    def get(self, key):
        inf = gdb.selected_inferior()
        full_key = (inf.num, inf.pid, key)
        if full_key not in self.answers:
            self.answers[full_key] = self.lookup(key)
        return self.answers[full_key]

    def clear(self):
        self.answers.clear()


_OBJFILE_FACTS = []
_static_hooks = []


def objfile_facts(lookup):
    facts = ObjfileFacts(lookup)
    _OBJFILE_FACTS.append(facts)
    return facts


def on_objfiles_change(hook):
    """Call hook() whenever what is kept until objfiles change must go."""
    _static_hooks.append(hook)


# Dropped with the facts kept until objfiles change: the readers' static
# data (remote.forget_static), answers kept across stops and what other
# modules keep (on_objfiles_change) -- until memory is written, too.
def _forget_static(*_event):
    for facts in _OBJFILE_FACTS:
        facts.clear()
    forget_kept()
    remote.forget_static()
    for hook in _static_hooks:
        hook()


def lwp_of(thread):
    """The kernel thread id libmpireg records for a gdb thread (its LWP; the
    pid where the target gives none, as some core files do)."""
    return thread.ptid[1] or thread.ptid[0]


class NoProcess(MpippError):
    """The selected inferior has no process (not started yet, or exited):
    libmpireg's tables exist only in a live process or a core file (what
    gdb would read instead is the library's file on disk)."""

    def __init__(self):
        super().__init__("no process (run, attach or load a core file first)")


def has_process(inf=None):
    inf = inf or gdb.selected_inferior()
    return bool(inf.pid or inf.threads())


# What the views read at this stop, per inferior (readlog.ReadLog): an answer
# kept across stops (kept_across_stops) is checked against it.
_stop_logs = {}


def _forget_stop_reads(*_event):
    _stop_logs.clear()


on_change(_forget_stop_reads)


def stop_log(inf):
    return _stop_logs.setdefault((inf.num, inf.pid), readlog.ReadLog())


class _Kept:
    """An answer, with the threads and the reads it was built from."""

    def __init__(self, threads, reads, answer):
        self.threads, self.reads, self.answer = threads, reads, answer


# Answers kept across stops, by (name, inferior): dropped when objfiles
# change (symbols and lines may differ) or memory is written.
_kept = {}


def forget_kept(*_event):
    """Drops every answer kept across stops: the next is built anew, as
    after a stop where what it was built from changed."""
    _kept.clear()


def kept_across_stops(name, build):
    """build()'s answer (a command's document made from the views), made
    again only when it may differ: when a read the views made at the stop
    it was built at (readlog) now gives other bytes, when the process's
    threads changed (their gdb numbers are in documents), when objfiles
    changed or memory was written.  A stop where none of that changed costs
    a few reads instead of rebuilding every view."""
    inf = gdb.selected_inferior()
    if not has_process(inf):
        return build()
    threads = tuple((lwp_of(t), t.num) for t in inf.threads())
    key = (name, inf.num, inf.pid)
    kept = _kept.get(key)
    if kept is not None and kept.threads == threads and \
            kept.reads.unchanged(GdbMemory(inf)):
        return kept.answer
    _kept.pop(key, None)
    answer = build()
    reads = stop_log(inf).snapshot()
    if reads is not None:
        _kept[key] = _Kept(threads, reads, answer)
    return answer


def memory_reader(base):
    """read(offset, length) relative to base, as the model's renderers take it."""
    memory = GdbMemory(gdb.selected_inferior())
    return lambda offset, length: memory.read(base + offset, length)


def connect_events():
    for registry_ in (gdb.events.new_objfile, gdb.events.clear_objfiles,
                      gdb.events.memory_changed, gdb.events.exited):
        registry_.connect(_forget_static)
    for registry_ in (gdb.events.stop, gdb.events.cont, gdb.events.exited,
                      gdb.events.new_objfile, gdb.events.memory_changed,
                      gdb.events.inferior_call, gdb.events.clear_objfiles):
        registry_.connect(invalidate)
