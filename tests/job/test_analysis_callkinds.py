"""job/analysis/callkinds.py: generated from libmpireg/context/comm.spec by
genwrappers.py --call-kinds, committed, and the same as what comm.spec
gives; how world.py classifies representative calls by it."""

import os
import subprocess
import sys

import pytest

from mpipp.job.analysis import callkinds, world

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GEN = os.path.join(ROOT, "libmpireg", "genwrappers.py")
COMM_SPEC = os.path.join(ROOT, "libmpireg", "context", "comm.spec")
CALLKINDS = os.path.join(ROOT, "gdb-python", "mpipp", "job", "analysis", "callkinds.py")

sys.path.insert(0, os.path.dirname(GEN))
import genwrappers  # noqa: E402


def test_the_committed_module_is_what_comm_spec_gives():
    generated = subprocess.run([sys.executable, GEN, "--call-kinds", COMM_SPEC],
                               stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    with open(CALLKINDS) as f:
        assert f.read() == generated, "comm.spec changed: run make callkinds"


# (base, nonblocking, persistent, kind) of representative calls
CLASSIFIED = {
    "MPI_Send": ("send", False, False, "send"),
    "MPI_Issend": ("ssend", True, False, "send"),
    "MPI_Bsend_init_c": ("bsend", False, True, "send"),
    "MPI_Recv_init": ("recv", False, True, "recv"),
    "MPI_Iprobe": ("probe", True, False, "probe"),
    "MPI_Improbe": ("mprobe", True, False, "probe"),
    "MPI_Imrecv": ("mrecv", True, False, "local"),
    "MPI_Isendrecv_replace_c": ("sendrecv_replace", True, False, "sendrecv"),
    "MPI_Psend_init": ("psend", False, True, "unmodelled"),
    "MPI_Waitsome": ("waitsome", False, False, "wait"),
    "MPI_Test": ("test", False, False, "wait"),
    "MPI_Start": ("start", False, False, "local"),
    "MPI_Bcast_init_c": ("bcast", False, True, "coll"),
    "MPI_Ineighbor_alltoallw": ("neighbor_alltoallw", True, False, "coll"),
    "MPI_Comm_split_type": ("comm_split_type", False, False, "coll"),
    "MPI_Comm_create_group": ("comm_create_group", False, False, "coll"),
    "MPI_Intercomm_create": ("intercomm_create", False, False, "unmodelled"),
    "MPI_Intercomm_merge": ("intercomm_merge", False, False, "coll"),
    "MPI_Comm_free": ("comm_free", False, False, "local"),
    "MPI_Comm_disconnect": ("comm_disconnect", False, False, "unmodelled"),
    "MPI_Finalize": ("finalize", False, False, "coll"),
    "MPI_File_open": ("file_open", False, False, "coll"),
    "MPI_File_read_all": ("file_read_all", False, False, "coll"),
    "MPI_File_iread_all": ("file_iread_all", False, False, "local"),
    "MPI_File_write_ordered_end": ("file_write_ordered_end", False, False, "coll"),
    "MPI_File_get_group": ("file_get_group", False, False, "unmodelled"),
    "MPI_Win_post": ("win_post", False, False, "rma"),
    "MPI_Win_test": ("win_test", False, False, "rma"),
    "MPI_Rput": ("rput", False, False, "local"),
    "MPI_Win_create": ("win_create", False, False, "unmodelled"),
    "MPI_Reduce_local": ("reduce_local", False, False, "local"),
    "MPI_Group_incl": ("group_incl", False, False, "unmodelled"),
}


@pytest.mark.parametrize("function, expected", sorted(CLASSIFIED.items()))
def test_representative_calls_classify(function, expected):
    base, nonblocking, persistent = world.split_name(function)
    assert (base, nonblocking, persistent, world.kind_of(base)) == expected


# set name -> (calls in it, calls not in it)
MEMBERSHIP = {
    "EAGER_SENDS": (["MPI_Send", "MPI_Irsend", "MPI_Sendrecv"], ["MPI_Ssend", "MPI_Bsend"]),
    "LOCAL_SENDS": (["MPI_Bsend", "MPI_Ibsend"], ["MPI_Send", "MPI_Issend"]),
    "ROOTED": (["MPI_Bcast", "MPI_Igatherv", "MPI_Reduce_init"],
               ["MPI_Allgather", "MPI_Intercomm_create"]),
    "REDUCTIONS": (["MPI_Iexscan", "MPI_Reduce_scatter_block"],
                   ["MPI_Reduce_local", "MPI_Accumulate", "MPI_Bcast"]),
    "WAIT_ANY": (["MPI_Testany", "MPI_Waitsome"], ["MPI_Waitall", "MPI_Test"]),
    "NUMBERED": (["MPI_Comm_dup", "MPI_Ibarrier", "MPI_File_open"],
                 ["MPI_Comm_create_group", "MPI_Finalize"]),
}


@pytest.mark.parametrize("set_name", sorted(MEMBERSHIP))
def test_what_else_a_call_is(set_name):
    inside, outside = MEMBERSHIP[set_name]
    bases = getattr(callkinds, set_name)
    assert [f for f in inside if world.split_name(f)[0] not in bases] == []
    assert [f for f in outside if world.split_name(f)[0] in bases] == []


def test_polling_calls_are_those_marked_poll():
    assert callkinds.POLLS == {"MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
                               "MPI_Iprobe", "MPI_Improbe", "MPI_Win_test"}


def test_the_rows_of_one_call_must_agree(tmp_path):
    spec = tmp_path / "comm.spec"
    spec.write_text("MPI_Bsend | int x | sends() buffered()\n"
                    "MPI_Ibsend | int x, MPI_Request *request | post(request) sends()\n")
    with pytest.raises(genwrappers.SpecError, match="disagree on LOCAL_SENDS"):
        genwrappers.call_kinds([str(spec)])
