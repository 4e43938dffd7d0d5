"""Hand-built Datatypes for the model tests: constructors named like MPI's,
extents filled in with compute_extents (so tests read naturally)."""

from mpipp.model.datatype import Constants, Datatype
from mpipp.model.typemap import compute_extents

C = Constants()
ORDER_C, ORDER_F = C.order_c, C.order_fortran
BLOCK, CYCLIC, NONE, DFLT = (C.distribute_block, C.distribute_cyclic, C.distribute_none,
                             C.distribute_dflt_darg)


def named(name, kind, size, extent=None, members=None):
    ext = size if extent is None else extent
    if kind in ("lb", "ub"):
        size = ext = 0
    return Datatype("NAMED", name=name, kind=kind, size=size, lb=0, extent=ext,
                    true_lb=0, true_extent=size if kind != "pair" else
                    max(o + t.size for o, t in members), members=members,
                    committed=True)


CHAR = named("MPI_CHAR", "char", 1)
SIGNED_CHAR = named("MPI_SIGNED_CHAR", "char", 1)
UNSIGNED_CHAR = named("MPI_UNSIGNED_CHAR", "char", 1)
WCHAR = named("MPI_WCHAR", "char", 4)
SHORT = named("MPI_SHORT", "int", 2)
INT = named("MPI_INT", "int", 4)
LONG = named("MPI_LONG", "int", 8)
INT128 = named("MPI_INTEGER16", "int", 16)
UINT8 = named("MPI_UINT8_T", "uint", 1)
USHORT = named("MPI_UNSIGNED_SHORT", "uint", 2)
UNSIGNED = named("MPI_UNSIGNED", "uint", 4)
ULONG = named("MPI_UNSIGNED_LONG", "uint", 8)
UINT128 = named("MPI_UINT128", "uint", 16)
FLOAT = named("MPI_FLOAT", "float", 4)
DOUBLE = named("MPI_DOUBLE", "float", 8)
LONG_DOUBLE = named("MPI_LONG_DOUBLE", "float", 16)
C_FLOAT_COMPLEX = named("MPI_C_FLOAT_COMPLEX", "complex", 8)
C_DOUBLE_COMPLEX = named("MPI_C_DOUBLE_COMPLEX", "complex", 16)
C_LONG_DOUBLE_COMPLEX = named("MPI_C_LONG_DOUBLE_COMPLEX", "complex", 32)
C_BOOL = named("MPI_C_BOOL", "bool", 1)
LOGICAL = named("MPI_LOGICAL", "bool", 4)
BYTE = named("MPI_BYTE", "byte", 1)
PACKED = named("MPI_PACKED", "packed", 1)
LB = named("MPI_LB", "lb", 0)
UB = named("MPI_UB", "ub", 0)
DOUBLE_INT = named("MPI_DOUBLE_INT", "pair", 12, extent=16, members=[(0, DOUBLE), (8, INT)])
FLOAT_INT = named("MPI_FLOAT_INT", "pair", 8, members=[(0, FLOAT), (4, INT)])
SHORT_INT = named("MPI_SHORT_INT", "pair", 6, extent=8, members=[(0, SHORT), (4, INT)])
TWO_INT = named("MPI_2INT", "pair", 8, members=[(0, INT), (4, INT)])
BASICS = (CHAR, SIGNED_CHAR, UNSIGNED_CHAR, WCHAR, SHORT, INT, LONG, INT128, UINT8, USHORT,
          UNSIGNED, ULONG, UINT128, FLOAT, DOUBLE, LONG_DOUBLE, C_FLOAT_COMPLEX,
          C_DOUBLE_COMPLEX, C_LONG_DOUBLE_COMPLEX, C_BOOL, LOGICAL, BYTE, PACKED, LB, UB,
          DOUBLE_INT, FLOAT_INT, SHORT_INT, TWO_INT)


def _finish(dt, name=None):
    e = compute_extents(dt)
    dt.size, dt.lb, dt.extent = e.size, e.lb, e.extent
    dt.true_lb, dt.true_extent = e.true_lb, e.true_extent
    dt.name = name
    dt.committed = True
    return dt


def _mk(comb, children, ints=(), addrs=(), large=(), name=None):
    return _finish(Datatype(comb, integers=list(ints), addresses=list(addrs),
                            large_counts=list(large), children=list(children)), name)


def contiguous(n, t, large=False, name=None):
    if large:
        return _mk("CONTIGUOUS", [t], large=[n], name=name)
    return _mk("CONTIGUOUS", [t], ints=[n], name=name)


def vector(c, bl, s, t, large=False):
    if large:
        return _mk("VECTOR", [t], large=[c, bl, s])
    return _mk("VECTOR", [t], ints=[c, bl, s])


def hvector(c, bl, s, t, large=False):
    if large:
        return _mk("HVECTOR", [t], large=[c, bl, s])
    return _mk("HVECTOR", [t], ints=[c, bl], addrs=[s])


def hvector_integer(c, bl, s, t):
    return _mk("HVECTOR_INTEGER", [t], ints=[c, bl, s])


def indexed(bls, disps, t, large=False):
    if large:
        return _mk("INDEXED", [t], large=[len(bls)] + list(bls) + list(disps))
    return _mk("INDEXED", [t], ints=[len(bls)] + list(bls) + list(disps))


