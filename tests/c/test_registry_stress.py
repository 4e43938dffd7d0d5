"""Thread stress (tests/c/stress.c): 8 threads x 10,000 create/commit/
set_name/get_contents/free under MPI_THREAD_MULTIPLE, then the registry must
hold exactly the live types.  Also built with AddressSanitizer (libmpireg's
sources compiled into the test with -fsanitize=address)."""
import os
import re
import subprocess

import pytest

from gdbrun import MPICC

from mpireg_testutil import LIB_INCLUDES, ROOT, check_ok, library_sources, prog, run

OUR_SOURCES = ("libmpireg/", "wrappers.c", "stress.c", "oracle.c", "badinput.c", "channels.c")


def test_stress_linked():
    res = run([prog("stress"), "10000", "8"])
    check_ok(res, "stress")
    # 120000, plus one per get_contents when the MPI hands out copies (Open MPI)
    assert ("8 threads x 10000 iterations, 120000 records created, 0 of them copies" in res.stdout
            or "8 threads x 10000 iterations, 140000 records created, 20000 of them copies"
            in res.stdout), res.stdout


def test_stress_4ranks():
    res = run([prog("stress"), "5000", "8"], nprocs=4)
    check_ok(res, "stress")


def asan_build(tmp_path, test):
    exe = tmp_path / (test + "_asan")
    srcs = library_sources() + [os.path.join(ROOT, "tests", "c", test + ".c")]
    subprocess.run([MPICC, "-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O1", "-pthread",
                    *LIB_INCLUDES, "-o", str(exe)] + srcs, check=True)
    return str(exe)


def asan_reports_about_us(output):
    """ASan error reports, and leak reports whose stack goes through
    libmpireg or the test (MPICH/UCX leak a little at exit on their own)."""
    bad = []
    if "ERROR: AddressSanitizer" in output:
        bad.append(output[output.index("ERROR: AddressSanitizer"):][:4000])
    for block in re.split(r"\n(?=(?:Direct|Indirect) leak of )", output):
        if re.match(r"(Direct|Indirect) leak of ", block) and any(s in block for s in OUR_SOURCES):
            bad.append(block[:2000])
    return bad


@pytest.mark.parametrize("test,args", [("stress", ["10000", "8"]), ("oracle", [])])
def test_asan(tmp_path, test, args):
    exe = asan_build(tmp_path, test)
    env = {"ASAN_OPTIONS": "detect_leaks=1:exitcode=0:halt_on_error=1"}
    res = run([exe] + args, env=env)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    assert "%s: OK (0 failures)" % test in res.stdout, out[-6000:]
    assert asan_reports_about_us(out) == []


def test_asan_detects_our_leaks():
    """The leak filter above does see leaks made through our sources."""
    sample = ("Direct leak of 8 byte(s) in 1 object(s) allocated from:\n"
              "    #0 0x7f in __interceptor_calloc\n"
              "    #1 0x55 in mpireg_record_alloc libmpireg/registry/registry.c:80\n")
    assert asan_reports_about_us("\n" + sample)


def helgrind_reports_about_us(output):
    """Helgrind reports (races, lock order) whose accessing frame is ours.
    MPICH and UCX have lock-free fast paths helgrind flags on its own."""
    bad = []
    for block in re.split(r"\n==\d+== \n", output):
        if "Possible data race" not in block and "lock order" not in block:
            continue
        first_frames = re.findall(r"==\d+==\s+at 0x[0-9A-F]+: .*", block)
        if any(s in f for f in first_frames for s in OUR_SOURCES):
            bad.append(block[:3000])
    return bad


def test_helgrind(tmp_path):
    res = subprocess.run(["valgrind", "--tool=helgrind", prog("stress"), "300", "4"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         timeout=300)
    assert "stress: OK (0 failures)" in res.stdout, res.stdout + res.stderr[-4000:]
    assert "ERROR SUMMARY" in res.stderr
    assert helgrind_reports_about_us(res.stderr) == []
