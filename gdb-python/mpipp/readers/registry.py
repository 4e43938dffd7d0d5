"""Reader of libmpireg's in-memory registry (layout: libmpireg/registry/mpireg.h).

The reader sees the inferior only through a `memory` object with
`read(address, length) -> bytes` (raising ReadError) so it never calls into
the process and works the same on live processes and core files.  It
imports nothing from gdb; the gdb layer passes gdb-backed memory in.

Two layouts are read.  Version 2 (the current libmpireg): 72-byte records
with their arguments inline, found through an open-addressing table of
record pointers, names in a second table.  Version 1 (libmpireg before
layout 2, e.g. a core file of an older build): 168-byte records in a uthash
map.  Each is one class below that knows its root, its records and how to
find a key; everything else (constants, predefined types, the model) is
shared.

Everything read is untrusted: sizes are capped, chains and probes are
bounded and cycles in the type tree are detected, and every failure becomes
a RegistryError with a one-line message.
"""

import struct
from collections import namedtuple

from .errors import MpippError
from .remote import RecordFormat, RemoteView

MAGIC = 0x3147455249504D6D
HEAD = struct.Struct("<QIIQ")       # magic, layout_version, root_size, seq: every version
MAX_PREDEFINED = 4096
# The most arguments mpipp reads for a record: of one kind, and in bytes
# (one read; 2**24 integers become some 600 MB of Python objects: an
# indexed type of 8 million blocks; a corrupted count is far larger).
MAX_ARGS = 1 << 24
MAX_ARGS_BYTES = 64 << 20
MAX_CHAIN = 100000
MAX_PROBE = 4096
MAX_CAPACITY = 1 << 31
SLOT_BATCH = 1 << 16                # table slots read at once when listing

KIND_NAMES = ("int", "uint", "float", "complex", "char", "bool", "byte",
              "packed", "pair", "lb", "ub")


class RegistryError(MpippError):
    """The registry is absent, corrupted, or caught in the middle of an update."""


class Record:
    """The raw fields of one registry record (true_lb/true_extent None when
    the layout does not store them)."""

    __slots__ = ("address", "handle", "combiner", "flags", "kind", "user_refs",
                 "parent_refs", "serial", "created_at", "name", "size", "lb",
                 "extent", "true_lb", "true_extent", "n_integers", "n_addresses",
                 "n_large_counts", "n_datatypes", "args")


RecordSummary = namedtuple("RecordSummary", "handle name combiner size extent committed freed "
                                             "serial created_at")


def record_format(view, const, fields):
    """The RecordFormat of a layout's records, made once per constants table."""
    return view.derived("record format", lambda: RecordFormat(view, const, "record.", fields,
                                                                const["record.sizeof"]))


def parse_record(record_format, address, raw, offset):
    r = record_format.fill(Record(), raw, offset)
    r.address = address
    return r


# -- layout 2 --------------------------------------------------------------

ROOT_V2 = struct.Struct("<QIIQ" "QIIII" "QIIII" "QIIQQ")
TABLE = struct.Struct("<QIII")      # slots, capacity, count, max_probe
RECORD_V2 = (("handle", "Q"), ("created_at", "Q"), ("size", "q"), ("lb", "q"), ("extent", "q"),
             ("serial", "I"), ("user_refs", "I"), ("parent_refs", "I"), ("combiner", "h"),
             ("flags", "B"), ("kind", "B"), ("n_integers", "I"), ("n_addresses", "I"),
             ("n_large_counts", "I"), ("n_datatypes", "I"))


