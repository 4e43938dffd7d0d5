"""mpipp-job's command line (gdb-free).  Parsed by hand: after `-n N`
everything up to the program belongs to the launcher (mpiexec or srun),
whatever its options."""

import os

from ...text.program_mpi import MPIS, choose, process_mpi, program_mpi, which
from ...text.ranks import RankError, parse_ranks
from ..link.tree import DEFAULT_FANOUT

USAGE = """\
    mpipp-job [OPTIONS] -n N [MPIEXEC OR SRUN OPTIONS] [--] PROGRAM [ARGS]
    mpipp-job [OPTIONS] --attach-job JOBID[.STEP] | [pid:]PID
    mpipp-job [OPTIONS] --attach PID[,PID...]
    mpipp-job [OPTIONS] --core PROGRAM CORE..."""

SEPARATE_DEBUG = ("auto", "on", "off")
# Above this many ranks, auto reads no separate debug files: with libc6-dbg
# installed they are a third of each rank's memory on its host (25 of 75
# MiB of a gdb), what decides whether a large job fits (docs/multihost.md).
LEAN_ABOVE_RANKS = 64

OPTIONS_HELP = """Options (before the way in):
  -batch            run the -ex/-x commands, then quit
  -ex CMD           run CMD (repeatable, in order)
  -x FILE           run the commands of FILE
  -nx               do not read ~/.gdbinit in the gdbs
  --mpi NAME        mpich or openmpi (default: the program's, from the
                    libraries it loads -- for python3, mpi4py's; else the
                    launcher's, $MPIPP_MPI, or mpiexec's on PATH); naming
                    the other MPI than the program's is an error
  --launcher WHICH  srun or mpiexec: what starts the ranks (default: srun
                    inside a Slurm allocation, where $SLURM_JOB_ID is set,
                    with the PMI the MPI needs: --mpi=pmi2 for MPICH,
                    --mpi=pmix for Open MPI; else mpiexec)
  --mpiexec PATH    mpiexec (default $MPIPP_MPIEXEC, else mpiexec.NAME)
  --host NAME       the one address ranks report to (default: the first of
                    this host's names and addresses that answers)
  --report-port N   the port ranks report to (default: any free port)
  --ports LOW-HIGH  ports the back-ends and gdbservers on the ranks' hosts
                    may listen on (default: any)
  --gdbserver PATH  gdbserver on the ranks' hosts (default: gdbserver)
  --sysroot DIR     where gdb reads the ranks' libraries ('target:' reads
                    them through gdbserver; default: local files for ranks
                    on this host, through gdbserver for the others)
  --timeout S       seconds to wait for every rank to report (default 60)
  --debuggers WHERE near: each rank's gdb on the rank's host, started beside
                    it, answers merged on the way (per host, then across
                    hosts); here: every gdb on this host, connected to a
                    gdbserver beside the rank; auto (default): near when
                    some rank runs on another host
  --fanout N        back-ends below each one in the tree of near debuggers
                    (default 8)
  --separate-debug WHEN
                    whether the gdbs read libraries' separate debug files
                    (gdb's debug-file-directory, e.g. libc6-dbg's): on,
                    off (frames in those libraries keep their function
                    names, lose source lines and arguments; each gdb takes
                    less memory), auto (default): off above %d ranks
  --ranks LIST      with --attach-job: attach only these ranks (e.g. 0,5-7);
                    the others run on untouched
  --until-hang[=S]  run the job (after the -ex/-x commands) and watch it: when
                    no rank completed an MPI call for S seconds (default 30),
                    stop it, print waits and check, and exit with status 124;
                    a job that ends exits with its status (implies -batch)
  --record DIR      the ranks record MPI's choices into DIR (MPIPP_RECORD)
  --replay DIR      the ranks replay the record in DIR (MPIPP_REPLAY;
                    docs/replay.md)""" % LEAN_ABOVE_RANKS

DEBUGGERS = ("auto", "near", "here")
LAUNCHERS = ("srun", "mpiexec")
HANG_SECONDS = 30.0
MAX_FANOUT = 4096
MAX_PORT = 65535
MAX_TIMEOUT = 10 ** 6


class UsageError(Exception):
    """A bad command line (the message, or None for --help)."""


