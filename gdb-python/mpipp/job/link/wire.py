"""Messages between mpipp-job's console and the back-ends next to the
ranks (gdb-free): one JSON object per line, over TCP.

Down the tree: {"t": "ask", "id", "ranks", "cmd", "document"},
{"t": "signal", "ranks"} (SIGINT a busy gdb), {"t": "reconnect", "id",
"ranks"}, {"t": "peek", "id", "ranges": {rank: [[address, length]...]}}
(read running ranks' memory: peek.py).  Up: {"t": "ready", "ranks":
[info...]}, {"t": "answer", "id", "groups": [...]}, {"t": "events",
"events": [...]}, {"t": "peeked", "id", "data": {rank: [hex or null...]}}
(the ranks of a peek at and below the node that sends it).  A closed
connection is the lifeline: a back-end whose parent is gone ends its rank,
its gdb and its own children's connections.
"""

import json
import socket

READ_CHUNK = 1 << 16
# In a command asked with "document": the file the command writes, which
# the back-end replaces by a file of its own and sends up the contents of.
DOCUMENT = "@@mpipp-document@@"


def encode(message):
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8", "surrogateescape")


class Link:
    """One connection: send() a message, receive() the messages that came."""

    def __init__(self, sock):
        self.sock, self.fd = sock, sock.fileno()
        self.partial = b""
        self.closed = False

    def send(self, message):
        if self.closed:
            return False
        try:
            self.sock.sendall(encode(message))
            return True
        except OSError:
            self.close()
            return False

    def receive(self):
        """The complete messages read now; None once the peer closed."""
        try:
            data = self.sock.recv(READ_CHUNK)
        except BlockingIOError:
            return []
        except OSError:
            data = b""
        if not data:
            self.close()
            return None
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        out = []
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                out.append(message)
        return out

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()


def from_hex(items):
    """The [bytes or None] of a peek's answer (peek.read_hex)."""
    return [bytes.fromhex(h) if h is not None else None for h in items]
