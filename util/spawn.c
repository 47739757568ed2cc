/* spawn: one way to run a child that never outlives its parent. */
#include "util/spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/signals.h"

/* Waits up to limit_s for every process of group pgid to be gone (the
 * leader reaped already).  Returns 1 when they are. */
static int group_gone(pid_t pgid, int limit_s)
{
    for (int i = 0; i < limit_s * 100; i++) {
        if (kill(-pgid, 0) != 0 && errno == ESRCH)
            return 1;
        usleep(10000);
    }
    return 0;
}

static void child(char *const argv[], const spawn_opts *o, pid_t parent, const sigset_t *old)
{
    if (o->own_group)
        setpgid(0, 0);
    if ((o->stdin_null || (o->own_group && isatty(STDIN_FILENO))) &&
        !freopen("/dev/null", "r", stdin))
        _exit(127);
    prctl(PR_SET_PDEATHSIG, o->stop_signal);
    if (getppid() != parent)
        _exit(1);   /* the parent died before prctl took effect */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_SETMASK, old, NULL);   /* a stop sent meanwhile now ends the child */
    if (o->setup)
        o->setup(o->setup_arg);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: cannot run '%s': %s\n", o->prog, argv[0], strerror(errno));
    _exit(127);
}

int spawn_run(char *const argv[], const spawn_opts *o)
{
    pid_t parent = getpid();
    bench_signals_install_stop();   /* no SA_RESTART: wait4 returns EINTR */
    fflush(NULL);
    /* Stops are held across the fork: one forwarded before the child resets
     * its handlers would hit the inherited handler and be lost at exec. */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    sigaddset(&stops, SIGUSR1);
    sigprocmask(SIG_BLOCK, &stops, &old);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0)
        child(argv, o, parent, &old);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0)
        return -1;
    if (o->own_group)
        setpgid(pid, pid);   /* (the child's own call may come later) */
    pid_t target = o->own_group ? -pid : pid;
    int st, forwarded = 0;
    struct rusage ru;
    if (bench_interrupted())   /* a signal that came before the fork */
        kill(target, o->stop_signal), forwarded = 1;
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR)
            return -1;
        if (bench_interrupted() && !forwarded)
            kill(target, o->stop_signal), forwarded = 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (o->wall_s)
        *o->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (o->cpu_s)
        *o->cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    /* the leader has ended; what it left of its group ends too */
    if (o->own_group && forwarded && !group_gone(pid, o->grace_s)) {
        kill(-pid, SIGTERM);
        if (!group_gone(pid, 2))
            kill(-pid, SIGKILL);
    }
    signal(SIGINT, SIG_DFL);   /* afterwards a signal ends the parent as usual */
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (bench_interrupted())
        return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
