"""The record reader and the race analysis on hand-written records
(gdb-free, no MPI): the layout as libmpireg/replay/record.h has it, cut and
damaged records, escaped fields, and the orders that make or unmake a race
-- messages, synchronous sends, collectives of every shape."""

import json
import os
import re
import struct
import subprocess

import pytest

from mpipp.record import cli, reader
from mpipp.record.races import Analysis
from mpipp.record.reader import RecordError, read_rank, read_record
from recwriter import (choice, coll, comm_def, done, extended, message, miss, repeat, site,
                       write)
from replayrun import MPIPP

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD_H = os.path.join(HERE, "..", "..", "libmpireg", "replay", "record.h")
ANY_SOURCE, ANY_TAG, SYNC = 1, 2, 1


def record_h():
    with open(RECORD_H) as f:
        return f.read()


def test_the_reader_mirrors_record_h():
    text = record_h()
    kinds = re.search(r"enum \{\s*MPIREG_RR_SEND = 1,(.*?)MPIREG_RR_KINDS", text, re.S).group(1)
    names = ["SEND"] + re.findall(r"MPIREG_RR_(\w+),", kinds)
    assert tuple(names) == reader.KINDS[1:]
    assert '#define MPIREG_RR_MAGIC "%s"' % reader.MAGIC.decode() in text
    assert "#define MPIREG_RR_VERSION %du" % reader.VERSION in text
    for name, value in (("COMM_ESCAPE", reader.COMM_ESCAPE), ("TAG_ESCAPE", reader.TAG_ESCAPE),
                        ("DELTA_ESCAPE", reader.DELTA_ESCAPE), ("UNDEFINED", reader.UNDEFINED)):
        assert re.search(r"#define MPIREG_RR_%s (0x%X|%d)u" % (name, value, value), text), name
    assert "#define MPIREG_RR_MEMBERS_MAX %d" % reader.MEMBERS_MAX in text
    assert reader.HEADER.size == 64
    shapes = re.search(r"MPIREG_RR_SHAPE_ALL = 1,(.*?)\};", text, re.S).group(1)
    assert ["ALL"] + re.findall(r"MPIREG_RR_SHAPE_(\w+),", shapes) == \
        [reader.SHAPES[k].upper() for k in sorted(reader.SHAPES)]


def test_every_kind_of_event_and_the_steps(tmp_path):
    events = [site(1, 0x401234), comm_def(1, 1, [0, 2]),
              message("IRECV", None, 0, flags=ANY_SOURCE | ANY_TAG, site=1),   # step 1
              miss("TESTANY", 5),                                              # steps 2-6
              choice("TESTANY", 3, 0),                                         # 7
              done(7, 2, 9),                                                   # 8
              choice("WAITSOME", 4, 3, [3, 1, 2]),                             # 9
              choice("WAITANY", 2, None),                                      # 10
              coll("from_root", 1, comm=1),                                    # 11
              message("SEND", 1, 5, comm=1, flags=SYNC)]                       # 12
    rec = read_rank(write(str(tmp_path), 0, 4, events))
    kinds = [(e.step, e.kind) for e in rec.events]
    assert kinds == [(1, "IRECV"), (2, "MISS"), (7, "TESTANY"), (8, "DONE"), (9, "WAITSOME"),
                     (10, "WAITANY"), (11, "COLL"), (12, "SEND")]
    irecv, _, _, completion, some, none, bcast, send = rec.events
    assert irecv.site == 0x401234 and irecv.peer is None and irecv.done == 8
    assert (completion.post, completion.peer, completion.tag) == (1, 2, 9)
    assert some.indices == [3, 1, 2] and none.value is None
    assert (bcast.comm, bcast.shape, bcast.root) == (1, "from_root", 1)
    assert (send.comm, send.peer, send.tag, send.flags) == (1, 1, 5, SYNC)
    assert rec.comms[1].members == [0, 2] and rec.steps == 12
    assert rec.state == "closed" and rec.cut_note() == "closed at MPI_Finalize"


