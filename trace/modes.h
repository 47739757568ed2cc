/* modes: the modes of the scitrace program, one file each; scitrace_main.c
 * only dispatches.  Each takes the arguments after the mode name (argv[0]
 * is the mode) and returns the exit status: 0 success, 1 runtime failure
 * (a file named in the message), 2 usage error; check its own codes. */
#ifndef SCITORUS_TRACE_MODES_H
#define SCITORUS_TRACE_MODES_H

#include <getopt.h>
#include <stdio.h>

#include "util/cli.h"

#include "util/exit.h"

int scitrace_run(int argc, char **argv);       /* trace/mode_run.c */
int scitrace_summary(int argc, char **argv);   /* trace/mode_summary.c */
int scitrace_matrix(int argc, char **argv);    /* trace/mode_matrix.c */
int scitrace_check(int argc, char **argv);     /* trace/mode_check.c */
int scitrace_goal(int argc, char **argv);      /* trace/mode_goal.c */

/* Prints "scitrace: <message> (try --help)" on stderr; returns EXIT_USAGE. */
#define scitrace_usage_error(...) \
    cli_message(EXIT_USAGE, "scitrace", " (try --help)", __VA_ARGS__)

/* getopt_long for a mode: options anywhere among the arguments (GNU
 * permutation) unless shortopts starts with '+', each at most once, and
 * --help / --version answered.  Returns the next option, -1 at the end, or
 * 'E' (an error already printed) / 'Q' (help or version printed): then
 * *status is the exit status. */
int scitrace_getopt(const char *mode, const char *help, int argc, char **argv,
                    const char *shortopts, const struct option *opts, unsigned long long *seen,
                    int *status);

/* Parses --collectives expand|p2p-only into *with; returns 0 or EXIT_USAGE
 * (trace/modes.c). */
int scitrace_parse_collectives(const char *arg, int *with);

/* The program's version ("scitrace (scitorus) VERSION"). */
void scitrace_version(void);

/* fopen for an output named by -o: "-" is stdout.  scitrace_close_output
 * closes it (stdout: flushes and checks); returns 0 or -1 with errno. */
FILE *scitrace_open_output(const char *path);
int scitrace_close_output(FILE *fp);

#endif
