"""Reader of libmpireg's groups and RMA windows (layout: libmpireg/context/objects.h).

Like the other readers (remote.RemoteView) it sees the inferior only
through `memory.read(address, length)`, imports nothing from gdb, takes
every offset from the root's constants table and bounds every list: a
failure is one ObjectsError line.
"""

import struct

from ..text.labels import win_label
from .errors import MpippError
from .remote import RemoteView, c_string

MAGIC = 0x31304A424F504D6D  # "mMPOBJ01"
LAYOUT_VERSION = 1
ROOT = struct.Struct("<QIIQIIQQQ")
MAX_RECORD = 1 << 16
MAX_LIST = 1 << 20
MAX_MEMBERS = 1 << 16

GROUP_FIELDS = (("handle", "<Q"), ("next", "<Q"), ("serial", "<Q"), ("created_at", "<Q"),
                ("creator", "<Q"), ("parent", "<Q"), ("parent2", "<Q"), ("size", "<i"),
                ("rank", "<i"), ("n_members", "<i"), ("members", "<Q"))
WIN_FIELDS = (("handle", "<Q"), ("next", "<Q"), ("serial", "<Q"), ("comm", "<Q"),
              ("created_at", "<Q"), ("creator", "<Q"), ("flavor", "<i"), ("disp_unit", "<i"),
              ("base", "<Q"), ("size", "<q"), ("group_size", "<i"), ("rank", "<i"),
              ("n_members", "<i"), ("members", "<Q"), ("epoch", "<I"), ("fence_assert", "<i"),
              ("fences", "<Q"), ("nlocks", "<i"), ("n_access", "<i"), ("n_exposure", "<i"),
              ("n_regions", "<i"), ("access_group", "<Q"), ("exposure_group", "<Q"),
              ("regions", "<Q"))
REGION_FIELDS = (("base", "<Q"), ("size", "<q"), ("disp_unit", "<q"))
LOCK_FIELDS = (("rank", "<i"), ("type", "<i"))


def _fields(prefix, fields):
    return [("%s.%s" % (prefix, name), struct.calcsize(fmt)) for name, fmt in fields]


NEEDED = ("sizeof.MPI_Group", "sizeof.MPI_Win", "sizeof.lock", "win.locks_max", "win.epoch_ranks_max",
          "win.regions_max", "flavor.create", "flavor.allocate", "flavor.allocate_shared",
          "flavor.dynamic", "epoch.fence", "epoch.lock_all", "epoch.access", "epoch.exposure")
FLAVORS = ("create", "allocate", "allocate_shared", "dynamic")


class ObjectsError(MpippError):
    """The groups and windows table is corrupted or caught mid-update."""


class Group:
    __slots__ = ("address", "handle", "next", "serial", "created_at", "creator", "parent",
                 "parent2", "size", "rank", "n_members", "members")


class Region:
    __slots__ = ("base", "size", "disp_unit")


class Win:
    __slots__ = ("address",) + tuple(name for name, _ in WIN_FIELDS) + (
        "locks", "access_ranks", "exposure_ranks", "name", "region_list", "flavor_name")


