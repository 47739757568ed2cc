/* full_run: calibrate --full -- K whole launches, each measuring the four
 * networks in one run, fitting on three and checking on the held-out fourth;
 * an unstable run is measured again while time allows, a steady one that
 * misses the check once more.  Of the qualified launches the one whose o(64)
 * is their median is kept, whole; without one, the best-qualified run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchdata/regime.h"
#include "calibrate/calibrate.h"
#include "util/signals.h"

/* The whole of --full, re-measurements included, stays under a minute. */
#define FULL_BUDGET_S 55.0
/* Unstable runs are measured again up to FULL_MAX_RUNS runs in all (a shared machine's regime
 * can move for several runs in a row); before a launch qualified, a steady run that misses the
 * check only once more: retried until it passes, a check checks nothing.  After one has, a miss
 * costs only time (the verdict is already a passed check's), so only the budget stops. */
#define FULL_MAX_STEADY_MISSES 2
/* A benchmark whose spinning processes had less of their cores than this
 * shared them with other work (make check's test_verdict measures a
 * quiet run's share against it). */
#define QUIET_CPU_SHARE 0.97
/* The same for an MPI job, whose launcher's start-up and wind-down are in
 * its wall time with less than every core busy (test_verdict, the same). */
#define QUIET_CPU_SHARE_MPI 0.90
/* More than this fraction of unsteady points (points.c) is an unstable run. */
#define UNSTEADY_FRACTION 0.10

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* max/min of the floors that were measured (1 when fewer than two). */
static double floor_ratio(const double *f, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++)
        if (f[i] > 0)
            lo = fmin(lo, f[i]), hi = fmax(hi, f[i]);
    return hi > 0 && lo < hi ? hi / lo : 1;
}

/* One run: measure, fit, check.  *why gets what was wrong ("" if nothing). */
typedef struct attempt {
    pointset ps, vs;
    fit_result res;
    int fitted;
    heldout h;
    double floors[3];   /* before, the run's own, after */
    double cpu_share;   /* the benchmark's CPU over its cores' time (NaN: not judged) */
    int unstable;       /* the floor moved, points bimodal or no fit: the measurement's fault */
    char why[256];
} attempt;

static void attempt_free(attempt *a)
{
    if (a->fitted)
        fit_result_free(&a->res);
    pointset_free(&a->ps);
    pointset_free(&a->vs);
    memset(a, 0, sizeof *a);
}

static int attempt_run(options *o, const char *max_time, attempt *a)
{
    char bench_path[PATH_MAX];
    int rc;
    a->ps.weights = a->vs.weights = o->weights;
    a->floors[0] = measure_floor(o);
    if (bench_interrupted())
        return stopped("interrupted; nothing measured, nothing fitted");
    if ((rc = measure(o, max_time, bench_path, sizeof bench_path, &a->cpu_share)))
        return rc;
    a->floors[2] = measure_floor(o);
    if (bench_interrupted())
        return stopped("interrupted; the data is kept in %s; nothing fitted", bench_path);
    o->ndata = o->nvalidate = 0;
    for (int k = 0; k < FULL_NETS; k++)
        if (k != FULL_HELD_OUT)
            o->data[o->ndata++] = o->plan.path[k];
    o->validate[o->nvalidate++] = o->plan.path[FULL_HELD_OUT];
    if ((rc = load_validate(o, &a->vs)))
        return rc;
    rc = calibrate_fit(o, &a->ps, &a->res, 0);
    a->floors[1] = a->ps.floor_ns;
    long rows = a->ps.rows + a->vs.rows, unsteady = a->ps.unsteady + a->vs.unsteady;
    double ratio = floor_ratio(a->floors, 3);
    size_t len = 0;
    if (ratio > BENCH_REGIME_RATIO)
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "the floor changed %.1fx"
                                " during the run (a change of regime)", ratio);
    /* the floors beside the batches: a quarter of the points in another regime */
    if (bench_regime_spans(a->ps.regime[1], a->ps.regime[2]))
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "%sthe points' floors span"
                                " regimes (quartiles %.0f..%.0f ns)", len ? "; " : "",
                                a->ps.regime[1], a->ps.regime[2]);
    if (a->cpu_share < (strcmp(o->backend, "mpi") ? QUIET_CPU_SHARE : QUIET_CPU_SHARE_MPI))
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "%sthe benchmark had %.0f%% of its"
                                " cores (other work shared them)", len ? "; " : "", 100 * a->cpu_share);
    if (rows && unsteady > UNSTEADY_FRACTION * (double)rows)
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "%s%ld of %ld points took"
                                " their batches in two regimes", len ? "; " : "", unsteady, rows);
    a->unstable = len > 0;
    if (rc == EXIT_FAILURE) {   /* a fit the model cannot describe: measured again too */
        snprintf(a->why + len, sizeof a->why - len, "%sthe fit failed", len ? "; " : "");
        a->unstable = 1;
        return 0;
    }
    if (rc)
        return rc;
    a->fitted = 1;
    if ((rc = validate(o, &a->vs, &a->res.params, 0, &a->h)))
        return rc;
    if (a->h.max > o->max_error)
        snprintf(a->why + len, sizeof a->why - len, "%sheld-out max error %.2f%% > %g%%",
                 len ? "; " : "", 100 * a->h.max, 100 * o->max_error);
    return 0;
}

