"""An mpi4py job (Debian's python3-mpi4py: Open MPI): per turn, a ring
exchange of doubles (Sendrecv), their sum over the job (Allreduce), a
Python object broadcast (Bcast of its pickle) and a Barrier.  Rank 0
prints what the turn computed.  `ring.py TURNS` (0: until killed)."""

import sys
from array import array

from mpi4py import MPI


def turn(comm, k):
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = array("d", [rank + k + j / 4 for j in range(8)])
    got = array("d", [0.0] * 8)
    comm.Sendrecv(mine, dest=(rank + 1) % size, sendtag=k % 7, recvbuf=got,
                  source=(rank - 1) % size, recvtag=k % 7)
    total = array("d", [0.0] * 8)
    comm.Allreduce(got, total, op=MPI.SUM)
    plan = comm.bcast({"turn": k, "scale": 2 * k + 1} if rank == 0 else None, root=0)
    comm.Barrier()
    return sum(total) * plan["scale"]


def main():
    comm = MPI.COMM_WORLD
    turns = int(sys.argv[1])
    k = 0
    while turns == 0 or k < turns:
        value = turn(comm, k)
        if comm.Get_rank() == 0:
            print("turn %d: %.6f" % (k, value), flush=True)
        k += 1


main()
