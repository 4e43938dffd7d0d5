"""The tree that carries commands down to the ranks' debuggers and merged
answers up to the console (gdb-free).

With debuggers next to the ranks, every host (node) has one back-end
(agent.py) holding the gdbs of the ranks there, and the back-ends form a
tree, as STAT's daemons do over MRNet.  A back-end merges its ranks'
answers with its children's before passing one message up, so identical
answers travel, and reach the console, once per group of ranks, not once
per rank.

* layout(): who is whose parent, for a fan-out (a heap over the nodes).
* Groups: an answer with the ranks that gave it.  merge() joins groups
  with the same key; the key covers everything the console reads of an
  answer, so joining in the tree loses nothing, and the console's own
  grouping of what it prints (merge.group, by output) comes out as with
  one answer per rank.
"""

import hashlib
import json

from ...text.ranks import format_ranks, parse_ranks

DEFAULT_FANOUT = 8
# "dead": why the gdb died, when it died owing the answer
ANSWER_FIELDS = ("cls", "output", "text", "error", "results", "document", "dead")


def layout(nodes, fanout=DEFAULT_FANOUT):
    """{node: parent node, or None for the console's one child}.  nodes:
    the back-ends, one per host, in order of their lowest rank; they form a
    heap of the fan-out under the first."""
    if fanout < 1:
        raise ValueError("fan-out must be at least 1")
    nodes = list(nodes)
    return {node: nodes[(k - 1) // fanout] if k else None for k, node in enumerate(nodes)}


def children(parents):
    """{node: [child nodes]} of a layout."""
    out = {node: [] for node in parents}
    for node, parent in parents.items():
        if parent is not None:
            out[parent].append(node)
    return out


def depth(parents):
    """Hops from the farthest back-end to the console."""
    deepest = 0
    for node in parents:
        hops = 1
        while parents[node] is not None:
            node = parents[node]
            hops += 1
        deepest = max(deepest, hops)
    return deepest


def key(answer):
    """What identifies an answer for merging (a dict with ANSWER_FIELDS)."""
    raw = json.dumps([answer.get(f) for f in ANSWER_FIELDS], sort_keys=True)
    return hashlib.blake2b(raw.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def group(ranks, answer):
    """A group for the wire: the answer's fields, its key, its ranks.  The
    console output ("text") is left out when it is the whole output (most
    commands): text() gives it back."""
    out = {f: answer.get(f) for f in ANSWER_FIELDS}
    out["key"] = answer.get("key") or key(answer)
    out["ranks"] = format_ranks(ranks)
    if out["text"] == out["output"]:
        out["text"] = None
    return out


def text(group_):
    """The console output of a group from the wire."""
    return group_["output"] if group_["text"] is None else group_["text"]


def merge(groups):
    """Groups with equal keys joined (their ranks united), in order of their
    lowest rank."""
    by_key = {}
    for g in groups:
        ranks = parse_ranks(g["ranks"])
        kept = by_key.get(g["key"])
        if kept is None:
            by_key[g["key"]] = (g, set(ranks))
        else:
            kept[1].update(ranks)
    out = []
    for g, ranks in by_key.values():
        joined = dict(g)
        joined["ranks"] = format_ranks(ranks)
        out.append((min(ranks), joined))
    return [g for _low, g in sorted(out, key=lambda item: item[0])]
