/* mpibench: the MPI latency benchmark (docs/formats.md, 'Bench TSV'); start with mpirun. */
#include "bench/cli.h"
#include "util/fs.h"

/* Sanitized builds: Open MPI's dlopen'ed components keep allocations until
 * exit by design and are unloaded before LeakSanitizer runs; with the fast
 * unwinder their stacks stop in the unloaded module and cannot be matched.
 * The slow unwinder follows them back to ompi_mpi_init and friends, which
 * tests/lsan.supp suppresses, so our own leaks are still caught (malloc is
 * only called while setting up, so the slower unwinding costs nothing
 * measured). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("mpibench");
    return bench_main(argc, argv, &bench_backend_mpi);
}