def test_a_repeat_replays_the_events_before_it(tmp_path):
    """A ping-pong: a send, a receive, then a REPEAT of the pair 3 times;
    then a wildcard request whose post and completion repeat twice."""
    events = [message("SEND", 1, 5), message("RECV", 1, 5), repeat(2, 3),
              message("IRECV", None, 6, flags=ANY_SOURCE), done(1, 1, 6), repeat(2, 2)]
    rec = read_rank(write(str(tmp_path), 0, 2, events))
    assert [e.kind for e in rec.events] == ["SEND", "RECV", "REPEAT", "IRECV", "DONE", "REPEAT"]
    assert [(e.step, e.steps) for e in rec.events] == [(1, 1), (2, 1), (3, 6), (9, 1), (10, 1),
                                                       (11, 4)]
    assert rec.steps == 14 and rec.events[2].count == 3
    expanded = list(rec.expanded())
    assert [e.kind for e in expanded] == ["SEND", "RECV"] * 4 + ["IRECV", "DONE"] * 3
    assert [e.step for e in expanded] == list(range(1, 15))
    posts = [e for e in expanded if e.kind == "IRECV"]
    assert [(e.step, e.done) for e in posts] == [(9, 10), (11, 12), (13, 14)]
    bad = write(str(tmp_path / "bad"), 0, 2, [miss("TEST", 3), repeat(1, 2)])
    assert read_rank(bad).damaged == 1


def test_escaped_fields(tmp_path):
    events = [comm_def(31, 40, [0, 1]),
              extended(message("SEND", 1, 0xFFFFF, comm=31), 5000000, 40),
              message("IRECV", 1, 7), miss("TEST", 600000), done(600001, 1, 7),
              message("IRECV", 1, 0, flags=ANY_TAG), done(1, 1, 3000000)]
    rec = read_rank(write(str(tmp_path), 0, 2, events))
    send, post, _, first, wild, second = rec.events
    assert (send.comm, send.tag) == (40, 5000000)
    assert (first.post, first.tag, post.done) == (post.step, 7, first.step)
    assert (second.post, second.tag, wild.done) == (wild.step, 3000000, second.step)


@pytest.mark.parametrize("tail,pad", [
    ([0, message("SEND", 1, 1)], 3),          # a 0 ends it, whatever follows
    ([choice("TESTSOME", 3, 3)[0]], 0),        # indices past the end of the file
    ([0x1F], 3),                               # an unknown kind: damaged
])
def test_a_cut_record_ends_at_the_last_whole_event(tmp_path, tail, pad):
    path = write(str(tmp_path), 0, 2, [message("SEND", 1, 1)] + tail, state=1, pad=pad)
    rec = read_rank(path)
    assert rec.steps == 1 and rec.state == "open"
    assert rec.cut_note() == ("not closed: the rank was killed, crashed or hung (or still runs); "
                              "the record ends after step 1")
    assert (rec.damaged is not None) == (tail == [0x1F])


def test_files_that_are_not_records(tmp_path):
    (tmp_path / "rank.0").write_bytes(b"hello")
    with pytest.raises(RecordError, match="is not an mpipp record"):
        read_record(str(tmp_path))
    with pytest.raises(RecordError, match="holds no record"):
        read_record(str(tmp_path / ".."))
    write(str(tmp_path / "two"), 0, 2, [], job=1)
    write(str(tmp_path / "two"), 1, 2, [], job=2)
    record = read_record(str(tmp_path / "two"))
    assert record.missing == [(1, 1)] and "from another run" in record.notes[0]


def races_of(directory, ranks):
    """The Analysis of a job whose rank r recorded ranks[r]."""
    for r, events in enumerate(ranks):
        write(directory, r, len(ranks), events)
    return Analysis(read_record(directory))


RECV_ANY = dict(flags=ANY_SOURCE)


def test_two_senders_race_to_a_wildcard(tmp_path):
    a = races_of(str(tmp_path), [[message("RECV", 1, 5, **RECV_ANY), message("RECV", 2, 5, **RECV_ANY)],
                                 [message("SEND", 0, 5)], [message("SEND", 0, 5)]])
    assert len(a.wildcards) == 2 and len(a.races) == 1
    race = a.races[0]
    assert (race.receive.event.step, race.received.rank, [s.rank for s in race.others]) == \
        (1, 1, [2])


def test_a_send_after_the_receive_does_not_race(tmp_path):
    """Rank 2 sends after rank 0 told it it received rank 1's message."""
    a = races_of(str(tmp_path), [
        [message("RECV", 1, 5, **RECV_ANY), message("SEND", 2, 9), message("RECV", 2, 5, **RECV_ANY)],
        [message("SEND", 0, 5)],
        [message("RECV", 0, 9), message("SEND", 0, 5)]])
    assert len(a.wildcards) == 2 and a.races == [] and a.notes == []


