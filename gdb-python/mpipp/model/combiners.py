"""The combiner table: ONE entry per MPI combiner.

Every entry (a ``Combiner`` instance in ``COMBINERS``) knows, for a Datatype
built with that combiner:

* ``parse(dt)``          the constructor arguments as a dict (both the classic
                         and the large-count ``_c`` layouts of
                         MPI_Type_get_contents(_c); cached on the datatype)
* ``params(dt)``         [(name, value)] for display
* ``n_stages(dt)``       number of path stages below the node
* ``stage_sizes(dt, prefix)``  number of children at the next stage below a
                         partial index tuple, checked (O(ndims)); each row
                         gives it unchecked as ``size_at(dt, prefix)``
* ``child_at(dt, indices)``    (child Datatype, byte displacement) for a full
                         stage tuple (raises PathError when out of range)
* ``blocks(dt)``         typemap-ordered (indices, child, displacement) for
                         every child instance (expands: use for small types)
* ``layout(dt, fixed)``  the node as a small lazy loop program (see below),
                         used by typemap, elements, extents and render.

Layout programs (internal, tuples for speed):
    ('L', count, bstride, slot, istride, boff, ibase, body)
        for v < count: offset += boff + v*bstride;
                       index[slot] += ibase + v*istride; run body
    ('S', n, item)      item(i) for i < n gives the i-th program, in order
    ('C', child)        one instance of the child datatype
``fixed`` maps stage slot -> index and restricts the program to those
indices (used for sub-tree enumeration below a partial path).

Argument classes in the table rows: 'I' = C int (always in ``integers``),
'C' = count (``integers``, or ``large_counts`` for the _c form),
'A' = MPI_Aint (``addresses``, or ``large_counts`` for the _c form).
"""

from .datatype import Datatype, validate
from .errors import PathError, TooDeepError, TypeTreeError

# Dimensions of a subarray or darray mpipp shows (each is a stage of every
# path, and a level of the walks: a limit like datatype.max_depth()).
MAX_NDIMS = 64
# No basic type is larger (long double complex: 32 bytes): a larger one is corrupted.
MAX_BASIC_SIZE = 1024


# ---------------------------------------------------------------- parsing

def _parse_args(dt, spec, nchildren):
    """Parse the four arrays of dt following spec = [(name, class, lenref)].
    lenref None: scalar; else name of an earlier scalar giving the length."""
    ints = list(dt.integers or ())
    addrs = list(dt.addresses or ())
    large = list(dt.large_counts or ())
    large_form = bool(large)
    src = {"I": ints, "C": large if large_form else ints,
           "A": large if large_form else addrs}
    # C and A may share the same list in large form: share the cursor too
    shared = {id(ints): 0, id(addrs): 0, id(large): 0}
    out = {}
    for name, cls, lenref in spec:
        lst = src[cls]
        p = shared[id(lst)]
        if lenref is None:
            if p >= len(lst):
                raise TypeTreeError("%s: argument %s missing from the recorded arguments"
                                    % (dt.combiner, name))
            out[name] = int(lst[p])
            shared[id(lst)] = p + 1
        else:
            n = out[lenref]
            if n < 0 or p + n > len(lst):
                raise TypeTreeError("%s: %s=%d does not match the recorded arguments"
                                    % (dt.combiner, lenref, n))
            out[name] = list(map(int, lst[p:p + n]))
            shared[id(lst)] = p + n
    out["large_form"] = large_form
    children = list(dt.children or ())
    if nchildren is not None:
        need = out[nchildren] if isinstance(nchildren, str) else nchildren
        if len(children) != need:
            raise TypeTreeError("%s: expected %d child datatypes, found %d"
                                % (dt.combiner, need, len(children)))
    out["children"] = children
    return out


def _check_ndims(combiner, n):
    if n < 0:
        raise TypeTreeError("%s: absurd ndims %d" % (combiner, n))
    if n > MAX_NDIMS:
        raise TooDeepError("%s of %d dimensions: more than mpipp shows (%d)"
                           % (combiner, n, MAX_NDIMS))


