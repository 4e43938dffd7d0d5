"""The gdb-free reader of groups and windows (readers/objects.py) on
fake memory: windows with their epochs and regions, labels, where a target
region is, and corrupted tables as one ObjectsError line."""

import os
import struct
import sys

import pytest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "gdb-python"))
sys.path.insert(0, os.path.join(TESTS, "unit"))

from mpipp.readers.objects import (GROUP_FIELDS, LOCK_FIELDS, MAGIC, REGION_FIELDS, ROOT,
                                   WIN_FIELDS, Objects, ObjectsError)
from mpipp.readers.remote import CONSTANT  # noqa: E402

from fakemem import Blobs as Memory  # noqa: E402

ROOT_AT, TABLE_AT, GROUP_AT, WIN_AT, REGIONS_AT, MEMBERS_AT = (0x1000, 0x2000, 0x3000, 0x4000,
                                                               0x5000, 0x6000)
LOCKS, RANKS, NAME = 8, 16, 32


def layout():
    """Offsets of every field, packed in order (the reader takes them all
    from the table)."""
    out = {"sizeof.MPI_Group": 4, "sizeof.MPI_Win": 4, "win.locks_max": LOCKS,
           "win.epoch_ranks_max": RANKS, "win.regions_max": 64, "win.name_max": NAME,
           "flavor.create": 1, "flavor.allocate": 2, "flavor.allocate_shared": 3,
           "flavor.dynamic": 4, "epoch.fence": 1, "epoch.lock_all": 2, "epoch.access": 4,
           "epoch.exposure": 8, "MPI_LOCK_EXCLUSIVE": 234, "MPI_LOCK_SHARED": 235,
           "MPI_MODE_NOSUCCEED": 16384, "MPI_GROUP_EMPTY": 0x48000000, "MPI_WIN_NULL": 0x20000000}
    for prefix, fields, extra in (("group", GROUP_FIELDS, ()), ("region", REGION_FIELDS, ()),
                                  ("lock", LOCK_FIELDS, ()),
                                  ("win", WIN_FIELDS, (("locks", 8 * LOCKS),
                                                       ("access_ranks", 4 * RANKS),
                                                       ("exposure_ranks", 4 * RANKS),
                                                       ("name", NAME)))):
        offset = 0
        for name, width in [(n, struct.calcsize(f)) for n, f in fields] + list(extra):
            out["%s.%s" % (prefix, name)] = offset
            offset += width
        out["sizeof." + prefix] = offset
    return out


C = layout()


def record(prefix, fields, **values):
    raw = bytearray(C["sizeof." + prefix])
    for name, fmt in fields:
        struct.pack_into(fmt, raw, C["%s.%s" % (prefix, name)], values.get(name, 0))
    return raw


def image(constants=C, groups=0, wins=0, blobs=None):
    table = b"".join(CONSTANT.pack(n.encode(), v) for n, v in constants.items())
    root = ROOT.pack(MAGIC, 1, ROOT.size, 0, len(constants), 0, TABLE_AT, groups, wins)
    out = {ROOT_AT: root, TABLE_AT: table}
    out.update(blobs or {})
    return Memory(out)


def shared_window():
    w = record("win", WIN_FIELDS, handle=0xa0000001, serial=2, comm=0x84000001,
               flavor=3, disp_unit=8, base=0x7f00, size=64, group_size=2, rank=0,
               n_members=2, members=MEMBERS_AT, epoch=1 | 4, fences=3, nlocks=1,
               n_access=1, access_group=0x88000002, n_regions=2, regions=REGIONS_AT)
    struct.pack_into("<ii", w, C["win.locks"], 1, 234)
    struct.pack_into("<i", w, C["win.access_ranks"], 1)
    w[C["win.name"]:C["win.name"] + 8] = b"halo_win"
    regions = struct.pack("<Qqq", 0x7f00, 64, 8) + struct.pack("<Qqq", 0x7f40, 64, 8)
    g = record("group", GROUP_FIELDS, handle=0x88000002, serial=2, creator=0, size=1, rank=-1)
    return image(groups=GROUP_AT, wins=WIN_AT,
                 blobs={WIN_AT: bytes(w), REGIONS_AT: regions, GROUP_AT: bytes(g),
                        MEMBERS_AT: struct.pack("<2i", 0, 1)})


def test_window_epoch_and_regions():
    view = Objects(shared_window(), ROOT_AT)
    w = view.win(0xa0000001)
    assert (w.flavor_name, w.name, w.members, w.locks) == ("allocate_shared", "halo_win", [0, 1],
                                                           [(1, 234)])
    assert view.win_label(0xa0000001) == "halo_win" and view.group_label(0x88000002) == "group#2"
    assert view.by_label("halo_win") == ("win", 0xa0000001)
    assert view.by_label("win#2") == ("win", 0xa0000001)
    assert view.by_label("group#2") == ("group", 0x88000002)
    assert view.epoch_text(w) == ("fence epoch (3 fences so far); exclusive lock on rank 1; "
                                  "access epoch to rank 1 (MPI_Win_start, group#2)")
    # every rank's memory of a shared window is mapped here
    assert view.target_address(w, 1, 2) == 0x7f40 + 16
    assert view.target_address(w, 5, 0) is None


def test_targets_of_other_flavors():
    view = Objects(shared_window(), ROOT_AT)
    w = view.win(0xa0000001)
    w.flavor_name = "create"
    assert view.target_address(w, 0, 3) == 0x7f00 + 24       # this process
    assert view.target_address(w, 1, 3) is None                # another process
    w.flavor_name = "dynamic"
    assert view.target_address(w, 0, 0x7f08) == 0x7f08         # an address


def test_corrupted_tables():
    with pytest.raises(ObjectsError, match="bad magic"):
        Objects(Memory({ROOT_AT: b"\0" * ROOT.size}), ROOT_AT)
    bad = dict(C, **{"win.name": C["sizeof.win"]})
    with pytest.raises(ObjectsError, match="win.name = .* out of range"):
        Objects(image(bad), ROOT_AT)
    looped = record("group", GROUP_FIELDS, handle=1, next=GROUP_AT)
    view = Objects(image(groups=GROUP_AT, blobs={GROUP_AT: bytes(looped)}), ROOT_AT)
    with pytest.raises(ObjectsError, match="cycle"):
        view.groups()
