/* signals: SIGINT/SIGTERM/SIGUSR1 and child-death notification for the benchmarks.
 * Signal handlers can only talk to the program through static flags; these
 * two are the project's only mutable globals, and this file owns them. */
#ifndef SCITORUS_SIGNALS_H
#define SCITORUS_SIGNALS_H

/* Installs the handlers (idempotent). */
void bench_signals_install(void);
/* Installs only the SIGINT/SIGTERM/SIGUSR1 ones (before any child is forked). */
void bench_signals_install_stop(void);
/* 1 once SIGINT, SIGTERM or SIGUSR1 arrived. */
int bench_interrupted(void);
/* 1 once a child process ended (SIGCHLD). */
int bench_child_died(void);

#endif
