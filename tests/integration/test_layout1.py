"""A registry of layout version 1 still opens.  build/$MPI/layout1 holds
libmpireg as it was before layout 2 (built from git history, with MPICH) and
testprogs/types built against it: live, and from a core file of that
process, every test case decodes to MPI_Pack's bytes with MPI's own size and
extents (the checks of test_oracle), and the describing commands give the
same text live and from the core."""

import os

import pytest

import gdbrun
from test_oracle import CASES, DUMP, check_case, parse_dump

LAYOUT1 = os.path.join(gdbrun.BUILD, "layout1")
LIB = os.path.join(LAYOUT1, "libmpireg.so")
TYPES = os.path.join(LAYOUT1, "types")
DUMP_CMD = gdbrun.source_python(DUMP)
DESCRIBE = ["frame function main", "print cases[11].type", "mpipp info cases[12].type",
            "mpipp list", "mpipp typemap cases[14].type", "print all_types[12]",
            "mpipp where cases[11].type cases[11].buf (char*)cases[11].buf+37 4"]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    core = str(tmp_path_factory.mktemp("layout1") / "types.core")
    env = {"MPIPP_LIB": LIB}
    live = gdbrun.capture(TYPES, [DUMP_CMD] + DESCRIBE + ["gcore %s" % core], env=env,
                          timeout=300)
    assert os.path.exists(core), live
    dead = gdbrun.capture(TYPES, [DUMP_CMD] + DESCRIBE, core=core, env=env, timeout=300)
    return live, dead


def test_the_fixture_is_layout_1(sessions):
    live, _dead = sessions
    out = gdbrun.capture(TYPES, ["print ((unsigned int *)&mpireg_root)[2]"],
                         env={"MPIPP_LIB": LIB})
    assert out["print ((unsigned int *)&mpireg_root)[2]"].split("= ")[1].strip() == "1"


@pytest.mark.parametrize("where", ["live", "core"])
def test_every_case_matches_mpi(sessions, where):
    out = sessions[0 if where == "live" else 1]
    cases = parse_dump(out[DUMP_CMD])
    assert sorted(cases) == sorted(CASES)
    for name in CASES:
        check_case(cases[name])


def test_core_describes_like_the_live_process(sessions):
    live, dead = sessions
    for command in DESCRIBE:
        assert not isinstance(live[command], gdbrun.GdbFailure), (command, live[command])
        assert dead[command] == live[command], command
    assert 'struct(count=3) of {MPI_INT, MPI_DOUBLE, MPI_CHAR} "struct_t"' in live[DESCRIBE[1]]
