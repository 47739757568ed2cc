/* scibench: the shared-memory latency benchmark (docs/formats.md, 'Bench TSV'). */
#include "bench/cli.h"
#include "util/fs.h"

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("scibench");
    return bench_main(argc, argv, &bench_backend_shm);
}