def test_a_synchronous_send_orders_what_its_sender_does_next(tmp_path):
    """Rank 1's Ssend returns once rank 0 matched it; rank 1 then tells
    rank 2, who sends: rank 0's first receive could not take that."""
    ranks = [[message("RECV", 1, 5, **RECV_ANY), message("RECV", 2, 5, **RECV_ANY)],
             [message("SEND", 0, 5, flags=SYNC), message("SEND", 2, 9)],
             [message("RECV", 1, 9), message("SEND", 0, 5)]]
    assert races_of(str(tmp_path / "ssend"), ranks).races == []
    ranks[1][0] = message("SEND", 0, 5)  # a standard send may return before
    assert len(races_of(str(tmp_path / "send"), ranks).races) == 1


@pytest.mark.parametrize("shape,root,racing", [
    ("all", None, 0), ("from_root", 0, 0), ("to_root", 0, 1), ("prefix", None, 0),
])
def test_collectives_order_by_their_shape(tmp_path, shape, root, racing):
    """Rank 0 receives, then a collective, then rank 2 sends: ordered when
    rank 0's contribution reaches rank 2 (barrier, bcast from 0, scan), not
    by a reduce to rank 0."""
    ranks = [[message("RECV", 1, 5, **RECV_ANY), coll(shape, root), message("RECV", 2, 5, **RECV_ANY)],
             [message("SEND", 0, 5), coll(shape, root)],
             [coll(shape, root), message("SEND", 0, 5)]]
    assert len(races_of(str(tmp_path), ranks).races) == racing


def test_any_tag_from_one_sender_never_races(tmp_path):
    """MPI's non-overtaking rule, per (communicator, sender) whatever the
    tag: a receive from rank 1 with MPI_ANY_TAG takes rank 1's first
    message, never one rank 1 sent later (GROMACS's halo receives) -- nor
    does a probe of any tag."""
    a = races_of(str(tmp_path), [
        [message("PROBE", 1, 5, flags=ANY_TAG), message("RECV", 1, 5, flags=ANY_TAG),
         message("RECV", 1, 6, flags=ANY_TAG), message("RECV", 1, 7, flags=ANY_TAG)],
        [message("SEND", 0, 5), message("SEND", 0, 6), message("SEND", 0, 7)]])
    assert len(a.wildcards) == 4 and a.races == [] and a.notes == []


def test_any_tag_takes_what_an_earlier_receive_left(tmp_path):
    """Rank 0 posts a receive of tag 5 from rank 1, then one of any tag:
    the message of tag 5 is not the any-tag receive's to take."""
    a = races_of(str(tmp_path), [
        [message("IRECV", 1, 5), message("RECV", 1, 6, flags=ANY_TAG), done(2, 1, 5)],
        [message("SEND", 0, 5), message("SEND", 0, 6)]])
    assert len(a.wildcards) == 1 and a.races == []


def test_any_source_races_with_the_first_message_of_each_other_sender(tmp_path):
    """MPI_ANY_SOURCE and MPI_ANY_TAG: the first receive got rank 1's tag 5;
    it could have got rank 2's first message (tag 7), never rank 1's
    second (tag 6) nor rank 2's second (tag 8)."""
    any_both = dict(flags=ANY_SOURCE | ANY_TAG)
    a = races_of(str(tmp_path), [
        [message("RECV", 1, 5, **any_both), message("RECV", 1, 6, **any_both),
         message("RECV", 2, 7, **any_both), message("RECV", 2, 8, **any_both)],
        [message("SEND", 0, 5), message("SEND", 0, 6)],
        [message("SEND", 0, 7), message("SEND", 0, 8)]])
    first = [(r.receive.event.step, r.received.tag, [(s.rank, s.tag) for s in r.others])
             for r in a.races]
    assert first[0] == (1, 5, [(2, 7)])
    assert all((1, 6) not in others and (2, 8) not in others for _, _, others in first)


def test_a_tag_the_receive_refuses_does_not_hide_the_next(tmp_path):
    """Rank 2 sends tag 9, then tag 5: a receive of tag 5 from any source
    could take the second (the first is not one it accepts)."""
    a = races_of(str(tmp_path), [
        [message("RECV", 1, 5, **RECV_ANY), message("RECV", 2, 5, **RECV_ANY),
         message("RECV", 2, 9)],
        [message("SEND", 0, 5)],
        [message("SEND", 0, 9), message("SEND", 0, 5)]])
    assert [(r.receive.event.step, [(s.rank, s.tag) for s in r.others]) for r in a.races] == \
        [(1, [(2, 5)])]