/* The run's line: its floors, points, parameters and held-out error. */
static void attempt_line(const options *o, int k, const attempt *a, double took)
{
    fprintf(o->report, "calibrate: run %d (%.1f s): floor", k, took);
    if (isnan(a->floors[0]) && isnan(a->floors[2]) && !(a->floors[1] > 0))
        fprintf(o->report, " not measured (%s backend)", o->backend);
    else
        fprintf(o->report, " %.0f ns before, %.0f at the start, %.0f after", a->floors[0],
                a->floors[1], a->floors[2]);
    if (a->ps.regime[0] > 0)
        fprintf(o->report, "; beside the batches %.0f ns (quartiles %.0f..%.0f)",
                a->ps.regime[0], a->ps.regime[1], a->ps.regime[2]);
    fprintf(o->report, "; %ld of %ld points unsteady", a->ps.unsteady + a->vs.unsteady,
            a->ps.rows + a->vs.rows);
    if (a->fitted)
        fprintf(o->report, "; o(64 B) %.4g ns, lf %.4g ns, ls %.4g ns",
                model_overhead_ns(&a->res.params, 64), a->res.params.lf_ns, a->res.params.ls_ns);
    if (a->fitted && a->h.max <= o->max_error)   /* (else the reason says it) */
        fprintf(o->report, "; held-out max error %.2f%%", 100 * a->h.max);
    fprintf(o->report, "%s%s\n", a->why[0] ? ": " : "", a->why);
}

/* A launch that counts: fitted, steady and its check passed. */
static int qualified(const attempt *a)
{
    return a->fitted && !a->why[0];
}

/* Which of two runs to keep when no launch qualified: one that passed the
 * check, then a steady one, then the smaller share of unsteady points, then
 * the steadier floors.  Returns 1 when a is better than b (b unfitted: any
 * fitted a is). */
static int attempt_better(const options *o, const attempt *a, const attempt *b)
{
    if (!a->fitted || !b->fitted)
        return a->fitted > b->fitted;
    int pa = a->h.max <= o->max_error, pb = b->h.max <= o->max_error;
    if (pa != pb)
        return pa > pb;
    if (a->unstable != b->unstable)
        return a->unstable < b->unstable;
    double ua = (double)(a->ps.unsteady + a->vs.unsteady) / (double)(a->ps.rows + a->vs.rows + 1);
    double ub = (double)(b->ps.unsteady + b->vs.unsteady) / (double)(b->ps.rows + b->vs.rows + 1);
    if (ua != ub)
        return ua < ub;
    return floor_ratio(a->floors, 3) < floor_ratio(b->floors, 3);
}

