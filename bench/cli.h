/* cli: the command line shared by scibench and mpibench (SPEC.md §5,
 * issue 3): options, data header, output file, resume, exit status.  The
 * pieces --pattern logp's own command line (bench/logp_cli.c) uses too are
 * declared here. */
#ifndef SCITORUS_BENCH_CLI_H
#define SCITORUS_BENCH_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/backend.h"
#include "bench/benchdata.h"
#include "util/atomicfile.h"

/* Most processes (and CPUs to pin them to) of a shared-memory run. */
#define BENCH_CLI_MAX_CPUS 64

/* Runs a benchmark program over backend be; returns the exit status
 * (0 success, 1 runtime failure, 2 usage error). */
int bench_main(int argc, char **argv, const bench_backend *be);

/* Under mpirun every rank parses the options; only one should complain:
 * 1 for shared memory (one process parses) and for MPI rank 0 (or outside
 * mpirun), else 0. */
int bench_cli_should_print(int is_shm);

/* A usage error: "PROG: [CONTEXT: ]MESSAGE" on stderr, from one process
 * (bench_cli_should_print), ended by " (try HINT)" when context is NULL or
 * "" (a --resume file's recorded command gives its FILE:LINE there).
 * Returns the usage exit status, 2. */
int bench_cli_usage(int is_shm, const char *prog, const char *context, const char *hint,
                    const char *fmt, va_list ap);

/* The command line as the data header's "command" records it: argv with
 * prog for argv[0], words with blanks or quotes in single quotes. */
void bench_cli_record_command(char *buf, size_t size, const char *prog, int argc, char **argv);

/* Splits a recorded command back into words (in copy, size bytes): at most
 * max - 1 of them into args, NULL after the last.  Returns how many. */
int bench_cli_split_command(const char *cmd, char *copy, size_t size, char **args, int max);

/* CPUs for procs processes: the list text (--cpus), else the first ones
 * this process may run on; cpus gets up to BENCH_CLI_MAX_CPUS, *ncpus how
 * many are used.  A list of the wrong length (procs_opt: the option that
 * set procs, for the message; NULL when none did) or naming a CPU twice is
 * a usage error: returns 2 with the message in err, else 0. */
int bench_cli_cpus(const char *text, int procs, const char *procs_opt, int *cpus, int *ncpus,
                   char *err, size_t err_size);

/* A data header's first lines: backend, host, date (UTC) and command
 * (h is cleared first). */
void bench_cli_header_start(bench_data *h, const bench_backend *be, const char *command);

/* A BENCH_ERR_* code in words. */
const char *bench_cli_error_text(int rc);

/* Ends one output.  A complete run (rc 0) replaces the file.  An
 * interrupted one is marked '# incomplete' and never destroys an existing
 * file, which may hold a complete earlier run: it goes beside it, to
 * FILE.incomplete, unless FILE is the incomplete file this run resumes
 * (resume_path); stderr says where the finished `what` ("points", "sizes")
 * are.  Rows lost on the way (a full disk) keep nothing.  af->fp NULL:
 * standard output.  Returns 0 or -1. */
int bench_cli_commit(const char *prog, const char *resume_path, atomic_file *af, FILE *out,
                     const char *path, int rc, const char *what);

#endif