class Table:
    """One of the root's open-addressing tables (mpireg.h, "Tables")."""

    def __init__(self, view, what, slots, capacity, count, max_probe):
        if (capacity & (capacity - 1) or capacity > MAX_CAPACITY or count > capacity
                or max_probe > min(capacity, MAX_PROBE) or (capacity and not slots)):
            raise RegistryError("registry %s table is corrupted (capacity %d, count %d, "
                                "max_probe %d)" % (what, capacity, count, max_probe))
        self.view, self.what = view, what
        self.slots, self.capacity, self.count, self.max_probe = slots, capacity, count, max_probe

    def _read_slots(self, first, n):
        raw = self.view.read(self.slots + 8 * first, 8 * n, "%s table slots" % self.what)
        return struct.unpack("<%dQ" % n, raw)

    def probe(self, key):
        """The object pointers a lookup of key visits, in probe order."""
        if not self.capacity or not self.max_probe:
            return ()
        first = fmix64_low32(key) & (self.capacity - 1)
        n = self.max_probe
        head = min(n, self.capacity - first)
        window = self._read_slots(first, head)
        if n > head:                                # the probe wraps around
            window += self._read_slots(0, n - head)
        return window

    def find(self, key, key_at):
        """The object whose key (key_at(pointer)) is key, or None."""
        for pointer in self.probe(key):
            if not pointer:
                return None
            if key_at(pointer) == key:
                return pointer
        return None

    def objects(self):
        """Every object pointer, in slot order (reads the slots in batches)."""
        found = 0
        for first in range(0, self.capacity, SLOT_BATCH):
            for pointer in self._read_slots(first, min(SLOT_BATCH, self.capacity - first)):
                if pointer:
                    found += 1
                    if found > self.count:
                        raise RegistryError("registry %s table is corrupted (more objects than "
                                            "its count %d)" % (self.what, self.count))
                    yield pointer


class Layout2:
    """Records in a pool, found through root.types; names in root.names."""

    version = 2
    root = ROOT_V2
    needed = ("record.sizeof", "record.args", "table.slots", "table.capacity", "table.count",
              "table.max_probe", "name.record", "name.text", "predefined.sizeof",
              "predefined.name", "sizeof.MPI_Datatype", "hash.fmix64", "probe.linear") + tuple(
                  "record." + name for name, _code in RECORD_V2)

    def __init__(self, view, raw_root):
        (_magic, _version, _size, _seq,
         types_slots, types_cap, types_count, types_probe, _r1,
         names_slots, names_cap, names_count, names_probe, _r2,
         self.predefined, self.n_predefined, self.n_constants, self.constants,
         self.next_serial) = ROOT_V2.unpack(raw_root)
        self.view = view
        self.types = Table(view, "types", types_slots, types_cap, types_count, types_probe)
        self.names = Table(view, "names", names_slots, names_cap, names_count, names_probe)

    def setup(self, const):
        self.fortran = self._fortran_table(const)
        self.format = record_format(self.view, const, RECORD_V2)
        self.args_offset = const["record.args"]
        self.predefined_stride = const["predefined.sizeof"]
        self.predefined_name = const["predefined.name"]
        self.name_text = const["name.text"]
        self.handle_offset = const["record.handle"]
        self.named_flag = const.get("flag.named", 8)
        self.predefined_flag = const.get("flag.predefined", 4)
        if not (self.format.size <= self.predefined_stride and
                0 <= self.predefined_name <= self.predefined_stride - 8):
            raise RegistryError("registry constants table is corrupted (predefined entries)")

    def parse(self, address, raw, offset=0):
        r = parse_record(self.format, address, raw, offset)
        r.true_lb = r.true_extent = None    # computed by the model from the tree
        r.args = address + self.args_offset
        r.name = self._name(r, raw, offset)
        return r

    def _name(self, r, raw, offset):
        view = self.view
        if r.flags & self.predefined_flag:
            at = offset + self.predefined_name
            pointer = (struct.unpack_from("<Q", raw, at)[0] if at + 8 <= len(raw) else
                       view.u64(r.address + self.predefined_name, "predefined name"))
            return view.string(pointer)
        if not r.flags & self.named_flag:
            return None
        entry = self.names.find(r.address, lambda p: view.u64(p, "name key"))
        return None if entry is None else view.string(entry + self.name_text)

    def _fortran_table(self, const):
        """root.fortran (Fortran handle -> C handle), where this libmpireg has it."""
        if "root.fortran" not in const or "fortran.handle" not in const:
            return None
        raw = self.view.read(self.view.root_address + const["root.fortran"], TABLE.size,
                             "registry root")
        self.fortran_handle_offset = const["fortran.handle"]
        return Table(self.view, "fortran", *TABLE.unpack(raw))

    def find(self, key):
        return self.types.find(key, lambda p: self.view.u64(p + self.handle_offset, "record key"))

    def c_key(self, fortran):
        """The C handle's key of a Fortran handle, or None (see mpireg.h)."""
        if self.fortran is None:
            return None
        view = self.view
        entry = self.fortran.find(fortran, lambda p: view.u64(p, "Fortran handle"))
        return None if entry is None else view.u64(entry + self.fortran_handle_offset,
                                                   "Fortran handle entry")

    def live(self):
        """In creation (serial) order; a record that cannot be read comes
        last, so that listing it can say why without hiding the others."""
        keyed = []
        for pointer in self.types.objects():
            try:
                keyed.append((0, self.view.record_at(pointer).serial, pointer))
            except RegistryError:
                keyed.append((1, 0, pointer))
        return [pointer for _bad, _serial, pointer in sorted(keyed)]


