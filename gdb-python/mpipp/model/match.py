"""Type matching between two (datatype, count) pairs, the MPI way (gdb-free).

MPI requires a send's type signature to be a prefix of the matching
receive's (equal for most collectives).  `match_signatures` compares two
signatures in their run-compressed form (typemap.signature): runs of one type
are consumed a run at a time and identical repeated patterns a repetition at
a time, so a million-element buffer costs what its compressed signature
costs, not a million steps.  The first differing element is then named by
its type-tree path on each side (`element_path`, O(depth of the tree)).

Verdicts (`Match.verdict`):
  equal     the two signatures are the same
  prefix    the first is a proper prefix of the second (a send the receive
            accepts); `second` is the receive's first element left over
  longer    the second is a proper prefix of the first (MPI_ERR_TRUNCATE for
            a send/receive pair); `first` is the first element too many
  mismatch  element `index` differs: `first` and `second` are (path, type name)
  packed    MPI_PACKED at element `index` on one side: packed data matches
            any signature, so the rest is not checked
"""

from collections import namedtuple
from math import gcd

from . import combiners
from .combiners import buffer_type, layout
from .datatype import validate
from .errors import TypeTreeError
from .paths import format_path
from .typemap import n_elements, signature, subtree_elements

Match = namedtuple("Match", "verdict index first second")
Match.__doc__ = """verdict (see the module doc), index: the element (typemap
order) the verdict is about, first/second: (path tuple, type name) or None."""

PACKED = "MPI_PACKED"
# Bodies of repeated patterns up to this many elements are compared expanded
# when the two sides repeat them with different periods.
MAX_PERIOD = 4096
# Steps after which an irregular comparison gives up (each step is one run).
MAX_STEPS = 1 << 21


class _Cursor:
    """A position in a compressed signature [(name or nested signature, n)]."""

    def __init__(self, sig):
        # frames: [items, item index, repetitions of the item left, elements
        # consumed inside the current repetition of a plain run]
        self.frames = [[tuple(sig), 0, sig[0][1] if sig else 0, 0]]
        self._settle()

    def _settle(self):
        """Pop finished frames; stop at a position with elements left."""
        while self.frames:
            f = self.frames[-1]
            items, i, left, _used = f
            if i < len(items) and left > 0:
                return
            if i < len(items):          # this item done: next one
                f[1] = i + 1
                f[2] = items[i + 1][1] if i + 1 < len(items) else 0
                f[3] = 0
                continue
            self.frames.pop()
            if self.frames:             # one repetition of a nested body done
                parent = self.frames[-1]
                parent[2] -= 1

    @property
    def done(self):
        return not self.frames

    def run(self):
        """(type name, elements left in this run) at a plain run, descending
        into nested bodies; None at the end."""
        while self.frames:
            items, i, left, used = self.frames[-1]
            item = items[i][0]
            if isinstance(item, str):
                return item, left - used
            self.frames.append([item, 0, item[0][1], 0])
            self._settle()
        return None

    def body(self):
        """(nested body, repetitions left) when at the start of a repetition
        of a nested pattern, else None."""
        if not self.frames:
            return None
        items, i, left, used = self.frames[-1]
        item = items[i][0]
        if isinstance(item, str) or used:
            return None
        return item, left

    def consume(self, n):
        """Consume n elements of the current plain run."""
        f = self.frames[-1]
        f[3] += n
        if f[3] == f[2]:
            f[2] = 0
            self._settle()

    def skip(self, reps):
        """Skip whole repetitions of the nested body at the cursor."""
        self.frames[-1][2] -= reps
        self._settle()


def _length(sig):
    return sum(n if isinstance(item, str) else n * _length(item) for item, n in sig)


def _expand(sig):
    out = []
    for item, n in sig:
        if isinstance(item, str):
            out.extend([item] * n)
        else:
            out.extend(_expand(item) * n)
    return out


