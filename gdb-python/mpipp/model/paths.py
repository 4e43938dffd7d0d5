"""Type-tree paths (Protze et al. 2012, IV.C; docs/design.md, "Type-tree paths").

Short form ``[0][2][5]``; long form ``buf(CONTIGUOUS)[0](STRUCT)[2][5](CHAR)``.

Long-form rule: the root label, then ``(KIND)`` of the root node; after the
indices of each node's complete stage sequence comes ``(KIND)`` of the node
they lead to (the combiner name for derived types -- STRUCT, VECTOR, ... --
and the predefined name without ``MPI_`` for leaves: CHAR, DOUBLE,
DOUBLE_INT).  Intermediate stages are bare brackets.  For a buffer the root is
the buffer itself, ``count`` repetitions of the type: ``buf(CONTIGUOUS)[0]...``
(root label defaults to ``buf``); for a type-relative path (count None) it is
the type: ``s_type(STRUCT)[2][5](CHAR)`` (label defaults to the type's name).

Input accepts both forms; an optional leading label is ignored, kinds are
optional and checked (case-insensitive, with or without ``MPI_``; for a named
derived type its name is accepted too).  Indices are decimal or 0x-hex.
"""

import re
from collections import namedtuple

from . import combiners
from .combiners import buffer_type
from .datatype import validate
from .errors import PathError

ParsedPath = namedtuple("ParsedPath", "label indices kinds text")
ParsedPath.__doc__ = """label: leading label or None; indices: tuple of int;
kinds: tuple of (number of indices before the kind, KIND); text: the input."""

Resolved = namedtuple("Resolved", "indices node partial offset is_leaf")
Resolved.__doc__ = """indices: the validated path; node: Datatype at which the
path ends (for a path ending inside a node's stages, that node); partial: the
stage indices consumed inside node (() at a node boundary); offset: byte offset
of the start of the named sub-tree (first element's instance); is_leaf: the
path names one element."""

_TOKEN = re.compile(r"\s*(?:\[\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))\s*\]"
                    r"|\(\s*([A-Za-z_][\w:]*)\s*\))")
_ROOT_KIND = re.compile(r"\(\s*([A-Za-z_][\w:]*)\s*\)\s*(?=\[|$)")
_LABEL = re.compile(r"\s*([^\[\(\s][^\[\(]*?)\s*(?=[\[\(]|$)")
MAX_PATH_LEN = 4096


def parse_path(text):
    """Parse a short or long path.  Raises PathError (one line) when malformed."""
    if text is None:
        text = ""
    if len(text) > MAX_PATH_LEN:
        raise PathError("path too long (%d characters)" % len(text))
    pos = 0
    label = None
    stripped = text.lstrip()
    if stripped and stripped[0] not in "[(":
        # a label may itself contain brackets (``cases[13].buf(CONTIGUOUS)[0]``):
        # it ends at the root (KIND) -- preferably a combiner name -- or at
        # the first '[' / '(' when there is no kind.
        cands = [m for m in _ROOT_KIND.finditer(text) if m.start() > 0]
        pick = None
        for m in cands:
            if m.group(1).upper() in combiners.COMBINERS:
                pick = m
                break
        if pick is None and cands:
            pick = cands[0]
        if pick is not None:
            label = text[:pick.start()].strip()
            pos = pick.start()
        else:
            m = _LABEL.match(text)
            label = m.group(1) if m else None
            pos = m.end() if m else 0
        if not label or label.count("[") != label.count("]") \
                or label.count("(") != label.count(")"):
            raise PathError("malformed path %r: bad label %r" % (text, label))
    indices, kinds = [], []
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _TOKEN.match(text, pos)
        if not m:
            rest = text[pos:].strip()
            raise PathError("malformed path %r at column %d: expected [INDEX] or (KIND), got %r"
                            % (text, pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip())),
                               rest[:20]))
        if m.group(1) is not None:
            num = m.group(1).replace(" ", "")
            if num.startswith("-"):
                raise PathError("negative index %s in path %r" % (num, text))
            indices.append(int(num, 0) if num[:2].lower() == "0x" else int(num, 10))
        else:
            kinds.append((len(indices), m.group(2)))
        pos = m.end()
    return ParsedPath(label, tuple(indices), tuple(kinds), text)


_PATH_FORMATS = ["[%d]" * _n for _n in range(17)]


def format_path(indices):
    """'[0][2][5]' (empty string for the empty path)."""
    n = len(indices)
    if n < 17:
        return _PATH_FORMATS[n] % tuple(indices)
    return "[" + "][".join(map(str, indices)) + "]"


def shift_index(path, pos, k):
    """path with its index at pos moved by k: element k of a run whose first
    element has path and whose varying index is at pos."""
    return path[:pos] + (path[pos] + k,) + path[pos + 1:]