# -- layout 1 --------------------------------------------------------------

ROOT_V1 = struct.Struct("<QIIQQQIIQQQ")
RECORD_V1 = (("handle", "Q"), ("combiner", "i"), ("flags", "H"), ("kind", "H"), ("user_refs", "I"),
             ("parent_refs", "I"), ("serial", "Q"), ("created_at", "Q"), ("name", "Q"),
             ("size", "q"), ("lb", "q"), ("extent", "q"), ("true_lb", "q"), ("true_extent", "q"),
             ("n_integers", "I"), ("n_addresses", "I"), ("n_large_counts", "I"),
             ("n_datatypes", "I"), ("args", "Q"))


class Layout1:
    """libmpireg before layout 2: records in a uthash map (root.map), the
    name and the argument block behind pointers."""

    version = 1
    root = ROOT_V1
    needed = ("record.sizeof", "record.hh", "hh.tbl", "hh.next", "hh.hh_next", "tbl.buckets",
              "tbl.num_buckets", "tbl.hho", "bucket.sizeof", "bucket.hh_head",
              "sizeof.MPI_Datatype", "hash.fmix64") + tuple(
                  "record." + name for name, _code in RECORD_V1)

    def __init__(self, view, raw_root):
        (_magic, _version, _size, _seq, self.map, self.predefined, self.n_predefined,
         self.n_constants, self.constants, self._live, self.next_serial) = ROOT_V1.unpack(raw_root)
        self.view = view

    def setup(self, const):
        self.const = const
        self.format = record_format(self.view, const, RECORD_V1)
        self.predefined_stride = const["record.sizeof"]

    def parse(self, address, raw, offset=0):
        r = parse_record(self.format, address, raw, offset)
        r.name = self.view.string(r.name)
        return r

    def c_key(self, fortran):
        """Layout 1 has no Fortran handles."""
        return None

    def find(self, key):
        if not self.map:
            return None
        c, view = self.const, self.view
        tbl = view.u64(self.map + c["record.hh"] + c["hh.tbl"], "hash table pointer")
        raw_tbl = view.read(tbl, max(c["tbl.buckets"], c["tbl.num_buckets"], c["tbl.hho"]) + 8,
                            "hash table")
        buckets = struct.unpack_from("<Q", raw_tbl, c["tbl.buckets"])[0]
        num_buckets = struct.unpack_from("<I", raw_tbl, c["tbl.num_buckets"])[0]
        hho = struct.unpack_from("<q", raw_tbl, c["tbl.hho"])[0]
        if num_buckets == 0 or num_buckets & (num_buckets - 1) or num_buckets > 1 << 31:
            raise RegistryError("registry hash table is corrupted (%d buckets)" % num_buckets)
        bucket = fmix64_low32(key) & (num_buckets - 1)
        hh = view.u64(buckets + bucket * c["bucket.sizeof"] + c["bucket.hh_head"], "hash bucket")
        seen = set()
        while hh:
            if hh in seen or len(seen) > MAX_CHAIN:
                raise RegistryError("registry hash chain is corrupted (cycle)")
            seen.add(hh)
            record = hh - hho
            if view.u64(record + c["record.handle"], "record key") == key:
                return record
            hh = view.u64(hh + c["hh.hh_next"], "hash chain")
        return None

    def live(self):
        """In creation (insertion) order: uthash's application order."""
        c, out = self.const, []
        address, seen = self.map, set()
        while address:
            if address in seen or len(seen) > self._live + 16:
                raise RegistryError("registry list is corrupted (cycle or wrong count)")
            seen.add(address)
            out.append(address)
            address = self.view.u64(address + c["record.hh"] + c["hh.next"], "record list")
        return out