def _nonneg(dt, what, value):
    if value < 0:
        raise TypeTreeError("%s: negative %s (%d)" % (dt.combiner, what, value))


def _check_index(i, n, stage, prefix):
    if not 0 <= i < n:
        from .paths import format_path
        rng = "0..%d" % (n - 1) if n > 0 else "none (empty)"
        raise PathError("index %d out of range at stage %d of %s: valid %s"
                        % (i, stage, format_path(prefix) or "[]", rng))


# ---------------------------------------------------------------- base class

class Combiner:
    """Shared parsing and display; each row class adds the tree shape:
    size_at(dt, prefix), child_at(dt, indices) and layout(dt, fixed)."""

    name = None
    spec = ()
    nchildren = 1          # int, or name of the argument giving the count
    stage_names = ()

    def parse(self, dt):
        p = dt._cache.get("parsed")
        if p is None:
            p = _parse_args(dt, self.spec, self.nchildren)
            self.check(dt, p)
            dt._cache["parsed"] = p
        return p

    def check(self, dt, p):
        for name, cls, lenref in self.spec:
            if lenref is None and name in ("count", "blocklength", "ndims"):
                _nonneg(dt, name, p[name])
            if name == "blocklengths" and p[name]:
                _nonneg(dt, "blocklength", min(p[name]))

    def params(self, dt):
        p = self.parse(dt)
        out = []
        for name, _cls, _lenref in self.spec:
            out.append((name, p[name]))
        if p["children"]:
            out.append(("oldtype", p["children"][0]))
        return out

    # tree shape
    def n_stages(self, dt):
        return len(self.stage_names)

    def cached_layout(self, dt):
        lay = dt._cache.get("layout")
        if lay is None:
            lay = dt._cache["layout"] = self.layout(dt)
        return lay

    def blocks(self, dt):
        """Typemap-ordered (indices, child, displacement) per child instance."""
        n = self.n_stages(dt)
        yield from _iter_instances(self.cached_layout(dt), [0] * n, 0)

    def _check_stage_prefix(self, dt, prefix):
        n = self.n_stages(dt)
        if len(prefix) >= n:
            raise PathError("%s has %d stage%s: %s is complete (use child_at)"
                            % (dt.combiner, n, "" if n == 1 else "s",
                               "".join("[%d]" % i for i in prefix) or "[]"))
        self._check_prefix(dt, prefix)

    def _check_prefix(self, dt, prefix):
        """Each index of prefix within the stage size its own prefix gives:
        one size_at per index (checking each prefix again would cost
        2**stages for a subarray or darray)."""
        n = self.n_stages(dt)
        if len(prefix) > n:
            raise PathError("too many indices for %s (it has %d stages)" % (dt.combiner, n))
        for s, i in enumerate(prefix):
            _check_index(i, self.size_at(dt, prefix[:s]), s, prefix[:s])

    def stage_sizes(self, dt, prefix):
        self._check_stage_prefix(dt, prefix)
        return self.size_at(dt, prefix)


def _iter_instances(node, idx, off):
    tag = node[0]
    if tag == "L":
        _, count, bs, slot, ist, boff, ibase, body = node
        saved = idx[slot]
        for v in range(count):
            idx[slot] = saved + ibase + v * ist
            yield from _iter_instances(body, idx, off + boff + v * bs)
        idx[slot] = saved
    elif tag == "S":
        for i in range(node[1]):
            yield from _iter_instances(node[2](i), idx, off)
    else:
        yield tuple(idx), node[1], off


def _loop(count, bstride, slot, body, fixed, boff=0):
    """A loop over one stage slot, or the single fixed index of it."""
    if fixed and slot in fixed:
        i = fixed[slot]
        if not 0 <= i < count:
            return ("L", 0, 0, slot, 0, 0, 0, body)
        return ("L", 1, 0, slot, 0, boff + i * bstride, i, body)
    return ("L", count, bstride, slot, 1, boff, 0, body)


