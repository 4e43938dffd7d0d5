"""The ways mpipp reaches gdb, and the processes it works on: mpipp-gdb,
`source` by hand, auto-load (build tree and `make install`), attach, core
files, a stripped libmpireg, mpiexec, and a process without libmpireg."""

import os
import re
import shutil
import signal
import subprocess


import gdbrun
from gdbrun import BUILD, REPO

LIB = os.path.join(BUILD, "libmpireg.so")
TYPES = gdbrun.program("types")
SUMMARY = 'vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "vector_t"'
PRINT = ["-ex", "break stop_here", "-ex", "run", "-ex", "frame function main",
         "-ex", "print vector_type", "-ex", "mpipp vector_type cases[1].buf 1 [0][2]"]


def plain_gdb(args, env=None, timeout=120):
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.run(["gdb", "-nx", "-batch"] + args, capture_output=True, text=True,
                          timeout=timeout, env=full_env)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def test_mpipp_gdb_loads_and_preloads():
    proc = gdbrun.run(PRINT + ["--args", TYPES])
    assert SUMMARY in proc.stdout, proc.stdout + proc.stderr
    assert "[0][2][0] = " in proc.stdout


def test_source_by_hand():
    proc = plain_gdb(["-ex", "set environment LD_PRELOAD=" + LIB,
                      "-ex", "source " + os.path.join(REPO, "gdb-python", "mpipp.py")]
                     + PRINT + ["--args", TYPES])
    assert SUMMARY in proc.stdout, proc.stdout + proc.stderr


def test_auto_load_from_build_tree():
    proc = plain_gdb(["-iex", "add-auto-load-safe-path " + BUILD,
                      "-ex", "set environment LD_PRELOAD=" + LIB] + PRINT + ["--args", TYPES])
    assert SUMMARY in proc.stdout, proc.stdout + proc.stderr


def test_auto_load_respects_safe_path():
    proc = plain_gdb(["-ex", "set environment LD_PRELOAD=" + LIB] + PRINT + ["--args", TYPES])
    assert "auto-loading has been declined" in proc.stderr
    assert SUMMARY not in proc.stdout


def test_make_install_auto_loads(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["make", "-s", "-C", REPO, "install", "MPI=%s" % gdbrun.MPI, "PREFIX=%s" % prefix],
                   check=True, capture_output=True)
    lib = prefix / "lib" / "libmpireg.so"
    for path in ("lib/libmpireg.so-gdb.py", "lib/libmpireg.a", "lib/pkgconfig/mpireg.pc",
                 "include/mpireg.h", "bin/mpipp-gdb", "bin/mpipp-job", "bin/mpipp",
                 "share/man/man1/mpipp-gdb.1", "share/man/man1/mpipp-job.1",
                 "share/man/man1/mpipp.1", "share/man/man7/mpipp.7"):
        assert (prefix / path).exists(), path
    proc = plain_gdb(["-iex", "add-auto-load-safe-path %s" % lib.parent,
                      "-ex", "set environment LD_PRELOAD=%s" % lib] + PRINT + ["--args", TYPES])
    assert SUMMARY in proc.stdout, proc.stdout + proc.stderr
    installed = subprocess.run([str(prefix / "bin" / "mpipp-gdb"), "-nx", "-batch"] + PRINT
                               + ["--args", TYPES], capture_output=True, text=True, timeout=120)
    assert SUMMARY in installed.stdout, installed.stdout + installed.stderr
    records = subprocess.run([str(prefix / "bin" / "mpipp"), "races", str(tmp_path)],
                             capture_output=True, text=True, timeout=120)
    assert records.returncode == 1 and "holds no record" in records.stderr, records.stderr


def test_without_libmpireg_one_notice_then_raw_values():
    proc = plain_gdb(["-ex", "source " + os.path.join(REPO, "gdb-python", "mpipp.py"),
                      "-ex", "break stop_here", "-ex", "run", "-ex", "frame function main",
                      "-ex", "print vector_type", "-ex", "print struct_type",
                      "-ex", "print predefined", "-ex", "info locals",
                      "-ex", "mpipp vector_type cases[1].buf", "--args", TYPES])
    assert proc.stderr.count("MPI datatypes print as raw handles") == 2, proc.stderr
    # MPICH: integers; Open MPI: pointers (predefined ones: to a named object)
    handle = r"(-?\d+|\(MPI_Datatype\) 0x[0-9a-f]+( <\w+>)?)"
    assert re.search(r"\$1 = {0}\n\$2 = {0}\n\$3 = {0}\n".format(handle), proc.stdout), proc.stdout
    assert "mpipp: libmpireg is not loaded" in proc.stderr.splitlines()[-1]
    assert "Python Exception" not in proc.stderr


