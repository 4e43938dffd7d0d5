# Sourced in gdb at stop_here() of testprogs/types: for every test case, a
# dump in each format, `mpipp diff -json` of the unchanged buffer against
# each dump, then again after `mpipp set` changed its last element, and
# the buffer against itself (two-buffer form); one JSON line, DIFFS=.
import json
import os
import shutil
import tempfile

import gdb
from edit_cases import NEW_VALUES
from gdb_json import mpipp_json as _mpipp

FORMATS = ("json", "csv", "raw")
_DIR = tempfile.mkdtemp(prefix="mpipp-diff-")


def _run(command):
    try:
        return gdb.execute(command, to_string=True)
    except gdb.error as err:
        return "error: %s" % err


def _case(k):
    name = gdb.parse_and_eval("cases[%d].name" % k).string()
    ref = "cases[%d].type cases[%d].buf cases[%d].count" % (k, k, k)
    files = {f: os.path.join(_DIR, "%s.%s" % (name, f)) for f in FORMATS}
    out = {"name": name, "dump": {f: _run("mpipp dump -%s %s %s" % (f, ref, files[f]))
                                  for f in FORMATS}}
    out["same"] = {f: _mpipp("mpipp diff -json %s %s" % (ref, files[f])) for f in FORMATS}
    out["self"] = _mpipp("mpipp diff -json cases[%d].type cases[%d].buf cases[%d].buf "
                         "cases[%d].count" % (k, k, k, k))
    elements = _mpipp("mpipp -json %s" % ref).get("elements", [])
    out["edited"] = None
    if elements:
        last = elements[-1]
        text, expected = NEW_VALUES[last["type"]]
        if last["value"] == expected:   # cases sharing a buffer: already edited
            text = "{0, 0}" if isinstance(expected, dict) else "0"
        _run("mpipp set %s %s = %s" % (ref, last["path"], text))
        out["edited"] = last["path"]
        out["changed"] = {f: _mpipp("mpipp diff -json %s %s" % (ref, files[f]))
                          for f in FORMATS}
    return out


if __name__ == "__main__":
    gdb.execute("set print elements unlimited")
    _cases = [_case(k) for k in range(int(gdb.parse_and_eval("n_cases")))]
    shutil.rmtree(_DIR)
    gdb.write("DIFFS=" + json.dumps(_cases) + "\n")