# ---------------------------------------------------------------- leaves

class Leaf(Combiner):
    nchildren = None

    def parse(self, dt):
        p = dt._cache.get("parsed")
        if p is None:
            if not 0 <= dt.size <= MAX_BASIC_SIZE:
                raise TypeTreeError("%s: absurd size %d for a basic type"
                                    % (dt.display_name, dt.size))
            if dt.combiner == "NAMED" and dt.kind == "pair":
                # two basic members inside the pair's extent, holding its size
                m = list(dt.members or ())
                if (len(m) != 2 or not all(isinstance(t, Datatype) and t.is_leaf
                                           and 0 <= o and o + t.size <= dt.extent
                                           for o, t in m)
                        or sum(t.size for _o, t in m) != dt.size):
                    raise TypeTreeError("%s: corrupt pair members" % dt.display_name)
            p = {"large_form": False, "children": [],
                 "integers": list(dt.integers or ())}
            dt._cache["parsed"] = p
        return p

    def params(self, dt):
        if self.name == "NAMED":
            out = [("name", dt.name), ("kind", dt.kind), ("size", dt.size)]
            if dt.kind == "pair" and dt.members:
                out.append(("members", [(off, t.display_name) for off, t in dt.members]))
            return out
        ints = list(dt.integers or ())
        if self.name == "F90_INTEGER":
            return [("r", ints[0] if ints else None)]
        return [("p", ints[0] if ints else None), ("r", ints[1] if len(ints) > 1 else None)]

    def n_stages(self, dt):
        return 0

    def stage_sizes(self, dt, prefix):
        raise PathError("%s is a leaf: no children" % dt.display_name)

    def child_at(self, dt, indices):
        raise PathError("%s is a leaf: no children" % dt.display_name)

    def layout(self, dt, fixed=None):
        raise TypeTreeError("leaf has no layout")

    def blocks(self, dt):
        return iter(())


# ---------------------------------------------------------------- derived

class Contiguous(Combiner):
    spec = (("count", "C", None),)
    stage_names = ("i",)

    def size_at(self, dt, prefix):
        return self.parse(dt)["count"]

    def child_at(self, dt, indices):
        p = self.parse(dt)
        self._check_prefix(dt, indices)
        t = p["children"][0]
        return t, indices[0] * t.extent

    def layout(self, dt, fixed=None):
        p = self.parse(dt)
        t = p["children"][0]
        return _loop(p["count"], t.extent, 0, ("C", t), fixed)


class Vector(Combiner):
    """VECTOR (stride in extents) and HVECTOR/HVECTOR_INTEGER (bytes)."""
    stage_names = ("i", "j")

    def __init__(self, name, stride_cls, stride_in_bytes):
        self.name = name
        self.spec = (("count", "C" if stride_cls != "I" else "I", None),
                     ("blocklength", "C" if stride_cls != "I" else "I", None),
                     ("stride", stride_cls, None))
        self.bytes = stride_in_bytes

    def _stride(self, p):
        t = p["children"][0]
        return p["stride"] if self.bytes else p["stride"] * t.extent

    def size_at(self, dt, prefix):
        p = self.parse(dt)
        return p["count"] if not prefix else p["blocklength"]

    def child_at(self, dt, indices):
        self._check_prefix(dt, indices)
        p = self.parse(dt)
        t = p["children"][0]
        i, j = indices
        return t, i * self._stride(p) + j * t.extent

    def layout(self, dt, fixed=None):
        p = self.parse(dt)
        t = p["children"][0]
        inner = _loop(p["blocklength"], t.extent, 1, ("C", t), fixed)
        return _loop(p["count"], self._stride(p), 0, inner, fixed)


