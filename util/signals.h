/* signals: the stop signals (SIGINT, SIGTERM, SIGHUP, SIGUSR1) and child-death notification.
 * Signal handlers can only talk to the program through static flags; these
 * two are the project's only mutable globals, and this file owns them. */
#ifndef SCITORUS_SIGNALS_H
#define SCITORUS_SIGNALS_H

/* Installs the handlers (idempotent). */
void bench_signals_install(void);
/* Installs only the stop signals' (before any child is forked).  A program
 * stopped by one keeps what it finished and exits EXIT_INTERRUPTED (util/exit.h). */
void bench_signals_install_stop(void);
/* 1 once a stop signal arrived. */
int bench_interrupted(void);
/* 1 once a child process ended (SIGCHLD). */
int bench_child_died(void);

#endif