def test_requests_complete_where_they_are_waited_for(tmp_path):
    """Rank 0 posts a wildcard request, tells rank 2 to send, then waits:
    rank 2's message could have been the one it got."""
    a = races_of(str(tmp_path), [
        [message("IRECV", None, 5, flags=ANY_SOURCE), message("SEND", 2, 9), done(2, 1, 5)],
        [message("SEND", 0, 5)],
        [message("RECV", 0, 9), message("SEND", 0, 5)]])
    assert len(a.races) == 1 and a.races[0].others[0].rank == 2


def test_a_cut_sender_is_noted(tmp_path):
    a = races_of(str(tmp_path), [[message("RECV", 1, 5, **RECV_ANY)], []])
    assert a.races == [] and "not in the record" in a.notes[0]


def test_sub_communicators_pair_by_their_members(tmp_path):
    """Ranks 0 and 2 share communicator #1 (ranks 0 and 1 in it); rank 1 is
    not in it.  Rank 1's message on the world is no candidate."""
    a = races_of(str(tmp_path), [
        [comm_def(1, 1, [0, 2]), message("RECV", 1, 5, comm=1, **RECV_ANY),
         message("RECV", 1, 5, **RECV_ANY)],
        [message("SEND", 0, 5)],
        [comm_def(1, 1, [0, 2]), message("SEND", 0, 5, comm=1)]])
    assert a.races == []
    assert a.races == [] and len(a.wildcards) == 2


