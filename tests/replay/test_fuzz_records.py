"""Record-corruption fuzz (issue 28): records are untrusted input.  Seeded
corruptions of real records (testprogs/replay: patterns, anytag, turns --
a REPEAT of wildcard receives -- and killed, cut inside a REPEAT of 10^6
turns) and of their headers, each read by `mpipp record -events`,
`mpipp record -json` and `mpipp races`.  Required: a correct reading or one
line `mpipp: ...` (status 1), never a traceback; the work bounded by what
the files hold, counted (every event the readers make is counted: a
REPEAT is never expanded by `mpipp record`, and `races` follows at most
EVENTS_FOLLOWED events) -- no clock in the test.  Then replay of the
corruptions the issue met: a damaged word stops replay with the words
`mpipp record` uses, a changed REPEAT or MISS count of a closed record is
refused at MPI_Init, a recorded source no rank has is damage (not MPI's
"Invalid rank").

Options (environment): MPIPP_RECORD_FUZZ_ITERATIONS (default 400),
MPIPP_RECORD_FUZZ_SEED (default 28)."""

import contextlib
import io
import os
import random
import re
import shutil
import struct

import pytest

from mpipp.record import cli, reader
from mpipp.record.races import EVENTS_FOLLOWED
from replayrun import mpipp, outcomes, run

ITERATIONS = int(os.environ.get("MPIPP_RECORD_FUZZ_ITERATIONS", "400"))
SEED = int(os.environ.get("MPIPP_RECORD_FUZZ_SEED", "28"))
HEADER = reader.HEADER
KIND = {name: code for code, name in enumerate(reader.KINDS) if name}
# (name, offset, struct format) of the header's fields a corruption sets
HEADER_FIELDS = [("version", 8, "<I"), ("header_size", 12, "<I"), ("rank", 16, "<i"),
                 ("size", 20, "<i"), ("state", 24, "<I"), ("job", 32, "<Q"),
                 ("steps", 48, "<Q")]
# (shift, bits) of the fields events have (record.h)
FIELDS = [(0, 5), (5, 5), (5, 19), (5, 27), (9, 55), (10, 2), (10, 3), (12, 20), (13, 20),
          (15, 49), (24, 20), (32, 20), (32, 32), (44, 20), (52, 12)]
PROGRAMS = {"patterns": (["patterns", 5], 4), "anytag": (["anytag", 2], 4),
            "turns": (["turns", 12, 2], 3), "killed": (["killed", 1000000], 1)}


@pytest.fixture(scope="module")
def records(built, tmp_path_factory):
    """{name: directory} of real records (their rank files only: call
    sites are addr2line's, not the readers')."""
    out = {}
    for name, (args, nprocs) in PROGRAMS.items():
        directory = str(tmp_path_factory.mktemp(name) / "record")
        status, output = run(args, nprocs=nprocs, MPIPP_RECORD=directory)
        assert name == "killed" or status == 0, output
        for file in os.listdir(directory):
            if file.endswith(".maps"):
                os.remove(os.path.join(directory, file))
        out[name] = directory
    return out


def written(path):
    """(data, the number of event words the record holds) of a rank file."""
    with open(path, "rb") as f:
        data = f.read()
    return data, reader.read_rank(path).words


def interesting(rng, bits):
    return rng.choice([0, 1, 2, 3, (1 << bits) - 1, (1 << (bits - 1)), rng.getrandbits(bits),
                       1 << rng.randrange(bits)])


