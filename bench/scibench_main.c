/* scibench: the shared-memory latency benchmark (SPEC.md §3). */
#include "bench/cli.h"

int main(int argc, char **argv)
{
    return bench_main(argc, argv, &bench_backend_shm);
}
