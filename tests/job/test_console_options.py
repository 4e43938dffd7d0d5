"""mpipp-job's command line: mpiexec's options pass through untouched."""

import os
import subprocess

import pytest

from mpipp.job.console.launch import descendants, launcher_command
from mpipp.job.console.options import UsageError, choose_mpi, parse_args, reads_separate_debug

TRUE = "/bin/true"


def test_launch_splits_mpiexec_options_from_the_program():
    o = parse_args(["-batch", "-ex", "calls", "-ex", "waits", "-n", "4", "-hosts", "a,b",
                    "-genv", "X", "1", TRUE, "arg", "-v"])
    assert (o.mode, o.n, o.batch, o.commands) == ("launch", 4, True, ["calls", "waits"])
    assert o.mpiexec_args == ["-hosts", "a,b", "-genv", "X", "1"]
    assert (o.program, o.args) == (TRUE, ["arg", "-v"])
    o = parse_args(["-n", "2", "--map-by", "node", "--", "true", "x"])
    assert o.mpiexec_args == ["--map-by", "node"] and o.args == ["x"]
    assert os.path.isabs(o.program) and o.program.endswith("/true")


def test_options_with_values_and_the_other_ways_in(tmp_path):
    script = tmp_path / "cmds"
    script.write_text("stacks\nquit\n")
    o = parse_args(["--mpi", "openmpi", "--timeout", "5", "--report-port", "7000", "-x",
                    str(script), "--attach-job", "42"])
    assert (o.mode, o.attach_job, o.mpi, o.timeout, o.report_port) == ("attach-job", "42",
                                                                 "openmpi", 5.0, 7000)
    assert o.commands == ["stacks", "quit"] and o.mpiexec == "mpiexec.openmpi"
    assert parse_args(["--attach", "3,1,2"]).pids == [3, 1, 2]
    assert parse_args(["--ports", "5000-5009", "--attach", "1"]).ports == "5000-5009"
    assert parse_args(["--ports", "5000", "--attach", "1"]).ports == "5000"
    o = parse_args(["--core", TRUE, "c1", "c2"])
    assert (o.mode, o.program, o.cores) == ("core", TRUE, ["c1", "c2"])


def test_the_launcher_follows_the_mpi(monkeypatch):
    monkeypatch.setenv("MPIPP_MPI", "mpich")
    monkeypatch.setenv("MPIPP_MPIEXEC", "/opt/mpich/bin/mpiexec")
    assert parse_args(["--attach", "1"]).mpiexec == "/opt/mpich/bin/mpiexec"
    assert parse_args(["--mpi", "openmpi", "--attach", "1"]).mpiexec == "mpiexec.openmpi"
    assert parse_args(["--mpiexec", "/x/mpirun", "--attach", "1"]).mpiexec == "/x/mpirun"


@pytest.mark.parametrize("argv, message", [
    ([], "say how to reach the job"),
    (["-n", "x", TRUE], "needs a number of ranks"),
    (["-n", "2", "-hosts", "a"], "no program to run"),
    (["--attach", "1,x"], "expected PID"),
    (["--attach-job", "1,2"], "takes JOBID"),
    (["--attach-job", "12.batch"], "takes JOBID"),
    (["--attach-job", "pid:12.0"], "takes JOBID"),
    (["--attach-job", "pid:"], "takes JOBID"),
    (["--ranks", "1-", "--attach-job", "12"], "--ranks 1-"),
    (["--ranks", "1", "--attach", "12"], "--ranks goes with --attach-job"),
    (["--timeout", "soon", "--attach", "1"], "is not a number"),
    (["--timeout", "nan", "--attach", "1"], "out of range"),
    (["--report-port", "70000", "--attach", "1"], "out of range"),
    (["--ports", "5000:6000", "--attach", "1"], "is not a number"),
    (["--ports", "6000-5000", "--attach", "1"], "write LOW-HIGH"),
    (["--ports", "0", "--attach", "1"], "write LOW-HIGH"),
    (["--mpi", "lam", "--attach", "1"], "--mpi must be one of"),
    (["--launcher", "ssh", "-n", "2", TRUE], "--launcher must be one of srun, mpiexec"),
    (["-x", "/nonexistent/cmds", "--attach", "1"], "cannot read /nonexistent/cmds"),
    (["--frobnicate"], "unknown option"),
    (["-ex"], "needs a value"),
])
def test_bad_command_lines_are_one_line_errors(argv, message):
    with pytest.raises(UsageError, match=message):
        parse_args(argv)