LAYOUTS = {layout.version: layout for layout in (Layout1, Layout2)}


# -- the registry ----------------------------------------------------------

class Registry(RemoteView):
    """One consistent view of the registry, valid while the inferior is stopped."""

    error = RegistryError

    def __init__(self, memory, root_address):
        super().__init__(memory)
        self.root_address = root_address
        magic, version, root_size, seq = HEAD.unpack(self.read(root_address, HEAD.size,
                                                               "registry root"))
        if magic != MAGIC:
            raise RegistryError("registry root at 0x%x has a bad magic number "
                                "(corrupted, or not libmpireg)" % root_address)
        if version not in LAYOUTS:
            raise RegistryError("registry layout version %d is not supported (this mpipp reads "
                                "versions %s)" % (version, ", ".join(map(str, sorted(LAYOUTS)))))
        if seq & 1:
            raise RegistryError("registry caught in the middle of an update (sequence %d); "
                                "step past the MPI datatype call and retry" % seq)
        self._records = {}
        layout_class = LAYOUTS[version]
        if root_size < layout_class.root.size:
            raise RegistryError("registry root is corrupted (size %d)" % root_size)
        raw = self.read(root_address, layout_class.root.size, "registry root")
        self.layout = layout = layout_class(self, raw)
        if layout.n_predefined > MAX_PREDEFINED:
            raise RegistryError("registry root is corrupted (%d predefined types)"
                                % layout.n_predefined)
        self.layout_version = version
        self.seq = seq
        self.const = self.read_constants(layout.constants, layout.n_constants, layout.needed)
        layout.setup(self.const)
        (self.combiner_names, self.kind_names, self.handle_mask,
         self.fortran_mask) = self.derived("names", self._names)
        self.datatype_null = self.const.get("MPI_DATATYPE_NULL")
        self._predefined_by_handle = self._read_predefined()
        self._predefined_by_name = None

    def _names(self):
        """What the constants table alone gives: combiner and kind names by
        value, the handle masks."""
        const = self.const
        return ({v: k[len("MPI_COMBINER_"):] for k, v in const.items()
                 if k.startswith("MPI_COMBINER_")},
                {const["kind." + k]: k for k in KIND_NAMES if "kind." + k in const},
                self.handle_mask_of(const, "sizeof.MPI_Datatype"),
                self.handle_mask_of(const, "sizeof.MPI_Fint", 4))

    # -- records ----------------------------------------------------------

    def _check_counts(self, r):
        for name in ("n_integers", "n_addresses", "n_large_counts", "n_datatypes"):
            value = getattr(r, name)
            if value > MAX_ARGS:
                raise RegistryError("record at 0x%x has %s = %d: more than mpipp reads (%d; "
                                    "corrupted?)" % (r.address, name, value, MAX_ARGS))
        return r

    def record_at(self, address):
        if address not in self._records:
            raw = self.read(address, self.layout.format.size, "a datatype record")
            self._records[address] = self._check_counts(self.layout.parse(address, raw))
        return self._records[address]

    def _read_predefined(self):
        """{handle: record address} of the predefined types.  Their records
        are kept with the constants table while the predefined table's bytes
        stay the same (MPI fills in the sizes once): a stop reads the table
        again and parses nothing.  predefined_key names those bytes, for what
        the layers above keep with them."""
        layout = self.layout
        stride, n = layout.predefined_stride, layout.n_predefined
        raw = self.read(layout.predefined, stride * n, "predefined table")
        kept = self.derived("predefined", dict)
        key = (layout.predefined, raw)
        if key not in kept:
            records = {}
            for k in range(n):
                address = layout.predefined + k * stride
                records[address] = self._check_counts(layout.parse(address, raw, k * stride))
            kept.clear()
            kept[key] = (records, {r.handle: a for a, r in records.items()})
        self.predefined_key = key
        self._predefined_records, by_handle = kept[key]
        self._records.update(self._predefined_records)
        return by_handle

    # -- lookup -----------------------------------------------------------

    def key(self, handle):
        """The table key of a handle value (its bytes, zero-extended)."""
        return int(handle) & self.handle_mask

    def find_record(self, handle, fortran=True):
        """The record address for a handle, or None; O(1) memory reads.  A
        handle found nowhere else may be a Fortran handle (an INTEGER in a
        Fortran frame) that differs from the C one: looked up through
        root.fortran."""
        key = self.key(handle)
        if key in self._predefined_by_handle:
            return self._predefined_by_handle[key]
        address = self.layout.find(key)
        if address is None and fortran:
            c_key = self.layout.c_key(int(handle) & self.fortran_mask)
            if c_key is not None:
                return self.find_record(c_key, fortran=False)
        return address

    def predefined_names(self):
        """{name: record address} of the predefined types (the names MPI gives them)."""
        if self._predefined_by_name is None:
            self._predefined_by_name = {}
            for address in self._predefined_by_handle.values():
                name = self.record_at(address).name
                if name:
                    self._predefined_by_name.setdefault(name, address)
        return self._predefined_by_name

    def live_records(self):
        """Addresses of every record in the table, in creation order."""
        return iter(self.layout.live())

    def summary_at(self, address):
        """What one line about a record says (`mpipp list`), from the record
        alone: its arguments are not read, so the line costs the same for
        a type of 10**6 blocks as for a vector."""
        r = self.record_at(address)
        combiner = self.combiner_names.get(r.combiner)
        if combiner is None:
            raise RegistryError("record at 0x%x has an unknown combiner %d" % (address, r.combiner))
        committed, freed = self.state(r)
        return RecordSummary(r.handle, r.name, combiner, r.size, r.extent, committed, freed,
                             r.serial, r.created_at or None)

    def state(self, r):
        """(committed, freed) from a record's flags."""
        c = self.const
        return bool(r.flags & c.get("flag.committed", 1)), bool(r.flags & c.get("flag.freed", 2))

    def built_by_mpi(self, address):
        """Whether MPI itself created the type inside a wrapped call (ROMIO's
        and OMPIO's helper types during MPI-IO), not the program."""
        return bool(self.record_at(address).flags & self.const.get("flag.mpi", 0))

    # -- arguments --------------------------------------------------------

    def is_predefined(self, r):
        """Whether a record is one of the predefined table's."""
        return bool(r.flags & self.const.get("flag.predefined", 4))

    def read_args(self, r):
        """(integers, addresses, large counts, child record addresses) of a
        record, in MPI_Type_get_contents order, in one read."""
        n8 = r.n_datatypes + r.n_addresses + r.n_large_counts
        if not n8 and not r.n_integers:
            return [], [], [], []
        if not r.args:
            raise RegistryError("record at 0x%x has arguments but no argument block" % r.address)
        size = 8 * n8 + 4 * r.n_integers
        if size > MAX_ARGS_BYTES:
            raise RegistryError("record at 0x%x has %d bytes of arguments: more than mpipp "
                                "reads (%d; corrupted?)" % (r.address, size, MAX_ARGS_BYTES))
        raw = self.read(r.args, size, "datatype arguments")
        datatypes = list(struct.unpack_from("<%dQ" % r.n_datatypes, raw, 0))
        addresses = list(struct.unpack_from("<%dq" % r.n_addresses, raw, 8 * r.n_datatypes))
        large = list(struct.unpack_from("<%dq" % r.n_large_counts, raw,
                                        8 * (r.n_datatypes + r.n_addresses)))
        integers = list(struct.unpack_from("<%di" % r.n_integers, raw, 8 * n8))
        return integers, addresses, large, datatypes

def fmix64_low32(key):
    """mpireg_hash() of libmpireg/registry/mpireg.h: MurmurHash3's fmix64, low 32 bits."""
    mask = (1 << 64) - 1
    key ^= key >> 33
    key = (key * 0xFF51AFD7ED558CCD) & mask
    key ^= key >> 33
    key = (key * 0xC4CEB9FE1A85EC53) & mask
    key ^= key >> 33
    return key & 0xFFFFFFFF
