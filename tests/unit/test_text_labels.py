"""text/labels.py: communicators and windows named and described from
plain values -- what the gdb side prints and the job console words from
the ranks' context documents alike -- and describe.handle_label."""

from types import SimpleNamespace

import dtypes as M
from mpipp.model import describe
from mpipp.text.labels import Communicators, comm_size_text, predefined_comms, win_label

WORLD, SELF, SHARED = 0x44000000, 0x44000001, 2
CONSTANTS = {"MPI_COMM_WORLD": WORLD, "MPI_COMM_SELF": SELF, "MPI_COMM_TYPE_SHARED": SHARED}


def comm(name=None, serial=0, creator=None, parent=WORLD, how_name=None, how=0, size=2,
         rank=0, remote_size=0, predefined=False):
    return SimpleNamespace(name=name, serial=serial, creator=creator, parent=parent,
                           how_name=how_name, how=how, size=size, rank=rank,
                           remote_size=remote_size, predefined=predefined)


def communicators():
    return Communicators({
        WORLD: comm("MPI_COMM_WORLD", size=4, predefined=True),
        0x84000001: comm(serial=1, creator="MPI_Comm_split", how_name="color", how=1),
        0x84000002: comm("rows", serial=2, creator="MPI_Comm_dup", parent=0x84000001),
        0x84000003: comm(serial=3, creator="MPI_Comm_split_type", how_name="split_type",
                         how=SHARED, size=1, rank=-1),
        0x84000004: comm(creator="MPI_Intercomm_create", remote_size=3),
        0x84000005: comm(serial=5, creator="MPI_Comm_spawn", parent=0x84000009),
    }, predefined_comms(CONSTANTS), SHARED)


def test_labels_predefined_names_serials_handles():
    names = communicators()
    assert [names.label(k) for k in (WORLD, SELF, 0x84000001, 0x84000002, 0x84000004)] == \
        ["MPI_COMM_WORLD", "MPI_COMM_SELF", "comm#1", "rows", "0x84000004"]
    assert (names.by_label("comm#1"), names.by_label("rows"), names.by_label("MPI_COMM_SELF"),
            names.by_label("comm#9")) == (0x84000001, 0x84000002, SELF, None)


def test_texts_say_how_a_communicator_was_made():
    names = communicators()
    assert names.text(0x84000001) == "comm#1 [split of MPI_COMM_WORLD (color 1), rank 0 of 2]"
    assert names.text(0x84000002, local=False) == "rows [dup of comm#1, 2 ranks]"
    assert names.text(0x84000003, local=False) == \
        "comm#3 [split of MPI_COMM_WORLD (MPI_COMM_TYPE_SHARED), 1 rank]"
    assert names.text(0x84000003) == \
        "comm#3 [split of MPI_COMM_WORLD (MPI_COMM_TYPE_SHARED), rank none of 1]"
    assert names.text(0x84000004, local=False) == \
        "0x84000004 [intercommunicator from MPI_COMM_WORLD, 2 + 3 ranks]"
    assert names.text(0x84000005, local=False) == "comm#5 [MPI_Comm_spawn of 0x84000009, 2 ranks]"
    assert names.text(WORLD) == "MPI_COMM_WORLD [rank 0 of 4]"
    assert names.text(WORLD, predefined_alone=True) == "MPI_COMM_WORLD"
    assert names.text(0x9) == "0x9" and names.about(WORLD) is None
    assert comm_size_text(comm(remote_size=3)) == "rank 0 of 2, remote group 3"


def test_windows_and_datatype_handles():
    assert (win_label("halo", 2), win_label(None, 2)) == ("halo", "win#2")
    vector = M.vector(2, 1, 3, M.INT)
    vector.serial = 7
    assert describe.handle_label(M.INT, 0x4c00010d, 0x0c000000) == "MPI_INT"
    assert describe.handle_label(vector, 0x8c000001) == "vector#7"
    assert describe.handle_label(None, 0x0c000000, 0x0c000000) == "MPI_DATATYPE_NULL"
    assert describe.handle_label(None, 0x8c000009, 0x0c000000) == "0x8c000009"
