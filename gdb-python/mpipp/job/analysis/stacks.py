"""Merged backtraces, STAT-style (gdb-free): every thread's stack of every
rank is a path from its outermost frame (main, or the thread's start
routine) down to where it stopped; paths are merged into one tree whose
nodes carry the set of ranks that pass through them.  Frames merge by
function; where the ranks of a node stand at different lines, the line is
shown per rank group: `main at job.c:<[0]: 30 | [1]: 33 | [2,3]: 40>`.
A rank's stop is described as its frames are (describe_stop).
"""

from ...text.ranks import format_ranks, header


class Node:
    __slots__ = ("function", "ranks", "where", "children")

    def __init__(self, function):
        self.function = function
        self.ranks = set()
        self.where = {}          # "file:line" or "from lib" -> set of ranks
        self.children = {}       # function -> Node, in insertion order

    def add(self, rank, frames):
        node = self
        for function, where in frames:
            child = node.children.get(function)
            if child is None:
                child = node.children[function] = Node(function)
            child.ranks.add(rank)
            child.where.setdefault(where, set()).add(rank)
            node = child


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


def build(stacks):
    """The tree of {rank: [thread stack, ...]}, each stack a list of MI frame
    tuples innermost first (as -stack-list-frames gives them)."""
    root = Node(None)
    for rank, threads in stacks.items():
        for frames in threads:
            root.add(rank, [frame_key(f) for f in reversed(frames)])
    return root


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


def render(root):
    """Lines: `[RANKS] function at file:line`, children indented."""
    lines = []
    stack = [(child, 0) for child in reversed(_ordered(root.children))]
    while stack:
        node, depth = stack.pop()
        lines.append("%s%s %s%s" % ("  " * depth, header(node.ranks), node.function,
                                    _where_text(node)))
        stack.extend((child, depth + 1) for child in reversed(_ordered(node.children)))
    return lines


def to_json(root):
    def node_json(node):
        return {"function": node.function, "ranks": format_ranks(node.ranks),
                "where": {w: format_ranks(r) for w, r in node.where.items()},
                "children": [node_json(c) for c in _ordered(node.children)]}
    return [node_json(c) for c in _ordered(root.children)]


# -- stops ------------------------------------------------------------------

def interrupted(results):
    """Was the rank stopped by SIGINT (the console's interrupt, or ctrl-C)?
    results: a *stopped record's."""
    return results.get("reason") == "signal-received" and results.get("signal-name") == "SIGINT"


def describe_stop(results):
    """'interrupted in poll from libc.so.6', 'stopped (breakpoint-hit) in f at x.c:3'."""
    function, location = frame_key(results.get("frame") or {})
    where = function + where_text(location)
    if interrupted(results):
        return "interrupted in " + where
    reason = results.get("reason")
    if reason == "signal-received":
        reason = "signal %s" % results.get("signal-name", "?")
    return "stopped%s in %s" % (" (%s)" % reason if reason else "", where)