/* The data files of a run that may be kept sit beside the plan's until the
 * end, so that a later run does not overwrite them: PATH.kept for the best
 * unqualified run (k = 0), PATH.kept<k> for qualified launch k.  keep: 1
 * moves them aside, 0 back, -1 removes them. */
static int kept_files(const options *o, int k, int keep)
{
    for (int n = 0; n < FULL_NETS; n++) {
        char kept[PATH_MAX + 16];
        snprintf(kept, sizeof kept, k ? "%s.kept%d" : "%s.kept", o->plan.path[n], k);
        const char *from = keep ? o->plan.path[n] : kept, *to = keep ? kept : o->plan.path[n];
        if (keep < 0 ? unlink(kept) && errno != ENOENT : rename(from, to))
            return fail("--full: cannot move '%s' to '%s': %s", from, to, strerror(errno));
    }
    return 0;
}

/* The parameters of every fitted run, for the spread report. */
typedef struct run_params {
    int k, qualified;
    double v[MODEL_P_ALL], err[MODEL_P_ALL];
} run_params;

static void note_params(run_params *rp, int *n, int k, const attempt *a)
{
    if (!a->fitted || *n >= FULL_MAX_RUNS)
        return;
    rp[*n].k = k;
    rp[*n].qualified = qualified(a);
    const model_params *p = &a->res.params;
    rp[*n].v[MODEL_P_O0] = model_overhead_ns(p, 64);
    rp[*n].v[MODEL_P_LF] = p->lf_ns;
    rp[*n].v[MODEL_P_LS] = p->ls_ns;
    rp[*n].v[MODEL_P_LB] = p->lb_ns_per_byte;
    memcpy(rp[*n].err, p->err, sizeof rp[*n].err);
    (*n)++;
}

/* The runs the spread is taken over: the qualified launches when two or
 * more qualified, else every fitted run.  Returns how many (compacted in rp). */
static int spread_runs(run_params *rp, int n, int nqual)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (nqual < 2 || rp[i].qualified)
            rp[m++] = rp[i];
    return m;
}

/* Over several runs: each parameter's range, and a warning where the kept
 * run's value and another run's differ by more than twice their combined
 * standard error (the machine changed between them). */
static const struct { int id; const char *name, *unit; } q[] = {
    {MODEL_P_O0, "o(64 B)", "ns"}, {MODEL_P_LF, "lf", "ns"}, {MODEL_P_LS, "ls", "ns"},
    {MODEL_P_LB, "lb", "ns/B"}};
#define NQ ((int)(sizeof q / sizeof *q))

/* 1 when two runs' quantity j of q differs by more than twice their
 * combined standard error: the machine changed between them. */
static int differs(const run_params *a, const run_params *b, int j)
{
    double d = fabs(a->v[q[j].id] - b->v[q[j].id]);
    double e = hypot(a->err[q[j].id], b->err[q[j].id]);
    return isfinite(e) && d > 2 * e && d > 0;
}

static void report_spread(const options *o, const run_params *rp, int n, int kept, int launches)
{
    if (n < 2)
        return;
    const run_params *kr = rp;
    for (int i = 0; i < n; i++)
        if (rp[i].k == kept)
            kr = &rp[i];
    if (launches)
        fprintf(o->report, "calibrate: kept run %d, the median o(64 B) of %d qualified launches;"
                           " over them", kept, n);
    else
        fprintf(o->report, "calibrate: kept run %d of %d fitted; over them", kept, n);
    for (int j = 0; j < NQ; j++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++)
            lo = fmin(lo, rp[i].v[q[j].id]), hi = fmax(hi, rp[i].v[q[j].id]);
        fprintf(o->report, "%s %s %.4g..%.4g %s", j ? "," : "", q[j].name, lo, hi, q[j].unit);
        if (j == 0 && lo > 0)
            fprintf(o->report, " (%.1f%% apart)", 100 * (hi / lo - 1));
    }
    fputc('\n', o->report);
    for (int j = 0; j < NQ; j++)
        for (int i = 0; i < n; i++) {
            if (differs(&rp[i], kr, j)) {
                fprintf(o->report, "warning: %s of run %d (%.4g %s) and of the kept run %d (%.4g %s) differ by"
                        " more than twice their standard errors: the machine changed between the runs\n",
                        q[j].name, rp[i].k, rp[i].v[q[j].id], q[j].unit, kept, kr->v[q[j].id], q[j].unit);
                break;
            }
        }
}

