"""Signature matching: verdicts and type-tree paths of the first difference,
checked against a brute-force comparison of expanded signatures, and fast on
compressed signatures of millions of elements."""

import random

import pytest

import dtypes as M
from dtypes import ALL
from test_model_fuzz import gen
from mpipp.model import elements as E
from mpipp.model import typemap as T
from mpipp.model.errors import TypeTreeError
from mpipp.model.match import compare, element_path, match_signatures


def brute(dt_a, ca, dt_b, cb):
    """(verdict, index) from the expanded signatures."""
    a = list(T.expand_signature(T.signature(dt_a, ca)))
    b = list(T.expand_signature(T.signature(dt_b, cb)))
    for k, (x, y) in enumerate(zip(a, b)):
        if "MPI_PACKED" in (x, y):
            return "packed", k
        if x != y:
            return "mismatch", k
    n = min(len(a), len(b))
    if len(a) == len(b):
        return "equal", n
    return ("prefix" if len(a) < len(b) else "longer"), n


@pytest.mark.parametrize("name", sorted(ALL))
def test_element_path_names_every_element_in_order(name):
    dt = ALL[name]()
    want = [(p, b.display_name) for p, _o, b in E.iter_elements(dt, 3)]
    assert [element_path(dt, 3, k) for k in range(len(want))] == want


def test_paper_example_struct_against_struct():
    send = M.struct([1, 2], [0, 8], [M.INT, M.DOUBLE])          # int, double, double
    recv = M.struct([2, 1], [0, 8], [M.INT, M.DOUBLE])          # int, int, double
    m = match_signatures(send, 1, recv, 2)
    assert m.verdict == "mismatch" and m.index == 1
    assert m.first == ((0, 1, 0), "MPI_DOUBLE")
    assert m.second == ((0, 0, 1), "MPI_INT")


def test_prefix_longer_equal():
    assert match_signatures(M.INT, 3, M.INT, 4) == ("prefix", 3, None, ((3,), "MPI_INT"))
    assert match_signatures(M.INT, 4, M.INT, 3) == ("longer", 3, ((3,), "MPI_INT"), None)
    v = M.vector(3, 2, 4, M.DOUBLE)
    assert match_signatures(v, 2, M.DOUBLE, 12).verdict == "equal"
    assert match_signatures(M.contiguous(6, M.DOUBLE), 2, v, 2).verdict == "equal"


def test_packed_matches_anything_and_stops_checking():
    m = match_signatures(M.INT, 2, M.PACKED, 8)
    assert m.verdict == "packed" and m.index == 0


@pytest.mark.parametrize("seed", range(150))
def test_random_pairs_agree_with_brute_force(seed):
    rnd = random.Random(seed)
    for _ in range(4):
        a, _ = gen(rnd, 3)
        b, _ = gen(rnd, 3) if rnd.random() < 0.5 else (a, None)
        ca, cb = rnd.randint(0, 3), rnd.randint(0, 3)
        if T.n_elements(a, ca) + T.n_elements(b, cb) > 4000:
            continue
        m = match_signatures(a, ca, b, cb)
        assert (m.verdict, m.index) == brute(a, ca, b, cb)
        elems_a = [(p, x.display_name) for p, _o, x in E.iter_elements(a, ca)]
        elems_b = [(p, x.display_name) for p, _o, x in E.iter_elements(b, cb)]
        assert m.first == (elems_a[m.index] if m.index < len(elems_a) and
                           m.verdict in ("mismatch", "longer", "packed") else None)
        assert m.second == (elems_b[m.index] if m.index < len(elems_b) and
                            m.verdict in ("mismatch", "prefix", "packed") else None)


def test_different_periods_of_the_same_pattern():
    ab = M.struct([1, 1], [0, 8], [M.INT, M.DOUBLE])
    abab = M.contiguous(2, ab)
    assert match_signatures(ab, 10, abab, 5).verdict == "equal"
    shifted = M.struct([1, 2], [0, 8], [M.INT, M.DOUBLE])        # int, double, double
    m = match_signatures(ab, 6, shifted, 4)
    assert (m.verdict, m.index) == ("mismatch", 2)
    assert m.first == ((1, 0, 0), "MPI_INT") and m.second == ((0, 1, 1), "MPI_DOUBLE")


def test_millions_of_elements_compare_on_the_compressed_form():
    """Millions of elements: a run-by-run walk would exceed MAX_STEPS (2**21)
    and raise; the compressed comparison skips repetitions wholesale."""
    ab = M.struct([1, 1], [0, 8], [M.INT, M.DOUBLE])
    big_a = M.contiguous(10**6, ab)
    big_b = M.vector(10**6, 1, 1, ab)
    m = match_signatures(big_a, 3, big_b, 3)
    assert m.verdict == "equal" and m.index == 6 * 10**6
    m = match_signatures(big_a, 3, M.contiguous(10**6, ab), 2)
    assert (m.verdict, m.index) == ("longer", 4 * 10**6)
    assert m.first == ((2, 0, 0, 0), "MPI_INT") and m.second is None
    m = match_signatures(M.vector(5 * 10**6, 1, 2, M.INT), 1, M.INT, 5 * 10**6 - 1)
    assert m.verdict == "longer" and m.first == ((0, 5 * 10**6 - 1, 0), "MPI_INT")


def test_compare_on_raw_signatures_and_errors():
    assert compare([("MPI_INT", 5)], [(( ("MPI_INT", 1), ("MPI_INT", 1)), 2)]) == ("longer", 4)
    with pytest.raises(TypeTreeError, match="out of range"):
        element_path(M.INT, 2, 2)