def kind_matches(kind, node):
    k = kind.upper()
    if k.startswith("MPI_"):
        k = k[4:]
    names = {node.kind_label.upper(), node.combiner.upper()}
    if node.name:
        n = node.name.upper()
        names.add(n[4:] if n.startswith("MPI_") else n)
    return k in names


def _root(dt, count):
    validate(dt)
    return buffer_type(dt, count) if count is not None else dt


def _walk(root, indices):
    """Yield (pos, node, offset) at every node boundary reached by indices;
    at the end yields ('end', node, partial, offset)."""
    node, off, pos = root, 0, 0
    n = len(indices)
    yield pos, node, off
    while True:
        if node.is_leaf:
            if pos < n:
                raise PathError("path continues past leaf %s at %s"
                                % (node.display_name, format_path(indices[:pos]) or "[]"))
            yield "end", node, (), off
            return
        ns = combiners.n_stages(node)
        partial = []
        for s in range(ns):
            if pos >= n:
                yield "end", node, tuple(partial), off
                return
            size = combiners.stage_sizes(node, partial)
            i = indices[pos]
            if not 0 <= i < size:
                rng = "0..%d" % (size - 1) if size > 0 else "none (empty)"
                raise PathError("index %d out of range at stage %d of %s: valid %s"
                                % (i, pos, format_path(indices[:pos]) or "[]", rng))
            partial.append(i)
            pos += 1
        child, disp = combiners.child_at(node, partial)
        node, off = child, off + disp
        yield pos, node, off
        if pos >= n and not node.is_leaf and combiners.n_stages(node) > 0:
            yield "end", node, (), off
            return


def resolve_path(dt, count, path, kinds=None):
    """Validate a path (tuple of indices or ParsedPath) against a buffer of
    ``count`` elements of dt (count None: against the type itself).
    Returns Resolved; raises PathError naming the failing stage and range."""
    if isinstance(path, ParsedPath):
        kinds = path.kinds if kinds is None else kinds
        indices = path.indices
    else:
        indices = tuple(path)
    want = {}
    for p, k in kinds or ():
        want.setdefault(p, []).append(k)
    root = _root(dt, count)
    checked = set()
    end = None
    for item in _walk(root, indices):
        if item[0] == "end":
            end = item
            break
        pos, node, _off = item
        for k in want.get(pos, ()):
            if not kind_matches(k, node):
                raise PathError("kind mismatch at %s: path says (%s), the type is (%s)"
                                % (format_path(indices[:pos]) or "[]", k, node.kind_label))
        if pos in want:
            checked.add(pos)
    for p in want:
        if p not in checked:
            raise PathError("kind (%s) after %s does not name a node (it is inside a node's"
                            " stages or past the end)"
                            % (want[p][0], format_path(indices[:p]) or "[]"))
    _, node, partial, off = end
    start = off
    if partial:
        # offset of the first instance below the partial index tuple
        try:
            full = list(partial)
            while len(full) < combiners.n_stages(node):
                if combiners.stage_sizes(node, full) == 0:
                    break
                full.append(0)
            else:
                start = off + combiners.child_at(node, full)[1]
        except PathError:
            pass
    return Resolved(indices, node, partial, start, node.is_leaf and not partial)


def _long_tokens(root, indices, count, root_label):
    """Tokens of the long form; index tokens are '[i]' items, and
    positions[p] is the token index of path position p."""
    r = _root(root, count)
    label = root_label or ("buf" if count is not None else (root.name or "type"))
    tokens, positions = [label], []
    last = 0
    for item in _walk(r, tuple(indices)):
        if item[0] == "end":
            for i in indices[last:]:
                positions.append(len(tokens))
                tokens.append("[%d]" % i)
            break
        pos, node, _off = item
        for i in indices[last:pos]:
            positions.append(len(tokens))
            tokens.append("[%d]" % i)
        tokens.append("(%s)" % node.kind_label)
        last = pos
    return tokens, positions


def format_long_path(root, indices, count=None, root_label=None):
    """Long form of a (valid) path; see the module doc for the rule."""
    return "".join(_long_tokens(root, indices, count, root_label)[0])


class LongPathFormatter:
    """Fast long-form formatting for many paths sharing a prefix (render)."""

    def __init__(self, root, count, root_label=None):
        self.root, self.count, self.label = root, count, root_label
        self._cache = {}

    def parts(self, indices, vpos):
        """(text before the varying index, text after it) for a run whose
        varying index is at position vpos of indices."""
        key = (indices[:vpos], indices[vpos + 1:])
        got = self._cache.get(key)
        if got is None:
            tokens, positions = _long_tokens(self.root, indices, self.count, self.label)
            t = positions[vpos]
            got = ("".join(tokens[:t]), "".join(tokens[t + 1:]))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = got
        return got
