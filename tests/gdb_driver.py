# Sourced inside gdb by tests/gdbrun.py: runs each command of the spec file at
# the current stop and writes [command, failed, output] triples as JSON, one
# file per MPI rank.
import json
import os

import gdb

with open(MPIPP_TEST_SPEC) as _f:  # noqa: F821 (set by gdbrun.capture)
    _commands = json.load(_f)
_results = []
for _cmd in _commands:
    try:
        _results.append([_cmd, False, gdb.execute(_cmd, to_string=True)])
    except gdb.error as _err:
        _results.append([_cmd, True, str(_err)])
# the rank as each MPI's launcher exports it (MPICH's Hydra, Open MPI's mpirun)
_rank = os.environ.get("PMI_RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or "0"
with open("%s.%s" % (MPIPP_TEST_OUT, _rank), "w") as _f:  # noqa: F821
    json.dump(_results, _f)
