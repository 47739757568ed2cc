/* The verdict of an injected-delay test (test_calibrate, test_full): --inject-forward 3000
 * and --inject-switch 5000, several rounds of a plain and an injected set. */
#ifndef SCITORUS_TEST_INJECTED_H
#define SCITORUS_TEST_INJECTED_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define INJECTED_ROUNDS_MAX 8

static inline double injected_median(const double *v, int n)
{
    double s[INJECTED_ROUNDS_MAX];
    for (int i = 0; i < n; i++)
        s[i] = v[i];
    gsl_sort(s, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
}

/* dlf, dls: the fitted lf's and ls's growth each round; tf, ts: what the round's raw points
 * grew a forward (ring) and a switch (the torus, its forwards at the fitted lf's growth);
 * lf, ls: the fitted injected relays.  The fit follows the raw growth within a tenth of the
 * injection (medians over rounds).  An injected relay takes the wait or up to half more: it
 * never takes less, twice the wait is a bug.  Its growth may be less than the wait, by the
 * plain relay's work that the wait hides. */
static inline void assert_injection_recovered(const double *dlf, const double *dls,
                                              const double *tf, const double *ts,
                                              const double *lf, const double *ls, int rounds)
{
    double off_f[INJECTED_ROUNDS_MAX], off_s[INJECTED_ROUNDS_MAX];
    cr_assert(rounds >= 1 && rounds <= INJECTED_ROUNDS_MAX, "%d rounds", rounds);
    for (int k = 0; k < rounds; k++)
        off_f[k] = dlf[k] - tf[k], off_s[k] = dls[k] - ts[k];
    double of = injected_median(off_f, rounds), os = injected_median(off_s, rounds);
    double gf = injected_median(lf, rounds), gs = injected_median(ls, rounds);
    cr_assert(fabs(of) <= 300, "lf grew %.1f ns off what the raw points grew (median of %d rounds)",
              of, rounds);
    cr_assert(fabs(os) <= 500, "ls grew %.1f ns off what the raw points grew (median of %d rounds)",
              os, rounds);
    cr_assert(gf >= 3000 * 0.9 && gf <= 3000 * 1.5, "a forward with a 3000 ns wait took %.1f ns"
              " (fitted lf, median of %d rounds)", gf, rounds);
    cr_assert(gs >= 5000 * 0.9 && gs <= 5000 * 1.5, "a switch with a 5000 ns wait took %.1f ns"
              " (fitted ls, median of %d rounds)", gs, rounds);
}

/* A busy-wait times right only when the benchmark keeps its cores, so a round is judged
 * only when other work took at most INJECTED_OTHER_MAX of the machine's CPU meanwhile:
 * what /proc/stat counts busy (the hypervisor's steal included) less what this test and
 * its waited-for children used, over the round's wall time and the machine's cores. */
#define INJECTED_OTHER_MAX 0.10
typedef struct injected_mark {
    double wall, busy, own;
} injected_mark;

static inline double injected_tv(struct timeval t)
{
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

static inline injected_mark injected_mark_now(void)
{
    injected_mark m = {0};
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    m.wall = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    unsigned long long v[8] = {0};   /* user nice system idle iowait irq softirq steal */
    FILE *fp = fopen("/proc/stat", "r");
    cr_assert_not_null(fp, "/proc/stat");
    cr_assert_eq(fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                        &v[3], &v[4], &v[5], &v[6], &v[7]), 8, "/proc/stat: no cpu line");
    fclose(fp);
    m.busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    m.own = injected_tv(self.ru_utime) + injected_tv(self.ru_stime) + injected_tv(kids.ru_utime) +
            injected_tv(kids.ru_stime);
    return m;
}

/* Other work's share of the machine between marks a and b. */
static inline double injected_other_share(injected_mark a, injected_mark b)
{
    double wall = b.wall - a.wall, other = (b.busy - a.busy) - (b.own - a.own);
    return wall > 0 ? fmax(other, 0) / (wall * (double)sysconf(_SC_NPROCESSORS_ONLN)) : 1;
}

/* The rounds a test judged (their growths, and how many of lf's and ls's are within
 * their bounds) and the figures of every round it ran. */
typedef struct injected_rounds {
    double dlf[INJECTED_ROUNDS_MAX], dls[INJECTED_ROUNDS_MAX];
    double tf[INJECTED_ROUNDS_MAX], ts[INJECTED_ROUNDS_MAX];
    double lf[INJECTED_ROUNDS_MAX], ls[INJECTED_ROUNDS_MAX];
    int judged, tried, lf_in, ls_in;
    char seen[2048];
} injected_rounds;

/* Adds a round that other work took `other` of the machine during: its figures (line)
 * to seen, and, when judged (other at most INJECTED_OTHER_MAX), the fitted lf's and ls's
 * growth (dlf, dls), the raw growth a forward and a switch (tf, ts) and the fitted
 * injected relays (lf, ls).  Returns whether it was judged. */
static inline int injected_add(injected_rounds *r, const char *line, double other, double dlf,
                               double dls, double tf, double ts, double lf, double ls)
{
    size_t used = strlen(r->seen);
    snprintf(r->seen + used, sizeof r->seen - used, "%sround %d: %s; other work took %.0f%% of"
             " the machine%s", used ? "; " : "", r->tried++, line, 100 * other,
             other > INJECTED_OTHER_MAX ? " (not judged)" : "");
    if (other > INJECTED_OTHER_MAX)
        return 0;
    cr_assert_lt(r->judged, INJECTED_ROUNDS_MAX);
    int k = r->judged++;
    r->dlf[k] = dlf, r->dls[k] = dls, r->tf[k] = tf, r->ts[k] = ts, r->lf[k] = lf, r->ls[k] = ls;
    r->lf_in += fabs(dlf - tf) <= 300;
    r->ls_in += fabs(dls - ts) <= 500;
    return 1;
}

#endif