/* Over several runs the kept run's errors also cover their spread:
 * err^2 + the runs' variance, for o0, lf, ls and lb (the launches moved
 * them by more than one fit's error: docs/model.md, 'Intervals'). */
static void widen_by_spread(const options *o, const run_params *rp, int n, int launches,
                            model_params *p)
{
    static const int ids[] = {MODEL_P_O0, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};
    if (n < 2)
        return;
    fprintf(o->report, "calibrate: the errors written cover the spread of the %d %s:", n,
            launches ? "qualified launches" : "fitted runs");
    for (size_t j = 0; j < sizeof ids / sizeof *ids; j++) {
        int id = ids[j];
        double v[n];
        for (int i = 0; i < n; i++)
            v[i] = rp[i].v[id];
        double was = calibrate_widen_err(p, id, v, n);
        if (!isnan(was))
            fprintf(o->report, " %s +- %.3g (fit %.3g)", model_param_key[id], p->err[id], was);
    }
    fputc('\n', o->report);
}

/* The launches' o(64), lf, ls and lb into p's launch keys (their median and
 * its interval: docs/formats.md, 'Params file'). */
static void launch_keys(const run_params *rp, int n, model_params *p)
{
    static const int id[MODEL_LAUNCH_COUNT] = {MODEL_P_O0, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};
    double v[FULL_MAX_RUNS][MODEL_LAUNCH_COUNT];
    for (int i = 0; i < n; i++)
        for (int q = 0; q < MODEL_LAUNCH_COUNT; q++)
            v[i][q] = rp[i].v[id[q]];
    launches_keys(p, (const double(*)[MODEL_LAUNCH_COUNT])v, n);
}

/* The index, among n qualified launches, of the one whose o(64) is their
 * median (of an even count, the lower middle one). */
static int median_launch(const attempt *qual, int n)
{
    int idx[FULL_MAX_RUNS] = {0};
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++)   /* insertion sort by o(64) */
        for (int j = i; j > 0 && model_overhead_ns(&qual[idx[j]].res.params, 64) <
                                     model_overhead_ns(&qual[idx[j - 1]].res.params, 64); j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    return idx[(n - 1) / 2];
}

/* The runs of --full so far: the qualified launches and the best other run. */
typedef struct runs {
    attempt qual[FULL_MAX_RUNS], best;
    int qk[FULL_MAX_RUNS], nqual, best_k;
} runs;

/* Takes run k's attempt a into r (its files moved aside) when it may be kept. */
static int runs_take(const options *o, runs *r, int k, attempt *a)
{
    int rc;
    if (qualified(a)) {
        if ((rc = kept_files(o, k, 1)))
            return rc;
        r->qual[r->nqual] = *a;
        r->qk[r->nqual++] = k;
    } else if (!r->best_k || attempt_better(o, a, &r->best)) {
        if ((rc = kept_files(o, 0, 1)))
            return rc;
        attempt_free(&r->best);
        r->best = *a;
        r->best_k = k;
    } else {
        return 0;
    }
    memset(a, 0, sizeof *a);
    return 0;
}

/* The run kept into *best (its files back in the plan's names, the others'
 * removed; on a failure rc, every kept file removed); returns its number, or
 * -1 when moving the files failed. */
