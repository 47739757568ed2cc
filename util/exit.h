/* exit: the exit statuses every program shares -- 0 success, 1 runtime
 * failure (EXIT_FAILURE), 2 usage error (EXIT_USAGE), 130 stopped on
 * request (EXIT_INTERRUPTED). */
#ifndef SCITORUS_EXIT_H
#define SCITORUS_EXIT_H

#define EXIT_USAGE 2
/* A run stopped by SIGINT, SIGTERM, SIGHUP or SIGUSR1 (util/signals.h) that
 * kept what it finished: one status whatever the signal, the shell's for
 * Ctrl-C, so a script tells "stopped, partial results" from a failure. */
#define EXIT_INTERRUPTED 130

#endif
