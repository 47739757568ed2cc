/* modes: the modes of the scitrace program, one file each; scitrace_main.c
 * only dispatches.  Each takes the arguments after the mode name (argv[0]
 * is the mode) and returns the exit status: 0 success, 1 runtime failure
 * (a file named in the message), 2 usage error; check its own codes. */
#ifndef SCITORUS_TRACE_MODES_H
#define SCITORUS_TRACE_MODES_H

#include <stdio.h>

#include "util/cli.h"

#include "util/exit.h"

int scitrace_run(int argc, char **argv);       /* scitrace/mode_run.c */
int scitrace_summary(int argc, char **argv);   /* scitrace/mode_summary.c */
int scitrace_matrix(int argc, char **argv);    /* scitrace/mode_matrix.c */
int scitrace_check(int argc, char **argv);     /* scitrace/mode_check.c */
int scitrace_goal(int argc, char **argv);      /* scitrace/mode_goal.c */

/* Prints "scitrace: <message> (try --help)" on stderr; returns EXIT_USAGE. */
#define scitrace_usage_error(...) \
    cli_message(EXIT_USAGE, "scitrace", " (try --help)", __VA_ARGS__)

/* The program's version ("scitrace (scitorus) VERSION"). */
void scitrace_version(void);

#endif
