/* mpibench: the MPI latency benchmark (SPEC.md §3); start with mpirun. */
#include "bench/cli.h"

int main(int argc, char **argv)
{
    return bench_main(argc, argv, &bench_backend_mpi);
}