class Objects(RemoteView):
    """One view of the groups and windows, valid while the inferior is stopped."""

    error = ObjectsError
    subject = "groups and windows table"

    def __init__(self, memory, root_address):
        super().__init__(memory)
        raw = self.read(root_address, ROOT.size, "groups and windows root")
        (magic, version, _size, self.seq, n_constants, _pad, constants, self.groups_head,
         self.wins_head) = ROOT.unpack(raw)
        if magic != MAGIC:
            raise ObjectsError("groups and windows root at 0x%x has a bad magic number"
                               % root_address)
        if version != LAYOUT_VERSION:
            raise ObjectsError("groups and windows layout version %d is not supported "
                               "(expected %d)" % (version, LAYOUT_VERSION))
        if self.seq & 1:
            raise ObjectsError("groups and windows caught in the middle of an update "
                               "(sequence %d); step past the MPI call and retry" % self.seq)
        self.c = self.read_constants(constants, n_constants, NEEDED)
        self.group_mask, self.win_mask, self.flavors = self.derived("facts", self._facts)
        self._groups = None
        self._wins = None

    def _facts(self):
        """(group mask, window mask, {flavor: name}), once the table's layout is checked."""
        c = self.c
        self.check_layout(c, self._layout(c))
        return (self.handle_mask_of(c, "sizeof.MPI_Group"),
                self.handle_mask_of(c, "sizeof.MPI_Win"),
                {c["flavor." + name]: name for name in FLAVORS})

    @staticmethod
    def _layout(c):
        """Where every field lies, arrays included (their lengths are constants)."""
        locks = c["win.locks_max"] * c["sizeof.lock"]
        ranks = 4 * c["win.epoch_ranks_max"]
        return (
            ("sizeof.group", MAX_RECORD, _fields("group", GROUP_FIELDS)),
            ("sizeof.region", MAX_RECORD, _fields("region", REGION_FIELDS)),
            ("sizeof.lock", MAX_RECORD, _fields("lock", LOCK_FIELDS)),
            ("sizeof.win", MAX_RECORD, _fields("win", WIN_FIELDS) + [
                ("win.name", "win.name_max"), ("win.locks", locks),
                ("win.access_ranks", ranks), ("win.exposure_ranks", ranks)]),
        )

    def _f(self, raw, prefix, name, fmt, base=0):
        return struct.unpack_from(fmt, raw, base + self.c["%s.%s" % (prefix, name)])[0]

    def _walk(self, head, prefix, what):
        """(address, raw bytes) of every record of a list; cycles are caught."""
        seen, address = set(), head
        while address:
            if address in seen or len(seen) > MAX_LIST:
                raise ObjectsError("%s list is corrupted (cycle)" % what)
            seen.add(address)
            raw = self.read(address, self.c["sizeof." + prefix], "a %s record" % what)
            yield address, raw
            address = self._f(raw, prefix, "next", "<Q")

    def _ints(self, address, n, what):
        if not address or not 0 < n <= MAX_MEMBERS:
            return None
        return list(struct.unpack("<%di" % n, self.read(address, 4 * n, what)))

    # -- groups -----------------------------------------------------------

    def groups(self):
        """{handle key: Group}, the most recent first."""
        if self._groups is None:
            out = {}
            for address, raw in self._walk(self.groups_head, "group", "group"):
                g = Group()
                g.address = address
                for name, fmt in GROUP_FIELDS:
                    setattr(g, name, self._f(raw, "group", name, fmt))
                g.creator = self.literal(g.creator)
                g.members = self._ints(g.members, g.n_members, "group members")
                out.setdefault(g.handle, g)
            self._groups = out
        return self._groups

    def group(self, handle):
        return self.groups().get(int(handle) & self.group_mask)

    # -- windows ----------------------------------------------------------

    def wins(self):
        """{handle key: Win}, the most recent first."""
        if self._wins is None:
            out = {}
            for address, raw in self._walk(self.wins_head, "win", "window"):
                out.setdefault(*self._win(address, raw))
            self._wins = out
        return self._wins

    def _win(self, address, raw):
        c = self.c
        w = Win()
        w.address = address
        for name, fmt in WIN_FIELDS:
            setattr(w, name, self._f(raw, "win", name, fmt))
        w.creator = self.literal(w.creator)
        w.flavor_name = self.flavors.get(w.flavor, "?")
        w.members = self._ints(w.members, w.n_members, "window members")
        off = c["win.name"]
        w.name = c_string(raw[off:off + c["win.name_max"]])
        listed = max(0, min(w.nlocks, c["win.locks_max"]))
        w.locks = [(self._f(raw, "lock", "rank", "<i", c["win.locks"] + k * c["sizeof.lock"]),
                    self._f(raw, "lock", "type", "<i", c["win.locks"] + k * c["sizeof.lock"]))
                   for k in range(listed)]
        w.access_ranks = self._ranks(raw, "access_ranks", w.n_access)
        w.exposure_ranks = self._ranks(raw, "exposure_ranks", w.n_exposure)
        w.region_list = self._regions(w.regions, w.n_regions)
        return w.handle, w

    def _ranks(self, raw, field, n):
        listed = max(0, min(n, self.c["win.epoch_ranks_max"]))
        off = self.c["win." + field]
        return list(struct.unpack_from("<%di" % listed, raw, off))

    def _regions(self, address, n):
        if not address or not 0 < n <= self.c["win.regions_max"]:
            return []
        size = self.c["sizeof.region"]
        raw = self.read(address, size * n, "window regions")
        out = []
        for k in range(n):
            r = Region()
            for name, fmt in REGION_FIELDS:
                setattr(r, name, self._f(raw, "region", name, fmt, k * size))
            out.append(r)
        return out

    def win(self, handle):
        return self.wins().get(int(handle) & self.win_mask)

    # -- labels -------------------------------------------------------------

    def group_label(self, key):
        """'MPI_GROUP_EMPTY', 'group#2', else the handle in hex."""
        for name in ("MPI_GROUP_EMPTY", "MPI_GROUP_NULL"):
            if self.c.get(name) == key:
                return name
        g = self.groups().get(key)
        return "group#%d" % g.serial if g is not None else "0x%x" % key

    def win_label(self, key):
        """The name given with MPI_Win_set_name, 'win#1', 'MPI_WIN_NULL' or the hex handle."""
        if self.c.get("MPI_WIN_NULL") == key:
            return "MPI_WIN_NULL"
        w = self.wins().get(key)
        if w is None:
            return "0x%x" % key
        return win_label(w.name, w.serial)

    def by_label(self, text):
        """('group' or 'win', handle key) of a label or window name, or None."""
        for key, g in self.groups().items():
            if text == "group#%d" % g.serial:
                return "group", key
        for key, w in self.wins().items():
            if text in ("win#%d" % w.serial, w.name):
                return "win", key
        return None

    def epoch_text(self, w, ranks_text=lambda ranks: ",".join(map(str, ranks))):
        """The window's synchronization state as this process drove it:
        'fence epoch (3 fences)', 'exclusive lock on rank 1', 'access
        epoch to ranks 1,2 (MPI_Win_start, group#3)', or 'no epoch'."""
        c = self.c
        parts = []
        if w.epoch & c["epoch.fence"]:
            parts.append("fence epoch (%d fence%s so far)" % (w.fences, "" if w.fences == 1
                                                               else "s"))
        if w.epoch & c["epoch.lock_all"]:
            parts.append("lock_all")
        for rank, kind in w.locks:
            parts.append("%s lock on rank %d" % (
                "exclusive" if kind == c.get("MPI_LOCK_EXCLUSIVE") else "shared", rank))
        if w.nlocks > len(w.locks):
            parts.append("%d more locks" % (w.nlocks - len(w.locks)))
        for what, bit, ranks, n, group, call in (
                ("access", "epoch.access", w.access_ranks, w.n_access, w.access_group,
                 "MPI_Win_start"),
                ("exposure", "epoch.exposure", w.exposure_ranks, w.n_exposure,
                 w.exposure_group, "MPI_Win_post")):
            if w.epoch & c[bit]:
                listed = ranks_text(ranks) + (", ..." if n > len(ranks) else "")
                parts.append("%s epoch %s rank%s %s (%s, %s)" % (
                    what, "to" if what == "access" else "for", "" if n == 1 else "s",
                    listed, call, self.group_label(group)))
        if not parts:
            if w.fences and w.fence_assert & c.get("MPI_MODE_NOSUCCEED", 0):
                return "no epoch (the last fence closed it: MPI_MODE_NOSUCCEED)"
            return "no epoch"
        return "; ".join(parts)

    def target_address(self, w, target, disp):
        """Where the target region of an RMA call at disp (in the target's
        disp_unit) starts in this process's memory, or None when the target's
        memory is not mapped here (another process's window).  A dynamic
        window's displacement is an address on the target."""
        if w.flavor_name == "allocate_shared":
            if 0 <= target < len(w.region_list):
                r = w.region_list[target]
                return r.base + disp * r.disp_unit if r.base else None
            return None
        if target != w.rank:
            return None
        if w.flavor_name == "dynamic":
            return disp
        return w.base + disp * w.disp_unit
