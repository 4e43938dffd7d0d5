"""How a rank ended, read from gdb's *stopped records (no gdb): which ends
are deaths, the status -batch exits with, and the one line said."""

from mpipp.job.console.ends import deaths, line
from mpipp.job.link.session import VANISHED, death, exit_description


class Ended:
    def __init__(self, rank, state, stop):
        self.rank, self.state, self.stop = rank, state, stop


def test_which_ends_are_deaths():
    assert death({"reason": "exited-signalled", "signal-name": "SIGKILL"}) == \
        (137, "killed by SIGKILL")
    assert death({"reason": "exited", "exit-code": "03"}) == (3, "exited with code 3")
    assert death({"reason": "exited-normally"}) is None
    assert death({"reason": "vanished"}) == (None, VANISHED)
    assert exit_description({"reason": "vanished"}) == VANISHED     # as the tree passes it on
    assert death({"reason": "signal-received", "signal-name": "SIGSEGV",
                  "signal-meaning": "Segmentation fault", "frame": {"func": "main"}}) == \
        (139, "stopped by SIGSEGV (Segmentation fault) in main")
    # the console's own interrupt, a breakpoint, a signal a program may handle
    assert death({"reason": "signal-received", "signal-name": "SIGINT"}) is None
    assert death({"reason": "breakpoint-hit"}) is None
    assert death({"reason": "signal-received", "signal-name": "SIGUSR1"}) is None


def test_the_line_groups_ranks_by_how_they_died():
    sessions = [Ended(2, "exited", {"reason": "exited-signalled", "signal-name": "SIGTERM"}),
                Ended(0, "exited", {"reason": "exited-signalled", "signal-name": "SIGTERM"}),
                Ended(1, "stopped", {"reason": "signal-received", "signal-name": "SIGSEGV",
                                     "signal-meaning": "Segmentation fault"}),
                Ended(3, "running", {"reason": "exited", "exit-code": "01"}),
                Ended(4, "stopped", {"reason": "breakpoint-hit"})]
    died = deaths(sessions)
    assert [d[0] for d in died] == [0, 1, 2]
    assert line(died) == ("ranks died: 0,2 killed by SIGTERM; "
                          "1 stopped by SIGSEGV (Segmentation fault)")
    assert line(died[:1]) == "rank 0 died: killed by SIGTERM"
    assert line([died[0], died[2]]) == "ranks 0,2 died: killed by SIGTERM"
