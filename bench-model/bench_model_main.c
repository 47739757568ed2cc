/* bench-model: the model's speed figures for `make bench`:
 * process time of scimodel's headline report and of a 1e6-point sweep
 * (medians of several runs), and the speedup of the closed-form average
 * over exact enumeration at 1000 nodes (a ratio measured in this run).
 * Patterns and load: pattern averages and channel loads on a 10^6-node shape, the
 * uniform closed form at N = 1e15, the binomial broadcast on 2^20 nodes;
 * each beside a reference measured in the same run (one pass over the
 * 10^6 nodes converting rank to coordinates: the least any pass costs). */
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

/* Process (CPU) seconds: the machine is shared, wall time counts the
 * others' compiles too. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Process seconds of one call of what(), repeated for at least 0.2 s. */
static double seconds_per(double (*what)(void))
{
    double sink = 0, t0 = cpu_s(), t;
    long calls = 0;
    do {
        sink += what();
        calls++;
    } while ((t = cpu_s() - t0) < 0.2);
    if (sink < 0)
        puts("");
    return t / (double)calls;
}

static topo_shape mega;   /* 100x100x100 */

static double reference_pass(void)
{
    long c[TOPO_MAX_DIMS];
    double sum = 0;
    for (long r = 0; r < mega.nodes; r++) {
        topo_rank_to_coords(&mega, r, c);
        sum += (double)c[0];
    }
    return sum;
}

static double patterns_closed(void)
{
    model_avg_counts c;
    double sum = 0;
    for (int l = 0; l < 2; l++)
        for (int pat = 0; pat < TOPO_PATTERN_TRANSPOSE; pat++)
            if (model_pattern_counts_shape(&mega, l, pat, &c, NULL) == 0)
                sum += c.hops;
    return sum;
}

static double patterns_enumerated(void)
{
    model_avg_counts c;
    double sum = 0;
    for (int pat = 0; pat < TOPO_PATTERN_TRANSPOSE; pat++)
        if (model_pattern_enumerate(&mega, TOPO_LINKS_BI, pat, &c, NULL) == 0)
            sum += c.hops;
    return sum;
}

static topo_pattern load_pattern;

static double loads(void)
{
    model_load ld;
    if (model_load_init(&ld, &mega, TOPO_LINKS_BI, load_pattern))
        exit(EXIT_FAILURE);
    double c = ld.c_max;
    model_load_free(&ld);
    return c;
}

/* One loaded latency (the flows' ages, then every channel's wait) on a
 * prepared 10^6-node complement model, at half of saturation. */
static model_load mega_load;

static double latency_once(void)
{
    model_params p;
    double lat;
    model_params_preset("current", &p);
    p.links = TOPO_LINKS_BI;
    if (model_load_latency(&p, &mega_load, 64, 0.5 * model_load_saturation(&p, &mega_load, 64),
                           &lat, NULL, NULL))
        exit(EXIT_FAILURE);
    return lat;
}

static double uniform_1e15(void)
{
    model_params p;
    topo_shape s;
    model_params_preset("current", &p);
    p.links = TOPO_LINKS_BI;
    topo_shape_equal(5, 1000, &s);   /* 1e15 nodes */
    return model_avg_ns_shape(&p, &s, 64) + model_avg_ns_continuous(&p, 5, 1e15, 64);
}

static double binomial_2_20(void)
{
    model_params p;
    topo_shape s;
    model_params_preset("current", &p);
    topo_shape_equal(2, 1024, &s);
    return model_bcast_binomial_ns(&p, &s, 64, NULL);
}

#define RUNS_I11 5

static void issue11_figures(void)
{
    double ref[RUNS_I11], closed[RUNS_I11], enumer[RUNS_I11], lu[RUNS_I11], lc[RUNS_I11],
        lat[RUNS_I11], big[RUNS_I11], bin[RUNS_I11];
    topo_shape_equal(3, 100, &mega);
    if (model_load_init(&mega_load, &mega, TOPO_LINKS_BI, TOPO_PATTERN_COMPLEMENT))
        exit(EXIT_FAILURE);
    for (int r = 0; r < RUNS_I11; r++) {
        ref[r] = seconds_per(reference_pass);
        closed[r] = seconds_per(patterns_closed);
        enumer[r] = seconds_per(patterns_enumerated);
        load_pattern = TOPO_PATTERN_UNIFORM;
        lu[r] = seconds_per(loads);
        load_pattern = TOPO_PATTERN_COMPLEMENT;
        lc[r] = seconds_per(loads);
        lat[r] = seconds_per(latency_once);
        big[r] = seconds_per(uniform_1e15);
        bin[r] = seconds_per(binomial_2_20);
    }
    double rf = median_of(ref, RUNS_I11);
    printf("patterns and load (process time, medians of %d runs; reference: one rank->coords pass over 10^6 nodes "
           "%.2f ms)\n", RUNS_I11, 1e3 * rf);
    printf("  4 patterns x 2 links, closed form, 100x100x100   %10.3f ms  (%.3gx the reference)\n",
           1e3 * median_of(closed, RUNS_I11), median_of(closed, RUNS_I11) / rf);
    printf("  4 patterns, one pass over the sources, 10^6 nodes %9.3f ms  (%.3gx; target < 1 s)\n",
           1e3 * median_of(enumer, RUNS_I11), median_of(enumer, RUNS_I11) / rf);
    printf("  channel loads + input streams, uniform, 10^6      %9.3f ms  (%.3gx; target < 1 s)\n",
           1e3 * median_of(lu, RUNS_I11), median_of(lu, RUNS_I11) / rf);
    printf("  channel loads + input streams, complement, 10^6   %9.3f ms  (%.3gx; target < 1 s)\n",
           1e3 * median_of(lc, RUNS_I11), median_of(lc, RUNS_I11) / rf);
    printf("  loaded latency at one rate, complement, 10^6      %9.3f ms  (%.3gx)\n",
           1e3 * median_of(lat, RUNS_I11), median_of(lat, RUNS_I11) / rf);
    model_load_free(&mega_load);
    printf("  uniform closed form at N = 1e15 (5D, bi)          %9.3f us\n",
           1e6 * median_of(big, RUNS_I11));
    printf("  binomial broadcast exact, 1024x1024 = 2^20 nodes  %9.3f ms  (%.3gx; target < 2 s)\n",
           1e3 * median_of(bin, RUNS_I11), median_of(bin, RUNS_I11) / rf);
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
    issue11_figures();
    return 0;
}
