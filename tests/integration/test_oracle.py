"""MPI is the oracle: for every test case of testprogs/types, the bytes mpipp
decodes (concatenated in element order) and the file `mpipp dump -raw`
writes equal what MPI_Pack produces, and
the typemap mpipp computes agrees with MPI's own size and extents.  Run on
one rank and on four (darray cases differ per rank; each rank checks its
own layout)."""

import json
import os

import pytest

import gdbrun

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dump_cases.py")
COMMON = [
    "contig", "vector", "hvector", "indexed", "hindexed", "indexed_block", "hindexed_block",
    "resized_neg_lb", "dup_predefined", "zero_contig", "zero_vector", "struct", "nested3",
    "subarray_c", "subarray_f", "darray_block", "darray_cyclic", "darray_mixed_f",
    "pair_double_int", "pair_2int", "pair_long_double_int", "bottom", "basics",
    "fortran_basics", "f90_real", "freed_base_user", "reused",
]
# Cases of an MPI that still has the MPI-1 names (MPICH; not Open MPI 4.1) and
# of an MPI-4 library (large counts; not Open MPI 4.1): testprogs/types says
# which its MPI has (have_mpi1_names, have_large_count, from its mpi.h).
OPTIONAL = {
    "have_mpi1_names": ["hvector_mpi1", "hindexed_mpi1", "struct_markers"],
    "have_large_count": ["contig_c", "vector_c", "hvector_c", "indexed_c", "hindexed_c",
                         "indexed_block_c", "hindexed_block_c", "struct_c", "subarray_c_large",
                         "darray_c_large", "resized_c"],
}
CASES = COMMON + sum(OPTIONAL.values(), [])
HAVE = gdbrun.program_globals("types", OPTIONAL)
# the cases this build's testprogs/types has
PRESENT = COMMON + sum((names for flag, names in OPTIONAL.items() if HAVE[flag]), [])


def parse_dump(text):
    """{case name: case} from the output of dump_cases.py."""
    assert not isinstance(text, gdbrun.GdbFailure), text
    line = next(l for l in text.splitlines() if l.startswith("CASES="))
    return {c["name"]: c for c in json.loads(line[len("CASES="):])}


def dump(ranks):
    cmd = gdbrun.source_python(DUMP)
    launcher = gdbrun.mpiexec(ranks) if ranks > 1 else ()
    outs = gdbrun.capture("types", [cmd], launcher=launcher, ranks=ranks, timeout=300)
    return [parse_dump(out[cmd]) for out in (outs if ranks > 1 else [outs])]


@pytest.fixture(scope="module")
def one_rank():
    return dump(1)[0]


@pytest.fixture(scope="module")
def four_ranks():
    return dump(4)


def check_case(c):
    decode = c["decode"]
    assert "error" not in decode, decode
    assert decode["truncated"] is False
    assert decode["count"] == c["count"]
    assert "".join(e["bytes"] for e in decode["elements"]) == c["packed"]
    assert c["raw"] == c["packed"]
    tm = c["typemap"]
    assert "error" not in tm, tm
    for field in ("size", "lb", "extent", "true_lb", "true_extent"):
        assert tm[field] == c["mpi"][field], field
    info = c["info"]
    assert "error" not in info, info
    assert info["size"] == c["mpi"]["size"]
    assert info["extent"] == c["mpi"]["extent"]


def test_every_case_is_in_the_program(one_rank):
    assert sorted(one_rank) == sorted(PRESENT)


@pytest.mark.parametrize("name", CASES)
def test_case_one_rank(one_rank, name):
    """Every case checked against MPI, or, when the program's MPI lacks its
    constructor, absent."""
    if name in PRESENT:
        check_case(one_rank[name])
    else:
        assert name not in one_rank


@pytest.mark.parametrize("name", ["darray_block", "darray_cyclic", "darray_mixed_f",
                                  "darray_c_large", "subarray_f", "struct", "bottom"])
def test_case_four_ranks(four_ranks, name):
    if name not in PRESENT:
        assert all(name not in cases for cases in four_ranks)
        return
    packed = set()
    for cases in four_ranks:
        check_case(cases[name])
        packed.add(cases[name]["packed"])
    if name.startswith("darray"):
        assert len(packed) == 4, "each rank owns a different part of the darray"
