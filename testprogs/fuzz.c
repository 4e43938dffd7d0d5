/*
 * fuzz: a process whose registry holds a bit of everything, for the
 * registry-corruption fuzz test (tests/integration/test_fuzz.py): derived
 * types of every combiner (nested, named, uncommitted, a freed base still
 * used, pairs, f90, MPI_BOTTOM, a 300-block indexed type), pending and
 * persistent requests, a named communicator, a user op, an open MPI file
 * with a view; stop on PMPI_Send to be inside an MPI_Send of a struct type.
 * One rank.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#define N_TYPES 20

MPI_Datatype types[N_TYPES];
int n_types;
char buf[1 << 16];
double rbuf[64], sbuf[64];
MPI_Request reqs[3];
MPI_Comm dup_comm;
MPI_Op my_op;
MPI_File fh;
double bottom_d = 1.25;
int bottom_i[2] = {3, 4};

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void add(MPI_Datatype t, const char *name)
{
    MPI_Type_commit(&t);
    if (name)
        MPI_Type_set_name(t, name);
    types[n_types++] = t;
}

static void build_types(void)
{
    MPI_Datatype t, inner, base;
    int bl[3] = {1, 3, 2};
    MPI_Aint disp[3] = {0, 8, 40};
    MPI_Datatype kinds[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};

    MPI_Type_contiguous(3, MPI_INT, &t); add(t, "contig_t");
    MPI_Type_vector(2, 1, 2, MPI_INT, &t); add(t, NULL);
    MPI_Type_create_struct(3, bl, disp, kinds, &t); add(t, "struct_t");
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &inner);
    MPI_Type_create_resized(inner, 0, 128, &t); add(t, NULL);
    MPI_Type_free(&inner);
    int sizes[3] = {4, 5, 6}, subs[3] = {2, 2, 3}, starts[3] = {1, 2, 0};
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_SHORT, &t); add(t, NULL);
    int gs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {1, 1};
    MPI_Type_create_darray(1, 0, 2, gs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_FLOAT, &t);
    add(t, "darray_t");
    int ibl[300], idisp[300];
    for (int k = 0; k < 300; k++) {
        ibl[k] = 1 + k % 3;
        idisp[k] = 5 * k;
    }
    MPI_Type_indexed(300, ibl, idisp, MPI_CHAR, &t); add(t, NULL);
    MPI_Aint hd[2] = {16, 0};
    MPI_Type_create_hindexed_block(2, 2, hd, MPI_LONG, &t); add(t, NULL);
    MPI_Type_dup(MPI_DOUBLE_INT, &t); add(t, NULL);
    MPI_Type_create_f90_real(15, 300, &base);
    MPI_Type_contiguous(2, base, &t); add(t, "f90_pair");
    MPI_Type_contiguous(2, MPI_INT, &base);
    MPI_Type_vector(2, 1, 3, base, &t); add(t, "of_freed");
    MPI_Type_free(&base);
    MPI_Aint addr[2];
    int bbl[2] = {1, 2};
    MPI_Datatype btypes[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Get_address(&bottom_d, &addr[0]);
    MPI_Get_address(bottom_i, &addr[1]);
    MPI_Type_create_struct(2, bbl, addr, btypes, &t); add(t, "bottom_t");
    t = MPI_INT;
    for (int k = 0; k < 10; k++) {
        MPI_Datatype next;
        MPI_Type_contiguous(1, t, &next);
        if (t != MPI_INT)
            MPI_Type_free(&t);
        t = next;
    }
    add(t, "deep_t");
    MPI_Type_contiguous(4, MPI_INT, &t);
    types[n_types++] = t; /* uncommitted */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (size_t k = 0; k < sizeof buf; k++)
        buf[k] = (char)(k * 7 + 1);
    build_types();
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    MPI_Comm_set_name(dup_comm, "dup_comm");
    MPI_Op_create(my_sum, 1, &my_op);
    char path[64];
    snprintf(path, sizeof path, "/tmp/mpipp-fuzz-%d.dat", (int)getpid());
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 16, MPI_INT, types[0], "native", MPI_INFO_NULL);
    MPI_Irecv(rbuf, 2, types[0], 0, 5, dup_comm, &reqs[0]);
    MPI_Irecv(rbuf + 16, 1, types[2], MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send_init(sbuf, 4, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &reqs[2]);
    MPI_Send(buf, 1, types[2], 0, 6, MPI_COMM_WORLD);
    int one[3] = {1, 2, 3};
    MPI_Send(one, 2, MPI_INT, 0, 5, dup_comm);
    MPI_Status statuses[2];
    MPI_Waitall(2, reqs, statuses);
    MPI_Request_free(&reqs[2]);
    MPI_File_close(&fh);
    for (int k = 0; k < n_types; k++)
        MPI_Type_free(&types[k]);
    MPI_Op_free(&my_op);
    MPI_Comm_free(&dup_comm);
    MPI_Finalize();
    printf("fuzz: done\n");
    return 0;
}
