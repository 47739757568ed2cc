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

/* scitrace check's verdicts (docs/formats.md): a rank crashed; a deadlock
 * or an erroneous program (collectives that disagree or that a member
 * skipped, a type mismatch); only pending messages, requests or logs; only
 * a potential deadlock (the program needs MPI to buffer) besides pending. */
#define EXIT_CHECK_DIED 5
#define EXIT_CHECK_ERROR 6
#define EXIT_CHECK_PENDING 7
#define EXIT_CHECK_POTENTIAL 8

#endif
