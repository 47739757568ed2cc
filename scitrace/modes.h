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
int scitrace_dump(int argc, char **argv);      /* scitrace/mode_dump.c */
int scitrace_otf2(int argc, char **argv);      /* scitrace/mode_otf2.c */
int scitrace_map(int argc, char **argv);       /* scitrace/mode_map.c */

/* Prints "scitrace: <message> (try --help)" on stderr; returns EXIT_USAGE. */
#define scitrace_usage_error(...) \
    cli_message(EXIT_USAGE, "scitrace", " (try --help)", __VA_ARGS__)

/* What an analyzer does about an incomplete trace (trace_dir_incomplete):
 * 0 when whole, or with partial (after a one-line warning on stderr); else
 * the one-line refusal on stderr and TRACE_EXIT_INCOMPLETE. */
struct trace_dir;
int scitrace_require_whole(const struct trace_dir *d, const char *mode, int partial);

/* The program's version ("scitrace (scitorus) VERSION"). */
void scitrace_version(void);

#endif
