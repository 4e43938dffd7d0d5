# Sourced in gdb at stop_here() of testprogs/types: for every test case, what
# MPI said (packed bytes, size, extents) and what mpipp says (-json output or
# its error), printed as one JSON line prefixed with CASES=.
import json
import os
import tempfile

import gdb
from gdb_json import mpipp_json as _mpipp

_RAW = os.path.join(tempfile.mkdtemp(prefix="mpipp-oracle-"), "case.raw")


def _raw_dump(ref):
    """`mpipp dump -raw` of a case, as hex (or its error)."""
    try:
        gdb.execute("mpipp dump -raw %s.type %s.buf %s.count %s" % (ref, ref, ref, _RAW),
                    to_string=True)
    except gdb.error as err:
        return {"error": str(err)}
    with open(_RAW, "rb") as f:
        return f.read().hex()


def _case(k):
    c = gdb.parse_and_eval("cases[%d]" % k)
    n = int(c["packed_size"])
    packed = gdb.selected_inferior().read_memory(int(c["packed"]), n).tobytes() if n else b""
    ref = "cases[%d]" % k
    return {
        "name": c["name"].string(),
        "count": int(c["count"]),
        "packed": packed.hex(),
        "mpi": {f: int(c[f]) for f in ("size", "lb", "extent", "true_lb", "true_extent")},
        "decode": _mpipp("mpipp -json %s.type %s.buf %s.count" % (ref, ref, ref)),
        "typemap": _mpipp("mpipp typemap -json %s.type" % ref),
        "info": _mpipp("mpipp info -json %s.type" % ref),
        "raw": _raw_dump(ref),
    }


gdb.execute("set print elements unlimited")
_cases = [_case(k) for k in range(int(gdb.parse_and_eval("n_cases")))]
gdb.write("CASES=" + json.dumps(_cases) + "\n")
os.remove(_RAW)
os.rmdir(os.path.dirname(_RAW))
