"""Reader of libmpireg's in-memory registry (layout: libmpireg/mpireg.h).

The reader sees the inferior only through a `memory` object with
`read(address, length) -> bytes` (raising ReadError) so it never calls into
the process and works the same on live processes and core files.  It
imports nothing from gdb; the gdb layer passes gdb-backed memory in.

Everything read is untrusted: sizes are capped, chains are bounded and
cycles in the type tree are detected, and every failure becomes a
RegistryError with a one-line message.
"""

import struct

from ..model.datatype import Constants, Datatype
from ..model.errors import ModelError
from ..remote import RemoteView

MAGIC = 0x3147455249504D6D
LAYOUT_VERSION = 1
ROOT = struct.Struct("<QIIQQQIIQQQ")
MAX_PREDEFINED = 4096
MAX_ARGS = 1 << 24
MAX_CHAIN = 100000
MAX_DEPTH = 64

# Model constant fields and the registry constants that give their values.
MPI_CONSTANTS = (("order_c", "MPI_ORDER_C"), ("order_fortran", "MPI_ORDER_FORTRAN"),
                 ("distribute_block", "MPI_DISTRIBUTE_BLOCK"),
                 ("distribute_cyclic", "MPI_DISTRIBUTE_CYCLIC"),
                 ("distribute_none", "MPI_DISTRIBUTE_NONE"),
                 ("distribute_dflt_darg", "MPI_DISTRIBUTE_DFLT_DARG"))
KIND_NAMES = ("int", "uint", "float", "complex", "char", "bool", "byte",
              "packed", "pair", "lb", "ub")


class RegistryError(ModelError):
    """The registry is absent, corrupted, or caught in the middle of an update."""


class Root:
    """The fixed head of the registry, read in one go."""

    def __init__(self, raw):
        (self.magic, self.layout_version, self.root_size, self.seq, self.map,
         self.predefined, self.n_predefined, self.n_constants, self.constants,
         self.live_records, self.next_serial) = ROOT.unpack(raw)


class Record:
    """The raw fields of one registry record."""

    __slots__ = ("address", "handle", "combiner", "flags", "kind", "user_refs",
                 "parent_refs", "serial", "created_at", "name_ptr", "size", "lb",
                 "extent", "true_lb", "true_extent", "n_integers", "n_addresses",
                 "n_large_counts", "n_datatypes", "args")


# The predefined table is read at every stop but changes only once (when MPI
# fills in the sizes): parsed records are kept for identical table bytes.
_predefined_parsed = {}

# Constants the reader cannot work without.
NEEDED = ("record.sizeof", "record.handle", "record.args", "hh.tbl", "hh.hh_next", "hh.key",
          "tbl.buckets", "tbl.num_buckets", "tbl.hho", "bucket.sizeof", "bucket.hh_head",
          "sizeof.MPI_Datatype", "hash.fmix64")