class Indexed(Combiner):
    """INDEXED, HINDEXED, HINDEXED_INTEGER, INDEXED_BLOCK, HINDEXED_BLOCK,
    STRUCT, STRUCT_INTEGER: blocks i with blocklength b_i at displacement d_i
    of child t_i; paths [i][j]."""
    stage_names = ("i", "j")

    def __init__(self, name, disp_cls, disp_in_bytes, block=False, struct=False, fint=False):
        self.name = name
        c = "I" if fint else "C"
        spec = [("count", c, None)]
        if block:
            spec.append(("blocklength", c, None))
        else:
            spec.append(("blocklengths", c, "count"))
        spec.append(("displacements", disp_cls, "count"))
        self.spec = tuple(spec)
        self.bytes = disp_in_bytes
        self.block = block
        self.struct = struct
        self.nchildren = "count" if struct else 1

    def _bl(self, p, i):
        return p["blocklength"] if self.block else p["blocklengths"][i]

    def _child(self, p, i):
        return p["children"][i] if self.struct else p["children"][0]

    def _disp(self, p, i):
        d = p["displacements"][i]
        return d if self.bytes else d * p["children"][0].extent

    def params(self, dt):
        """The constructor's arrays as parsed (never copied: a type may have
        millions of blocks), named as the constructor names them."""
        p = self.parse(dt)
        out = [("count", p["count"])]
        if self.block:
            out += [("blocklength", p["blocklength"]), ("displacements", p["displacements"])]
        else:
            out += [("array_of_blocklengths", p["blocklengths"]),
                    ("array_of_displacements", p["displacements"])]
        if self.struct:
            out.append(("array_of_types", p["children"]))
        else:
            out.append(("oldtype", p["children"][0]))
        return out

    def size_at(self, dt, prefix):
        p = self.parse(dt)
        return p["count"] if not prefix else self._bl(p, prefix[0])

    def child_at(self, dt, indices):
        self._check_prefix(dt, indices)
        p = self.parse(dt)
        i, j = indices
        t = self._child(p, i)
        return t, self._disp(p, i) + j * t.extent

    def layout(self, dt, fixed=None):
        p = self.parse(dt)

        def item(i):
            t = self._child(p, i)
            inner = _loop(self._bl(p, i), t.extent, 1, ("C", t), fixed)
            return ("L", 1, 0, 0, 0, self._disp(p, i), i, inner)

        if fixed and 0 in fixed:
            i = fixed[0]
            if not 0 <= i < p["count"]:
                return ("S", 0, item)
            return ("S", 1, lambda _k, i=i: item(i))
        if fixed:
            return ("S", p["count"], item)
        return ("S", p["count"], item, self.block_arrays(dt))

    def block_arrays(self, dt):
        """(byte displacements, blocklengths, children) as lists: the fast
        path for types with millions of blocks (item i of the program is
        block i, stage index (i, j))."""
        p = self.parse(dt)
        got = p.get("arrays")
        if got is None:
            n = p["count"]
            kids = p["children"] if self.struct else [p["children"][0]] * n
            bls = [p["blocklength"]] * n if self.block else p["blocklengths"]
            if self.bytes:
                disps = p["displacements"]
            else:
                ext = p["children"][0].extent
                disps = [d * ext for d in p["displacements"]]
            got = p["arrays"] = BlockArrays(disps, bls, kids)
        return got


class BlockArrays(tuple):
    """(byte displacements, blocklengths, children) of an indexed or struct
    type, made once per type.  ``derived`` keeps what other modules compute
    from them once per type, not once per command (where's block index)."""

    def __new__(cls, disps, bls, kids):
        self = tuple.__new__(cls, (disps, bls, kids))
        self.derived = {}
        return self


class Resized(Combiner):
    """RESIZED and DUP: one child, path [0]."""
    stage_names = ("0",)

    def __init__(self, name, spec):
        self.name = name
        self.spec = spec

    def size_at(self, dt, prefix):
        return 1

    def child_at(self, dt, indices):
        self._check_prefix(dt, indices)
        return self.parse(dt)["children"][0], 0

    def layout(self, dt, fixed=None):
        return ("L", 1, 0, 0, 0, 0, 0, ("C", self.parse(dt)["children"][0]))


