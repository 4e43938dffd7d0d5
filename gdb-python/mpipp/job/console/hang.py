"""until-hang: the job runs, watched without being stopped (libmpireg's
count of completed MPI calls, read from each rank's memory), until it
hangs, ends or a rank stops by itself."""

import signal
import time

from ...text.ranks import format_ranks, header
from ..analysis import check as checks
from ..analysis import progress
from ..analysis.stacks import interrupted
from ..analysis.waits.report import Graph
from ..link.session import ask, cli, exit_status, wait_answers
from .console import STOP_TIMEOUT
from .options import HANG_SECONDS

# The status of a job found hung (as timeout(1) gives), how many library
# loads to step through until libmpireg is in every rank.
HANG_STATUS = 124
LIBRARY_LOADS = 8
# How often a rank stopped inside libmpireg's bookkeeping is run on and
# stopped again before the hang is judged.
STOP_TRIES = 3


def cmd_until_hang(console, arg):
    """until-hang [SECONDS]: run the job and watch it without stopping it
    (libmpireg's count of completed MPI calls, read from each rank's memory).
    When every live rank has been inside MPI (MPI_Init included) for SECONDS
    (default 30) without completing a call, the job hangs: stop it, print
    `waits` and `check` and what they explain of it, and end the watch
    (mpipp-job then exits with 124), whatever they can prove.  Also ends
    when the job ends (mpipp-job exits with its status) or a rank stops by
    itself (a breakpoint; a signal: mpipp-job exits with 128 + its number)."""
    try:
        seconds = float(arg) if arg else HANG_SECONDS
    except ValueError:
        raise ValueError("usage: until-hang [SECONDS]") from None
    if not 0 < seconds < float("inf"):
        raise ValueError("until-hang: SECONDS must be a positive number")
    job = console.job
    if job.mode == "core":
        raise ValueError("until-hang: core files do not run")
    sessions = console.sessions(job.ranks, running_ok=True, verb="watched")
    console.interrupt(sessions)
    watched = watch_targets(console, [s for s in sessions if s.live])
    if not watched:
        console.write("until-hang: no rank can be watched")
        return
    console.write("until-hang: watching %s (no MPI call completed for %g s: a hang)"
                  % (header(sorted(watched)), seconds))
    watch = progress.HangWatch(seconds)
    interval = min(0.5, max(0.05, seconds / 20))
    resume(console)
    while True:
        time.sleep(interval)
        live = [r for r in watched if job.sessions[r].state == "running"]
        if any(job.sessions[r].state == "stopped" for r in watched) or not live:
            ended(console, watched)
            return
        now = time.monotonic()
        for rank, sample in progress.sample_all({r: watched[r] for r in live}).items():
            watch.update(rank, sample, now)
        if not watch.hung(live, now):
            continue
        console.write("until-hang: %s completed no MPI call for %g s: stopping %s"
                      % (_ranks(live), seconds, "them" if len(live) > 1 else "it"))
        world = stopped_whole(console, live, interval)
        graph = Graph(world)
        report = checks.check(world)
        console.write("\n".join(graph.lines()))
        console.write("\n".join(report.lines()))
        console.write("\n".join(explained(graph, report, live)))
        console.status = HANG_STATUS
        return


def stopped_whole(console, live, interval):
    """The World of the job stopped with every call readable.  A rank
    stopped while libmpireg rewrites its thread slot (a polling loop
    between two MPI_Test calls, a few instructions) has a call nobody can
    read, and waits would take it as able to progress: it runs on a moment
    and is stopped again, at most STOP_TRIES times."""
    job = console.job
    stopping = list(live)
    for _ in range(STOP_TRIES):
        console.interrupt([job.sessions[r] for r in stopping])
        world = console.contexts(job.ranks)
        stopping = [r for r in live if r in world.states and world.states[r].torn]
        if not stopping:
            break
        console.wait(ask([job.sessions[r] for r in stopping], "-exec-continue").values())
        time.sleep(interval)
    return world