def test_the_command_line(tmp_path, capsys):
    directory = str(tmp_path)
    races_of(directory, [[message("RECV", 1, 5, **RECV_ANY), message("RECV", 2, 5, **RECV_ANY)],
                         [message("SEND", 0, 5)], [message("SEND", 0, 5)]])
    assert cli.main(["races", directory]) == 0
    out = capsys.readouterr().out
    assert out == ("rank 0, step 1: MPI_Recv(MPI_ANY_SOURCE, tag 5, MPI_COMM_WORLD)\n"
                   "    received rank 1's message (its step 1: send, tag 5)\n"
                   "    could have received rank 2's message (its step 1: send, tag 5)\n"
                   "1 race: 1 of 2 wildcard receives and probes could have matched another "
                   "message\n")
    assert cli.main(["races", directory, "-json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["racing"] == 1 and doc["races"][0]["could_have_received"][0]["rank"] == 2
    assert cli.main(["record", directory, "-events"]) == 0
    out = capsys.readouterr().out
    assert "  step 1: MPI_Recv (source MPI_ANY_SOURCE, tag 5) matched source 1, tag 5 on " \
           "MPI_COMM_WORLD\n" in out
    assert cli.main(["races"]) == 2 and "usage" in capsys.readouterr().err
    assert cli.main(["record", directory, "-frob"]) == 2
    assert capsys.readouterr().err.startswith("unknown option -frob\n")
    assert cli.main(["races", str(tmp_path / "none")]) == 1
    assert capsys.readouterr().err.startswith("mpipp: cannot read ")


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    """mpipp record DIR -events | head: the pipe closes under the writer."""
    directory = str(tmp_path)
    write(directory, 0, 2, [message("SEND", 1, 5), repeat(1, 10)] +
          [message("SEND", 1, tag) for tag in range(5000)])
    write(directory, 1, 2, [message("RECV", 0, 5)])
    proc = subprocess.run("%s record %s -events | head -3" % (MPIPP, directory), shell=True,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 3 and proc.stderr == "", proc.stderr


@pytest.mark.parametrize("field,offset,fmt,value", [
    ("header size", 12, "<I", 2 ** 31 - 1), ("header size", 12, "<I", 0),
    ("header size", 12, "<I", 68), ("size", 20, "<i", -1), ("size", 20, "<i", 2 ** 31 - 1),
    ("rank", 16, "<i", 5), ("state", 24, "<I", 9),
])
def test_a_damaged_header_is_one_line(tmp_path, field, offset, fmt, value):
    path = write(str(tmp_path), 0, 2, [message("SEND", 1, 5)])
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack(fmt, value))
    with pytest.raises(RecordError, match=r"rank\.0: the record's header is damaged \("):
        read_record(str(tmp_path))


@pytest.mark.parametrize("events,damaged", [
    ([message("SEND", None, 5)], 0),                       # a send to no rank
    ([message("SEND", 1, 5), message("RECV", 7, 5)], 1),   # a source past the world
    ([message("SEND", 1, 5, comm=3)], 0),                  # a slot no COMM gave
    ([message("SEND", 1, 5, site=9)], 0),                  # a site no SITE gave
    ([coll("all") | 7 << 10], 0),                          # no such shape
    ([miss("SEND", 3)], 0),                                # a MISS of no polling call
    ([message("SEND", 1, 5), done(5, 1, 5)], 1),           # a completion before any post
    ([message("SEND", 1, 5), repeat(0, 3)], 1),            # a REPEAT of nothing
    ([message("SEND", 1, 5), repeat(1, 0)], 1),            # a REPEAT of no turn
    ([comm_def(1, 1, [0, 9])], 0),                         # a member past the world
    ([comm_def(1, 2, [0, 1]), comm_def(2, 2, [0, 1])], 3),  # an ordinal given twice
    ([comm_def(1, 1, [0, 1]), message("IRECV", None, 5, comm=1, flags=ANY_SOURCE),
      done(1, 2, 5)], 4),                                  # matched a rank its comm has not
])
def test_an_event_no_record_holds_is_where_the_record_is_damaged(tmp_path, events, damaged):
    rec = read_rank(write(str(tmp_path), 0, 3, events))
    assert rec.damaged == damaged
    assert rec.damage_note() == "the record is damaged at word %d: it ends there" % damaged


def test_a_closed_record_must_make_the_steps_its_header_counted(tmp_path):
    path = write(str(tmp_path), 0, 2, [miss("IPROBE", 1000), message("SEND", 1, 5)],
                 closed_steps=1001)
    assert read_rank(path).damage_note() is None
    path = write(str(tmp_path), 0, 2, [miss("IPROBE", 1 << 47), message("SEND", 1, 5)],
                 closed_steps=1001)
    assert read_rank(path).damage_note() == ("the record is damaged: its events make %d steps "
                                             "where its header says 1001" % ((1 << 47) + 1))


def test_a_header_of_a_million_ranks_costs_what_the_files_hold(tmp_path, capsys):
    """The ranks without a file are ranges; the clocks of races have an
    entry per rank with a record."""
    directory = str(tmp_path)
    write(directory, 0, 1000000, [message("RECV", 1, 5, flags=ANY_SOURCE)])
    write(directory, 1, 1000000, [message("SEND", 0, 5)])
    record = read_record(directory)
    assert record.missing == [(2, 999999)]
    analysis = Analysis(record)
    assert analysis.width == 2 and len(analysis.wildcards) == 1
    assert cli.main(["races", directory]) == 0
    assert "note: ranks 2-999999 have no record: their messages are not seen\n" in \
        capsys.readouterr().out


@pytest.mark.parametrize("flags,status", [(0, 0), (ANY_SOURCE, 1)])
def test_races_of_a_loop_of_a_million_turns(tmp_path, capsys, flags, status):
    """Without a wildcard there is no race to find, whatever the loop (no
    turn is followed); with one, races follows at most EVENTS_FOLLOWED
    events beyond those written and says so in one line."""
    directory = str(tmp_path)
    write(directory, 0, 2, [message("RECV", 1, 5, flags=flags), repeat(1, 10 ** 6)])
    write(directory, 1, 2, [message("SEND", 0, 5), repeat(1, 10 ** 6)])
    assert cli.main(["races", directory]) == status
    out, err = capsys.readouterr()
    if status:
        assert err == ("mpipp: %s: the recorded loops repeat their events 2000000 times, more "
                       "than the 200000 the race analysis follows\n" % directory)
    else:
        assert out == "no races: 0 of 0 wildcard receives and probes could have matched another " \
            "message\n"


def test_a_member_not_known_is_no_damage(tmp_path):
    """A spawned process is in no MPI_COMM_WORLD of the job: UNDEFINED."""
    rec = read_rank(write(str(tmp_path), 0, 2, [comm_def(1, 1, [0], [0xFFFFFFFF]),
                                                 message("SEND", 0, 5, comm=1)]))
    assert rec.damaged is None and rec.comms[1].remote_members == [None]
    assert Analysis(read_record(str(tmp_path))).races == []


def test_an_intercommunicators_remote_group_bounds_its_sources(tmp_path):
    """A wildcard receive on an intercommunicator to a larger spawned group
    matched remote rank 2 of 3 in a world of 2: no damage; rank 3 is."""
    inter = comm_def(1, 1, [0], [0xFFFFFFFF] * 3)
    post = message("IRECV", None, 5, comm=1, flags=ANY_SOURCE)
    rec = read_rank(write(str(tmp_path), 0, 2, [inter, post, done(1, 2, 5)]))
    assert rec.damaged is None, rec.damage_note()
    done_event = rec.events[-1]
    assert (done_event.kind, done_event.peer) == ("DONE", 2)
    rec = read_rank(write(str(tmp_path), 0, 2, [inter, post, done(1, 3, 5)]))
    assert rec.damaged == len(inter) + 1
