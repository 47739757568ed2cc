/* mpibench: the MPI latency benchmark (SPEC.md §3); start with mpirun. */
#include "bench/cli.h"

/* Sanitized builds: Open MPI's dlopen'ed components keep allocations until
 * exit by design and are unloaded before LeakSanitizer runs, so their
 * "leaks" cannot even be attributed; leak checking is off for this program
 * only (AddressSanitizer and UBSan stay on). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, &bench_backend_mpi);
}
