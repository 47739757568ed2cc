/* watchdog: --timeout for ranks blocked inside MPI (mpibench/watchdog.h). */
#include "mpibench/watchdog.h"

#include <string.h>
#include <sys/time.h>
#include <unistd.h>

volatile sig_atomic_t watchdog_progress;
volatile sig_atomic_t watchdog_armed;
sigjmp_buf watchdog_jump;
static volatile sig_atomic_t seen;
static volatile sig_atomic_t idle_s;
static volatile sig_atomic_t limit_s;
static volatile sig_atomic_t soft_rank;   /* this rank returns BENCH_ERR_TIMEOUT */

static void on_alarm(int sig)
{
    (void)sig;
    if (watchdog_progress != seen) {
        seen = watchdog_progress;
        idle_s = 0;
        return;
    }
    if (!soft_rank && watchdog_armed) {
        idle_s = 0;
        return;
    }
    ++idle_s;
    if (soft_rank && watchdog_armed && idle_s >= limit_s) {
        watchdog_armed = 0;
        siglongjmp(watchdog_jump, 1);   /* SA_NODEFER: SIGALRM stays unblocked */
    }
    if (idle_s >= limit_s + WATCHDOG_GRACE_S) {
        static const char msg[] = "mpibench: no progress within --timeout; aborting\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(1);
    }
}

void watchdog_start(double timeout_s, int soft)
{
    struct sigaction sa;
    struct itimerval it = {{1, 0}, {1, 0}};
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    limit_s = (sig_atomic_t)(timeout_s < 1 ? 1 : timeout_s + 0.999);
    soft_rank = soft;
    setitimer(ITIMER_REAL, &it, NULL);
}

void watchdog_stop(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}
