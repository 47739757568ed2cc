/* bench-model: the model's speed figures for `make bench` (issue 2):
 * process time of scimodel's headline report and of a 1e6-point sweep
 * (medians of several runs), and the speedup of the closed-form average
 * over exact enumeration at 1000 nodes (a ratio measured in this run). */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

#define RUNS 7

/* CPU time (user + system, seconds) of one run of argv, output discarded. */
static double child_cpu_s(char *const argv[])
{
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench-model: %s failed\n", argv[0]);
        exit(EXIT_FAILURE);
    }
    getrusage(RUSAGE_CHILDREN, &after);
    return (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
           (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
           1e-6 * (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec +
                           after.ru_stime.tv_usec - before.ru_stime.tv_usec);
}

static double median_of(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call of the closed form resp. the enumeration, 1000 nodes. */
static void per_call_s(int closed, double *out)
{
    model_params p;
    topo_shape s;
    double sink = 0, sum, avg;
    long calls = 0;
    model_params_preset("current", &p);
    topo_shape_equal(3, 10, &s);
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < (closed ? 10000 : 10); i++, calls++) {
            if (closed)
                sink += model_avg_ns_continuous(&p, 3, 1000 + (double)(i & 1), 64);
            else {
                model_enumerate(&p, &s, i & 1, 64, &sum, &avg);
                sink += avg;
            }
        }
    } while ((t = now_s() - t0) < 0.2);
    *out = t / (double)calls;
    if (sink < 0)
        puts("");  /* keeps the work observable */
}

int main(int argc, char **argv)
{
    char dir[4096];
    double report[RUNS], sweep[RUNS], closed[RUNS], enumer[RUNS], ratio[RUNS];
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "bin");
    char prog[4200];
    snprintf(prog, sizeof prog, "%s/scimodel", dir);
    char *rep_argv[] = {prog, "--dims", "1..4", "--nodes", "1000", NULL};
    char *sw_argv[] = {prog, "--sweep", "--nodes", "1000000", "--dims", "1..4", NULL};
    for (int r = 0; r < RUNS; r++) {
        report[r] = child_cpu_s(rep_argv);
        sweep[r] = child_cpu_s(sw_argv);
        per_call_s(1, &closed[r]);
        per_call_s(0, &enumer[r]);
        ratio[r] = enumer[r] / closed[r];
    }
    printf("bench-model (medians of %d runs)\n", RUNS);
    printf("  scimodel --dims 1..4 --nodes 1000          %8.2f ms process time"
           "   (target well under 10 ms)\n", 1e3 * median_of(report, RUNS));
    printf("  scimodel --sweep --nodes 1000000 --dims 1..4 %6.3f s process time"
           "    (target under 1 s)\n", median_of(sweep, RUNS));
    printf("  average latency at 1000 nodes: closed form %.3g us, enumeration %.3g us,"
           " speedup %.0fx (target over 1000x)\n", 1e6 * median_of(closed, RUNS),
           1e6 * median_of(enumer, RUNS), median_of(ratio, RUNS));
    return 0;
}