def _bulk(a, b, same_period):
    """Elements both cursors can skip at once because they repeat the same
    pattern from here on (0 when they do not).  same_period caches, per pair
    of bodies, whether they expand to the same sequence over a common period."""
    pa, pb = a.body(), b.body()
    if pa is None or pb is None:
        return 0
    (body_a, reps_a), (body_b, reps_b) = pa, pb
    if body_a == body_b:
        reps = min(reps_a, reps_b)
        a.skip(reps)
        b.skip(reps)
        return reps * _length(body_a)
    la, lb = _length(body_a), _length(body_b)
    period = la * lb // gcd(la, lb)
    key = (body_a, body_b)
    if key not in same_period:
        same_period[key] = period <= MAX_PERIOD and \
            _expand(body_a) * (period // la) == _expand(body_b) * (period // lb)
    if not same_period[key]:
        return 0
    periods = min(reps_a * la, reps_b * lb) // period
    if not periods:
        return 0
    a.skip(periods * period // la)
    b.skip(periods * period // lb)
    return periods * period


def compare(sig_a, sig_b):
    """(verdict, index) for two compressed signatures (paths not resolved)."""
    a, b = _Cursor(sig_a), _Cursor(sig_b)
    index = 0
    same_period = {}
    for _step in range(MAX_STEPS):
        if a.done or b.done:
            if a.done and b.done:
                return "equal", index
            return ("prefix" if a.done else "longer"), index
        skipped = _bulk(a, b, same_period)
        if skipped:
            index += skipped
            continue
        (name_a, left_a), (name_b, left_b) = a.run(), b.run()
        if PACKED in (name_a, name_b):
            return "packed", index
        if name_a != name_b:
            return "mismatch", index
        n = min(left_a, left_b)
        a.consume(n)
        b.consume(n)
        index += n
    raise TypeTreeError("signatures too irregular to compare (stopped after %d elements)"
                        % index)


def match_signatures(dt_a, count_a, dt_b, count_b):
    """Match of count_a × dt_a against count_b × dt_b (see the module doc)."""
    verdict, index = compare(signature(dt_a, count_a), signature(dt_b, count_b))
    first = second = None
    if verdict in ("mismatch", "longer", "packed") and index < n_elements(dt_a, count_a):
        first = element_path(dt_a, count_a, index)
    if verdict in ("mismatch", "prefix", "packed") and index < n_elements(dt_b, count_b):
        second = element_path(dt_b, count_b, index)
    return Match(verdict, index, first, second)


def element_text(element):
    path, name = element
    return "%s %s" % (format_path(path), name)


def verdict_text(m, label_a, n_a, label_b, n_b):
    """One line saying how the first (send) side matches the second (receive)."""
    if m.verdict == "equal":
        return "equal: %s and %s have the same signature (%d elements)" % (label_a, label_b, n_a)
    if m.verdict == "prefix":
        return ("prefix: %s (%d elements) is a prefix of %s (%d): a receive of the second "
                "accepts a send of the first; %s is left unfilled"
                % (label_a, n_a, label_b, n_b, element_text(m.second)))
    if m.verdict == "longer":
        return ("longer: %s has %d elements, %s only %d: %s has no counterpart (a receive "
                "would truncate)" % (label_a, n_a, label_b, n_b, element_text(m.first)))
    if m.verdict == "packed":
        return ("packed: element %d is MPI_PACKED on one side (%s vs %s): packed data matches "
                "any signature; not checked further" % (m.index, element_text(m.first),
                                                       element_text(m.second)))
    return "mismatch at element %d: %s vs %s" % (m.index, element_text(m.first),
                                                element_text(m.second))


def element_json(element):
    return None if element is None else {"path": format_path(element[0]), "type": element[1]}


# ---------------------------------------------------------------- element k

def element_path(dt, count, index):
    """(path, type name) of element `index` (typemap order, markers excluded)
    of a buffer of count × dt, found by counting down the tree."""
    validate(dt)
    if not 0 <= index < n_elements(dt, count):
        raise TypeTreeError("element %d out of range (%d elements)"
                            % (index, n_elements(dt, count)))
    return _nth_of_type(buffer_type(dt, count), (), index)


def _nth_of_type(dt, path, k):
    if dt.is_leaf:
        return (path or (0,)), dt.display_name
    return _nth(layout(dt), path, [0] * combiners.n_stages(dt), k)


def _nth(node, path, loc, k):
    """Element k of a layout program (see combiners' module doc)."""
    tag = node[0]
    if tag == "L":
        _, count, _bs, slot, ist, _boff, ibase, body = node
        per = subtree_elements(body)
        v = k // per
        loc[slot] += ibase + v * ist
        return _nth(body, path, loc, k - v * per)
    if tag == "S":
        if len(node) > 3:                       # indexed / struct block arrays
            _disps, bls, kids = node[3]
            for i, (bl, kid) in enumerate(zip(bls, kids)):
                per = n_elements(kid, 1)
                size = max(bl, 0) * per
                if k < size:
                    j = k // per
                    return _nth_of_type(kid, path + (i, j), k - j * per)
                k -= size
            raise TypeTreeError("element beyond the blocks of the type")
        for i in range(node[1]):
            item = node[2](i)
            size = subtree_elements(item)
            if k < size:
                return _nth(item, path, loc, k)
            k -= size
        raise TypeTreeError("element beyond the items of the type")
    return _nth_of_type(node[1], path + tuple(loc), k)
