"""The console's commands that steer the session: which ranks commands go
to, the ranks' states, gdbs reconnected, running ranks stopped or waited
for, and a few of the console's own (time, shell, echo, merge, quit)."""

import codecs
import subprocess
import time

from ...text.ranks import header, parse_ranks
from ...text.tables import format_table
from ..analysis.stacks import describe_stop
from . import launch as ways_in


def cmd_focus(console, arg):
    """focus [RANKS]: show or set the ranks commands go to (0-3, 0,2,5-7, all)."""
    if arg:
        console.focus = parse_ranks(arg, console.job.ranks)
    console.write("focus %s" % header(console.focus))


def cmd_on(console, arg):
    """on RANKS COMMAND: run one command on RANKS only."""
    ranks, _, rest = arg.partition(" ")
    if not rest.strip():
        raise ValueError("usage: on RANKS COMMAND")
    console.execute(rest, focus=parse_ranks(ranks, console.job.ranks))


def cmd_ranks(console, arg):
    """ranks: every rank's host, process, gdb (its pid and target) and state."""
    rows = [("rank", "host", "pid", "gdb", "target", "state")]
    for rank in console.job.ranks:
        s = console.job.sessions[rank]
        info = console.job.info.get(rank, {})
        if s.state == "stopped" and s.stop:
            state = describe_stop(s.stop)
        else:
            state = s.why or s.state
        rows.append((str(rank), str(info.get("host") or "-"), str(info.get("pid") or "-"),
                     str(s.proc.pid), s.label, state))
    console.write("\n".join(format_table(rows)))


def cmd_reconnect(console, arg):
    """reconnect [RANKS]: a new gdb for ranks whose gdb died (all such ranks
    by default), connected as the first was; breakpoints are not carried over."""
    job = console.job
    ranks = parse_ranks(arg, job.ranks) if arg else \
        [r for r, s in sorted(job.sessions.items()) if s.state == "dead"]
    if not ranks:
        console.write("no gdb died")
        return
    failed = ways_in.reconnect(job, ranks)
    job.reactor.take_events()
    for rank, error in sorted(failed.items()):
        console.write("%s cannot reconnect: %s" % (header([rank]), error))
    done = [r for r in ranks if r not in failed]
    if done:
        console.write("%s reconnected" % header(done))


def cmd_interrupt(console, arg):
    """interrupt: stop every running rank in focus (like ctrl-C): SIGINT to
    each rank's process alone (from the back-end of its node, its launcher,
    or the console on its host), never to its process group as gdb's own
    interrupt would: the program's child processes live on."""
    console.interrupt(console.sessions(console.focus, running_ok=True))


def cmd_wait(console, arg):
    """wait [SECONDS]: wait until every rank in focus has stopped (or SECONDS pass)."""
    console.wait_stopped(console.sessions(console.focus, running_ok=True),
                         float(arg) if arg else None)


def cmd_time(console, arg):
    """time COMMAND: run COMMAND, then print how long it took (wall clock)."""
    if not arg:
        raise ValueError("usage: time COMMAND")
    start = time.perf_counter()
    console.execute(arg)
    console.write("time: %.6f s" % (time.perf_counter() - start))


def cmd_shell(console, arg):
    """shell COMMAND (or ! COMMAND): run a shell command here."""
    console.out.flush()
    subprocess.run(arg, shell=True, stdout=console.out, stderr=subprocess.STDOUT)


def cmd_echo(console, arg):
    """echo TEXT: print TEXT (C escapes such as \\n understood)."""
    console.out.write(codecs.escape_decode(arg.encode())[0].decode("utf-8", "replace"))
    console.out.flush()


def cmd_merge(console, arg):
    """merge numbers|groups: outputs that differ in a few numbers shown as one
    line with the values per rank group (numbers, the default), or each rank
    group apart (groups)."""
    if arg not in ("numbers", "groups"):
        raise ValueError("usage: merge numbers|groups")
    console.numbers = arg == "numbers"


def cmd_detach(console, arg):
    """detach: leave an attached job running as it was (ranks that ran run
    on, those stopped when mpipp-job attached continue; nothing of mpipp-job
    stays attached) and end the session; a later --attach-job finds it again."""
    if console.job.mode != "attach":
        raise ValueError("detach: mpipp-job %s this job: its ranks end with the session "
                         "(quit)" % ("started" if console.job.mode == "launch" else
                                     "reads core files of"))
    console.done = True


def cmd_quit(console, arg):
    """quit: end the session: launched ranks are killed, attached ranks
    detached, every gdb and gdbserver ends."""
    console.done = True