def test_where_the_debuggers_run():
    o = parse_args(["-n", "2", TRUE])
    assert (o.debuggers, o.fanout) == ("auto", 8)
    o = parse_args(["--debuggers", "near", "--fanout", "2", "-n", "2", TRUE])
    assert (o.debuggers, o.fanout) == ("near", 2)
    for bad in (["--debuggers", "far"], ["--fanout", "0"], ["--fanout", "x"]):
        with pytest.raises(UsageError):
            parse_args(bad + ["-n", "2", TRUE])


def test_until_hang_takes_seconds_and_implies_batch():
    o = parse_args(["--until-hang", "-n", "2", TRUE])
    assert (o.until_hang, o.batch) == (30.0, True)
    assert parse_args(["--until-hang=2.5", "-n", "2", TRUE]).until_hang == 2.5
    for bad in ("--until-hang=0", "--until-hang=x", "--until-hang=-1"):
        with pytest.raises(UsageError):
            parse_args([bad, "-n", "2", TRUE])


def test_separate_debug_files_off_above_64_ranks_by_default():
    assert parse_args(["-n", "2", TRUE]).separate_debug == "auto"
    assert parse_args(["--separate-debug", "off", "-n", "2", TRUE]).separate_debug == "off"
    with pytest.raises(UsageError):
        parse_args(["--separate-debug", "lean", "-n", "2", TRUE])
    assert [reads_separate_debug("auto", n) for n in (1, 64, 65)] == [True, True, False]
    assert reads_separate_debug("on", 256) and not reads_separate_debug("off", 2)


def test_srun_launches_inside_a_slurm_allocation(monkeypatch):
    """SLURM_JOB_ID set (salloc, sbatch): srun with the PMI of the MPI,
    unless --launcher says otherwise or the srun options name a PMI."""
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    assert parse_args(["-n", "2", TRUE]).launcher == "mpiexec"
    assert parse_args(["--launcher", "srun", "-n", "2", TRUE]).launcher == "srun"
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    o = parse_args(["--mpi", "mpich", "-n", "4", "-N", "2", TRUE, "x"])
    assert o.launcher == "srun" and o.mpiexec_args == ["-N", "2"]
    command = launched(o)
    assert command[:5] == ["srun", "--mpi=pmi2", "-n", "4", "-N"]
    assert command[-3:] == ["--", TRUE, "x"]
    o = parse_args(["--mpi", "openmpi", "-n", "4", TRUE])
    assert launched(o)[:2] == ["srun", "--mpi=pmix"]
    o = parse_args(["--mpi", "openmpi", "-n", "4", "--mpi=pmix_v4", TRUE])
    assert launched(o)[:4] == ["srun", "-n", "4", "--mpi=pmix_v4"]
    o = parse_args(["--launcher", "mpiexec", "--mpi", "mpich", "-n", "2", TRUE])
    assert launched(o)[:3] == ["mpiexec.mpich", "-n", "2"]


def launched(opts):
    """The launcher's command line for opts (libmpireg as main.py sets it)."""
    opts.lib = "/lib/libmpireg.so"
    return launcher_command(opts, "host:1", "token")


