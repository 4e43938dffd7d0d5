"""The tree of back-ends next to the ranks (gdb-free): its layout over the
nodes (one back-end each), and merging on the way up, which must give the console
what one answer per rank gives (the console's flat merge)."""

import random
import socket

import pytest

from mpipp.job.analysis import merge
from mpipp.job.link import tree
from mpipp.job.link.fleet import Fleet, RemoteSession
from mpipp.job.console.launch import named_hosts, report_hosts
from mpipp.job.console.options import parse_args
from mpipp.job.link.session import Answer, Reactor


def hosts_of(n, names=("a", "b", "c")):
    """Ranks spread round-robin over hosts, as mpiexec -hosts a,b,c does."""
    return {rank: names[rank % len(names)] for rank in range(n)}


def nodes_of(n, names=("a", "b", "c")):
    """{host: [ranks]} of ranks spread round-robin over hosts."""
    out = {}
    for rank, host in hosts_of(n, names).items():
        out.setdefault(host, []).append(rank)
    return out


def test_layout_is_a_heap_over_the_nodes():
    names = ["n%d" % k for k in range(9)]
    parents = tree.layout(names, fanout=2)
    # the first node under the console, then two under each
    assert [parents[n] for n in names] == [None, "n0", "n0", "n1", "n1", "n2", "n2", "n3", "n3"]
    assert tree.children(parents)["n0"] == ["n1", "n2"]
    assert tree.depth(parents) == 4     # n7: under n3, n1, n0, the console


def test_fanout_bounds_the_children_of_every_back_end():
    names = ["n%d" % k for k in range(64)]
    for fanout in (1, 2, 8):
        parents = tree.layout(names, fanout)
        assert list(parents.values()).count(None) == 1
        assert all(len(below) <= fanout for below in tree.children(parents).values())
    assert tree.depth(tree.layout(names, 1)) == 64
    with pytest.raises(ValueError):
        tree.layout(names, 0)


def answer_fields(rank, rng):
    """An answer as a back-end sends it: a few distinct outputs, so that
    groups form, one with results that differ where outputs do not."""
    kind = rng.choice(("same", "parity", "own", "results"))
    output = {"same": "$1 = 7\n", "parity": "$1 = %d\n" % (rank % 2),
              "own": "$1 = %d\n" % rank, "results": "done\n"}[kind]
    return {"cls": "done", "output": output, "text": output, "error": None,
            "results": {"threads": [{"id": str(1 + rank % 3)}]} if kind == "results" else {},
            "document": None, "dead": None}


def through_tree(nodes, parents, fields):
    """The groups the console receives: each node's back-end merges its
    ranks' answers with its children's, bottom up."""
    below = tree.children(parents)

    def up(node):
        groups = [tree.group([rank], fields[rank]) for rank in nodes[node]]
        for child in below[node]:
            groups += up(child)
        return tree.merge(groups)
    root = next(node for node, p in parents.items() if p is None)
    return up(root)


class FakeLink:
    """The tree's root connection, as the console writes to it."""
    closed = False

    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)
        return True


def fleet_of(n):
    fleet = Fleet(FakeLink(), Reactor(thread=False))
    for rank in range(n):
        fleet.sessions[rank] = RemoteSession(rank, fleet, {"host": "h", "gdb": 1})
    return fleet


@pytest.mark.parametrize("fanout", [1, 2, 8])
def test_tree_merge_gives_the_flat_merge(fanout):
    rng = random.Random(fanout)
    n = 64
    fields = {rank: answer_fields(rank, rng) for rank in range(n)}
    nodes = nodes_of(n, ["h%d" % k for k in range(16)])
    groups = through_tree(nodes, tree.layout(nodes, fanout), fields)
    assert len(groups) < n // 2     # the console receives groups, not ranks

    fleet = fleet_of(n)
    received = fleet.ask(list(fleet.sessions.values()), "print x")
    assert fleet.link.sent == [{"t": "ask", "id": 1, "ranks": "0-63", "cmd": "print x",
                                "document": False}]
    assert all(s.pending for s in fleet.sessions.values())
    fleet._answer({"t": "answer", "id": 1, "groups": groups})
    assert not fleet.requests and not any(s.pending for s in fleet.sessions.values())

    flat = {}
    for rank, f in fields.items():
        answer = flat[rank] = Answer(rank, "print x")
        answer.add(f["output"], True)
        answer.finish(f["cls"], f["results"])
    for numbers in (True, False):
        expected = merge.render(merge.group((r, a.digest, a.output, None)
                                            for r, a in flat.items()), numbers)
        got = merge.render(merge.group((r, a.digest, a.output, None)
                                       for r, a in received.items()), numbers)
        shared = merge.render(merge.group_sets((ranks, a.digest, a.output, None)
                                               for ranks, a in received.groups), numbers)
        assert got == expected and shared == expected
    assert all(received[r].results == flat[r].results for r in range(n))


def test_a_dead_gdb_in_an_answer_marks_its_rank():
    fleet = fleet_of(1)
    fleet.ask([fleet.sessions[0]], "print x")
    why = "gdb died (killed by SIGKILL)"
    fleet._answer({"t": "answer", "id": 1, "groups": [tree.group([0], {
        "cls": None, "output": why + "\n", "text": "", "error": why, "dead": why})]})
    assert (fleet.sessions[0].state, fleet.sessions[0].why) == ("dead", why)
    answer = fleet.ask([fleet.sessions[0]], "print x")[0]     # not asked: answered here
    assert answer.done and answer.error == "gdb is gone (%s)" % why and len(fleet.link.sent) == 1


def test_ranks_the_tree_left_unanswered_get_an_error():
    fleet = fleet_of(3)
    asked = fleet.ask(list(fleet.sessions.values()), "print x")
    fleet._answer({"t": "answer", "id": 1, "groups": [tree.group([0, 2], {
        "cls": "done", "output": "$1 = 1\n", "text": "$1 = 1\n"})]})
    assert asked[0] is asked[2] and asked[0].output == "$1 = 1\n"
    assert asked[1].error == "no answer from its back-end"
    assert [ranks for ranks, _a in asked.groups] == [[0, 2], [1]]


def test_addresses_ranks_report_to():
    assert named_hosts(["-hosts", "a,b:2", "-n", "4"]) == ["a", "b"]
    assert named_hosts(["--host", "x:4,y", "-H", "z"]) == ["x", "y", "z"]
    assert named_hosts(["-np", "2"]) == []
    opts = parse_args(["-n", "2", "-hosts", "127.0.0.1", "/bin/true"])
    offered = report_hosts(opts)
    # first the address this host reaches the named hosts from, then its
    # name, then every interface's address
    assert offered[0] == "127.0.0.1" and offered[1] == socket.gethostname()
    assert len(offered) == len(set(offered))
    opts = parse_args(["--host", "login1", "-n", "2", "/bin/true"])
    assert report_hosts(opts) == ["login1"]
