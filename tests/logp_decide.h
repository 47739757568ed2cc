/* The verdict of a LogP test on injected busy-waits (test_logp, test_logp_flood): tries of a
 * timed run, judged, measured again or skipped by the CPU the run kept. */
#ifndef SCITORUS_TEST_LOGP_DECIDE_H
#define SCITORUS_TEST_LOGP_DECIDE_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchdata/logpdata.h"

/* The injected costs are busy-waits on the wall clock, stretched in a
 * process that loses its CPU: the benchmark runs at a higher priority than
 * other work (as root; elsewhere nice only warns and runs it as it is). */
#define NICE_BOOST "-10"

static inline logp_data logp_read_ok(const char *path)
{
    logp_data d;
    bench_read_error e;
    int rc = logp_data_read(path, &d, &e);
    cr_assert_eq(rc, 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* The measuring process's share of its CPU over the run (cpu_share). */
static inline double logp_cpu_share(const char *path)
{
    logp_data d = logp_read_ok(path);
    const char *v = bench_data_header(&d.hdr, "cpu_share");
    cr_assert_not_null(v, "%s: no cpu_share header", path);
    double share = atof(v);
    logp_data_free(&d);
    return share;
}

/* Injected busy-waits time right only in processes that keep their CPUs.
 * A try returns 1 (the claim held), 0 (it missed: why) or -1 (its own
 * interval too wide to say), and the run's cpu_share (its file's header:
 * about 1 on a quiet machine).  A miss at QUIET_SHARE or more is measured
 * again (a change of regime keeps the CPU share): a second such miss
 * fails; a miss with less of the CPU is measured again too, and when no
 * run holds or fails the claim the test is skipped with every run's
 * figures. */
#define QUIET_SHARE 0.97
#define TRY_START_BY_S 100   /* no try starts later: the test ends within its timeout */
typedef int (*timing_try)(const char *out, char *why, size_t len, double *share);
static inline void decide(timing_try t, const char *out, int tries)
{
    char seen[2048] = "", why[512];
    time_t t0 = time(NULL);
    int quiet_misses = 0;
    for (int k = 1; k <= tries && (k == 1 || time(NULL) - t0 < TRY_START_BY_S); k++) {
        double share = 0;
        why[0] = '\0';
        int v = t(out, why, sizeof why, &share);
        if (v == 1)
            return;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%srun %d: %s, %.1f%% of its CPU", k > 1 ? "; " : "", k,
                 why, 100 * share);
        quiet_misses += v == 0 && share >= QUIET_SHARE;
        cr_assert(quiet_misses < 2, "missed in two runs that had their CPU: %s", seen);
    }
    cr_skip_test("no run could decide%s: %s", quiet_misses ? " (one miss with its CPU, not repeated)" : "",
                 seen);
}

#endif
