"""Merging what N ranks printed into what a person can read (gdb-free).

* Identical outputs are printed once under `[RANKS]`; groups come in the
  order of their lowest rank.  Grouping goes by each output's digest
  (computed when the answer arrived), so merging 64 identical outputs costs
  64 dictionary lookups, not 64 string comparisons.
* Outputs that differ in a few numbers only are printed once, each
  differing number replaced by its values per rank group:
  `$1 = <[0,2]: 0 | [1,3]: 1>` (Aardvark's "differing values").
* JSON outputs (`-json` commands) become one document keyed by rank group:
  {"0,2": ..., "1,3": ...}.
* The same buffer decoded on several ranks (`mpipp -json` on each) is
  compared element by element: only elements whose bytes differ are shown,
  by path, with their values per rank group.
"""

import json
import re

from .ranks import format_ranks, header

# A number as gdb prints it: hex, or decimal with optional fraction/exponent.
NUMBER = re.compile(r"(0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
MAX_DIFFERING = 4


class Group:
    """Ranks that printed the same output; `error` is set when that output
    is a failure (a -json command that gave no document)."""

    __slots__ = ("ranks", "text", "error")

    def __init__(self, ranks, text, error=None):
        self.ranks, self.text, self.error = ranks, text, error

    @property
    def header(self):
        return header(self.ranks)


def group(outputs):
    """Groups of [(rank, key, text, error)] with equal keys (a digest of the
    output, or the output itself), ordered by lowest rank."""
    by_key = {}
    order = []
    for rank, key, text, error in sorted(outputs, key=lambda o: o[0]):
        g = by_key.get(key)
        if g is None:
            g = by_key[key] = Group([], text, error)
            order.append(g)
        g.ranks.append(rank)
    return order


def differing(groups, max_differing=MAX_DIFFERING):
    """One text for several groups whose outputs differ in at most
    max_differing numbers (each shown as <[ranks]: value | ...>), or None."""
    if len(groups) < 2 or any(g.error is not None for g in groups):
        return None
    split = [NUMBER.split(g.text) for g in groups]
    skeleton = split[0][0::2]
    if any(parts[0::2] != skeleton for parts in split[1:]):
        return None
    slots = list(zip(*(parts[1::2] for parts in split)))
    varying = [k for k, values in enumerate(slots) if len(set(values)) > 1]
    if not varying or len(varying) > max_differing:
        return None
    out = [skeleton[0]]
    for k, values in enumerate(slots):
        if k in varying:
            by_value = {}
            for g, value in zip(groups, values):
                by_value.setdefault(value, []).extend(g.ranks)
            shown = sorted(by_value.items(), key=lambda kv: min(kv[1]))
            out.append("<%s>" % " | ".join("%s: %s" % (header(r), v) for v, r in shown))
        else:
            out.append(values[0])
        out.append(skeleton[k + 1])
    return "".join(out)


def blocks(groups, numbers=True):
    """[(header, text)] to print: one block when the groups differ in a few
    numbers only (and numbers is on), else one per group with output."""
    if numbers:
        text = differing(groups)
        if text is not None:
            return [(header(sorted(r for g in groups for r in g.ranks)), text)]
    return [(g.header, g.text) for g in groups if g.text]


def render(groups, numbers=True):
    """The merged output as one string."""
    out = []
    for head, text in blocks(groups, numbers):
        out.append(head + "\n")
        out.append(text if text.endswith("\n") else text + "\n")
    return "".join(out)


def merge_json(groups):
    """{"0,2": document, ...} when every group's output is one JSON value
    (a group that failed maps to {"error": message}); None otherwise."""
    doc = {}
    for g in groups:
        if g.error is not None:
            doc[format_ranks(g.ranks)] = {"error": g.error.strip()}
            continue
        try:
            doc[format_ranks(g.ranks)] = json.loads(g.text)
        except ValueError:
            return None
    return doc


def _value_text(element):
    value = element.get("value")
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else json.dumps(value)


def differing_elements(docs):
    """(lines, elements compared, elements that differ) of {rank: `mpipp
    -json` document}: `PATH = <[0,2]: 1 | [1,3]: 2>` per differing element,
    in the order of the first rank that has it."""
    ranks = sorted(docs)
    values, order = {}, []
    for rank in ranks:
        for element in docs[rank].get("elements", []):
            path = element["path"]
            if path not in values:
                values[path] = {}
                order.append(path)
            values[path][rank] = (element.get("bytes"), _value_text(element))
    lines = []
    for path in order:
        by_rank = values[path]
        if len(by_rank) == len(ranks) and len({raw for raw, _text in by_rank.values()}) == 1:
            continue
        by_bytes = {}
        for rank in ranks:
            raw, text = by_rank.get(rank, (None, "(none)"))
            by_bytes.setdefault(raw, (text, []))[1].append(rank)
        shown = sorted(by_bytes.values(), key=lambda tr: tr[1][0])
        lines.append("%s = <%s>" % (path, " | ".join("%s: %s" % (header(r), text)
                                                     for text, r in shown)))
    return lines, len(order), len(lines)
