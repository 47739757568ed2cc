/* cli: the command line shared by scibench and mpibench (SPEC.md §5,
 * issue 3): options, data header, output file, resume, exit status. */
#ifndef SCITORUS_BENCH_CLI_H
#define SCITORUS_BENCH_CLI_H

#include "bench/backend.h"

/* Runs a benchmark program over backend be; returns the exit status
 * (0 success, 1 runtime failure, 2 usage error). */
int bench_main(int argc, char **argv, const bench_backend *be);

#endif
