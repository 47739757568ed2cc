/* logp_cli: the command line of scibench/mpibench --pattern logp (issue
 * 13): its options, header, atomic output and resume.  bench_main hands
 * over to it; the pattern itself is bench/logp.c. */
#ifndef SCITORUS_LOGP_CLI_H
#define SCITORUS_LOGP_CLI_H

#include "bench/backend.h"

/* 1 when argv asks for the LogP pattern: --pattern logp (or
 * --pattern=logp), or --resume of a file whose header says pattern logp. */
int bench_logp_wanted(int argc, char **argv);

/* Runs scibench/mpibench --pattern logp over be; returns the exit status
 * (0 success, 1 runtime failure, 2 usage error). */
int bench_logp_main(int argc, char **argv, const bench_backend *be);

#endif
