"""`mpipp context -json` documents built by hand (MPICH's constants), for
the gdb-free tests of the job console's analyses."""

import dtypes as M
from mpipp.model.datatype_json import dump_types

WORLD, SELF = 0x44000000, 0x44000001
CONSTANTS = {"MPI_ANY_SOURCE": -2, "MPI_ANY_TAG": -1, "MPI_PROC_NULL": -1, "MPI_ROOT": -3,
             "MPI_UNDEFINED": -32766, "MPI_COMM_WORLD": WORLD, "MPI_COMM_SELF": SELF}
TYPES = {0x4c00010d: M.INT, 0x4c00080b: M.DOUBLE}
INT, DOUBLE = 0x4c00010d, 0x4c00080b
# libmpireg's channel kinds (channels.h) and its "no peer"
KINDS = {"collectives": -1, "fences": -2, "locks_shared": -3, "locks_exclusive": -4,
         "starts": -5, "posts": -6, "retired": -100}
NO_PEER = -2 ** 31


def comm(handle, name, members, rank_of):
    return {"handle": handle, "name": name, "size": len(members),
            "rank": members.index(rank_of) if rank_of in members else -1, "remote_size": 0,
            "members": members, "remote_members": None, "creator": None, "parent": 0,
            "predefined": handle in (WORLD, SELF)}


def intercomm(rank, low, high, handle=0x84000002):
    """The intercommunicator "inter" between the groups low and high (world
    ranks) as rank sees it: the other group is its remote group."""
    local, remote = (low, high) if rank in low else (high, low)
    return dict(comm(handle, "inter", local, rank), remote_members=remote,
                remote_size=len(remote))


NAMES = {INT: "MPI_INT", DOUBLE: "MPI_DOUBLE"}


def buf(role, count, datatype, peers=None, count_name=None, in_place=False, name=None):
    """A buffer; its datatype's label is name, MPI_INT or MPI_DOUBLE."""
    return {"role": role, "count_name": count_name, "address": 0x1000, "in_place": in_place,
            "count": None if peers else count, "datatype": datatype,
            "type": name or NAMES.get(datatype), "peers": peers}


def call(function, comm=WORLD, peer=None, tag=None, bufs=(), peer_name=None, peer2=None,
         tag2=None, seq=None, group=None, win=None, exclusive=False, op=None):
    return {"function": function, "site": None, "text": function, "comm": comm,
            "peer_name": peer_name or ("dest" if peer is not None else None), "peer": peer,
            "tag": tag, "peer2_name": "source" if peer2 is not None else None, "peer2": peer2,
            "tag2": tag2, "op": op, "bufs": list(bufs), "seq": seq, "group": group,
            "win": win, "exclusive": exclusive}


def message(peer, tag, sent=0, received=0, comm=WORLD, datatype=None, count=None):
    """A channel record of messages (libmpireg/context/channels.h)."""
    return [comm, peer, tag, sent, received, datatype, count, 0]


def counter(kind, sent=0, received=0, handle=WORLD, peer=NO_PEER, scope=0):
    """A channel record of another kind: collectives of a communicator, a
    window's fences, locks, epochs (scope: the window's communicator)."""
    return [handle, peer, KINDS[kind], sent, received, None, None, scope]


def doc(rank, size, calls=(), requests=(), waits=(), comms=None, types=None, channels=(),
        polling=(), unrecorded=0):
    """calls: one per thread (None: not in MPI); requests: calls posted as
    requests (handles 0x100, 0x101..., posted in that order by the first
    thread); waits: indices of requests the first thread's Wait call waits
    for; channels: channel records (message(), counter()); polling: threads
    whose call is a Test/Iprobe that found nothing (not inside MPI)."""
    reqs = [{"request": 0x100 + k, "serial": k + 1, "status": "pending", "persistent": False,
             "cancelled": False, "lwp": 100, "call": c} for k, c in enumerate(requests)]
    threads = []
    for k, c in enumerate(calls):
        threads.append({"lwp": 100 + k, "gdb_thread": k + 1, "in_mpi": c is not None and
                        k not in polling, "polling": k in polling, "torn": False,
                        "call": c, "waits_for": [{"index": i, "request": 0x100 + w,
                                                  "serial": w + 1}
                                                 for i, w in enumerate(waits)] if k == 0 else []})
    all_comms = [comm(SELF, "MPI_COMM_SELF", [rank], rank),
                 comm(WORLD, "MPI_COMM_WORLD", list(range(size)), rank)] + list(comms or ())
    return {"version": 1, "pid": 1000 + rank, "rank": rank, "size": size,
            "constants": CONSTANTS, "threads": threads, "requests": reqs, "comms": all_comms,
            "types": dump_types(types or TYPES), "updating": False,
            "channels": {"kinds": KINDS, "no_peer": NO_PEER, "records": list(channels),
                         "unrecorded_sent": unrecorded, "unrecorded_received": 0},
            "messages": []}
