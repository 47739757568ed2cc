/* modes: the modes of the scitrace program, one file each; scitrace_main.c
 * only dispatches.  Each takes the arguments after the mode name (argv[0]
 * is the mode) and returns the exit status: 0 success, 1 runtime failure
 * (a file named in the message), 2 usage error. */
#ifndef SCITORUS_TRACE_MODES_H
#define SCITORUS_TRACE_MODES_H

#include "util/cli.h"

#include "util/exit.h"

int scitrace_run(int argc, char **argv);       /* trace/mode_run.c */
int scitrace_summary(int argc, char **argv);   /* trace/mode_summary.c */
int scitrace_matrix(int argc, char **argv);    /* trace/mode_matrix.c */

/* Prints "scitrace: <message> (scitrace --help)" on stderr; returns
 * EXIT_USAGE. */
#define scitrace_usage_error(...) \
    cli_message(EXIT_USAGE, "scitrace", " (scitrace --help)", __VA_ARGS__)

/* Parses --collectives expand|p2p-only into *with; returns 0 or EXIT_USAGE
 * (trace/modes.c). */
int scitrace_parse_collectives(const char *arg, int *with);

#endif