class Options:
    def __init__(self):
        self.batch, self.nx, self.commands = False, False, []
        self.mpi = None          # --mpi; then the MPI in use (choose_mpi)
        self.asked_mpi = None    # --mpi as given
        self.mpiexec = self.host = self.ports = self.sysroot = None
        self.launcher = None       # srun or mpiexec (None: by the environment)
        self.report_port, self.gdbserver, self.timeout = 0, "gdbserver", 60.0
        self.mode, self.n, self.mpiexec_args, self.program, self.args = None, 0, [], None, []
        self.pids, self.cores = [], []
        self.attach_job = None     # JOBID[.STEP] (Slurm) or PID, as given
        self.ranks = None          # --ranks LIST
        self.debuggers, self.fanout = "auto", DEFAULT_FANOUT
        self.separate_debug = "auto"
        self.until_hang = None     # seconds
        self.record = self.replay = None


def _read_script(path):
    try:
        with open(path) as f:
            return [line.rstrip("\n") for line in f]
    except OSError as err:
        raise UsageError("cannot read %s: %s" % (path, err.strerror)) from None


def _number(kind, low, high):
    """A converter to kind that accepts low <= value <= high (NaN never)."""
    def convert(value):
        try:
            number = kind(value)
        except ValueError:
            raise UsageError("%r is not a number" % value) from None
        if not low <= number <= high:
            raise UsageError("%r is out of range (%d to %d)" % (value, low, high))
        return number
    return convert


_port = _number(int, 0, MAX_PORT)


def _port_range(value):
    """LOW-HIGH (or one port): checked here, as the ranks' launchers will read it."""
    low, dash, high = value.partition("-")
    first, last = _port(low), _port(high) if dash else _port(low)
    if not 0 < first <= last:
        raise UsageError("--ports %r: write LOW-HIGH, 0 < LOW <= HIGH" % value)
    return value


def _debuggers(value):
    if value not in DEBUGGERS:
        raise UsageError("--debuggers must be one of %s" % ", ".join(DEBUGGERS))
    return value


def _launcher(value):
    if value not in LAUNCHERS:
        raise UsageError("--launcher must be one of %s" % ", ".join(LAUNCHERS))
    return value


def _separate_debug(value):
    if value not in SEPARATE_DEBUG:
        raise UsageError("--separate-debug must be one of %s" % ", ".join(SEPARATE_DEBUG))
    return value


def _rank_list(value):
    if value in ("all", "*"):
        return None
    try:
        parse_ranks(value)
    except RankError as err:
        raise UsageError("--ranks %s: %s" % (value, err)) from None
    return value


def _job(value):
    """JOBID[.STEP] (a Slurm job), PID or pid:PID (a process, never a job)."""
    pid = value[4:] if value.startswith("pid:") else None
    head, dot, step = (pid, "", "") if pid is not None else value.partition(".")
    if not head.isdigit() or int(head) <= 0 or dot and not step.isdigit():
        raise UsageError("--attach-job takes JOBID[.STEP] (a Slurm job) or the PID (or pid:PID) "
                         "of the job's launcher (srun, mpirun, mpiexec) or an ancestor, got %r"
                         % value)
    return value


def _pids(value):
    try:
        pids = [int(p) for p in value.split(",")]
    except ValueError:
        pids = []
    if not pids or min(pids) <= 0:
        raise UsageError("expected PID[,PID...], got %r" % value)
    return pids


# option -> (attribute, how the value is turned into it, True: appended)
VALUED = {
    "-ex": ("commands", lambda v: [v], True),
    "-x": ("commands", _read_script, True),
    "--mpi": ("mpi", str, False),
    "--launcher": ("launcher", _launcher, False),
    "--mpiexec": ("mpiexec", str, False),
    "--host": ("host", str, False),
    "--report-port": ("report_port", _port, False),
    "--ports": ("ports", _port_range, False),
    "--gdbserver": ("gdbserver", str, False),
    "--sysroot": ("sysroot", str, False),
    "--timeout": ("timeout", _number(float, 0, MAX_TIMEOUT), False),
    "--debuggers": ("debuggers", _debuggers, False),
    "--fanout": ("fanout", _number(int, 1, MAX_FANOUT), False),
    "--separate-debug": ("separate_debug", _separate_debug, False),
    "--ranks": ("ranks", _rank_list, False),
    "--record": ("record", os.path.abspath, False),
    "--replay": ("replay", os.path.abspath, False),
}
FLAGS = {"-batch": "batch", "--batch": "batch", "-nx": "nx", "--nx": "nx"}


