"""Rank sets written the mpiexec way: `0-3`, `0,2,5-7`, `all` (gdb-free)."""

MAX_RANK = 1 << 24


class RankError(ValueError):
    """A malformed rank set (one-line message)."""


def parse_ranks(text, universe=None):
    """The sorted list of ranks `text` names.  `all` (or `*`) needs the
    universe (every rank of the job); ranks outside it are an error."""
    text = (text or "").strip()
    if text in ("all", "*"):
        if universe is None:
            raise RankError("'all' needs a job")
        return sorted(universe)
    ranks = set()
    for part in text.split(","):
        part = part.strip()
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise RankError("bad rank set %r (write 0-3, 0,2,5-7 or all)" % text)
        low, high = int(low), int(high) if dash else int(low)
        if high < low or high > MAX_RANK:
            raise RankError("bad rank range %r" % part)
        ranks.update(range(low, high + 1))
    if universe is not None:
        unknown = sorted(ranks - set(universe))
        if unknown:
            raise RankError("no rank %s in this job (ranks %s)"
                            % (format_ranks(unknown), format_ranks(universe)))
    return sorted(ranks)


def format_ranks(ranks):
    """'0,2,5-7' for [0, 2, 5, 6, 7]; consecutive runs of three or more become ranges."""
    ranks = sorted(set(ranks))
    if len(ranks) >= 3 and ranks[-1] - ranks[0] == len(ranks) - 1:
        return "%d-%d" % (ranks[0], ranks[-1])       # one run (every rank, often)
    parts = []
    k = 0
    while k < len(ranks):
        j = k
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        if j - k >= 2:
            parts.append("%d-%d" % (ranks[k], ranks[j]))
        else:
            parts.extend(str(r) for r in ranks[k:j + 1])
        k = j + 1
    return ",".join(parts)


def header(ranks):
    """'[0,2]', '[1,3-7]': how the console labels a group of ranks."""
    return "[%s]" % format_ranks(ranks)