def test_a_number_both_a_slurm_job_and_a_process_is_refused(monkeypatch):
    """--attach-job N: Slurm's job N only when no process N runs here; both:
    one line saying N.STEP for the job, pid:N for the process."""
    from mpipp.job.console import attach_job
    from mpipp.job.console.launch import JobError
    assert parse_args(["--attach-job", "pid:1234"]).attach_job == "pid:1234"
    for running, exists, slurm in [(True, False, True), (False, True, False),
                                   (False, False, False)]:
        monkeypatch.setattr(attach_job, "slurm_job_running", lambda target, r=running: r)
        monkeypatch.setattr(attach_job, "attachable_process", lambda pid, e=exists: e)
        assert attach_job.reads_as_slurm("1234") is slurm
    monkeypatch.setattr(attach_job, "slurm_job_running", lambda target: True)
    monkeypatch.setattr(attach_job, "attachable_process", lambda pid: pid == 1234)
    with pytest.raises(JobError) as err:
        attach_job.reads_as_slurm("1234")
    assert str(err.value) == ("--attach-job 1234: both Slurm job 1234 and process 1234 run here: "
                              "say --attach-job 1234.STEP (e.g. 1234.0) for the job, "
                              "--attach-job pid:1234 for the process")
    assert attach_job.reads_as_slurm("1234.0") is True
    assert attach_job.reads_as_slurm("pid:1234") is False
    monkeypatch.undo()
    assert attach_job.attachable_process(os.getpid())
    assert not attach_job.attachable_process(1)              # init: every job's ancestor
    assert not attach_job.attachable_process(2 ** 22 + 1)    # no such process

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], 60)
    monkeypatch.setattr(attach_job, "exports_mpir", lambda pid: True)
    monkeypatch.setattr(attach_job.subprocess, "run", slow)
    with pytest.raises(JobError, match="cannot read process 1234's MPIR_proctable: gdb: "):
        attach_job.mpir_table(1234)
    monkeypatch.setattr(attach_job.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a[0], 0, "MPIR-TABLE [[\"h\", \n", ""))
    with pytest.raises(JobError, match="gdb printed"):
        attach_job.mpir_table(1234)


def test_slurm_clients_fail_loudly_or_quietly(monkeypatch):
    from mpipp.job.console import launch

    def missing(*args, **kwargs):
        raise FileNotFoundError("no squeue")
    monkeypatch.setattr(launch.subprocess, "run", missing)
    assert launch.slurm(["squeue", "-h"], quiet=True) == ""
    with pytest.raises(launch.JobError, match="cannot run squeue: no squeue"):
        launch.slurm(["squeue", "-h"])


def test_the_back_end_finds_libmpireg_by_its_file_and_says_why_it_found_no_rank(monkeypatch):
    from mpipp.job.node import attach
    line = b"7f00-7f10 r-xp 00000000 08:01 12 /opt/%s\n"
    assert attach._is_libmpireg(line % b"lib/libmpireg.so")
    assert attach._is_libmpireg(line % b"lib/libmpireg-mpich.so.0 (deleted)")
    assert not attach._is_libmpireg(line % b"libmpireg/build/libfoo.so")
    assert not attach._is_libmpireg(line % b"libmpireg-data/x.dat")
    assert not attach._is_libmpireg(b"7f00-7f10 rw-p 00000000 00:00 0\n")

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], 60)
    monkeypatch.setattr(attach.subprocess, "run", slow)
    with pytest.raises(attach.StepError, match="^scontrol listpids 5.0: Command .* timed out"):
        attach.step_processes("5.0")
    monkeypatch.setattr(attach.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a[0], 1, "", "slurm_load_jobs error: Invalid job id\n"))
    with pytest.raises(attach.StepError, match="^scontrol listpids 5.0: slurm_load_jobs error"):
        attach.step_processes("5.0")


@pytest.mark.parametrize("library,mpi", [("libmpi.so.40", "openmpi"), ("libmpich.so.12", "mpich")])
def test_attach_job_reads_the_mpi_its_ranks_map(monkeypatch, library, mpi):
    """--attach-job PID of a launcher: the MPI its descendants map, not
    $MPIPP_MPI nor the mpiexec on PATH (both name the other MPI here)."""
    other = {"openmpi": "mpich", "mpich": "openmpi"}[mpi]
    monkeypatch.setenv("MPIPP_MPI", other)
    rank = ("import ctypes, sys; ctypes.CDLL(%r); print(flush=True); sys.stdin.read()" % library)
    launcher = subprocess.Popen(["/bin/sh", "-c", "/usr/bin/python3 -c \"$0\"", rank],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        launcher.stdout.readline()   # the rank has mapped its MPI
        o = parse_args(["--attach-job", str(launcher.pid)])
        o.mpi = choose_mpi(o, descendants(launcher.pid))   # its ranks, once found
    finally:
        launcher.stdin.close()
        launcher.wait(timeout=30)
    assert o.mpi == mpi