def _order_name(c, order):
    if order == c.order_c:
        return "C"
    if order == c.order_fortran:
        return "FORTRAN"
    return None


def _prod(vals):
    r = 1
    for v in vals:
        r *= v
    return r


class Subarray(Combiner):
    name = "SUBARRAY"
    spec = (("ndims", "I", None), ("sizes", "C", "ndims"), ("subsizes", "C", "ndims"),
            ("starts", "C", "ndims"), ("order", "I", None))

    def check(self, dt, p):
        n = p["ndims"]
        _check_ndims("SUBARRAY", n)
        if _order_name(dt.constants, p["order"]) is None:
            raise TypeTreeError("SUBARRAY: unknown order %d" % p["order"])
        for d in range(n):
            sz, sub, st = p["sizes"][d], p["subsizes"][d], p["starts"][d]
            if sz < 0 or sub < 0 or st < 0 or st + sub > sz:
                raise TypeTreeError("SUBARRAY: dimension %d inconsistent (size %d, subsize %d,"
                                    " start %d)" % (d, sz, sub, st))
        t = p["children"][0]
        fortran = p["order"] == dt.constants.order_fortran
        strides = []
        for d in range(n):
            dims = p["sizes"][:d] if fortran else p["sizes"][d + 1:]
            strides.append(_prod(dims) * t.extent)
        p["strides"] = strides
        p["fortran"] = fortran
        p["order_name"] = "FORTRAN" if fortran else "C"

    def params(self, dt):
        p = self.parse(dt)
        return [("ndims", p["ndims"]), ("sizes", p["sizes"]), ("subsizes", p["subsizes"]),
                ("starts", p["starts"]), ("order", p["order_name"]),
                ("oldtype", p["children"][0])]

    def n_stages(self, dt):
        return self.parse(dt)["ndims"]

    def size_at(self, dt, prefix):
        return self.parse(dt)["subsizes"][len(prefix)]

    def child_at(self, dt, indices):
        self._check_prefix(dt, indices)
        p = self.parse(dt)
        if len(indices) != p["ndims"]:
            raise PathError("SUBARRAY needs %d indices" % p["ndims"])
        off = sum((p["starts"][d] + indices[d]) * p["strides"][d] for d in range(p["ndims"]))
        return p["children"][0], off

    def layout(self, dt, fixed=None):
        p = self.parse(dt)
        n = p["ndims"]
        node = ("C", p["children"][0])
        dims = range(n) if p["fortran"] else range(n - 1, -1, -1)   # innermost first
        for d in dims:
            s = p["strides"][d]
            node = _loop(p["subsizes"][d], s, d, node, fixed, boff=p["starts"][d] * s)
        return node