def parse_args(argv):
    o = Options()
    k = 0
    while k < len(argv):
        word = argv[k]
        if word in ("-h", "-help", "--help"):
            raise UsageError(None)
        if word in FLAGS:
            setattr(o, FLAGS[word], True)
        elif word == "--until-hang" or word.startswith("--until-hang="):
            value = word.partition("=")[2]
            o.until_hang = _number(float, 0, MAX_TIMEOUT)(value) if value else HANG_SECONDS
            if not o.until_hang:
                raise UsageError("--until-hang=%s: give a positive number of seconds" % value)
            o.batch = True
        elif word in VALUED or word in ("--attach-job", "--attach"):
            if k + 1 >= len(argv):
                raise UsageError("%s needs a value" % word)
            k += 1
            if word in VALUED:
                name, convert, append = VALUED[word]
                value = convert(argv[k])
                setattr(o, name, getattr(o, name) + value if append else value)
            elif word == "--attach-job":
                o.mode, o.attach_job = "attach-job", _job(argv[k])
            else:
                o.mode, o.pids = "attach", _pids(argv[k])
        elif word in ("-n", "-np"):
            if k + 1 >= len(argv) or not argv[k + 1].isdigit() or int(argv[k + 1]) < 1:
                raise UsageError("%s needs a number of ranks" % word)
            o.mode, o.n = "launch", int(argv[k + 1])
            _split_launch(o, argv[k + 2:])
            break
        elif word == "--core":
            if len(argv) - k < 3:
                raise UsageError("--core needs PROGRAM CORE...")
            o.mode, o.program, o.cores = "core", argv[k + 1], argv[k + 2:]
            break
        else:
            raise UsageError("unknown option %s" % word)
        k += 1
    if o.mode is None:
        raise UsageError("say how to reach the job: -n N PROGRAM, --attach-job PID, "
                         "--attach PIDS or --core PROGRAM CORES")
    if o.ranks is not None and o.mode != "attach-job":
        raise UsageError("--ranks goes with --attach-job")
    if o.mpi is not None and o.mpi not in MPIS:
        raise UsageError("--mpi must be one of %s" % ", ".join(MPIS))
    o.asked_mpi = o.mpi
    o.mpi = choose_mpi(o)
    if o.mpiexec is None:    # $MPIPP_MPIEXEC is the launcher of $MPIPP_MPI
        same = o.mpi == os.environ.get("MPIPP_MPI", "mpich")
        o.mpiexec = same and os.environ.get("MPIPP_MPIEXEC") or "mpiexec." + o.mpi
    if o.launcher is None:   # inside a Slurm allocation (salloc, sbatch): its srun
        o.launcher = "srun" if os.environ.get("SLURM_JOB_ID") else "mpiexec"
    return o


def reads_separate_debug(setting, ranks):
    """Whether the gdbs of a job of `ranks` ranks read separate debug files."""
    return setting == "on" or (setting == "auto" and ranks <= LEAN_ABOVE_RANKS)


def choose_mpi(o, attached=()):
    """The MPI of the job: --mpi (o.asked_mpi), checked against what the
    program, or the processes attached to, use -- a MpiMismatch when they
    differ --, else what they use, else the launcher's (program_mpi.choose).
    --attach-job's ranks are known only once found (main.open_job chooses
    again with them): while parsing, nothing is read for it."""
    if o.mode in ("launch", "core"):
        found = program_mpi(o.program)
    else:
        found = next(filter(None, map(process_mpi, o.pids or attached)), None)
    fallback = os.environ.get("MPIPP_MPI")
    return choose(o.asked_mpi, found, o.mpiexec, fallback if fallback in MPIS else None)


def _split_launch(o, rest):
    """[mpiexec options] [--] PROGRAM [ARGS]: the program is what follows
    '--', else the first word that is an executable file."""
    if "--" in rest:
        cut = rest.index("--")
        o.mpiexec_args, tail = rest[:cut], rest[cut + 1:]
    else:
        cut = next((k for k, w in enumerate(rest) if not w.startswith("-") and which(w)), None)
        if cut is None:
            raise UsageError("no program to run (give its path, or put -- before it)")
        o.mpiexec_args, tail = rest[:cut], rest[cut:]
    if not tail:
        raise UsageError("no program to run")
    o.program = which(tail[0]) or tail[0]
    o.args = tail[1:]


def default_lib(mpi):
    """libmpireg of the MPI in use: $MPIPP_LIB, else make's build of it
    ($MPIPP_BUILD), else where scripts/mpipp-job says libmpireg is for each
    MPI ($MPIPP_LIB_PATTERN, %s the MPI: the checkout or the install)."""
    if os.environ.get("MPIPP_LIB"):
        return os.environ["MPIPP_LIB"]
    build = os.environ.get("MPIPP_BUILD")
    if build and os.environ.get("MPIPP_MPI", "mpich") == mpi:
        return os.path.join(build, "libmpireg.so")
    pattern = os.environ.get("MPIPP_LIB_PATTERN", "")
    return pattern.replace("%s", mpi)
