"""Merged backtraces, STAT-style (gdb-free): every thread's stack of every
rank is a path from its outermost frame (main, or the thread's start
routine) down to where it stopped; paths are merged into trees whose
nodes carry the set of ranks that pass through them.  Frames merge by
function and by the file or library it is in (two unknown functions `??`
in two libraries are two frames); where the ranks of a node stand at
different lines, the line is shown per rank group: `main at
job.c:<[0]: 30 | [1]: 33 | [2,3]: 40>`.  The threads of one rank are never
merged with each other: each thread of a rank joins the tree of the same
outermost frame that shares most of its path and holds no other thread of
that rank, else starts a tree of its own; trees that read the same are
printed once, with how many threads of each rank they stand for.  Long
C++ names are shortened in the text (text/names.py), whole in -json.
A rank's stop is described as its frames are (describe_stop).
"""

from ...text.names import short_function
from ...text.ranks import format_ranks, header


class Node:
    __slots__ = ("function", "ranks", "where", "children")

    def __init__(self, function):
        self.function = function
        self.ranks = set()
        self.where = {}          # "file:line" or "from lib" -> set of ranks
        self.children = {}       # frame_identity -> Node, in insertion order

    def add(self, rank, frames):
        """Add one thread's (function, where) frames, outermost first, the
        first this node's."""
        node = self
        for k, (function, where) in enumerate(frames):
            if k:
                key = frame_identity(function, where)
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = Node(function)
                node = child
            node.ranks.add(rank)
            node.where.setdefault(where, set()).add(rank)

    def shared(self, frames):
        """(how many of frames, outermost first, the first this node's, an
        existing path from this node already holds; how many of those at
        the same line)."""
        node, depth, lines = self, 1, int(frames[0][1] in self.where)
        for function, where in frames[1:]:
            node = node.children.get(frame_identity(function, where))
            if node is None:
                break
            depth += 1
            lines += where in node.where
        return depth, lines


def frame_key(frame):
    """(function, location) of an MI frame tuple."""
    function = frame.get("func") or frame.get("addr", "??")
    if frame.get("file"):
        where = "%s:%s" % (frame["file"], frame.get("line", "?"))
    elif frame.get("from"):
        where = "from " + frame["from"]
    else:
        where = ""
    return function, where


def frame_identity(function, where):
    """What makes two frames one: the function and the file (any line) or
    library it is in."""
    return function, where if where.startswith("from ") else where.rpartition(":")[0]


class Forest:
    """The trees of every thread's stack: tops, the outermost frame of
    each, by the order they came."""

    def __init__(self):
        self.tops = []

    def add(self, rank, frames):
        if not frames:
            return
        first = frame_identity(*frames[0])
        fits = [top.shared(frames) + (-k,) for k, top in enumerate(self.tops)
                if frame_identity(top.function, next(iter(top.where))) == first
                and rank not in top.ranks]
        if fits:
            top = self.tops[-max(fits)[2]]
        else:
            top = Node(frames[0][0])
            self.tops.append(top)
        top.add(rank, frames)


def build(stacks):
    """The trees of {rank: [thread stack, ...]}, each stack a list of MI
    frame tuples innermost first (as -stack-list-frames gives them)."""
    forest = Forest()
    for rank in sorted(stacks):
        for frames in stacks[rank]:
            forest.add(rank, [frame_key(f) for f in reversed(frames)])
    return forest


def where_text(where):
    """' at file:line', ' from lib' or '' of a frame_key location."""
    if not where:
        return ""
    return " " + where if where.startswith("from ") else " at " + where


def _where_text(node):
    if len(node.where) == 1:
        return where_text(next(iter(node.where)))
    files = {w.rsplit(":", 1)[0] for w in node.where if ":" in w and not w.startswith("from ")}
    ordered = sorted(node.where.items(), key=lambda kv: min(kv[1]))
    if len(files) == 1 and all(":" in w for w in node.where):
        return " at %s:<%s>" % (files.pop(), " | ".join(
            "%s: %s" % (header(r), w.rsplit(":", 1)[1]) for w, r in ordered))
    return " <%s>" % " | ".join("%s: %s" % (header(r), w or "?") for w, r in ordered)


def _ordered(children):
    return sorted(children.values(), key=lambda n: min(n.ranks))


def _tree_lines(top):
    lines = []
    stack = [(top, 0)]
    while stack:
        node, depth = stack.pop()
        lines.append("%s%s %s%s" % ("  " * depth, header(node.ranks),
                                    short_function(node.function), _where_text(node)))
        stack.extend((child, depth + 1) for child in reversed(_ordered(node.children)))
    return lines


def _tops(forest):
    """The top nodes of the forest's trees, by lowest rank (then as added)."""
    return sorted(forest.tops, key=lambda n: min(n.ranks))


def render(forest):
    """Lines: `[RANKS] function at file:line`, children indented; a tree
    that several threads of each of its ranks share is printed once, its
    first line saying how many."""
    trees = {}
    for top in _tops(forest):
        lines = tuple(_tree_lines(top))
        trees[lines] = trees.get(lines, 0) + 1
    out = []
    for lines, threads in trees.items():
        first = lines[0] + ("  (%d threads on each rank)" % threads if threads > 1 else "")
        out.append(first)
        out.extend(lines[1:])
    return out


def to_json(forest):
    """[tree, ...]: a tree per thread of each rank (as render, never merged)."""
    def node_json(node):
        return {"function": node.function, "ranks": format_ranks(node.ranks),
                "where": {w: format_ranks(r) for w, r in node.where.items()},
                "children": [node_json(c) for c in _ordered(node.children)]}
    return [node_json(top) for top in _tops(forest)]


# -- stops ------------------------------------------------------------------

def interrupted(results):
    """Was the rank stopped by SIGINT (the console's interrupt, or ctrl-C)?
    results: a *stopped record's."""
    return results.get("reason") == "signal-received" and results.get("signal-name") == "SIGINT"


def describe_stop(results):
    """'interrupted in poll from libc.so.6', 'stopped (breakpoint-hit) in f at x.c:3'."""
    function, location = frame_key(results.get("frame") or {})
    where = short_function(function) + where_text(location)
    if interrupted(results):
        return "interrupted in " + where
    reason = results.get("reason")
    if reason == "signal-received":
        reason = "signal %s" % results.get("signal-name", "?")
    return "stopped%s in %s" % (" (%s)" % reason if reason else "", where)
