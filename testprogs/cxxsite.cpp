// cxxsite: a datatype made, and an MPI call made, from C++ functions whose
// names are long (class templates over standard containers, parameter
// lists), compiled without debug information as Debian builds GROMACS and
// LAMMPS: mpipp list's "created at" and the job console's stacks shorten
// those names (text/names.py); -json keeps them whole.  Any number of ranks.
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

extern "C" void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("");
}

namespace mpipp_test {

template <typename Key, typename Value>
struct Exchange {
    using Table = std::map<Key, std::vector<Value>>;

    static __attribute__((noinline)) MPI_Datatype make_row_type(const Table &table, int count,
                                                                double scale)
    {
        MPI_Datatype row;
        MPI_Type_contiguous(count + (int)table.size() + (scale > 1 ? 1 : 0), MPI_DOUBLE, &row);
        MPI_Type_commit(&row);
        return row;
    }

    static __attribute__((noinline)) void share(const Table &table, MPI_Datatype row, MPI_Comm comm)
    {
        stop_here();
        MPI_Barrier(comm);
        (void)table;
        (void)row;
    }
};

}  // namespace mpipp_test

int main(int argc, char **argv)
{
    using Exchange = mpipp_test::Exchange<std::string, std::vector<double>>;
    MPI_Init(&argc, &argv);
    Exchange::Table table;
    MPI_Datatype row = Exchange::make_row_type(table, 3, 1.0);
    Exchange::share(table, row, MPI_COMM_WORLD);
    MPI_Type_free(&row);
    MPI_Finalize();
    return 0;
}
