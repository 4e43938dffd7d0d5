"""Writing record files by hand (libmpireg/replay/record.h's layout), for the
reader's and the race analysis' tests on runs no MPI would produce at will
(cut records, escaped fields, orders made by synchronous sends and
collectives)."""

import os
import struct

from mpipp.record.reader import HEADER, KINDS, MAGIC

KIND = {name: code for code, name in enumerate(KINDS) if name}
SHAPE = {"all": 1, "from_root": 2, "to_root": 3, "prefix": 4}


def message(kind, peer, tag, comm=0, flags=0, site=0):
    """A message event word; peer None: not known.  A tag of 2**20 - 1 or
    more, or comm 31 (escaped), need extended(): pass the word through it."""
    return (KIND[kind] | comm << 5 | flags << 10 | (0 if peer is None else peer + 1) << 12
            | min(tag, 0xFFFFF) << 32 | site << 52)


def extended(word, tag, ordinal=0):
    return [word, tag | ordinal << 32]


def done(delta, peer, tag):
    if delta >= 0x7FFFF or tag >= 0xFFFFF:
        return [KIND["DONE"] | 0x7FFFF << 5 | (peer + 1) << 24 | min(tag, 0xFFFFF) << 44,
                tag | delta << 32]
    return [KIND["DONE"] | delta << 5 | (peer + 1) << 24 | tag << 44]


def miss(call, count, comm=0):
    return KIND["MISS"] | KIND[call] << 5 | comm << 10 | count << 15


def choice(kind, n, value=0, indices=None):
    words = [KIND[kind] | n << 5 | (0xFFFFFFFF if value is None else value) << 32]
    indices = list(indices or [])
    if len(indices) % 2:
        indices.append(0xFFFFFFFF)
    for k in range(0, len(indices), 2):
        words.append(indices[k] | indices[k + 1] << 32)
    return words


def coll(shape, root=None, comm=0):
    return KIND["COLL"] | comm << 5 | SHAPE[shape] << 10 | (0 if root is None else root + 1) << 13


def comm_def(slot, ordinal, members, remote=()):
    words = [KIND["COMM"] | slot << 5 | ordinal << 32, len(members) | len(remote) << 32]
    everyone = list(members) + list(remote)
    if len(everyone) % 2:
        everyone.append(0xFFFFFFFF)
    for k in range(0, len(everyone), 2):
        words.append(everyone[k] | everyone[k + 1] << 32)
    return words


def repeat(n, count):
    return KIND["REPEAT"] | n << 5 | count << 9


def site(index, address):
    return KIND["SITE"] | index << 5 | address << 17


def flatten(items):
    out = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
    return out


def event_steps(word):
    """The steps of the event whose first word is `word` (record.h)."""
    kind = KINDS[word & 31] if word & 31 < len(KINDS) else None
    if kind == "MISS":
        return word >> 15
    if kind == "REPEAT":
        return (word >> 5 & 15) * (word >> 9)
    return 0 if kind in ("COMM", "SITE") else 1


def steps(events):
    """The steps events make: what a closed record's header says."""
    return sum(event_steps((item if isinstance(item, list) else [item])[0]) for item in events)


def write(directory, rank, size, events, state=2, job=7, pad=0, closed_steps=None):
    """DIR/rank.N with these events (words or lists of words), then `pad`
    zero words (what a cut record's file holds past its end).  A closed
    record's header has the steps its events make (closed_steps: others)."""
    os.makedirs(directory, exist_ok=True)
    words = flatten(events)
    closed = steps(events) if closed_steps is None else closed_steps
    header = HEADER.pack(MAGIC, 1, 64, rank, size, state, 0, job, len(words), closed, b"mpich")
    words += [0] * pad
    path = os.path.join(directory, "rank.%d" % rank)
    with open(path, "wb") as f:
        f.write(header + struct.pack("<%dQ" % len(words), *words))
    return path