def corrupt(rng, directory):
    """Corrupts one of directory's rank files: what was done."""
    files = sorted(f for f in os.listdir(directory) if f.startswith("rank."))
    name = rng.choice(files)
    path = os.path.join(directory, name)
    data, n_words = written(path)
    data = bytearray(data)
    word = rng.randrange(max(n_words, 1))
    at = HEADER.size + 8 * word
    value = struct.unpack_from("<Q", data, at)[0] if at + 8 <= len(data) else 0
    kind = rng.choice(["bit", "word", "field", "header", "truncate", "zero", "repeat", "miss",
                       "kind", "append", "remove"])
    if kind == "remove" and len(files) > 1:
        os.remove(path)
        return "%s removed" % name
    if kind == "header":
        field, offset, fmt = rng.choice(HEADER_FIELDS)
        bits = struct.calcsize(fmt) * 8
        new = rng.choice([0, 1, -1, 63, 65, 72, 2 ** 31 - 1, -2 ** 31, len(data) + 8,
                          rng.getrandbits(bits - 1)])
        new = new if fmt[-1] in "iq" else new % (1 << bits)
        struct.pack_into(fmt, data, offset, max(min(new, 2 ** (bits - 1) - 1), -2 ** (bits - 1))
                         if fmt[-1] in "iq" else new)
        what = "%s: header %s = %d" % (name, field, new)
    elif kind == "truncate":
        del data[rng.randrange(len(data)):]
        what = "%s: cut at byte %d" % (name, len(data))
    elif kind == "append":
        data += bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 40)))
        what = "%s: bytes appended" % name
    else:
        matching = {"repeat": "REPEAT", "miss": "MISS"}.get(kind)
        if matching:
            words = [k for k in range(n_words)
                     if struct.unpack_from("<Q", data, HEADER.size + 8 * k)[0] & 31
                     == KIND[matching]]
            if words:
                word = rng.choice(words)
                at = HEADER.size + 8 * word
                value = struct.unpack_from("<Q", data, at)[0]
        if at + 8 > len(data):
            data += bytes(at + 8 - len(data))
        if kind == "bit":
            new = value ^ 1 << rng.randrange(64)
        elif kind == "word":
            new = rng.getrandbits(64)
        elif kind == "zero":
            new = 0
        elif kind == "kind":
            new = value & ~31 | rng.randrange(32)
        elif kind in ("repeat", "miss"):
            shift = 9 if kind == "repeat" else 15
            new = value & ((1 << shift) - 1) | interesting(rng, 64 - shift) << shift
        else:
            shift, bits = rng.choice(FIELDS)
            new = value & ~(((1 << bits) - 1) << shift) | interesting(rng, bits) << shift
        struct.pack_into("<Q", data, at, new)
        what = "%s: %s of word %d: 0x%x -> 0x%x" % (name, kind, word, value, new)
    with open(path, "wb") as f:
        f.write(data)
    return what


class Counted:
    """Counts the events the readers make (Event objects) while in use."""

    def __init__(self, monkeypatch):
        self.made = 0
        made = reader.Event.__init__

        def counting(event, *args, **kwargs):
            self.made += 1
            made(event, *args, **kwargs)
        monkeypatch.setattr(reader.Event, "__init__", counting)


