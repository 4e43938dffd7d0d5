"""The Debian packages once installed (.ci/packages builds, installs and
removes them): plain `gdb ./app` loads mpipp for a program linked with
libmpireg, mpipp-gdb and mpipp-job from /usr/bin preload the installed
library, the man pages are where man looks, and the demo runs on the
installed tools.  Nothing here comes from the checkout but test programs."""

import os
import re
import subprocess
import sysconfig

import pytest

import gdbrun

# Only .ci/packages, which installs the packages and points the tests at
# /usr/bin's tools, runs these: packages left installed on a developer's
# machine must not make `make check` test them against builds it has not made.
if (not os.path.exists("/usr/share/mpipp/python/mpipp.py")
        or os.environ.get("MPIPP_GDB_SCRIPT") != "/usr/bin/mpipp-gdb"):
    pytest.skip("the Debian packages are tested by .ci/packages, which installs them",
                allow_module_level=True)

MPIS = ["mpich", "openmpi"]
PYDIR = "/usr/share/mpipp/python"
LIBDIR = "/usr/lib/" + sysconfig.get_config_var("MULTIARCH")
SUMMARY = 'vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "vector_t"'
WHERE = ["-ex", "python import mpipp; print('module', mpipp.__file__)",
         "-ex", "info sharedlibrary libmpireg"]
PRINT = ["-ex", "break stop_here", "-ex", "run", "-ex", "frame function main",
         "-ex", "print vector_type"] + WHERE


def clean_env(mpi):
    """No path into the checkout: the installed tools find everything."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MPIPP_") and k not in ("LD_PRELOAD", "PYTHONPATH")}
    return dict(env, MPIPP_MPI=mpi, OMPI_MCA_rmaps_base_oversubscribe="1")


def run(cmd, env, timeout=300):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "Python Exception" not in out, out
    return proc, out


def assert_installed_mpipp(out, mpi):
    assert "module %s/mpipp/__init__.py" % PYDIR in out, out
    # ld.so may find it through /lib, a link to /usr/lib
    assert re.search(r"\s(/usr)?%s/libmpireg_%s\.so\.0\n" % (LIBDIR[4:], mpi), out), out
    assert SUMMARY in out, out


@pytest.mark.parametrize("mpi", MPIS)
def test_gdb_loads_mpipp_for_a_program_linked_with_libmpireg(mpi, tmp_path):
    """pkg-config mpireg-MPI links the program; gdb, with no option, no
    ~/.gdbinit and no safe-path step, auto-loads mpipp."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "mpireg-" + mpi],
                           capture_output=True, text=True, check=True).stdout.split()
    assert "-I/usr/include/mpireg/" + mpi in flags and "-lmpireg_" + mpi in flags, flags
    exe = tmp_path / "types"
    source = os.path.join(gdbrun.REPO, "testprogs", "types.c")
    header = tmp_path / "uses_header.c"
    header.write_text("#include <mpireg.h>\nint main(void) { return 0; }\n")
    subprocess.run(["mpicc." + mpi, "-g", "-O0", "-o", str(exe), source, "-lm"] + flags,
                   check=True)
    subprocess.run(["mpicc." + mpi, "-c", "-o", str(tmp_path / "h.o"), str(header)] + flags,
                   check=True)
    assert "libmpireg_%s.so.0" % mpi in subprocess.run(["readelf", "-d", str(exe)],
                                                       capture_output=True, text=True).stdout
    _, out = run(["gdb", "-nx", "-batch"] + PRINT + [str(exe)], clean_env(mpi))
    assert_installed_mpipp(out, mpi)
    assert "auto-loading has been declined" not in out


@pytest.mark.parametrize("mpi", MPIS)
def test_mpipp_gdb_preloads_the_installed_library(mpi):
    exe = os.path.join(gdbrun.REPO, "build", mpi, "testprogs", "types")
    _, out = run(["/usr/bin/mpipp-gdb", "-nx", "-batch"] + PRINT + ["--args", exe],
                 clean_env(mpi))
    assert_installed_mpipp(out, mpi)


@pytest.mark.parametrize("mpi", MPIS)
def test_mpi_call_inside_an_mpi_call(mpi):
    """$mpi_call takes its type from the installed library's debug
    information (the package keeps it: debian/rules)."""
    exe = os.path.join(gdbrun.REPO, "build", mpi, "testprogs", "demo")
    _, out = run(["/usr/bin/mpipp-gdb", "-nx", "-batch", "-ex", "break stop_here", "-ex", "run",
                  "-ex", "break PMPI_Sendrecv", "-ex", "continue",
                  "-ex", "print $mpi_call.sendtype", "-ex", "print $mpi_call.sendcount"] + WHERE
                 + ["--args", exe], clean_env(mpi))
    assert "module %s/mpipp/__init__.py" % PYDIR in out, out
    assert re.search(r"\s(/usr)?%s/libmpireg_%s\.so\.0\n" % (LIBDIR[4:], mpi), out), out
    assert "needs libmpireg's debug information" not in out, out
    assert re.search(r'^\$1 = vector\(count=4, blocklength=1, stride=6\) of MPI_DOUBLE '
                     r'"column_t"', out, re.M), out
    assert re.search(r"^\$2 = 1$", out, re.M), out


def test_man_pages():
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")
    for section, page in (("1", "mpipp-gdb"), ("1", "mpipp-job"), ("1", "mpipp"),
                          ("7", "mpipp")):
        path = subprocess.run(["man", "-w", section, page], capture_output=True, text=True,
                              env=env).stdout.strip()
        assert path == "/usr/share/man/man%s/%s.%s.gz" % (section, page, section)
        text = subprocess.run(["man", "-P", "cat", section, page], capture_output=True,
                              text=True, env=env).stdout
        # a NAME line longer than the page is justified: "mpipp  -  read"
        assert re.search(r"^NAME\n\s+%s\s+-\s" % page, text, re.M), text[:300]


def test_mpipp_reads_records(tmp_path):
    """/usr/bin/mpipp finds its Python: a directory without a record is
    refused in one line."""
    proc = subprocess.run(["/usr/bin/mpipp", "races", str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "holds no record" in proc.stderr, proc.stderr


@pytest.mark.parametrize("mpi", MPIS)
def test_demo_on_the_installed_tools(mpi):
    """scripts/demo with /usr/bin/mpipp-gdb and /usr/bin/mpipp-job (the
    test programs are the checkout's build of them)."""
    env = dict(clean_env(mpi), MPIPP_BUILD=os.path.join(gdbrun.REPO, "build", mpi),
               MPIPP_MPIEXEC="mpiexec." + mpi, MPIPP_GDB_SCRIPT="/usr/bin/mpipp-gdb",
               MPIPP_JOB_SCRIPT="/usr/bin/mpipp-job",
               MPIPP_LIB="%s/libmpireg_%s.so.0" % (LIBDIR, mpi))
    proc, out = run([os.path.join(gdbrun.REPO, "scripts", "demo")], env, timeout=900)
    assert proc.returncode == 0, out[-3000:]
    for text in ('vector(count=4, blocklength=1, stride=6) of MPI_DOUBLE "column_t"',
                 "cycle 0 → 1 → 0", "rank 0 [0][1][0] MPI_DOUBLE vs rank 1 [0][0][1] MPI_INT",
                 "rows 4..7: columns 2..3, 6..7, 10..11"):
        assert text in out, (text, out[-3000:])
