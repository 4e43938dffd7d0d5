"""The gdb-free registry reader (readers/registry.py, model/registry.py) on layout-2 images
in fake memory: lookups follow the probe sequence the C side uses (wrapping
at the end of the table, bounded by max_probe), names come from the names
table, and a corrupted table, probe bound or record is one RegistryError."""

import struct

import pytest

from mpipp.model.registry import TypeRegistry
from mpipp.readers.registry import MAGIC, ROOT_V2, RegistryError, fmix64_low32
from mpipp.readers.remote import CONSTANT

from fakemem import Blobs as Memory

RECORD = struct.Struct("<QQqqqIIIhBBIIII")      # mpireg.h, struct mpireg_record
ROOT_AT, CONSTANTS_AT, SLOTS_AT, NAME_SLOTS_AT = 0x1000, 0x2000, 0x8000, 0x9000
PREDEFINED_AT, RECORDS_AT, NAMES_AT = 0xA000, 0x10000, 0x20000
PREDEFINED_SIZE, PREDEFINED_NAME = 112, 104
FLAG = {"committed": 1, "freed": 2, "predefined": 4, "named": 8}
NAMED, CONTIGUOUS = 1, 3


def constants():
    offsets = dict(zip(("handle", "created_at", "size", "lb", "extent", "serial", "user_refs",
                        "parent_refs", "combiner", "flags", "kind", "n_integers", "n_addresses",
                        "n_large_counts", "n_datatypes"),
                       (0, 8, 16, 24, 32, 40, 44, 48, 52, 54, 55, 56, 60, 64, 68)))
    table = {"record." + k: v for k, v in offsets.items()}
    table.update({"record.sizeof": 72, "record.args": 72, "table.sizeof": 24, "table.slots": 0,
                  "table.capacity": 8, "table.count": 12, "table.max_probe": 16,
                  "root.types": 24, "root.names": 48, "name.record": 0, "name.text": 8,
                  "predefined.sizeof": PREDEFINED_SIZE, "predefined.name": PREDEFINED_NAME,
                  "sizeof.MPI_Datatype": 4, "hash.fmix64": 1, "probe.linear": 1,
                  "kind.int": 1, "MPI_COMBINER_NAMED": NAMED,
                  "MPI_COMBINER_CONTIGUOUS": CONTIGUOUS})
    table.update({"flag." + k: v for k, v in FLAG.items()})
    return table


def constants_blob(table):
    """The constants table libmpireg exports, for {name: value}."""
    return b"".join(CONSTANT.pack(k.encode(), v) for k, v in table.items())


class Image:
    """A layout-2 registry in fake memory: MPI_INT predefined, and derived
    contiguous(n, MPI_INT) records placed in the types table slots asked."""

    def __init__(self, capacity=8):
        self.capacity = capacity
        self.slots = [0] * capacity
        self.name_slots = [0] * 8
        self.blobs = {}
        self.max_probe = 1
        self.count = 0
        int_record = RECORD.pack(0x4C000405, 0, 4, 0, 4, 0, 1, 0, NAMED,
                                 FLAG["predefined"] | FLAG["committed"], 1, 0, 0, 0, 0)
        entry = int_record + bytes(PREDEFINED_NAME - len(int_record)) + struct.pack("<Q", 0xB000)
        self.blobs[PREDEFINED_AT] = entry
        self.blobs[0xB000] = b"MPI_INT".ljust(64, b"\0")
        self.next_record = RECORDS_AT

    def add(self, handle, n, slot, name=None):
        """A record for handle, placed at slot (its probe distance is kept)."""
        address = self.next_record
        self.next_record += 0x100
        flags = FLAG["committed"] | (FLAG["named"] if name else 0)
        self.blobs[address] = RECORD.pack(handle, 0, 4 * n, 0, 4 * n, self.count + 1, 1, 0,
                                          CONTIGUOUS, flags, 0, 1, 0, 0, 1) + struct.pack(
                                              "<Qi", PREDEFINED_AT, n)
        self.slots[slot] = address
        home = fmix64_low32(handle) & (self.capacity - 1)
        self.max_probe = max(self.max_probe, (slot - home) % self.capacity + 1)
        self.count += 1
        if name:
            entry = NAMES_AT + 0x100 * self.count
            self.blobs[entry] = (struct.pack("<Q", address) + name.encode()).ljust(64, b"\0")
            self.name_slots[fmix64_low32(address) & 7] = entry
        return address

    def memory(self, seq=0, max_probe=None, capacity=None, count=None):
        table = constants_blob(constants())
        names = sum(1 for p in self.name_slots if p)
        root = ROOT_V2.pack(MAGIC, 2, ROOT_V2.size, seq,
                            SLOTS_AT, self.capacity if capacity is None else capacity,
                            self.count if count is None else count,
                            self.max_probe if max_probe is None else max_probe, 0,
                            NAME_SLOTS_AT, 8, names, 1, 0,
                            PREDEFINED_AT, 1, len(constants()), CONSTANTS_AT, self.count + 1)
        blobs = dict(self.blobs)
        blobs.update({ROOT_AT: root, CONSTANTS_AT: table,
                      SLOTS_AT: struct.pack("<%dQ" % self.capacity, *self.slots),
                      NAME_SLOTS_AT: struct.pack("<8Q", *self.name_slots)})
        return Memory(blobs)