def mpipp_in_process(args):
    """(status, stdout, stderr) of scripts/mpipp ARGS run here."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(args))
    return status, out.getvalue(), err.getvalue()


def file_words(directory):
    return sum(os.path.getsize(os.path.join(directory, f)) // 8 for f in os.listdir(directory))


def test_corrupted_records_are_read_or_refused_in_one_line(records, tmp_path, monkeypatch):
    rng = random.Random(SEED)
    counted = Counted(monkeypatch)
    seen = {"read": 0, "refused": 0, "damaged": 0, "races refused": 0}
    for k in range(ITERATIONS):
        name = rng.choice(sorted(records))
        directory = str(tmp_path / ("%d" % k))
        shutil.copytree(records[name], directory)
        what = "%s (%s, seed %d, iteration %d)" % (corrupt(rng, directory), name, SEED, k)
        words = file_words(directory)
        for args in (["record", directory, "-events"], ["record", directory, "-json"],
                     ["races", directory]):
            counted.made = 0
            try:
                status, out, err = mpipp_in_process(args)
            except Exception as exc:  # the fuzz's finding: name it
                pytest.fail("%s on %s: %r" % (" ".join(args[:1] + args[2:]), what, exc))
            assert status in (0, 1), (args, what, err)
            if status:
                assert err.startswith("mpipp: ") and err.count("\n") == 1, (args, what, err)
                seen["races refused" if args[0] == "races" and "follows" in err
                     else "refused"] += 1
                continue
            assert err == "", (args, what, err)
            seen["read"] += 1
            seen["damaged"] += "the record is damaged" in out
            # the work: a REPEAT is never expanded to read or list a record;
            # races follows at most EVENTS_FOLLOWED events
            bound = words + 8 if args[0] == "record" else EVENTS_FOLLOWED + words + 8
            assert counted.made <= bound, (args, what, counted.made, bound)
            if args[-1] == "-events":
                assert out.count("\n") <= words + 8, (what, out.count("\n"))
        shutil.rmtree(directory)
    print("record fuzz: %d corruptions, %s" % (ITERATIONS, seen))
    # the fuzz reached every answer
    assert all(seen.values()), seen


def set_word(directory, rank, word, value):
    path = os.path.join(directory, "rank.%d" % rank)
    with open(path, "r+b") as f:
        f.seek(HEADER.size + 8 * word)
        f.write(struct.pack("<Q", value))


def get_word(directory, rank, word):
    with open(os.path.join(directory, "rank.%d" % rank), "rb") as f:
        f.seek(HEADER.size + 8 * word)
        return struct.unpack("<Q", f.read(8))[0]


def find_word(directory, rank, kind, start=0):
    rec = reader.read_rank(os.path.join(directory, "rank.%d" % rank))
    return next(k for k in range(start, rec.words)
                if get_word(directory, rank, k) & 31 == KIND[kind])


def replayed(directory, args, nprocs):
    """(status, output) of replaying directory: a rank that leaves the
    record aborts the job (no rank waits for a debugger)."""
    return run(args, nprocs=nprocs, MPIPP_REPLAY=directory, MPIPP_REPLAY_DIVERGED="abort")


def test_a_damaged_word_stops_replay_with_the_words_of_mpipp_record(records, tmp_path):
    directory = str(tmp_path / "record")
    shutil.copytree(records["patterns"], directory)
    set_word(directory, 0, 7, get_word(directory, 0, 7) | 31)  # a kind no record has
    text = mpipp("record", directory)[1]
    assert "  the record is damaged at word 7: it ends there\n" in text, text
    status, output = replayed(directory, ["patterns", 3], 4)
    assert status != 0
    assert re.search(r"^mpipp replay: rank 0 diverged at step \d+: .* but the record is damaged "
                     r"at word 7: it ends there; stopped in mpipp_replay_diverged\(\)$", output,
                     re.M), output


@pytest.mark.parametrize("name,kind,shift", [("turns", "REPEAT", 9), ("patterns", "MISS", 15)])
def test_a_changed_count_in_a_closed_record_is_refused_at_mpi_init(records, tmp_path, name,
                                                                     kind, shift):
    """A REPEAT count that would run forever, a MISS count that would make a
    polling loop spin 2^47 times: a closed record's header says how many
    steps its events make."""
    directory = str(tmp_path / "record")
    shutil.copytree(records[name], directory)
    word = find_word(directory, 0, kind)
    value = get_word(directory, 0, word)
    set_word(directory, 0, word, value & ((1 << shift) - 1) | (1 << 47) << shift)
    text = mpipp("record", directory)[1]
    m = re.search(r"the record is damaged: its events make (\d+) steps where its header says "
                  r"(\d+)", text)
    assert m, text
    args, nprocs = PROGRAMS[name]
    status, output = replayed(directory, args, nprocs)
    assert status != 0
    assert re.search(r"^mpipp replay: rank 0 cannot replay: MPI_Init: \S+/rank\.0: the record is "
                     r"damaged: its events make %s steps where its header says %s; the job is "
                     r"aborted$" % m.groups(), output, re.M), output


def test_a_recorded_source_no_rank_has_is_damage(records, tmp_path):
    """Rank 0's first wildcard receive of anytag's race says it matched
    rank 9 of 4: replay stops with mpipp's line, not MPI's Invalid rank."""
    directory = str(tmp_path / "record")
    shutil.copytree(records["anytag"], directory)
    rec = reader.read_rank(os.path.join(directory, "rank.0"))
    wild = [e for e in rec.events if e.kind == "RECV" and e.flags & reader.ANY_SOURCE][0]
    value = get_word(directory, 0, wild.at)
    set_word(directory, 0, wild.at, value & ~(0xFFFFF << 12) | (9 + 1) << 12)
    text = mpipp("record", directory)[1]
    assert "  the record is damaged at word %d: it ends there\n" % wild.at in text, text
    status, output = replayed(directory, PROGRAMS["anytag"][0], 4)
    assert "Invalid rank" not in output, output
    assert re.search(r"^mpipp replay: rank 0 diverged at step \d+: MPI_Recv\(source=MPI_ANY_SOURCE"
                     r", tag=MPI_ANY_TAG, MPI_COMM_WORLD\) but the record is damaged at word %d: "
                     r"it ends there; stopped in mpipp_replay_diverged\(\)$" % wild.at, output,
                     re.M), output


def test_a_corrupted_record_replays_as_recorded_or_stops_with_one_line(records, tmp_path):
    """A few seeded corruptions of patterns, replayed: the job ends either
    with the recorded outcomes or with mpipp's line (never MPI's error)."""
    rng = random.Random(SEED)
    _, recorded = run(["patterns", 5], MPIPP_REPLAY=records["patterns"])
    for k in range(6):
        directory = str(tmp_path / ("%d" % k))
        shutil.copytree(records["patterns"], directory)
        what = corrupt(rng, directory)
        status, output = replayed(directory, ["patterns", 3], 4)
        if status == 0:
            assert outcomes(output) == outcomes(recorded), (what, output)
            continue
        lines = [line for line in output.splitlines() if line.startswith("mpipp replay: ")]
        assert lines, (what, output)
        for line in lines:
            damaged = re.search(r"rank (\d+) .*(the record is damaged.*?)(; stopped|; the job)",
                                line)
            if damaged:  # the words of mpipp record
                assert damaged.group(2) in mpipp("record", directory)[1], (what, line)
