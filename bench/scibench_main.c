/* scibench: the shared-memory latency benchmark (docs/formats.md, 'Bench TSV'). */
#include "bench/cli.h"

int main(int argc, char **argv)
{
    return bench_main(argc, argv, &bench_backend_shm);
}