def patch(blobs, address, at, data):
    """Overwrite bytes at+ of the blob at address (corrupted memory)."""
    raw = bytearray(blobs[address])
    raw[at:at + len(data)] = data
    blobs[address] = bytes(raw)


def handle_with_home(home, capacity=8, start=0xCC000000):
    """A handle whose probe sequence starts at slot home."""
    h = start
    while fmix64_low32(h) & (capacity - 1) != home:
        h += 1
    return h


def test_lookup_and_name():
    img = Image()
    h = handle_with_home(3)
    address = img.add(h, 5, 3, name="halo_t")
    reg = TypeRegistry(img.memory(), ROOT_AT)
    dt = reg.lookup(h)
    assert reg.find_record(h) == address
    assert (dt.combiner, dt.name, dt.size, dt.extent) == ("CONTIGUOUS", "halo_t", 20, 20)
    assert dt.children[0].name == "MPI_INT" and dt.true_extent == 20
    assert reg.lookup(0x4C000405).name == "MPI_INT"
    assert reg.lookup(h + 1) is None
    assert list(reg.live_records()) == [address]


def test_control_characters_of_a_name_are_escaped():
    # a name given to MPI (or corrupted memory): one line, no terminal escapes
    img = Image()
    h = handle_with_home(3)
    img.add(h, 5, 3, name="halo\n\x1b[31m")
    assert TypeRegistry(img.memory(), ROOT_AT).lookup(h).name == "halo\\x0a\\x1b[31m"


def test_probe_wraps_around_the_end_of_the_table():
    img = Image()
    h1, h2 = handle_with_home(7), handle_with_home(7, start=handle_with_home(7) + 1)
    img.add(h1, 1, 7)
    second = img.add(h2, 2, 0)          # displaced past the last slot
    reg = TypeRegistry(img.memory(), ROOT_AT)
    assert img.max_probe == 2
    assert reg.find_record(h2) == second
    assert reg.lookup(h2).size == 8


def test_probe_is_bounded_by_max_probe():
    img = Image()
    h = handle_with_home(2)
    img.add(h, 1, 5)                    # 3 slots away from home
    mem = img.memory(max_probe=2)       # a bound that lies
    assert TypeRegistry(mem, ROOT_AT).find_record(h) is None
    slot_reads = [r for r in mem.reads if SLOTS_AT <= r[0] < SLOTS_AT + 64]
    assert slot_reads == [(SLOTS_AT + 16, 16)]   # one read of the 2-slot window


def test_lookup_reads_a_constant_amount():
    img = Image(capacity=64)
    handles = []
    for k in range(40):
        h = 0xCC000000 + k
        home = fmix64_low32(h) & 63
        slot = next(s % 64 for s in range(home, home + 64) if not img.slots[s % 64])
        img.add(h, 1, slot)
        handles.append(h)
    mem = img.memory()
    reg = TypeRegistry(mem, ROOT_AT)
    for h in handles:
        before = len(mem.reads)
        assert reg.find_record(h) is not None
        assert len(mem.reads) - before <= 2 + img.max_probe