def hindexed(bls, disps, t, large=False):
    if large:
        return _mk("HINDEXED", [t], large=[len(bls)] + list(bls) + list(disps))
    return _mk("HINDEXED", [t], ints=[len(bls)] + list(bls), addrs=disps)


def hindexed_integer(bls, disps, t):
    return _mk("HINDEXED_INTEGER", [t], ints=[len(bls)] + list(bls) + list(disps))


def indexed_block(bl, disps, t, large=False):
    if large:
        return _mk("INDEXED_BLOCK", [t], large=[len(disps), bl] + list(disps))
    return _mk("INDEXED_BLOCK", [t], ints=[len(disps), bl] + list(disps))


def hindexed_block(bl, disps, t, large=False):
    if large:
        return _mk("HINDEXED_BLOCK", [t], large=[len(disps), bl] + list(disps))
    return _mk("HINDEXED_BLOCK", [t], ints=[len(disps), bl], addrs=disps)


def struct(bls, disps, types, large=False, name=None):
    if large:
        return _mk("STRUCT", types, large=[len(bls)] + list(bls) + list(disps), name=name)
    return _mk("STRUCT", types, ints=[len(bls)] + list(bls), addrs=disps, name=name)


def struct_integer(bls, disps, types):
    return _mk("STRUCT_INTEGER", types, ints=[len(bls)] + list(bls) + list(disps))


def subarray(sizes, subsizes, starts, order, t, large=False):
    n = len(sizes)
    if large:
        return _mk("SUBARRAY", [t], ints=[n, order],
                   large=list(sizes) + list(subsizes) + list(starts))
    return _mk("SUBARRAY", [t], ints=[n] + list(sizes) + list(subsizes) + list(starts) + [order])


def darray(size, rank, gsizes, distribs, dargs, psizes, order, t, large=False):
    n = len(gsizes)
    if large:
        return _mk("DARRAY", [t], ints=[size, rank, n] + list(distribs) + list(dargs)
                   + list(psizes) + [order], large=list(gsizes))
    return _mk("DARRAY", [t], ints=[size, rank, n] + list(gsizes) + list(distribs)
               + list(dargs) + list(psizes) + [order])


def resized(t, lb, extent, large=False):
    if large:
        return _mk("RESIZED", [t], large=[lb, extent])
    return _mk("RESIZED", [t], addrs=[lb, extent])


def dup(t):
    return _mk("DUP", [t])


def f90_real(p, r, size):
    return Datatype("F90_REAL", integers=[p, r], size=size, extent=size, true_extent=size)


def f90_complex(p, r, size):
    return Datatype("F90_COMPLEX", integers=[p, r], size=size, extent=size, true_extent=size)


def f90_integer(r, size):
    return Datatype("F90_INTEGER", integers=[r], size=size, extent=size, true_extent=size)


# One small instance of every combiner and both argument layouts.
ALL = {
    "contiguous": lambda: contiguous(3, DOUBLE),
    "contiguous_c": lambda: contiguous(3, DOUBLE, large=True),
    "vector": lambda: vector(3, 2, 4, DOUBLE),
    "vector_c": lambda: vector(3, 2, 4, DOUBLE, large=True),
    "hvector": lambda: hvector(2, 3, 20, INT),
    "hvector_c": lambda: hvector(2, 3, 20, INT, large=True),
    "hvector_integer": lambda: hvector_integer(2, 3, 20, INT),
    "indexed": lambda: indexed([2, 1], [3, 0], INT),
    "indexed_c": lambda: indexed([2, 1], [3, 0], INT, large=True),
    "hindexed": lambda: hindexed([1, 2], [16, 0], DOUBLE),
    "hindexed_c": lambda: hindexed([1, 2], [16, 0], DOUBLE, large=True),
    "hindexed_integer": lambda: hindexed_integer([1, 2], [16, 0], DOUBLE),
    "indexed_block": lambda: indexed_block(2, [4, 0], SHORT),
    "indexed_block_c": lambda: indexed_block(2, [4, 0], SHORT, large=True),
    "hindexed_block": lambda: hindexed_block(1, [5, 1], CHAR),
    "hindexed_block_c": lambda: hindexed_block(1, [5, 1], CHAR, large=True),
    "struct": lambda: struct([1, 5, 7, 2, 1], [-4, 0, 47, 76, 100], [LB, INT, CHAR, DOUBLE, UB]),
    "struct_c": lambda: struct([1, 2], [0, 8], [INT, DOUBLE], large=True),
    "struct_integer": lambda: struct_integer([2, 1], [4, 0], [SHORT, CHAR]),
    "subarray_c": lambda: subarray([4, 5], [2, 3], [1, 1], ORDER_C, INT),
    "subarray_f": lambda: subarray([4, 5], [2, 3], [1, 1], ORDER_F, INT, large=True),
    "darray": lambda: darray(4, 1, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_C, INT),
    "darray_f": lambda: darray(4, 2, [5, 6], [CYCLIC, BLOCK], [2, DFLT], [2, 2], ORDER_F, INT,
                               large=True),
    "resized": lambda: resized(DOUBLE, -8, 24),
    "resized_c": lambda: resized(DOUBLE, -8, 24, large=True),
    "dup": lambda: dup(vector(2, 1, 2, INT)),
    "pair": lambda: contiguous(2, DOUBLE_INT),
    "nested": lambda: contiguous(2, struct([1, 2], [0, 16], [CHAR, vector(2, 1, 2, INT)])),
}
