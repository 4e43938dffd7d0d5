"""Datatypes survive JSON losslessly: every combiner, random trees, shared
children, pair members, constants; malformed documents are one-line errors."""

import json
import random

import pytest

import dtypes as M
from dtypes import ALL
from test_model_fuzz import gen
from mpipp.model import elements as E
from mpipp.model import typemap as T
from mpipp.model.datatype import Constants
from mpipp.model.datatype_json import dump_types, from_json, load_types, to_json
from mpipp.model.errors import TypeTreeError

FIELDS = ("combiner", "size", "lb", "extent", "true_lb", "true_extent", "name", "handle",
          "committed", "freed", "serial", "created_at", "kind")


def same_tree(a, b, seen=None):
    """Field-by-field equality of two trees, sharing included."""
    seen = {} if seen is None else seen
    if id(a) in seen:
        assert seen[id(a)] is b, "a shared child became two nodes"
        return
    seen[id(a)] = b
    for name in FIELDS:
        assert getattr(a, name) == getattr(b, name), name
    for name in ("integers", "addresses", "large_counts"):
        assert list(getattr(a, name)) == list(getattr(b, name)), name
    assert a.constants == b.constants
    assert len(a.children) == len(b.children)
    for x, y in zip(a.children, b.children):
        same_tree(x, y, seen)
    assert (a.members is None) == (b.members is None)
    for (oa, ta), (ob, tb) in zip(a.members or (), b.members or ()):
        assert oa == ob
        same_tree(ta, tb, seen)


def round_trip(dt):
    back = from_json(json.loads(json.dumps(to_json(dt))))
    same_tree(dt, back)
    return back


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_combiner_round_trips(name):
    dt = ALL[name]()
    dt.handle, dt.serial, dt.created_at, dt.freed = 0x8c000004, 17, 0x401234, True
    back = round_trip(dt)
    assert list(E.iter_elements(back, 2)) != [] or list(E.iter_elements(dt, 2)) == []
    assert [(p, o, b.name) for p, o, b in E.iter_elements(back, 2)] == \
        [(p, o, b.name) for p, o, b in E.iter_elements(dt, 2)]


@pytest.mark.parametrize("seed", range(40))
def test_random_trees_round_trip(seed):
    rnd = random.Random(seed)
    for _ in range(5):
        dt, _ref = gen(rnd, 4)
        back = round_trip(dt)
        assert T.signature(back, 3) == T.signature(dt, 3)


def test_shared_children_are_one_node_and_constants_kept():
    row = M.contiguous(4, M.DOUBLE)
    pair = M.struct([1, 1], [0, 32], [row, row])
    pair.constants = Constants(order_c=0, order_fortran=1)
    doc = to_json(pair)
    assert [n["combiner"] for n in doc["nodes"]] == ["NAMED", "CONTIGUOUS", "STRUCT"]
    back = round_trip(pair)
    assert back.children[0] is back.children[1]
    assert back.constants.order_c == 0 and back.children[0].constants.order_c == 56


def test_many_roots_share_nodes():
    a, b = M.vector(2, 1, 2, M.INT), M.contiguous(3, M.INT)
    doc = json.loads(json.dumps(dump_types({0x10: a, 0x20: b})))
    assert sum(n["combiner"] == "NAMED" for n in doc["nodes"]) == 1
    back = load_types(doc)
    assert back["16"].children[0] is back["32"].children[0]


def test_pair_members_round_trip():
    back = round_trip(M.contiguous(2, M.DOUBLE_INT))
    member_types = [t.name for _o, t in back.children[0].members]
    assert member_types == ["MPI_DOUBLE", "MPI_INT"]


def test_deep_tree_round_trips():
    dt = M.INT
    for _ in range(60):
        dt = M.contiguous(1, dt)
    round_trip(dt)


@pytest.mark.parametrize("corrupt, message", [
    (lambda d: d.update(format="other"), "not an mpipp datatype document"),
    (lambda d: d["nodes"][1].update(children=[1]), "refers to node 1"),
    (lambda d: d["nodes"][1].update(children=[7]), "refers to node 7"),
    (lambda d: d["roots"].update({"0": 9}), "root 0 refers to node 9"),
    (lambda d: d["nodes"][1].update(constants=-1), "node 1 refers to constants -1"),
    (lambda d: d["nodes"][0].pop("size"), "malformed datatype document"),
    (lambda d: d.update(nodes=None), "malformed datatype document"),
])
def test_malformed_documents_are_one_line_errors(corrupt, message):
    doc = to_json(M.contiguous(2, M.INT))
    corrupt(doc)
    with pytest.raises(TypeTreeError, match=message):
        from_json(doc)