def test_core_file_gives_the_same_output(tmp_path):
    core = tmp_path / "types.core"
    commands = ["print vector_type", "print all_types[12]", "mpipp struct_type cases[11].buf 2",
                "mpipp typemap all_types[13]", "mpipp list"]
    live = gdbrun.run(["-ex", "break stop_here", "-ex", "run", "-ex", "frame function main"]
                      + sum((["-ex", c] for c in commands), [])
                      + ["-ex", "gcore %s" % core, "--args", TYPES])
    assert core.exists(), live.stderr
    dead = gdbrun.run(["-ex", "frame function main"] + sum((["-ex", c] for c in commands), [])
                      + [TYPES, str(core)])
    live_out = live.stdout[live.stdout.index("$1 = "):]
    dead_out = dead.stdout[dead.stdout.index("$1 = "):]
    assert SUMMARY in dead_out
    assert dead_out.strip() == live_out[:len(dead_out.strip())].strip()


def test_stripped_libmpireg_gives_identical_output(tmp_path):
    stripped = tmp_path / "libmpireg.so"
    shutil.copy(LIB, stripped)
    subprocess.run(["strip", "--strip-debug", str(stripped)], check=True)
    assert "debug_info" not in subprocess.run(["objdump", "-h", str(stripped)],
                                              capture_output=True, text=True).stdout
    commands = PRINT + ["-ex", "mpipp info all_types[12]", "-ex", "mpipp list"]
    normal = gdbrun.run(commands + ["--args", TYPES])
    bare = gdbrun.run(commands + ["--args", TYPES], env={"MPIPP_LIB": str(stripped)})
    assert SUMMARY in bare.stdout
    # Open MPI's handles are heap addresses, which move with the environment
    # (the preloaded library's path): compare the text around them
    pick = lambda out: re.sub(r"0x[0-9a-f]+", "0x…", out[out.index("$1 = "):])  # noqa: E731
    assert pick(bare.stdout) == pick(normal.stdout)


def test_attach_to_a_running_process():
    env = dict(os.environ, LD_PRELOAD=LIB)
    proc = subprocess.Popen([gdbrun.program("sleeper")], stdout=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        out = gdbrun.run(["-p", str(proc.pid), "-ex", "frame function main",
                          "-ex", "print halo_t", "-ex", "mpipp halo_t halo",
                          "-ex", "set var release = 1", "-ex", "detach"])
        assert 'vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "halo_t"' in out.stdout
        assert "[0][1][1] = 7.5" in out.stdout, out.stdout
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()


def test_under_mpiexec_every_rank_prints():
    outs = gdbrun.capture("types", ["frame function main", "print vector_type",
                                    "print world_rank"],
                          launcher=gdbrun.mpiexec(2), ranks=2, timeout=180)
    assert [out["print vector_type"].count(SUMMARY) for out in outs] == [1, 1]
    assert [out["print world_rank"].split("= ")[1].strip() for out in outs] == ["0", "1"]


def test_mpipp_gdb_preloads_the_library_of_the_programs_mpi(tmp_path):
    """scripts/mpipp-gdb picks the libmpireg built for the MPI the program
    links (its ELF NEEDED entries), whatever MPIPP_MPI says, for --args, a
    program and core, and -p PID; without a program, MPIPP_MPI's."""
    source = tmp_path / "hello.c"
    source.write_text("#include <mpi.h>\nint main(int c, char **v)"
                      "{ MPI_Init(&c, &v); return MPI_Finalize(); }\n")
    env = dict(os.environ, GDB="echo")
    for mpi in ("mpich", "openmpi"):
        exe = tmp_path / ("hello_" + mpi)
        subprocess.run(["mpicc." + mpi, "-o", str(exe), str(source)], check=True)
        lib = os.path.join(REPO, "build", mpi, "libmpireg.so")
        for args in (["-batch", "--args", str(exe), "x"], ["-ex", "run", str(exe), "core"]):
            proc = subprocess.run([gdbrun.MPIPP_GDB] + args, capture_output=True, text=True,
                                  env=env, timeout=60)
            chosen = proc.stdout if proc.returncode == 0 else proc.stderr
            assert lib in chosen, (mpi, args, proc.stdout, proc.stderr)
    sleeper = subprocess.Popen([gdbrun.program("sleeper")], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, LD_PRELOAD=LIB))
    try:
        assert sleeper.stdout.readline().strip() == "ready"
        proc = subprocess.run([gdbrun.MPIPP_GDB, "-p", str(sleeper.pid)], capture_output=True,
                              text=True, env=env, timeout=60)
        assert "LD_PRELOAD=%s " % LIB in proc.stdout, proc.stdout
    finally:
        sleeper.kill()
        sleeper.wait()
    proc = subprocess.run([gdbrun.MPIPP_GDB, "-batch"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert "LD_PRELOAD=%s " % LIB in proc.stdout, proc.stdout


def test_importing_mpipp_does_nothing():
    """Every module of the package imported into gdb, mpipp not registered:
    no gdb command run or defined, no event connected, no printer, no file
    opened, the recursion limit untouched (register() does it all)."""
    proc = plain_gdb(["-ex", "python MPIPP_PYDIR = %r" % os.path.join(REPO, "gdb-python"),
                      "-ex", gdbrun.source_python(os.path.join(gdbrun.TESTS, "integration",
                                                               "import_driver.py"))])
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"imported \d{3} modules", lines[-1]), proc.stdout + proc.stderr
    assert not [line for line in lines if line.startswith("did ")], proc.stdout
