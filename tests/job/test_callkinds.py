"""job/analysis/callkinds.py: generated from libmpireg/context/comm.spec by
genwrappers.py --call-kinds, committed, and the same as what comm.spec
gives; every row of comm.spec classifies as world.py's hand-written sets
classified it."""

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


FUNCTIONS = [name for name, _params, _recipe, _line in
             genwrappers.read_rows(COMM_SPEC, set())]


def new_split_name(function):
    name = function[4:].lower()
    if name.endswith("_c"):
        name = name[:-2]
    persistent = name.endswith("_init")
    if persistent:
        name = name[:-5]
    nonblocking = name.startswith("i") and name[1:] in callkinds.NONBLOCKING_BASES
    return (name[1:] if nonblocking else name), nonblocking, persistent


KINDS = (("send", callkinds.SENDS), ("recv", callkinds.RECEIVES), ("probe", callkinds.PROBES),
         ("sendrecv", callkinds.SENDRECVS),
         ("coll", callkinds.COLLECTIVES | callkinds.FILE_COLLECTIVES |
          callkinds.GROUP_COLLECTIVES | {world.FINALIZE}),
         ("wait", callkinds.WAIT_ALL | callkinds.WAIT_ANY), ("rma", callkinds.RMA_SYNC),
         ("local", callkinds.LOCAL))


def new_kind_of(base):
    return next((kind for kind, bases in KINDS if base in bases), "unmodelled")


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_row_classifies_as_the_hand_written_sets_did(function):
    base, nonblocking, persistent = world.split_name(function)
    assert new_split_name(function) == (base, nonblocking, persistent)
    kind = world.kind_of(base)
    assert new_kind_of(base) == kind
    polls = base in world.TESTS or function in ("MPI_Iprobe", "MPI_Improbe", "MPI_Win_test")
    assert (function in callkinds.POLLS) == polls
    for name in ("WAIT_ANY", "ROOTED", "REDUCTIONS", "LOCAL_SENDS", "EAGER_SENDS",
                 "GROUP_COLLECTIVES"):
        assert (base in getattr(callkinds, name)) == (base in getattr(world, name)), name
    if kind == "coll":
        assert (base in callkinds.NUMBERED) == (base in world.NUMBERED)


def test_the_sets_differ_only_where_an_earlier_kind_wins():
    """world.py's LOCAL also held calls classified before it (collective
    I/O, MPI_Win_post); its NUMBERED left out MPI_Intercomm_create, which is
    not modelled (kind unmodelled: never numbered)."""
    assert world.LOCAL - callkinds.LOCAL == {"file_read_all", "file_write_all",
                                             "file_read_at_all", "file_write_at_all",
                                             "win_post"}
    assert callkinds.NUMBERED - world.NUMBERED == {"intercomm_create"}
    for name in ("SENDS", "RECEIVES", "PROBES", "SENDRECVS", "WAIT_ALL", "WAIT_ANY",
                 "FILE_COLLECTIVES", "RMA_SYNC", "ROOTED", "REDUCTIONS", "LOCAL_SENDS",
                 "EAGER_SENDS", "NONBLOCKING_BASES", "GROUP_COLLECTIVES"):
        assert getattr(callkinds, name) == getattr(world, name), name
    assert callkinds.COLLECTIVES == world.COLLECTIVES | world.COMM_CONSTRUCTORS
    assert callkinds.LOCAL <= world.LOCAL
