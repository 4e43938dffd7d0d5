"""Ranks that died: a rank killed, one that exited with a failing code, one
stopped by a fault (SIGSEGV, SIGABRT...) or gone with its gdbserver (its
launcher ended the job).  -batch exits with the first one's status and
says, in one line, which ranks died and how; a console waiting for ranks
to stop stops the others when one dies, as MPI would end them."""

from ...text.ranks import format_ranks
from ..link.session import death


def deaths(sessions):
    """[(rank, status or None, how)] of the sessions whose rank died, by rank."""
    out = []
    for s in sorted(sessions, key=lambda s: s.rank):
        if s.state in ("exited", "stopped"):
            died = death(s.stop)
            if died is not None:
                out.append((s.rank,) + died)
    return out


def line(died):
    """'rank 1 died: killed by SIGKILL', or for several ways:
    'ranks died: 1 stopped by SIGSEGV (Segmentation fault) in main; 0,2 gone ...'"""
    ways = {}
    for rank, _status, how in died:
        ways.setdefault(how, []).append(rank)
    if len(ways) == 1:
        (how, ranks), = ways.items()
        return "rank%s %s died: %s" % ("s" if len(ranks) > 1 else "", format_ranks(ranks), how)
    return "ranks died: " + "; ".join("%s %s" % (format_ranks(r), how) for how, r in
                                      sorted(ways.items(), key=lambda kv: kv[1][0]))


def batch_status(console):
    """The status -batch exits with when ranks died (0 when none did),
    after writing the line saying which and how.  A death with no status
    of its own takes the launcher's, else 1."""
    died = deaths(console.job.sessions.values())
    if not died:
        return 0
    console.write("mpipp-job: " + line(died))
    known = [status for _rank, status, _how in died if status]
    if known:
        return known[0]
    launcher = console.job.mpiexec
    code = launcher.poll() if launcher is not None else None
    return code if code and code > 0 else 1
