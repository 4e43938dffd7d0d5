/*
 * robust: the cases of the robustness tests (tests/integration/test_robust.py).
 *
 *   far_bottom_t  struct over MPI_BOTTOM: a double on the stack and an int in
 *                 the data segment, absolute addresses ~10^13 bytes apart
 *   deep_t        a valid type 70 levels deep (contiguous / vector / resized
 *                 / struct nested in a loop), deeper_t 900 levels
 *   vec_t         vector(3, 2, 4, MPI_DOUBLE) over vec_buf, sub_t an unnamed
 *                 subarray, cplx_t contiguous(2, MPI_C_FLOAT_COMPLEX) named
 *                 "complex_pair" (no variable has that name)
 *   complex_name  what MPI_Type_get_name says for MPI_C_FLOAT_COMPLEX
 *
 * Stops in stop_here(), then sends far_bottom_t from MPI_BOTTOM to
 * MPI_PROC_NULL (a call whose buffer is MPI_BOTTOM).
 */
#include <complex.h>
#include <mpi.h>

int far_int = 7;
double vec_buf[24];
float _Complex cplx_buf[2] = {1.0f + 2.0f * I, -3.0f};
int deep_buf[4] = {11, 22, 33, 44};
char complex_name[MPI_MAX_OBJECT_NAME];
MPI_Datatype far_bottom_t, deep_t, deeper_t, vec_t, sub_t, cplx_t;

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

/* `levels` levels over MPI_INT; every level keeps size 4 and extent 4 */
static MPI_Datatype nest(int levels)
{
    MPI_Datatype t = MPI_INT, next;
    for (int k = 0; k < levels; k++) {
        int one = 1;
        MPI_Aint zero = 0;
        switch (k % 4) {
        case 0: MPI_Type_contiguous(1, t, &next); break;
        case 1: MPI_Type_vector(1, 1, 1, t, &next); break;
        case 2: MPI_Type_create_resized(t, 0, 4, &next); break;
        default: MPI_Type_create_struct(1, &one, &zero, &t, &next); break;
        }
        if (t != MPI_INT)
            MPI_Type_free(&t);
        t = next;
    }
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    double far_double = 2.5; /* on the stack, far from far_int */
    MPI_Init(&argc, &argv);
    int len = 0;
    MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, complex_name, &len);

    int bl[2] = {1, 1};
    MPI_Aint addr[2];
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Get_address(&far_double, &addr[0]);
    MPI_Get_address(&far_int, &addr[1]);
    MPI_Type_create_struct(2, bl, addr, types, &far_bottom_t);
    MPI_Type_commit(&far_bottom_t);
    MPI_Type_set_name(far_bottom_t, "far_bottom_t");

    deep_t = nest(70);
    MPI_Type_set_name(deep_t, "deep_t");
    deeper_t = nest(900);

    for (int k = 0; k < 24; k++)
        vec_buf[k] = k + 0.5;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec_t);
    MPI_Type_commit(&vec_t);
    MPI_Type_set_name(vec_t, "vec_t");
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub_t);
    MPI_Type_commit(&sub_t);
    MPI_Type_contiguous(2, MPI_C_FLOAT_COMPLEX, &cplx_t);
    MPI_Type_commit(&cplx_t);
    MPI_Type_set_name(cplx_t, "complex_pair");

    stop_here();
    MPI_Send(MPI_BOTTOM, 1, far_bottom_t, MPI_PROC_NULL, 3, MPI_COMM_WORLD);

    MPI_Type_free(&far_bottom_t);
    MPI_Type_free(&deep_t);
    MPI_Type_free(&deeper_t);
    MPI_Type_free(&vec_t);
    MPI_Type_free(&sub_t);
    MPI_Type_free(&cplx_t);
    MPI_Finalize();
    return 0;
}
