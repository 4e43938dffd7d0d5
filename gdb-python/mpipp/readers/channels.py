"""Reader of libmpireg's channel counters (layout: libmpireg/context/channels.h).

Per (communicator, peer, tag): the messages this process started and the
receives that matched one, with the last message sent; per communicator the
collectives issued; per window its fences, locks and PSCW epochs; the
messages matched probes hold.  Plain memory reads through
`memory.read(address, length)` (remote.RemoteView): no gdb here, every
count and list bounded, every failure one ChannelsError line.
"""

import struct

from .errors import MpippError
from .remote import RecordFormat, RemoteView

MAGIC = 0x314E414843504D6D  # "mMPCHAN1"
LAYOUT_VERSION = 1
ROOT = struct.Struct("<QIIQIIQQQQQQ")
MAX_RECORD = 1 << 12
MAX_CHUNKS = 1 << 12
MAX_RECORDS = 1 << 20
MAX_MESSAGES = 1 << 12
FREE_SLOT = bytes(8)    # the handle of a matched-message slot not in use

CHANNEL_FIELDS = (("object", "<Q"), ("peer", "<i"), ("kind", "<i"), ("sent", "<Q"),
                  ("received", "<Q"), ("last_datatype", "<Q"), ("last_count", "<q"),
                  ("last_bound", "<Q"), ("scope", "<Q"))
MESSAGE_FIELDS = (("handle", "<Q"), ("comm", "<Q"), ("source", "<i"), ("tag", "<i"),
                  ("ordinal", "<q"))
LAYOUT = (("sizeof.channel", MAX_RECORD,
           [("channel." + name, struct.calcsize(fmt)) for name, fmt in CHANNEL_FIELDS]),
          ("sizeof.message", MAX_RECORD,
           [("message." + name, struct.calcsize(fmt)) for name, fmt in MESSAGE_FIELDS]))
KINDS = ("collectives", "fences", "locks_shared", "locks_exclusive", "starts", "posts",
         "retired")
NEEDED = ("chunk.next", "chunk.used", "chunk.records", "chunk.capacity", "peer.none") + \
    tuple("kind." + k for k in KINDS)


class ChannelsError(MpippError):
    """The channel counters are corrupted or caught in the middle of an update."""


class Record:
    """One channel record (see libmpireg/context/channels.h)."""

    __slots__ = tuple(name for name, _fmt in CHANNEL_FIELDS)


class Message:
    """A message a matched probe holds."""

    __slots__ = tuple(name for name, _fmt in MESSAGE_FIELDS)


class Channels(RemoteView):
    """One view of the channel counters, valid while the inferior is stopped."""

    error = ChannelsError
    subject = "channel counters"

    def __init__(self, memory, root_address):
        super().__init__(memory)
        raw = self.read(root_address, ROOT.size, "channels root")
        (magic, version, _size, self.seq, n_constants, self.n_messages, constants,
         self.chunks, self.n_records, self.unrecorded_sent, self.unrecorded_received,
         self.messages_address) = ROOT.unpack(raw)
        if magic != MAGIC:
            raise ChannelsError("channels root at 0x%x has a bad magic number" % root_address)
        if version != LAYOUT_VERSION:
            raise ChannelsError("channels layout version %d is not supported (expected %d)"
                                % (version, LAYOUT_VERSION))
        if self.seq & 1:
            raise ChannelsError("channel counters caught in the middle of an update "
                                "(sequence %d); step past the MPI call and retry" % self.seq)
        self.c = self.read_constants(constants, n_constants, NEEDED, LAYOUT)
        self.channel_format, self.message_format = self.derived("formats", self._formats)
        self.kinds = {k: self.c["kind." + k] for k in KINDS}
        self.no_peer = self.c["peer.none"]

    def _formats(self):
        c = self.c
        return (RecordFormat(self, c, "channel.", CHANNEL_FIELDS, c["sizeof.channel"]),
                RecordFormat(self, c, "message.", MESSAGE_FIELDS, c["sizeof.message"]))

    def records(self):
        """[Record] of every live record (retired ones left out), one read per chunk."""
        c = self.c
        size, capacity = c["sizeof.channel"], c["chunk.capacity"]
        if not 0 < capacity <= MAX_RECORDS:
            raise ChannelsError("channel counters are corrupted (chunk capacity %d)" % capacity)
        out, seen, address = [], set(), self.chunks
        while address:
            if address in seen or len(seen) > MAX_CHUNKS:
                raise ChannelsError("channel chunk list is corrupted (cycle)")
            seen.add(address)
            head = self.read(address, c["chunk.records"], "a channel chunk")
            next_, = struct.unpack_from("<Q", head, c["chunk.next"])
            used, = struct.unpack_from("<I", head, c["chunk.used"])
            if used > capacity:
                raise ChannelsError("channel chunk at 0x%x is corrupted (%d records)"
                                    % (address, used))
            raw = self.read(address + c["chunk.records"], used * size, "channel records")
            for k in range(used):
                record = self.channel_format.fill(Record(), raw, k * size)
                if record.kind != self.kinds["retired"]:
                    out.append(record)
            address = next_
        return out

    def messages(self):
        """[(handle, comm, source, tag, ordinal)] of the messages matched
        probes hold (MPI_Mprobe, MPI_Improbe) until MPI_Mrecv takes them."""
        n = min(self.n_messages, MAX_MESSAGES)
        if not n or not self.messages_address:
            return []
        size = self.c["sizeof.message"]
        raw = self.read(self.messages_address, n * size, "matched messages")
        handle_at = self.c["message.handle"]
        out = []
        for base in range(0, n * size, size):
            if raw[base + handle_at:base + handle_at + 8] != FREE_SLOT:
                m = self.message_format.fill(Message(), raw, base)
                out.append((m.handle, m.comm, m.source, m.tag, m.ordinal))
        return out
