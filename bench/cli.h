/* cli: the command line shared by scibench and mpibench (SPEC.md §5,
 * issue 3): options, data header, output file, resume, exit status. */
#ifndef SCITORUS_BENCH_CLI_H
#define SCITORUS_BENCH_CLI_H

#include "bench/backend.h"

/* Runs a benchmark program over backend be; returns the exit status
 * (0 success, 1 runtime failure, 2 usage error). */
int bench_main(int argc, char **argv, const bench_backend *be);

/* Under mpirun every rank parses the options; only one should complain:
 * 1 for shared memory (one process parses) and for MPI rank 0 (or outside
 * mpirun), else 0. */
int bench_cli_should_print(int is_shm);

#endif
