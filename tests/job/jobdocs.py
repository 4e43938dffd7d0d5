"""`mpipp context -json` documents built by hand (MPICH's constants), for
the gdb-free tests of the job console's analyses."""

import dtypes as M
from mpipp.model.datatype_json import dump_types

WORLD, SELF = 0x44000000, 0x44000001
CONSTANTS = {"MPI_ANY_SOURCE": -2, "MPI_ANY_TAG": -1, "MPI_PROC_NULL": -1, "MPI_ROOT": -3,
             "MPI_UNDEFINED": -32766, "MPI_COMM_WORLD": WORLD, "MPI_COMM_SELF": SELF}
TYPES = {0x4c00010d: M.INT, 0x4c00080b: M.DOUBLE}
INT, DOUBLE = 0x4c00010d, 0x4c00080b


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
         tag2=None):
    return {"function": function, "site": None, "text": function, "comm": comm,
            "peer_name": peer_name or ("dest" if peer is not None else None), "peer": peer,
            "tag": tag, "peer2_name": "source" if peer2 is not None else None, "peer2": peer2,
            "tag2": tag2, "op": None, "bufs": list(bufs)}


def doc(rank, size, calls=(), requests=(), waits=(), comms=None, types=None):
    """calls: one per thread (None: not in MPI); requests: calls posted as
    requests (handles 0x100, 0x101...); waits: indices of requests the first
    thread's Wait call waits for."""
    reqs = [{"request": 0x100 + k, "serial": k + 1, "status": "pending", "persistent": False,
             "cancelled": False, "lwp": 100, "call": c} for k, c in enumerate(requests)]
    threads = []
    for k, c in enumerate(calls):
        threads.append({"lwp": 100 + k, "in_mpi": c is not None, "torn": False,
                        "call": c, "waits_for": [{"index": i, "request": 0x100 + w,
                                                  "serial": w + 1}
                                                 for i, w in enumerate(waits)] if k == 0 else []})
    all_comms = [comm(SELF, "MPI_COMM_SELF", [rank], rank),
                 comm(WORLD, "MPI_COMM_WORLD", list(range(size)), rank)] + list(comms or ())
    return {"version": 1, "pid": 1000 + rank, "rank": rank, "size": size,
            "constants": CONSTANTS, "threads": threads, "requests": reqs, "comms": all_comms,
            "types": dump_types(types or TYPES), "updating": False}