class Registry(RemoteView):
    """One consistent view of the registry, valid while the inferior is stopped."""

    error = RegistryError

    def __init__(self, memory, root_address):
        super().__init__(memory)
        self.root_address = root_address
        root = Root(self.read(root_address, ROOT.size, "registry root"))
        if root.magic != MAGIC:
            raise RegistryError("registry root at 0x%x has a bad magic number "
                                "(corrupted, or not libmpireg)" % root_address)
        if root.layout_version != LAYOUT_VERSION:
            raise RegistryError("registry layout version %d is not supported (expected %d)"
                                % (root.layout_version, LAYOUT_VERSION))
        if root.seq & 1:
            raise RegistryError("registry caught in the middle of an update (sequence %d); "
                                "step past the MPI datatype call and retry" % root.seq)
        if root.n_predefined > MAX_PREDEFINED:
            raise RegistryError("registry root is corrupted (%d predefined types)"
                                % root.n_predefined)
        self.root = root
        self.const = self.read_constants(root.constants, root.n_constants, NEEDED)
        self.constants = Constants(**{field: self.const[name] for field, name in MPI_CONSTANTS
                                      if name in self.const})
        self.combiner_names = {v: k[len("MPI_COMBINER_"):] for k, v in self.const.items()
                               if k.startswith("MPI_COMBINER_")}
        self.kind_names = {self.const["kind." + k]: k for k in KIND_NAMES
                           if "kind." + k in self.const}
        self.handle_mask = (1 << (8 * self.const["sizeof.MPI_Datatype"])) - 1
        self.datatype_null = self.const.get("MPI_DATATYPE_NULL")
        self._records = {}
        self._datatypes = {}
        self._predefined_by_handle = self._read_predefined(root)

    # -- records ----------------------------------------------------------

    def _parse_record(self, address, raw):
        c = self.const
        r = Record()
        r.address = address

        def field(name, fmt):
            return struct.unpack_from(fmt, raw, c["record." + name])[0]

        r.handle = field("handle", "<Q")
        r.combiner = field("combiner", "<i")
        r.flags = field("flags", "<H")
        r.kind = field("kind", "<H")
        r.user_refs = field("user_refs", "<I")
        r.parent_refs = field("parent_refs", "<I")
        r.serial = field("serial", "<Q")
        r.created_at = field("created_at", "<Q")
        r.name_ptr = field("name", "<Q")
        for name in ("size", "lb", "extent", "true_lb", "true_extent"):
            setattr(r, name, field(name, "<q"))
        for name in ("n_integers", "n_addresses", "n_large_counts", "n_datatypes"):
            value = field(name, "<I")
            if value > MAX_ARGS:
                raise RegistryError("record at 0x%x is corrupted (%s = %d)" % (address, name, value))
            setattr(r, name, value)
        r.args = field("args", "<Q")
        return r

    def record_at(self, address):
        if address not in self._records:
            raw = self.read(address, self.const["record.sizeof"], "a datatype record")
            self._records[address] = self._parse_record(address, raw)
        return self._records[address]

    def _read_predefined(self, root):
        size = self.const["record.sizeof"]
        raw = self.read(root.predefined, size * root.n_predefined, "predefined table")
        key = (root.predefined, raw)
        if key not in _predefined_parsed:
            records = {}
            for k in range(root.n_predefined):
                address = root.predefined + k * size
                records[address] = self._parse_record(address, raw[k * size:(k + 1) * size])
            _predefined_parsed.clear()
            _predefined_parsed[key] = records
        records = _predefined_parsed[key]
        self._records.update(records)
        return {record.handle: address for address, record in records.items()}

    # -- lookup -----------------------------------------------------------

    def key(self, handle):
        """The map key of a handle value (its bytes, zero-extended)."""
        return int(handle) & self.handle_mask

    def find_record(self, handle):
        """The record address for a handle, or None; O(1) memory reads."""
        key = self.key(handle)
        if key in self._predefined_by_handle:
            return self._predefined_by_handle[key]
        head = self.root.map
        if not head:
            return None
        c = self.const
        tbl = self.u64(head + c["record.hh"] + c["hh.tbl"], "hash table pointer")
        raw_tbl = self.read(tbl, max(c["tbl.buckets"], c["tbl.num_buckets"], c["tbl.hho"]) + 8,
                             "hash table")
        buckets = struct.unpack_from("<Q", raw_tbl, c["tbl.buckets"])[0]
        num_buckets = struct.unpack_from("<I", raw_tbl, c["tbl.num_buckets"])[0]
        hho = struct.unpack_from("<q", raw_tbl, c["tbl.hho"])[0]
        if num_buckets == 0 or num_buckets & (num_buckets - 1) or num_buckets > 1 << 31:
            raise RegistryError("registry hash table is corrupted (%d buckets)" % num_buckets)
        bucket = fmix64_low32(key) & (num_buckets - 1)
        hh = self.u64(buckets + bucket * c["bucket.sizeof"] + c["bucket.hh_head"],
                       "hash bucket")
        seen = set()
        while hh:
            if hh in seen or len(seen) > MAX_CHAIN:
                raise RegistryError("registry hash chain is corrupted (cycle)")
            seen.add(hh)
            record = hh - hho
            if self.u64(record + c["record.handle"], "record key") == key:
                return record
            hh = self.u64(hh + c["hh.hh_next"], "hash chain")
        return None

    def live_records(self):
        """Addresses of every record in the map, in creation (insertion) order."""
        c = self.const
        address, seen = self.root.map, set()
        while address:
            if address in seen or len(seen) > self.root.live_records + 16:
                raise RegistryError("registry list is corrupted (cycle or wrong count)")
            seen.add(address)
            yield address
            address = self.u64(address + c["record.hh"] + c["hh.next"], "record list")

    # -- model ------------------------------------------------------------

    def _read_args(self, r):
        if not r.args:
            if r.n_datatypes or r.n_addresses or r.n_large_counts or r.n_integers:
                raise RegistryError("record at 0x%x has arguments but no argument block" % r.address)
            return [], [], [], []
        n8 = r.n_datatypes + r.n_addresses + r.n_large_counts
        raw = self.read(r.args, 8 * n8 + 4 * r.n_integers, "datatype arguments")
        datatypes = list(struct.unpack_from("<%dQ" % r.n_datatypes, raw, 0))
        addresses = list(struct.unpack_from("<%dq" % r.n_addresses, raw, 8 * r.n_datatypes))
        large = list(struct.unpack_from("<%dq" % r.n_large_counts, raw,
                                        8 * (r.n_datatypes + r.n_addresses)))
        integers = list(struct.unpack_from("<%di" % r.n_integers, raw, 8 * n8))
        return integers, addresses, large, datatypes

    def datatype_at(self, address, _active=None):
        """The model Datatype of the record at address, children included."""
        if address in self._datatypes:
            return self._datatypes[address]
        active = _active if _active is not None else set()
        if address in active or len(active) >= MAX_DEPTH:
            raise RegistryError("datatype tree at 0x%x is corrupted (cycle or deeper than %d)"
                                % (address, MAX_DEPTH))
        active.add(address)
        r = self.record_at(address)
        integers, addresses, large, child_addresses = self._read_args(r)
        children = [self.datatype_at(a, active) for a in child_addresses]
        active.discard(address)
        c = self.const
        combiner = self.combiner_names.get(r.combiner)
        if combiner is None:
            raise RegistryError("record at 0x%x has an unknown combiner %d" % (address, r.combiner))
        predefined = bool(r.flags & c.get("flag.predefined", 4))
        dt = Datatype(
            combiner=combiner,
            integers=integers if not predefined else [],
            addresses=addresses if not predefined else [],
            large_counts=large,
            children=children if not predefined else [],
            size=r.size, lb=r.lb, extent=r.extent, true_lb=r.true_lb, true_extent=r.true_extent,
            name=self.string(r.name_ptr),
            kind=self.kind_names.get(r.kind) if predefined else None,
            members=list(zip(addresses, children)) if predefined else [],
            handle=r.handle,
            committed=bool(r.flags & c.get("flag.committed", 1)) or predefined,
            freed=bool(r.flags & c.get("flag.freed", 2)),
            serial=r.serial,
            created_at=r.created_at or None,
            constants=self.constants,
        )
        self._datatypes[address] = dt
        return dt

    def lookup(self, handle):
        """The Datatype for a handle, or None when the handle is not registered."""
        address = self.find_record(handle)
        return None if address is None else self.datatype_at(address)


def fmix64_low32(key):
    """mpireg_hash() of libmpireg/mpireg.h: MurmurHash3's fmix64, low 32 bits."""
    mask = (1 << 64) - 1
    key ^= key >> 33
    key = (key * 0xFF51AFD7ED558CCD) & mask
    key ^= key >> 33
    key = (key * 0xC4CEB9FE1A85EC53) & mask
    key ^= key >> 33
    return key & 0xFFFFFFFF
