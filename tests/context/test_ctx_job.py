"""The per-rank commands the job console builds on, in one process
(testprogs/ctx_requests): `mpipp context`, `mpipp comms` (world ranks of
members), `mpipp match` (type matching by path), and their one-line errors."""

import json
import os

import pytest

import gdbrun
from gdbrun import GdbFailure

COMMANDS = [
    "mpipp context", "mpipp context -json", "mpipp comms", "mpipp comms -json",
    "mpipp match row_t 2 row_t 2", "mpipp match row_t 1 row_t 2", "mpipp match row_t 2 row_t 1",
    "mpipp match row_t 2 pair_t 3", "mpipp match -json pair_t 2 row_t 1",
    "mpipp match row_t 2", "mpipp match nosuch 1 row_t 1", "mpipp match row_t -1 row_t 1",
    "mpipp context extra", "mpipp comms -bad", "mpipp export row_t", "mpipp export",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("ctx_requests", COMMANDS, stop="stop_pending")


def test_context_summary_and_document(out):
    lines = out["mpipp context"].splitlines()
    assert lines[0].startswith("rank 0 of 1 in MPI_COMM_WORLD, process ")
    assert "pending requests: 2" in lines  # the two Isends complete at once: not pending
    doc = json.loads(out["mpipp context -json"])
    assert (doc["rank"], doc["size"], doc["version"]) == (0, 1, 1)
    funcs = [r["call"]["function"] for r in doc["requests"]]
    assert funcs == ["MPI_Irecv", "MPI_Irecv"]
    first = doc["requests"][0]["call"]
    assert (first["peer"], first["tag"], first["peer_name"]) == (0, 5, "source")
    assert first["bufs"][0]["count"] == 2
    key = str(first["bufs"][0]["datatype"])
    types = doc["types"]
    row = types["nodes"][types["roots"][key]]
    assert (row["combiner"], row["name"], row["integers"]) == ("CONTIGUOUS", "row_t", [6])
    comms = {c["name"]: c for c in doc["comms"]}
    assert comms["dup_comm"]["members"] == [0] and comms["dup_comm"]["creator"] == "MPI_Comm_dup"
    assert doc["constants"]["MPI_ANY_SOURCE"] == doc["requests"][1]["call"]["peer"]


def test_comms_list_world_ranks(out):
    lines = out["mpipp comms"].splitlines()
    assert lines[0].split() == ["handle", "name", "size", "rank", "world", "ranks", "what"]
    assert any(l.split()[1:] == ["dup_comm", "1", "0", "0", "dup", "of", "MPI_COMM_WORLD"]
               for l in lines)
    doc = json.loads(out["mpipp comms -json"])
    assert {c["name"] for c in doc["comms"]} == {"MPI_COMM_WORLD", "MPI_COMM_SELF", "dup_comm"}


def test_match_verdicts_with_paths(out):
    assert out["mpipp match row_t 2 row_t 2"].startswith(
        "equal: row_t × 2 and row_t × 2 have the same signature (12 elements)")
    assert out["mpipp match row_t 1 row_t 2"].startswith(
        "prefix: row_t × 1 (6 elements) is a prefix of row_t × 2 (12)")
    assert "[1][0] MPI_DOUBLE is left unfilled" in out["mpipp match row_t 1 row_t 2"]
    assert "[1][0] MPI_DOUBLE has no counterpart" in out["mpipp match row_t 2 row_t 1"]
    assert out["mpipp match row_t 2 pair_t 3"] == \
        "mismatch at element 0: [0][0] MPI_DOUBLE vs [0][0][0] MPI_INT\n"
    doc = json.loads(out["mpipp match -json pair_t 2 row_t 1"])
    assert doc == {"verdict": "mismatch", "index": 0, "elements": [4, 6],
                   "first": {"path": "[0][0][0]", "type": "MPI_INT"},
                   "second": {"path": "[0][0]", "type": "MPI_DOUBLE"}}


def test_export_rebuilds_the_same_datatype(out):
    import sys
    sys.path.insert(0, os.path.join(gdbrun.REPO, "gdb-python"))
    from mpipp.model.datatype_json import from_json
    from mpipp.model.typemap import format_signature, signature
    row = from_json(json.loads(out["mpipp export row_t"]))
    assert (row.combiner, row.name, list(row.integers)) == ("CONTIGUOUS", "row_t", [6])
    assert row.children[0].name == "MPI_DOUBLE" and row.size == 48 and row.committed
    assert format_signature(signature(row, 2)) == "MPI_DOUBLE×12"


@pytest.mark.parametrize("command, message", [
    ("mpipp match row_t 2", "usage: mpipp match"),
    ("mpipp match nosuch 1 row_t 1", "cannot evaluate datatype 'nosuch'"),
    ("mpipp match row_t -1 row_t 1", "COUNT must not be negative"),
    ("mpipp context extra", "usage: mpipp context"),
    ("mpipp comms -bad", "unknown option '-bad'"),
    ("mpipp export", "usage: mpipp export TYPE"),
])
def test_errors_are_one_line(out, command, message):
    assert isinstance(out[command], GdbFailure)
    assert message in out[command] and "\n" not in out[command].strip()