static int runs_keep(const options *o, runs *r, int rc, attempt *best)
{
    int keep = r->nqual ? median_launch(r->qual, r->nqual) : -1, kept = 0, bad = 0;
    for (int i = 0; i < r->nqual; i++) {
        bad |= kept_files(o, r->qk[i], !rc && i == keep ? 0 : -1) != 0;
        if (i == keep)
            *best = r->qual[i], kept = r->qk[i];
        else
            attempt_free(&r->qual[i]);
    }
    if (r->best_k) {
        bad |= kept_files(o, 0, !rc && keep < 0 ? 0 : -1) != 0;
        if (keep < 0)
            *best = r->best, kept = r->best_k;
        else
            attempt_free(&r->best);
    }
    return bad ? -1 : kept;
}

int full_run(options *o)
{
    char pbuf[PATH_MAX], prefix[PATH_MAX], def[sizeof o->host + 32], max_time[32];
    attempt a;
    const char *path = options_params_path(o, pbuf, sizeof pbuf);
    snprintf(def, sizeof def, "%s-%s-full", o->host, o->backend);
    options_stem(path, def, prefix, sizeof prefix);
    if (full_plan_make(&o->plan, prefix, o->ring ? o->ring : FULL_DEFAULT_RING))
        return fail("--full: file names from '%s' too long", prefix);
    if (!o->validation_out)
        o->validation_out = o->plan.validation;
    fs_file mine[FULL_NETS + 1];   /* (the held-out table: as --validation-out) */
    int nmine = 0;
    for (int k = 0; k < FULL_NETS; k++)
        mine[nmine++] = (fs_file){"--full's data file", o->plan.path[k]};
    mine[nmine++] = (fs_file){"--full's link rate file", o->plan.linkrate};
    int frc = options_check_files(o, mine, nmine);
    if (frc)
        return frc;
    double t0 = now_s(), took = 0;
    int rc = 0, k, misses = 0, nrp = 0, changed = 0;
    run_params rp[FULL_MAX_RUNS], last_miss;
    static runs r;   /* (large: the attempts' point sets) */
    attempt best;
    memset(&a, 0, sizeof a);
    memset(&best, 0, sizeof best);
    memset(&r, 0, sizeof r);
    memset(&last_miss, 0, sizeof last_miss);
    for (k = 1; k <= FULL_MAX_RUNS; k++) {
        double start = now_s(), left = FULL_BUDGET_S - (start - t0);
        const char *bound = NULL;
        if (k > 1) {   /* bounded by what is left of the budget */
            double mt = fmin(o->max_time ? atof(o->max_time) : 20, left - 5);
            snprintf(max_time, sizeof max_time, "%.1f", mt);
            bound = max_time;
        }
        if ((rc = attempt_run(o, bound, &a)))
            break;
        took = now_s() - start;
        attempt_line(o, k, &a, took);
        note_params(rp, &nrp, k, &a);
        int qual = qualified(&a), steady_miss = !qual && !a.unstable;
        if ((rc = runs_take(o, &r, k, &a)))
            break;
        attempt_free(&a);
        left = FULL_BUDGET_S - (now_s() - t0);
        if (r.nqual >= o->launches)
            break;
        if (steady_miss && !r.nqual && nrp > 0 && rp[nrp - 1].k == k) {
            /* two steady misses are the fit's when they agree; when they differ beyond
             * their errors the machine changed between them, and the later one counts alone */
            const run_params *now = &rp[nrp - 1];
            int j = -1;
            for (int i = 0; misses && i < NQ && j < 0; i++)
                j = differs(&last_miss, now, i) ? i : -1;
            if (j >= 0) {
                fprintf(o->report, "calibrate: runs %d and %d both missed, but their %s differ"
                                   " beyond their errors (%.4g and %.4g %s): the machine changed"
                                   " between them, not the fit\n", last_miss.k, k, q[j].name,
                        last_miss.v[q[j].id], now->v[q[j].id], q[j].unit);
                misses = 0, changed = 1;
            }
            misses++, last_miss = *now;
        }
        /* another run needs about as long as this one, with a margin */
        double need = 1.3 * took + 6;
        const char *stop = k == FULL_MAX_RUNS ? "that was the last run --full takes"
                         : misses == FULL_MAX_STEADY_MISSES
                             ? "a steady run missed the check twice: the fit, not the measurement"
                         : NULL;
        if (stop) {
            fprintf(o->report, "calibrate: not measuring again: %s (%.0f s of %.0f s used)\n", stop,
                    FULL_BUDGET_S - left, FULL_BUDGET_S);
            break;
        }
        if (left < need) {
            fprintf(o->report, "calibrate: not measuring again: --full's budget is %.0f s and %.0f s"
                               " of it are left, but another run needs about %.0f s (the last one"
                               " took %.0f s)\n", FULL_BUDGET_S, left, need, took);
            break;
        }
        if (qual)
            fprintf(o->report, "calibrate: %d of %ld launches qualified; launching again\n",
                    r.nqual, o->launches);
        else
            fprintf(o->report, "calibrate: measuring again\n");
    }
    attempt_free(&a);
    int kept = runs_keep(o, &r, rc, &best);
    if (kept < 0 && !rc)
        rc = EXIT_FAILURE;
    if (!rc && r.nqual && r.nqual < o->launches)
        fprintf(o->report, "calibrate: %d of the %ld launches asked for qualified; the kept one is"
                           " their median\n", r.nqual, o->launches);
    if (!rc && !best.fitted)
        rc = fail("--full: no run could be fitted (%s); the data is kept in %s", best.why,
                  o->plan.path[0]);
    if (!rc) {
        nrp = spread_runs(rp, nrp, r.nqual);
        report_spread(o, rp, nrp, kept, r.nqual >= 2);
        widen_by_spread(o, rp, nrp, r.nqual >= 2, &best.res.params);
        if (r.nqual >= 2)   /* the params file's launch keys: over the qualified launches */
            launch_keys(rp, nrp, &best.res.params);
        if (!o->quiet)
            fputc('\n', o->report);
        report_fit(o, &best.ps, &best.res);
        report_notes(o, &best.res);
        rc = params_refused(o, &best.res.params, path);
        if (!rc)
            rc = validate(o, &best.vs, &best.res.params, !o->quiet, &best.h);
        if (!rc && best.why[0] && best.h.max <= o->max_error)
            fprintf(o->report, "\nwarning: the run kept (%d) was unstable (%s); its held-out check"
                               " passed all the same\n", kept, best.why);
        if (!rc)
            rc = verdict(o, &best.h, path);
        if (rc == EXIT_CHECK && !best.unstable && changed && misses < FULL_MAX_STEADY_MISSES) {
            fprintf(stderr, "calibrate: undecided: the steady runs that missed disagreed with each"
                            " other beyond their errors and no two agreed, so the miss may be the"
                            " machine's, not the fit's; measure again on a quieter machine (exit"
                            " status %d)\n", EXIT_UNDECIDED);
            rc = EXIT_UNDECIDED;
        }
        if (rc == EXIT_CHECK && best.unstable) {
            fprintf(stderr, "calibrate: undecided: every run was unstable (the kept run: %s), so the"
                            " miss may be the machine's, not the fit's; measure again on a quieter"
                            " machine (exit status %d)\n", best.why, EXIT_UNDECIDED);
            rc = EXIT_UNDECIDED;
        }
        if (!rc)
            rc = linkrate_measure(o, &best.res.params);
        if (!rc && (rc = write_params(o, &best.res, path, o->backend)) == 0)
            report_wrote(o, path, now_s() - t0);
    }
    attempt_free(&best);
    return rc;
}
