"""Registry-corruption fuzz (issue 10): random corruptions of libmpireg's
registry, communication context and MPI-IO state (roots, constants tables,
records, argument blocks, table slots, names, requests, communicators,
thread slots, files), each followed by every mpipp command and printer (print of
datatypes and handles, every subcommand with and without -json, $mpipp and
MI-style children expansion, the context commands).  Required: gdb never
crashes or hangs, no command takes 2 s of CPU, every failure is a one-line
'mpipp: ...' error (no Python exception, no internal error).

One gdb corrupts testprogs/fuzz stopped inside MPI_Send (write_memory),
another its core file (gdb cannot write a core's memory: the corruption is
applied to what mpipp reads through its memory layer); both run at once,
each many iterations (tests/integration/fuzz_driver.py).  A watchdog here
reports a crash or hang with the corruption and command it happened in.

Options (environment): MPIPP_FUZZ_ITERATIONS per target (default 1000:
2000 corruptions in all), MPIPP_FUZZ_SEED (default 10), e.g.
    MPIPP_FUZZ_ITERATIONS=5000 MPIPP_FUZZ_SEED=3 make check PYTEST_ARGS="-k fuzz -s"
"""

import json
import os
import subprocess

import pytest

import gdbrun

ITERATIONS = int(os.environ.get("MPIPP_FUZZ_ITERATIONS", "1000"))
SEED = int(os.environ.get("MPIPP_FUZZ_SEED", "10"))
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_driver.py")
# The watchdog: an iteration takes well under a second (49 commands of a
# few milliseconds), so this only fires on a hang.
TIMEOUT = 120 + 2 * ITERATIONS
STOP = ["-ex", "set pagination off", "-ex", "set breakpoint pending on",
        "-ex", "break PMPI_Send", "-ex", "run"]
KINDS_EXPECTED = {"registry root", "registry constants", "a datatype record",
                  "datatype arguments", "name", "context root", "context registry constants",
                  "a request record", "a comm record", "thread slots", "MPI-IO root"}


def start(mode, seed, tmp, target):
    config = {"seed": seed, "iterations": ITERATIONS, "mode": mode,
              "out": os.path.join(tmp, mode + ".json"),
              "progress": os.path.join(tmp, mode + ".progress"), "workdir": tmp}
    cmd = [gdbrun.MPIPP_GDB, "-nx", "-batch"] + target[0] + [
        "-ex", "python MPIPP_FUZZ = %r" % config, "-ex", gdbrun.source_python(DRIVER)
    ] + target[1]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return config, proc


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("fuzz"))
    program = gdbrun.program("fuzz")
    core = os.path.join(tmp, "core")
    gdbrun.run(STOP + ["-ex", "gcore %s" % core, "-ex", "kill", program])
    assert os.path.exists(core)
    started = {"live": start("live", SEED, tmp, (STOP, ["-ex", "kill", program])),
               "core": start("core", SEED + 1, tmp, ([], [program, core]))}
    out = {}
    for mode, (config, proc) in started.items():
        try:
            log, _ = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            log, _ = proc.communicate()
            log += "\nwatchdog: gdb still running after %d s" % TIMEOUT
        progress = open(config["progress"]).read().splitlines() if os.path.exists(
            config["progress"]) else []
        result = json.load(open(config["out"])) if os.path.exists(config["out"]) else None
        out[mode] = {"rc": proc.returncode, "log": log, "result": result,
                     "last": progress[-1] if progress else "(nothing run)"}
    return out


@pytest.mark.parametrize("mode", ["live", "core"])
def test_gdb_survives_every_corruption(runs, mode):
    run = runs[mode]
    assert run["result"] is not None and run["last"] == "done", (
        "gdb died or hung (exit %s) at: %s\n%s" % (run["rc"], run["last"], run["log"][-3000:]))
    for bad in ("Python Exception", "Traceback", "virtual memory exhausted", "internal-error"):
        assert bad not in run["log"], run["log"][-3000:]
    result = run["result"]
    assert result["iterations"] == ITERATIONS and result["commands"] >= 40 * ITERATIONS
    print("fuzz %s: %d corruptions, %d commands (%d one-line errors), slowest %.3f s CPU / "
          "%.3f s wall" % (mode, result["iterations"], result["commands"], result["errors"],
                           result["max_cpu"], result["max_wall"]))


@pytest.mark.parametrize("mode", ["live", "core"])
def test_every_failure_is_one_mpipp_line(runs, mode):
    result = runs[mode]["result"]
    assert result is not None
    assert result["failures"] == [], json.dumps(result["failures"][:5], indent=1)


@pytest.mark.parametrize("mode", ["live", "core"])
def test_no_command_takes_two_seconds(runs, mode):
    result = runs[mode]["result"]
    assert result is not None
    assert result["slow"] == [], result["slow"][:5]


def test_every_kind_of_region_was_corrupted(runs):
    kinds = set()
    for run in runs.values():
        if run["result"]:
            kinds |= set(run["result"]["kinds"])
    assert KINDS_EXPECTED <= kinds, sorted(KINDS_EXPECTED - kinds)
