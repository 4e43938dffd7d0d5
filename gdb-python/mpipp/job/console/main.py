"""mpipp-job: debug a whole MPI job from one console.

    mpipp-job [OPTIONS] -n N [MPIEXEC OPTIONS] [--] PROGRAM [ARGS]
    mpipp-job [OPTIONS] --attach-job JOBID[.STEP] | [pid:]PID  [--ranks LIST]
    mpipp-job [OPTIONS] --attach PID[,PID...]
    mpipp-job [OPTIONS] --core PROGRAM CORE...

One gdb per rank (mpipp loaded), driven over GDB/MI, all asked at once.
Commands go to the ranks in focus; what they print is merged: identical
output once under [RANKS], outputs that differ in a few numbers as one line
with the values per rank group, -json outputs as one document keyed by rank
group.  Job-wide commands: stacks, calls, waits, check, rma, diff.  `help` lists
them.  Runs outside gdb: imports nothing from gdb.
"""

import os
import shutil
import signal
import sys
import tempfile

from ...model.datatype import RECURSION_LIMIT
from ...record.reader import RecordError, check_replay
from ...text.program_mpi import MpiMismatch
from ...text.ranks import format_ranks, header
from ..link.session import Reactor
from . import attach_job
from . import ends
from . import launch as ways_in
from .commands import COMMANDS
from .console import Console
from .loop import interactive
from .options import (OPTIONS_HELP, USAGE, UsageError, choose_mpi, default_lib, parse_args,
                      reads_separate_debug)

# Where the ranks' gdbs write documents for the console: memory, not a disk
# (creating a file in /tmp costs milliseconds on some machines).
SCRATCH_DIR = "/dev/shm"


def make_scratch():
    """This console's scratch directory, mpipp-job-PID-*; those of consoles
    that died without cleaning up are removed."""
    parent = SCRATCH_DIR if os.access(SCRATCH_DIR, os.W_OK) else tempfile.gettempdir()
    for name in os.listdir(parent):
        owner = name.split("-")[2] if name.startswith("mpipp-job-") else ""
        if owner.isdigit() and not os.path.exists("/proc/%s" % owner):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix="mpipp-job-%d-" % os.getpid(), dir=parent)


def open_job(opts, reactor):
    mpipp_gdb = os.environ.get("MPIPP_GDB_SCRIPT", "mpipp-gdb")
    target = attach_job.find(opts) if opts.mode == "attach-job" else None
    if isinstance(target, dict):     # ranks on this host: the MPI they map
        try:
            opts.mpi = choose_mpi(opts, target.values())
        except MpiMismatch as err:
            raise ways_in.JobError(str(err)) from None
    opts.lib = default_lib(opts.mpi)
    if not os.path.isfile(opts.lib):
        raise ways_in.JobError("libmpireg for %s not found%s (build it with make MPI=%s, install "
                               "libmpireg-%s, or set MPIPP_LIB)"
                               % (opts.mpi, opts.lib and " at " + opts.lib, opts.mpi, opts.mpi))
    slurm = isinstance(target, attach_job.SlurmStep)
    ranks = {"launch": opts.n, "attach-job": len(target.places if slurm else target or ()),
             "attach": len(opts.pids), "core": len(opts.cores)}[opts.mode]
    setup = ways_in.Setup(mpipp_gdb, opts.lib, opts.nx,
                          reads_separate_debug(opts.separate_debug, ranks))
    if opts.mode == "launch":
        if opts.replay:  # a record the ranks cannot replay: one line, before anything starts
            try:
                check_replay(opts.replay, opts.n)
            except RecordError as err:
                raise ways_in.JobError(str(err)) from None
        ways_in.find_gdbserver(opts.gdbserver)
        return ways_in.launch(opts, setup, reactor)
    if slurm:
        return attach_job.attach_step(opts, target, setup, reactor)
    if opts.mode == "attach-job":
        attach_job.check_local(target, opts.lib)
        return ways_in.attach(None, setup, reactor, target)
    if opts.mode == "attach":
        return ways_in.attach(opts.pids, setup, reactor)
    return ways_in.cores(opts.program, opts.cores, setup, reactor)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # the console's own process: the model's walks of the types ranks
    # describe (checks) get the depth they need for the whole session
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        opts = parse_args(argv)
    except UsageError as err:
        if err.args[0]:
            sys.stderr.write("mpipp-job: %s\n" % err.args[0])
        sys.stderr.write("usage:\n%s\n\n%s\n" % (USAGE, OPTIONS_HELP))
        return 2 if err.args[0] else 0
    except MpiMismatch as err:
        sys.stderr.write("mpipp-job: %s\n" % err)
        return 2
    reactor = Reactor()
    job = None
    scratch = make_scratch()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    try:
        job, warnings = open_job(opts, reactor)
        for warning in warnings:
            sys.stderr.write("mpipp-job: %s\n" % warning)
        if not job.sessions:
            sys.stderr.write("mpipp-job: no rank could be reached\n")
            return 1
        console = Console(job, scratch=scratch, commands=COMMANDS)
        reactor.take_events()   # the stops of connecting: the banner says where they are
        console.write("mpipp-job: %d rank%s %s (%s); focus %s" % (
            len(job.ranks), "" if len(job.ranks) == 1 else "s",
            {"launch": "started, stopped before main", "attach": "attached",
             "core": "from core files"}[job.mode], format_ranks(job.ranks),
            header(console.focus)))
        if job.tree is not None:
            console.write("mpipp-job: gdbs next to the ranks on %d host%s; answers merged in a "
                          "tree of fan-out %d, depth %d" % (
                              job.tree["hosts"], "" if job.tree["hosts"] == 1 else "s",
                              job.tree["fanout"], job.tree["depth"]))
        if opts.ranks is not None:
            # waits judges the ranks it sees: a wait on another rank is not
            # known to block, and must not read as a verdict on the job
            console.write("mpipp-job: only ranks %s attached (--ranks): waits and check judge "
                          "what they do, not what the other ranks do" % format_ranks(job.ranks))
        commands = opts.commands + (["until-hang %r" % opts.until_hang]
                                    if opts.until_hang is not None else [])
        for line in commands:
            if console.done:
                break
            console.execute(line)
        if not opts.batch and not console.done:
            interactive(console)
        console.report_events()
        if opts.batch and not console.status:
            console.status = ends.batch_status(console)
        return console.status
    except (ways_in.JobError, OSError) as err:
        sys.stderr.write("mpipp-job: %s\n" % err)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("mpipp-job: interrupted\n")
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)    # ending the job is not interrupted
        try:
            if job is not None:
                try:
                    job.close()
                except BaseException:
                    job.abort()
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