def explained(graph, report, hung):
    """What the reports above explain of a hang of the ranks `hung` (every
    one inside MPI, completing nothing), in words: the watch ends whatever
    they prove, and calls the hang only possible when they cannot prove it
    (a long Alltoall or file write completes nothing for a while too)."""
    verdict = graph.verdict
    dead = set(graph.deadlocked)
    if verdict == "deadlock":
        head = "until-hang: the job hangs: %s blocked for good (waits above)" % (
            _ranks_are(dead))
    elif verdict == "would deadlock":
        head = "until-hang: the job hangs: %s deadlocked once every rank continues " \
               "(waits above)" % _ranks_are(dead)
    else:
        head = ("until-hang: possible hang: waits cannot prove a deadlock (a long call may "
                "still complete)")
    out = [head]
    unexplained = sorted(set(hung) - dead)
    if unexplained:
        reasons = []
        if report.errors:
            reasons.append("check found %d error%s above, which MPI may never complete" % (
                len(report.errors), "" if len(report.errors) == 1 else "s"))
        calls = ["rank %d is in %s" % (r, ", ".join(dict.fromkeys(f)))
                 for r, f in sorted(graph.unmodelled.items()) if r in unexplained]
        if calls:
            reasons.append("calls waits does not model: " + "; ".join(calls))
        out.append("  not explained: %s, which waits takes as able to progress%s" % (
            _ranks(unexplained), " (%s)" % "; ".join(reasons) if reasons else
            ": what they wait for is not in libmpireg's records (a message or "
            "collective a rank completed, a call it does not wrap)"))
    return out


def _ranks(ranks):
    """'rank 3', 'ranks 0,1'."""
    ranks = sorted(ranks)
    return ("ranks %s" if len(ranks) > 1 else "rank %s") % format_ranks(ranks)


def _ranks_are(ranks):
    return _ranks(ranks) + (" are" if len(ranks) > 1 else " is")


def resume(console):
    """Every stopped rank runs on, in the background."""
    sessions = [s for s in console.job.sessions.values() if s.state == "stopped"]
    console.wait(ask(sessions, "-exec-continue").values())


def ended(console, watched):
    """The watch ends because ranks stopped by themselves or the job ended:
    say so; the job's status is the first failing rank's (a rank stopped by
    a signal fails as that signal would have killed it)."""
    console.report_events()
    sessions = [console.job.sessions[r] for r in sorted(watched)]
    if all(s.state == "exited" for s in sessions):
        console.status = next((exit_status(s.stop) for s in sessions if exit_status(s.stop)), 0)
        console.write("until-hang: the job ended (status %d)" % console.status)
        return
    stopped = [s for s in sessions if s.state == "stopped"]
    console.status = next((signal_status(s.stop) for s in stopped if signal_status(s.stop)), 0)
    console.write("until-hang: %s stopped: watch again with until-hang" % header(
        [s.rank for s in stopped]))


def signal_status(results):
    """128 + the number of the signal a rank stopped by (not the console's
    SIGINT), as a shell sees a process it killed; else 0."""
    if results.get("reason") != "signal-received" or interrupted(results):
        return 0
    try:
        return 128 + signal.Signals[results.get("signal-name", "")].value
    except KeyError:
        return 128


def watch_targets(console, sessions):
    """{rank: (progress.Layout, reader)} of the ranks whose progress can be
    read while they run: on the rank's host, their launcher (launched ranks,
    gdbs here) or their back-end (gdbs next to the ranks) reads it; or this
    process does (ranks attached on this host).  A rank that has not loaded
    libmpireg yet (stopped before main) is run to its library loads first."""
    job = console.job
    tree = progress.TreeReader(job.fleet) if job.fleet is not None else None
    for _load in range(LIBRARY_LOADS):
        missing = _without_progress(console, sessions)
        if not missing:
            break
        ask(missing, cli("set stop-on-solib-events 1"))
        console.wait(ask(missing, "-exec-continue").values())
        job.reactor.wait(lambda: all(s.state != "running" for s in missing), STOP_TIMEOUT)
        job.reactor.take_events()            # the library loads: not news
        console.wait(ask(missing, cli("set stop-on-solib-events 0")).values())
    world = console.contexts([s.rank for s in sessions])
    out = {}
    for s in sessions:
        state = world.state(s.rank)
        layout = (state.doc.get("progress") if state is not None else None)
        if layout is None:
            console.write("%s not watched: libmpireg's progress counters are not readable"
                          % header([s.rank]))
        elif tree is not None:
            out[s.rank] = (progress.Layout(layout), tree.of(s.rank))
        elif s.rank in job.lifeline_of:
            out[s.rank] = (progress.Layout(layout), progress.LifelineReader(job.lifeline_of[s.rank]))
        elif job.mode == "attach" and job.info.get(s.rank, {}).get("pid"):
            out[s.rank] = (progress.Layout(layout), progress.ProcReader(job.info[s.rank]["pid"]))
    return out


def _without_progress(console, sessions):
    """The sessions whose rank has not loaded libmpireg yet, asked all at
    once (with the gdbs next to the ranks: one question down the tree)."""
    answers = ask(sessions, cli("python import mpipp.views as v; "
                                "print(int(v.context.find() is not None))"))
    wait_answers(console.job.reactor, answers.values(), STOP_TIMEOUT)
    return [s for s in sessions
            if not (answers[s.rank].ok and answers[s.rank].text.strip() == "1")]
