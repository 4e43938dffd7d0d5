/*
 * ctx_stress: 10^4 iterations of mixed nonblocking operations completed by
 * Wait, Waitany, Waitsome, Testsome, Testany, Testall and persistent
 * requests (Start/Startall), on one rank (messages to itself), then checks
 * through the exported root `mpireg_comm_root` (found with dlsym, so this
 * program runs with LD_PRELOAD=libmpireg.so) that no request is left
 * pending except the persistent ones, and none after they are freed.
 * Prints "OK pending=N" or "FAIL ...".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>

struct croot { uint64_t magic; uint32_t v, size; uint64_t seq; uint32_t nc, mt;
               void *c, *threads, *requests, *comms, *ops; uint64_t live; };

static uint64_t live(void)
{
    struct croot *r = dlsym(RTLD_DEFAULT, "mpireg_comm_root");
    return r ? r->live : (uint64_t)-1;
}

int main(int argc, char **argv)
{
    int sbuf[4], rbuf[4][4];
    MPI_Request req[4], pers[2];
    MPI_Status sts[4]; /* (MPI_STATUSES_IGNORE trips a gcc -Wstringop-overflow false positive) */
    MPI_Init(&argc, &argv);
    if (!dlsym(RTLD_DEFAULT, "mpireg_comm_root")) {
        printf("FAIL no mpireg_comm_root\n");
        return 1;
    }
    MPI_Send_init(sbuf, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &pers[0]);
    MPI_Recv_init(rbuf[3], 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &pers[1]);
    for (int it = 0; it < 10000; it++) {
        for (int k = 0; k < 2; k++) {
            MPI_Irecv(rbuf[k], 4, MPI_INT, 0, k, MPI_COMM_WORLD, &req[2 * k]);
            MPI_Isend(sbuf, 4, MPI_INT, 0, k, MPI_COMM_WORLD, &req[2 * k + 1]);
        }
        int mode = it % 6, idx, flag, outcount, indices[4], done = 0;
        switch (mode) {
        case 0:
            for (int k = 0; k < 4; k++)
                MPI_Wait(&req[k], MPI_STATUS_IGNORE);
            break;
        case 1:
            for (int k = 0; k < 4; k++)
                MPI_Waitany(4, req, &idx, MPI_STATUS_IGNORE);
            break;
        case 2:
            while (done < 4) {
                MPI_Waitsome(4, req, &outcount, indices, sts);
                if (outcount != MPI_UNDEFINED)
                    done += outcount;
            }
            break;
        case 3:
            while (done < 4) {
                MPI_Testsome(4, req, &outcount, indices, sts);
                if (outcount != MPI_UNDEFINED)
                    done += outcount;
            }
            break;
        case 4:
            while (done < 4) {
                MPI_Testany(4, req, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx != MPI_UNDEFINED)
                    done++;
                else if (flag)
                    break;
            }
            break;
        default:
            flag = 0;
            while (!flag)
                MPI_Testall(4, req, &flag, sts);
        }
        if (it % 2) {
            MPI_Startall(2, pers);
            MPI_Waitall(2, pers, sts);
        } else {
            MPI_Start(&pers[1]);
            MPI_Start(&pers[0]);
            MPI_Wait(&pers[0], MPI_STATUS_IGNORE);
            flag = 0;
            while (!flag)
                MPI_Test(&pers[1], &flag, MPI_STATUS_IGNORE);
        }
        if (live() != 2) {
            printf("FAIL iteration %d (mode %d): %llu live requests\n", it, mode,
                   (unsigned long long)live());
            return 1;
        }
    }
    uint64_t before = live();
    MPI_Request_free(&pers[0]);
    MPI_Request_free(&pers[1]);
    uint64_t after = live();
    MPI_Finalize();
    if (before != 2 || after != 0) {
        printf("FAIL persistent: %llu before free, %llu after\n", (unsigned long long)before,
               (unsigned long long)after);
        return 1;
    }
    printf("OK pending=%llu\n", (unsigned long long)after);
    return 0;
}
