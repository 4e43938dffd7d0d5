"""Merging what N ranks printed into what a person can read (gdb-free).

* Identical outputs are printed once under `[RANKS]`; groups come in the
  order of their lowest rank.  Grouping goes by each output's digest
  (computed when the answer arrived), so merging 64 identical outputs costs
  64 dictionary lookups, not 64 string comparisons.
* Outputs that differ in a few numbers only are printed once, each
  differing number replaced by its values per rank group:
  `$1 = <[0,2]: 0 | [1,3]: 1>` (Aardvark's "differing values"); tables
  (`mpipp comms`, `info breakpoints`) are compared cell by cell and stay
  aligned around such cells.
* JSON outputs (`-json` commands) become one document keyed by rank group:
  {"0,2": ..., "1,3": ...}.
* The same buffer dumped on several ranks (`mpipp dump -json` on each) is
  compared element by element with the model's comparison (model/compare.py,
  as `mpipp diff` does): only elements that differ are shown, by path, with
  their values per rank group.
"""

import json
import re

from ...model.compare import EXACT, elements_equal
from ...model.decode import format_one
from ...model.pack import pack
from ...readers.errors import MpippError
from ...text.ranks import format_ranks, header
from ...text.tables import Layout

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


def group_sets(outputs):
    """group() of [(ranks, key, text, error)]: outputs already shared by
    sets of ranks (answers merged down the tree), joined by key."""
    by_key = {}
    for ranks, key, text, error in outputs:
        g = by_key.get(key)
        if g is None:
            by_key[key] = Group(list(ranks), text, error)
        else:
            g.ranks.extend(ranks)
    for g in by_key.values():
        g.ranks.sort()
    return sorted(by_key.values(), key=lambda g: g.ranks[0])


def differing(groups, max_differing=MAX_DIFFERING):
    """One text for several groups whose outputs differ in at most
    max_differing numbers (each shown as <[ranks]: value | ...>), or None.
    Tables (text/tables.py Layout) are compared cell by cell, whatever
    their padding, and written aligned again around the merged cells."""
    if len(groups) < 2 or any(g.error is not None for g in groups):
        return None
    layouts = [Layout(g.text) for g in groups]
    if any(layout.shape != layouts[0].shape for layout in layouts[1:]):
        return None
    merged, varying = [], 0
    for values in zip(*(layout.fields for layout in layouts)):
        found = _merged_numbers(groups, values)
        if found is None:
            return None
        merged.append(found[0])
        varying += found[1]
    if not varying or varying > max_differing:
        return None
    return layouts[0].text(merged)


def _merged_numbers(groups, values):
    """(text, how many numbers vary) of one field (a line or a table cell)
    whose value per group is values, or None when they differ in more than
    numbers."""
    split = [NUMBER.split(value) for value in values]
    skeleton = split[0][0::2]
    if any(parts[0::2] != skeleton for parts in split[1:]):
        return None
    slots = list(zip(*(parts[1::2] for parts in split)))
    out = [skeleton[0]]
    varying = 0
    for k, numbers in enumerate(slots):
        if len(set(numbers)) > 1:
            varying += 1
            by_value = {}
            for g, value in zip(groups, numbers):
                by_value.setdefault(value, []).extend(g.ranks)
            shown = sorted(by_value.items(), key=lambda kv: min(kv[1]))
            out.append("<%s>" % " | ".join("%s: %s" % (header(r), v) for v, r in shown))
        else:
            out.append(numbers[0])
        out.append(skeleton[k + 1])
    return "".join(out), varying


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


def _same(a, b, tol):
    """Do two elements ((type name, basic or None, bytes in memory)) hold
    the same value?  The model's rules (compare.py) when the basic type is
    known: +0 equals -0, NaN equals NaN, padding is ignored."""
    (name_a, basic, raw_a), (name_b, _, raw_b) = a, b
    if name_a != name_b:
        return False
    if basic is None or len(raw_a) != len(raw_b):
        return raw_a == raw_b
    return elements_equal(basic, pack(basic, raw_a), pack(basic, raw_b), tol)


def _text(element):
    name, basic, raw = element
    if basic is None:
        return "0x" + raw.hex()
    try:
        return format_one(basic, raw)
    except MpippError:
        return "0x" + raw.hex()


def differing_elements(streams, basics, tol=EXACT, limit=None):
    """Compare one buffer decoded on several ranks.  streams: {rank:
    iterator of (path, type name, bytes as hex)} in typemap order (a dump's
    records); basics: {rank: {type name: basic Datatype}}.  Returns (lines,
    elements compared, elements that differ, note): a line `PATH = <[0,2]: 1
    | [1,3]: 2>` per differing element; note says why the comparison
    stopped early (limit reached, or layouts that differ), else None."""
    ranks = sorted(streams)
    iters = {r: iter(streams[r]) for r in ranks}
    lines, compared = [], 0
    while limit is None or compared < limit:
        records = {r: next(iters[r], None) for r in ranks}
        present = {r: rec for r, rec in records.items() if rec is not None}
        if not present:
            return lines, compared, len(lines), None
        paths = {}
        for r, rec in present.items():
            paths.setdefault(rec[0], []).append(r)
        if len(paths) > 1:
            return lines, compared, len(lines), "layouts differ at element %d: %s" % (
                compared, "; ".join("%s on %s" % (p, format_ranks(r)) for p, r in
                                    sorted(paths.items(), key=lambda kv: kv[1][0])))
        compared += 1
        groups = []     # [(element or None, [ranks])]
        for rank in ranks:
            rec = records[rank]
            element = None if rec is None else (
                rec[1], basics.get(rank, {}).get(rec[1]), bytes.fromhex(rec[2]))
            for g in groups:
                if (g[0] is None) == (element is None) and (element is None or
                                                            _same(g[0], element, tol)):
                    g[1].append(rank)
                    break
            else:
                groups.append((element, [rank]))
        if len(groups) > 1:
            lines.append("%s = <%s>" % (next(iter(paths)), " | ".join(
                "%s: %s" % (header(r), "(none)" if e is None else _text(e))
                for e, r in groups)))
    return lines, compared, len(lines), "first %d elements compared" % limit