class Darray(Combiner):
    name = "DARRAY"
    spec = (("size", "I", None), ("rank", "I", None), ("ndims", "I", None),
            ("gsizes", "C", "ndims"), ("distribs", "I", "ndims"), ("dargs", "I", "ndims"),
            ("psizes", "I", "ndims"), ("order", "I", None))

    def check(self, dt, p):
        c = dt.constants
        n = p["ndims"]
        _check_ndims("DARRAY", n)
        if _order_name(c, p["order"]) is None:
            raise TypeTreeError("DARRAY: unknown order %d" % p["order"])
        psizes = p["psizes"]
        if any(ps <= 0 for ps in psizes) or not 0 <= p["rank"] < max(1, _prod(psizes)):
            raise TypeTreeError("DARRAY: rank %d does not fit the process grid %s"
                                % (p["rank"], psizes))
        # process grid is row-major in rank, whatever the order argument
        coords, r = [], p["rank"]
        for d in range(n - 1, -1, -1):
            coords.append(r % psizes[d])
            r //= psizes[d]
        coords.reverse()
        t = p["children"][0]
        fortran = p["order"] == c.order_fortran
        strides, pieces, local = [], [], []
        for d in range(n):
            dims = p["gsizes"][:d] if fortran else p["gsizes"][d + 1:]
            strides.append(_prod(dims) * t.extent)
            pcs = self._pieces(dt, d, p["gsizes"][d], p["distribs"][d], p["dargs"][d],
                               psizes[d], coords[d])
            pieces.append(pcs)
            local.append(sum(nrep * seg for nrep, _g, seg, _l, _s in pcs))
        p.update(coords=coords, strides=strides, pieces=pieces, local=local,
                 fortran=fortran, order_name="FORTRAN" if fortran else "C")

    @staticmethod
    def _pieces(dt, d, gsize, distrib, darg, nprocs, coord):
        """Owned global indices of one dimension as pieces
        (nrep, rep_gstride, seglen, local_start, global_start)."""
        c = dt.constants
        if gsize < 0:
            raise TypeTreeError("DARRAY: negative gsize in dimension %d" % d)
        if distrib == c.distribute_none:
            return [(1, 0, gsize, 0, 0)]
        if distrib == c.distribute_block:
            blk = -(-gsize // nprocs) if darg == c.distribute_dflt_darg else darg
            if blk <= 0:
                raise TypeTreeError("DARRAY: bad block darg %d in dimension %d" % (darg, d))
            start = coord * blk
            n = max(0, min(blk, gsize - start))
            return [(1, 0, n, 0, start)] if n else []
        if distrib == c.distribute_cyclic:
            blk = 1 if darg == c.distribute_dflt_darg else darg
            if blk <= 0:
                raise TypeTreeError("DARRAY: bad cyclic darg %d in dimension %d" % (darg, d))
            full = gsize // blk
            nfull = (full - coord + nprocs - 1) // nprocs if full > coord else 0
            out = []
            if nfull:
                out.append((nfull, nprocs * blk, blk, 0, coord * blk))
            rem = gsize - full * blk
            if rem and full % nprocs == coord:
                out.append((1, 0, rem, nfull * blk, full * blk))
            return out
        raise TypeTreeError("DARRAY: unknown distribution %d in dimension %d" % (distrib, d))

    def params(self, dt):
        p = self.parse(dt)
        c = dt.constants
        dnames = {c.distribute_block: "BLOCK", c.distribute_cyclic: "CYCLIC",
                  c.distribute_none: "NONE"}
        return [("size", p["size"]), ("rank", p["rank"]), ("ndims", p["ndims"]),
                ("gsizes", p["gsizes"]),
                ("distribs", [dnames.get(v, v) for v in p["distribs"]]),
                ("dargs", ["DFLT" if v == c.distribute_dflt_darg else v for v in p["dargs"]]),
                ("psizes", p["psizes"]), ("order", p["order_name"]),
                ("oldtype", p["children"][0])]

    def n_stages(self, dt):
        return self.parse(dt)["ndims"]

    def size_at(self, dt, prefix):
        return self.parse(dt)["local"][len(prefix)]

    def _global(self, p, d, k):
        for nrep, repg, seg, lstart, gstart in p["pieces"][d]:
            if lstart <= k < lstart + nrep * seg:
                r, j = divmod(k - lstart, seg)
                return gstart + r * repg + j
        raise PathError("local index %d not owned in dimension %d" % (k, d))

    def child_at(self, dt, indices):
        self._check_prefix(dt, indices)
        p = self.parse(dt)
        if len(indices) != p["ndims"]:
            raise PathError("DARRAY needs %d indices" % p["ndims"])
        off = sum(self._global(p, d, indices[d]) * p["strides"][d] for d in range(p["ndims"]))
        return p["children"][0], off

    def layout(self, dt, fixed=None):
        p = self.parse(dt)
        n = p["ndims"]
        node = ("C", p["children"][0])
        dims = range(n) if p["fortran"] else range(n - 1, -1, -1)   # innermost first
        for d in dims:
            gs = p["strides"][d]
            if fixed and d in fixed:
                k = fixed[d]
                if 0 <= k < p["local"][d]:
                    pcs = [(1, 0, 1, k, self._global(p, d, k))]
                else:
                    pcs = []
            else:
                pcs = p["pieces"][d]
            items = []
            for nrep, repg, seg, lstart, gstart in pcs:
                inner = ("L", seg, gs, d, 1, 0, 0, node)
                items.append(("L", nrep, repg * gs, d, seg, gstart * gs, lstart, inner))
            node = items[0] if len(items) == 1 else ("S", len(items), items.__getitem__)
        return node


# ---------------------------------------------------------------- the table

def _table():
    rows = [
        Leaf(), Contiguous(),
        Vector("VECTOR", "C", False), Vector("HVECTOR", "A", True),
        Vector("HVECTOR_INTEGER", "I", True),
        Indexed("INDEXED", "C", False), Indexed("HINDEXED", "A", True),
        Indexed("HINDEXED_INTEGER", "I", True, fint=True),
        Indexed("INDEXED_BLOCK", "C", False, block=True),
        Indexed("HINDEXED_BLOCK", "A", True, block=True),
        Indexed("STRUCT", "A", True, struct=True),
        Indexed("STRUCT_INTEGER", "I", True, struct=True, fint=True),
        Subarray(), Darray(),
        Resized("RESIZED", (("lb", "A", None), ("extent", "A", None))),
        Resized("DUP", ()),
    ]
    rows[0].name = "NAMED"
    for f90 in ("F90_REAL", "F90_COMPLEX", "F90_INTEGER"):
        leaf = Leaf()
        leaf.name = f90
        rows.append(leaf)
    rows[1].name = "CONTIGUOUS"
    return {r.name: r for r in rows}


COMBINERS = _table()


def get_combiner(name):
    try:
        return COMBINERS[name]
    except KeyError:
        raise TypeTreeError("unknown combiner %r" % (name,)) from None


def combiner_of(dt):
    return get_combiner(dt.combiner)


# convenience functions (what the API description names)

def params(dt):
    return combiner_of(dt).params(dt)


def n_stages(dt):
    return combiner_of(dt).n_stages(dt)


def stage_sizes(dt, prefix=()):
    return combiner_of(dt).stage_sizes(dt, tuple(prefix))


def child_at(dt, indices):
    return combiner_of(dt).child_at(dt, tuple(indices))


def blocks(dt):
    return combiner_of(dt).blocks(dt)


def layout(dt, fixed=None):
    c = combiner_of(dt)
    return c.layout(dt, fixed) if fixed else c.cached_layout(dt)


def buffer_type(dt, count):
    """The datatype of a buffer of ``count`` elements: contiguous(count, dt)
    with its extents (for count > 0: lb = dt.lb, extent = count*dt.extent).
    Its level is mpipp's, not the program's: it counts as deep as dt for
    the depth limit (a type max_depth() deep is shown in a buffer too)."""
    if count < 0:
        raise TypeTreeError("negative count %d" % count)
    validate(dt)
    n = count
    if n:
        true_lb = dt.true_lb + (0 if dt.extent >= 0 else (n - 1) * dt.extent)
        true_ub = dt.true_ub + (0 if dt.extent < 0 else (n - 1) * dt.extent)
    else:
        true_lb = true_ub = 0
    lb = dt.lb + min(0, (n - 1) * dt.extent) if n else 0
    root = Datatype("CONTIGUOUS", integers=[n], children=[dt], size=n * dt.size,
                    lb=lb, extent=n * dt.extent,
                    true_lb=true_lb, true_extent=true_ub - true_lb,
                    committed=True, constants=dt.constants)
    root._cache["height"] = dt._cache["height"]
    return root
