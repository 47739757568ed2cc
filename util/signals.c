/* signals: flags set by the stop signals' and SIGCHLD's handlers. */
#include "util/signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t child_died;

static void on_stop(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void on_child(int sig)
{
    (void)sig;
    child_died = 1;
}

void bench_signals_install_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    /* no SA_RESTART: a blocking call (a write to a pipe nobody drains, an
     * open) returns EINTR, so a stop request always reaches the program */
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);   /* a closed terminal stops a run like Ctrl-C */
    /* mpirun passes SIGUSR1 on to every rank and, unlike SIGINT and
     * SIGTERM, does not kill them a second later: calibrate stops an MPI
     * run with it, so that rank 0 has the time to write its files */
    sigaction(SIGUSR1, &sa, NULL);
}

void bench_signals_install(void)
{
    struct sigaction sa;
    bench_signals_install_stop();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
}

int bench_interrupted(void) { return interrupted; }
int bench_child_died(void) { return child_died; }