@pytest.mark.parametrize("fields,message", [
    (dict(capacity=6), "types table is corrupted"),
    (dict(count=9), "types table is corrupted"),
    (dict(max_probe=9), "types table is corrupted"),
    (dict(seq=5), "middle of an update"),
])
def test_corrupted_root(fields, message):
    img = Image()
    img.add(handle_with_home(1), 1, 1)
    with pytest.raises(RegistryError, match=message):
        TypeRegistry(img.memory(**fields), ROOT_AT)


def test_more_objects_than_the_count():
    img = Image()
    img.add(handle_with_home(1), 1, 1)
    img.add(handle_with_home(4), 1, 4)
    reg = TypeRegistry(img.memory(count=1), ROOT_AT)
    with pytest.raises(RegistryError, match="more objects than its count"):
        list(reg.live_records())


def test_unknown_layout_version():
    img = Image()
    mem = img.memory()
    patch(mem.blobs, ROOT_AT, 8, struct.pack("<I", 7))
    with pytest.raises(RegistryError, match="layout version 7 is not supported"):
        TypeRegistry(mem, ROOT_AT)


@pytest.mark.parametrize("at, field, message", [
    (56, lambda address: struct.pack("<I", 1 << 30), "n_integers"),   # absurd counts
    (72, lambda address: struct.pack("<Q", address), "cycle"),        # its child is itself
])
def test_corrupted_record(at, field, message):
    img = Image()
    h = handle_with_home(2)
    address = img.add(h, 1, 2)
    patch(img.blobs, address, at, field(address))
    with pytest.raises(RegistryError, match=message):
        TypeRegistry(img.memory(), ROOT_AT).lookup(h)


def test_fortran_handles_are_found_through_root_fortran():
    """A Fortran handle that differs from the C one (Open MPI) is looked up
    in root.fortran, then as the C handle it maps to; with no such table (an
    older libmpireg) or no entry, the handle is simply not registered."""
    img = Image()
    h = handle_with_home(2)
    address = img.add(h, 3, 2)
    plain = TypeRegistry(img.memory(), ROOT_AT)
    assert plain.find_record(17) is None
    fortran_at, slots_at, entries_at = ROOT_AT + 0x200, 0xC000, 0xD000
    entries = {17: 0x4C000405, 23: h, 31: 0xDEAD}   # MPI_INT, the record, a gone type
    slots = [0] * 8
    blobs = {}
    for k, (fortran, c_key) in enumerate(entries.items()):
        home = fmix64_low32(fortran) & 7
        while slots[home]:
            home = (home + 1) & 7
        slots[home] = entries_at + 0x10 * k
        blobs[slots[home]] = struct.pack("<QQ", fortran, c_key)
    memory = img.memory()
    constants_table = dict(constants(), **{"root.fortran": fortran_at - ROOT_AT,
                                           "fortran.handle": 8, "sizeof.MPI_Fint": 4})
    memory.blobs.update(blobs)
    memory.blobs[CONSTANTS_AT] = constants_blob(constants_table)
    patch(memory.blobs, ROOT_AT, ROOT_V2.size - 20,
          struct.pack("<I", len(constants_table)))                    # root.n_constants
    memory.blobs[fortran_at] = struct.pack("<QIIII", slots_at, 8, len(entries), 8, 0)
    memory.blobs[slots_at] = struct.pack("<8Q", *slots)
    reg = TypeRegistry(memory, ROOT_AT)
    assert reg.lookup(17).name == "MPI_INT"
    assert reg.find_record(23) == address and reg.lookup(23).combiner == "CONTIGUOUS"
    assert reg.find_record(31) is None and reg.find_record(99) is None
    assert reg.find_record(h) == address


def test_constants_out_of_range():
    img = Image()
    img.add(handle_with_home(1), 1, 1)
    mem = img.memory()
    table = dict(constants(), **{"record.flags": 100})
    mem.blobs[CONSTANTS_AT] = constants_blob(table)
    with pytest.raises(RegistryError, match=r"constants table is corrupted \(record.flags = 100\)"):
        TypeRegistry(mem, ROOT_AT)
