/* Tests for --pattern logp: the nonlinearity search on synthetic
 * curves, recovery of injected os, or and g with both backends, bad input,
 * and an interrupted run that keeps its finished sizes (calibrate --logp on
 * files: test_logp_fit.c). */
#include <fcntl.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
#include <time.h>

#include "bench/logp.h"
#include "benchdata/logpdata.h"
#include "tests/logp_decide.h"
#include "tests/runcmd.h"

TestSuite(logp, .timeout = 240);

/* ---- the nonlinearity search on synthetic curves ----------------------- */

typedef double (*curve_fn)(double m);

static double linear(double m) { return 500 + 0.25 * m; }
/* a knee at 1000 B: the slope goes from 0.25 to 2 ns/B (an eager ->
 * rendezvous switch, say) */
static double knee(double m) { return m <= 1000 ? 500 + 0.25 * m : 750 + 2 * (m - 1000); }

static int by_size(const void *a, const void *b)
{
    long x = ((const logp_row *)a)->size_bytes, y = ((const logp_row *)b)->size_bytes;
    return (x > y) - (x < y);
}

static logp_row row_of(long m, curve_fn os)
{
    logp_row r = {.size_bytes = m, .os_ns = os((double)m), .or_ns = 300 + 0.1 * (double)m,
                  .g_ns = 900 + 0.5 * (double)m, .rtt_ns = 1, .round_trips = 2};
    return r;
}

/* Runs the search as the benchmark does: the 2^k sweep 0..65536, then
 * every size it asks for (one pass), again over the rows with them, until
 * it asks for none.  Returns the inserted sizes. */
static long search(curve_fn os, long *inserted, long cap)
{
    logp_row rows[LOGP_MAX_SIZES];
    long sizes[LOGP_MAX_SIZES], next[LOGP_MAX_EXTRA_SIZES], n, extra = 0;
    n = logp_sweep_sizes(0, 65536, sizes, LOGP_MAX_SIZES);
    cr_assert_eq(n, 18, "0, 1, 2, ..., 65536");
    for (long i = 0; i < n; i++)
        rows[i] = row_of(sizes[i], os);
    int k;
    while ((k = logp_next_sizes(rows, n, LOGP_DEFAULT_MAX_DIFF, LOGP_DEFAULT_EPS, next,
                                LOGP_MAX_EXTRA_SIZES)) > 0) {
        for (int j = 0; j < k; j++) {
            cr_assert_lt(extra, cap, "the search did not stop");
            for (long i = 0; i < n; i++)
                cr_assert_neq(rows[i].size_bytes, next[j], "size %ld asked for twice", next[j]);
            inserted[extra++] = next[j];
            rows[n++] = row_of(next[j], os);
        }
        qsort(rows, (size_t)n, sizeof *rows, by_size);
    }
    long first;
    cr_assert_eq(logp_next_sizes(rows, n, LOGP_DEFAULT_MAX_DIFF, LOGP_DEFAULT_EPS, &first, 1), 0,
                 "asked for one size: nothing left either");
    return extra;
}

Test(logp, search_inserts_nothing_on_a_linear_curve)
{
    long ins[LOGP_MAX_EXTRA_SIZES];
    cr_assert_eq(search(linear, ins, LOGP_MAX_EXTRA_SIZES), 0);
}

Test(logp, search_inserts_sizes_at_a_knee_and_only_there)
{
    long ins[LOGP_MAX_EXTRA_SIZES];
    long n = search(knee, ins, LOGP_MAX_EXTRA_SIZES);
    cr_assert_geq(n, 2, "%ld sizes inserted", n);
    long nearest = 1L << 40;
    for (long i = 0; i < n; i++) {
        /* the knee lies between the sweep's 512 and 2048 B */
        cr_assert(ins[i] > 512 && ins[i] < 2048, "inserted %ld B, away from the knee", ins[i]);
        if (labs(ins[i] - 1000) < labs(nearest - 1000))
            nearest = ins[i];
    }
    /* halving stops at LogP/MPI's smallest interval, max(32 B, eps m) */
    cr_assert_leq(labs(nearest - 1000), 64, "closest inserted size %ld B", nearest);
}

Test(logp, sweep_sizes_and_round_trip_cap)
{
    long s[LOGP_MAX_SIZES];
    cr_assert_eq(logp_sweep_sizes(100, 1000, s, LOGP_MAX_SIZES), 5);
    cr_assert(s[0] == 100 && s[1] == 128 && s[3] == 512 && s[4] == 1000);
    cr_assert_eq(logp_sweep_sizes(8, 8, s, LOGP_MAX_SIZES), 1);
    cr_assert_eq(logp_rtt_cap(18, 1024), 72, "LogP/MPI: x4 up to 1 KiB");
    cr_assert_eq(logp_rtt_cap(18, 65536), 36);
    cr_assert_eq(logp_rtt_cap(18, 65537), 18);
}

/* ---- injected delays, both backends ------------------------------------ */

static char dir[] = "/tmp/scitorus-logp-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

static const char *file(const char *name) { return run_path(dir, name); }

/* Known costs, in both processes: 40 us in every send, 60 us after every
 * receive, sends at least 160 us apart (so g = 160 us, above os and or);
 * tens of microseconds, so that the transports' own costs stay inside 10%. */
#define OS_NS 40000.0
#define OR_NS 60000.0
#define GAP_NS 160000.0
#define INJ_OS "40000"
#define INJ_OR "60000"
#define INJ_GAP "160000"

/* A negative L (or L_fence) is flagged in the file, with the reason, and
 * only then, naming which: the oracle is the file's own L_ns and L_fence_ns. */
static void assert_negative_L_flagged(const logp_data *d)
{
    const char *lf = bench_data_header(&d->hdr, "L_fence_ns"), *flag;
    int negative = d->L_ns < 0 || (lf && atof(lf) < 0);
    flag = bench_data_header(&d->hdr, "L_flag");
    cr_assert_eq(flag != NULL, negative, "L_ns %.1f, L_fence_ns %s, L_flag %s", d->L_ns,
                 lf ? lf : "-", flag ? flag : "-");
    if (flag)
        cr_assert_not_null(strstr(flag, "exceed RTT/2"), "L_flag without its reason: %s", flag);
    if (flag && d->L_ns >= 0)   /* only the fenced L is negative: the flag names it */
        cr_assert_not_null(strstr(flag, "L_fence_ns negative"), "L_ns %.1f stands: %s", d->L_ns, flag);
}

/* The file's structure is asserted; its values are returned: 1 when os, or
 * and g are within 10% of the injection at every size (strict) or at the
 * sizes not flagged, of which at least half (Open MPI oversubscribed yields
 * its CPU when it waits, and the benchmark flags such sizes); 0 when one is
 * farther than 10% by more than its own interval; else -1 (an estimate whose
 * interval reaches across the bound cannot say which side it lies on). */
static int recovered(const char *path, const char *backend, int strict, long sizes, char *why,
                     size_t len)
{
    logp_data d = logp_read_ok(path);
    long clean = 0;
    int ok = 1;
    cr_assert_not(d.incomplete);
    assert_negative_L_flagged(&d);
    cr_assert_str_eq(bench_data_header(&d.hdr, "backend"), backend);
    cr_assert_geq(d.count, sizes, "%s: %ld sizes, expected at least %ld", backend, d.count, sizes);
    static const struct { const char *name; size_t off, ci; double inj; } q[] = {
        {"os", offsetof(logp_row, os_ns), offsetof(logp_row, os_ci_ns), OS_NS},
        {"or", offsetof(logp_row, or_ns), offsetof(logp_row, or_ci_ns), OR_NS},
        {"g", offsetof(logp_row, g_ns), offsetof(logp_row, g_ci_ns), GAP_NS}};
    for (long i = 0; i < d.count && ok == 1; i++) {
        const logp_row *r = &d.rows[i];
        if (!strict && strcmp(r->flag, "ok") != 0)
            continue;
        clean++;
        for (size_t j = 0; j < sizeof q / sizeof *q && ok == 1; j++) {
            double v = *(const double *)((const char *)r + q[j].off);
            double ci = *(const double *)((const char *)r + q[j].ci);
            if (!(fabs(v - q[j].inj) < 0.1 * q[j].inj)) {
                ok = fabs(v - q[j].inj) - ci >= 0.1 * q[j].inj ? 0 : -1;
                snprintf(why, len, "%s %ld B: %s %.0f +- %.0f ns, injected %.0f%s", backend, r->size_bytes,
                         q[j].name, v, ci, q[j].inj, ok ? " (its interval reaches within 10%)" : "");
            }
        }
    }
    if (ok == 1 && 2 * clean < d.count) {
        snprintf(why, len, "%s: %ld of %ld sizes clean", backend, clean, d.count);
        ok = 0;
    }
    logp_data_free(&d);
    return ok;
}

/* One shm logp run with the injected delays: os, or and g, and the
 * one-way stream at 1024 B (128 x 160 us), judged only when its own
 * interval is within eps (3%). */
static int shm_logp_try(const char *out, char *why, size_t len, double *share)
{
    run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, run_prog("scibench", 1),
                           "--pattern", "logp", "--max-size",
                           "1024", "--inject-os", INJ_OS, "--inject-or", INJ_OR, "--inject-gap",
                           INJ_GAP, "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    *share = logp_cpu_share(out);
    int v = recovered(out, "shm", 1, 12, why, len);   /* 0, 1, 2, ..., 1024 */
    if (v != 1)
        return v;
    logp_data d = logp_read_ok(out);
    const char *ow = bench_data_header(&d.hdr, "ow_ns");
    long m = 0;
    double ow_ns = 0, ci = 0;
    cr_assert_not_null(ow, "no ow_ns header");
    cr_assert_eq(sscanf(ow, "%ld:%lf:%lf", &m, &ow_ns, &ci), 3, "ow_ns: %s", ow);
    cr_assert_eq(m, 1024);
    logp_data_free(&d);
    if (ci > LOGP_DEFAULT_EPS * ow_ns) {
        snprintf(why, len, "the ow stream's interval %.1f%% of %.0f ns, wider than eps (%.0f%%)",
                 100 * ci / ow_ns, ow_ns, 100 * LOGP_DEFAULT_EPS);
        return -1;
    }
    if (!(fabs(ow_ns - GAP_NS) < 0.1 * GAP_NS)) {
        snprintf(why, len, "ow %.0f ns +- %.0f, injected gap %.0f", ow_ns, ci, GAP_NS);
        return 0;
    }
    return 1;
}

Test(logp, shm_recovers_injected_os_or_g, .init = setup, .fini = teardown)
{
    run_timing_lock();
    decide(shm_logp_try, file("shm.tsv"), 5);
}

static int mpi_logp_try(const char *out, char *why, size_t len, double *share)
{
    run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, "/usr/bin/timeout", "100",
                           "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                           run_prog("mpibench", 1), "--pattern", "logp", "--max-size", "256",
                           "--mpi-send", "isend", "--mpi-recv",
                           "irecv", "--inject-os", INJ_OS, "--inject-or", INJ_OR,
                           "--inject-gap", INJ_GAP, "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    *share = logp_cpu_share(out);
    logp_data d = logp_read_ok(out);
    cr_assert_str_eq(bench_data_header(&d.hdr, "variant"), "isend/irecv");
    logp_data_free(&d);
    return recovered(out, "mpi", 0, 10, why, len);   /* 0, 1, 2, ..., 256 */
}

Test(logp, mpi_recovers_injected_os_or_g_with_isend_irecv, .init = setup, .fini = teardown)
{
    run_timing_lock();
    decide(mpi_logp_try, file("mpi.tsv"), 3);
}

/* LogP/MPI's os of the Isend variant is the MPI_Isend call alone, its
 * MPI_Wait untimed.  At 64 KiB Open MPI's shared-memory transport hands the
 * message over by rendezvous: a call that waited for completion would last
 * the transfer (os at least the one-way time, rtt/2 -- as MPI_Send's does),
 * the post alone is a small part of it. */
Test(logp, mpi_isend_os_is_the_post_not_the_transfer, .init = setup, .fini = teardown)
{
    run_timing_lock();
    const char *out = file("isend.tsv");
    run_result r = run_cmd("/usr/bin/timeout", 70, "60", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 1), "--pattern",
                           "logp", "--min-size", "65536", "--max-size", "65536", "--mpi-send",
                           "isend", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    logp_data d = logp_read_ok(out);
    const logp_row *row = logp_data_find(&d, 65536);
    cr_assert_not_null(row);
    cr_assert_lt(row->os_ns, 0.5 * row->rtt_ns / 2, "isend os %.0f ns against a one-way %.0f ns",
                 row->os_ns, row->rtt_ns / 2);
    logp_data_free(&d);
    run_free(&r);
}

/* MPI_Ssend returns only once the receiver has matched the message (a
 * handshake back to the sender), so its os spans about a round trip and
 * L = RTT/2 - os - or is negative: the file must say so, and why. */
Test(logp, negative_L_is_flagged_with_its_reason, .init = setup, .fini = teardown)
{
    const char *out = file("ssend.tsv");
    run_result r = run_cmd("/usr/bin/timeout", 70, "60", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 1), "--pattern",
                           "logp", "--max-size", "16", "--mpi-send", "ssend", "-q", "-o", out,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    logp_data d = logp_read_ok(out);
    cr_assert_lt(d.L_ns, 0, "ssend: L_ns %.1f", d.L_ns);
    assert_negative_L_flagged(&d);
    logp_data_free(&d);
    run_free(&r);
}

/* ---- bad input ---------------------------------------------------------- */

Test(logp, usage_errors_name_the_argument)
{
    static const char *const cases[][5] = {
        {"--eps", "0", NULL, NULL, "--eps '0'"},
        {"--conf", "1.5", NULL, NULL, "--conf '1.5'"},
        {"--conf", "1", NULL, NULL, "--conf '1'"},
        {"--max-diff", "-1", NULL, NULL, "--max-diff '-1'"},
        {"--min-size", "64", "--max-size", "8", "--max-size 8: below --min-size 64"},
        {"--max-rtt", "1", NULL, NULL, "--max-rtt '1'"},
        {"--ring", "4", NULL, NULL, "--ring: not an option of --pattern logp"},
        {"--mpi-recv", "irecv", NULL, NULL, "unrecognized option '--mpi-recv'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(run_prog("scibench", 0), 30, "--pattern", "logp", cases[i][0],
                               cases[i][1], cases[i][2], cases[i][3], NULL);
        run_assert_error(&r, 2, cases[i][4], cases[i][4]);
        run_free(&r);
    }
    run_result r = run_cmd("/usr/bin/timeout", 60, "50", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 1), "--pattern",
                           "logp", "--mpi-recv", "wait", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "--mpi-recv 'wait': expected recv or irecv"), "%s", r.err);
    run_free(&r);
}

Test(logp, three_ranks_is_a_usage_error)
{
    run_result r = run_cmd("/usr/bin/timeout", 60, "50", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "3", run_prog("mpibench", 1), "--pattern",
                           "logp", NULL);
    cr_assert_neq(r.status, 0);
    cr_assert_not_null(strstr(r.err, "needs exactly 2 processes"), "%s", r.err);
    run_free(&r);
}

/* A sweep whose sizes are all below the 8 bytes of the receive overhead's
 * request (overhead_pair asks the peer for an m-byte reply in an int64):
 * every size measured, on both backends.  The peer's buffer, sized to the
 * sweep alone, used to refuse the request, and the run died at 0 B. */
Test(logp, sizes_below_eight_bytes_are_measured, .init = setup, .fini = teardown)
{
    for (int mpi = 0; mpi < 2; mpi++) {
        const char *out = run_path(dir, mpi ? "small-mpi.tsv" : "small.tsv");
        run_result r = mpi ? run_cmd("/usr/bin/timeout", 120, "110", "mpirun", "--allow-run-as-root",
                                     "--oversubscribe", "-np", "2", run_prog("mpibench", 1),
                                     "--pattern", "logp", "--sizes", "0..4", "--max-rtt", "5",
                                     "-q", "-o", out, NULL)
                           : run_cmd(run_prog("scibench", 0), 120, "--pattern", "logp",
                                     "--sizes", "0..4", "--max-rtt", "5", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", mpi ? "mpibench" : "scibench", r.err);
        run_free(&r);
        logp_data d;
        bench_read_error e;
        cr_assert_eq(logp_data_read(out, &d, &e), 0, "%s:%ld: %s", out, e.line, e.msg);
        cr_assert_not(d.hdr.incomplete, "%s", out);
        static const long want[] = {0, 1, 2, 4};
        cr_assert_eq(d.count, 4, "%s: %ld sizes", out, d.count);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(d.rows[i].size_bytes, want[i], "%s", out);
        logp_data_free(&d);
    }
}

/* ---- an interrupted run keeps its finished sizes; --resume completes it -- */

static pid_t start_slow_run(const char *out, const char *errfile)
{
    /* 1 ms gaps: each size's turn takes about 25 ms.  Injected os and or:
     * their intervals close at the first check, after 5 turns, so every
     * size finishes in the fifth round, which goes up the sizes (0 B first,
     * the other five in the next 120 ms); without them os and or ran to the
     * cap, 20 turns, in a round going down.  Six sizes (0..16 B): what is
     * kept and resumed does not depend on how many there are */
    char *argv[] = {(char *)run_prog("scibench", 0), "--pattern", "logp", "--max-size", "16",
                    "--inject-gap", "1000000", "--inject-os", "40000", "--inject-or", "60000",
                    "--max-rtt", "5", "--timeout", "5", "-o", (char *)out, NULL};
    pid_t pid = run_spawn(argv, errfile);
    cr_assert(run_wait_text(errfile, " B: os", 150),   /* a size is finished */
              "scibench did not finish a size in 150 s");
    return pid;
}

Test(logp, sigint_keeps_finished_sizes_and_resume_completes, .init = setup, .fini = teardown)
{
    run_timing_lock();
    const char *out = file("int.tsv"), *err = file("int.err");
    pid_t pid = start_slow_run(out, err);
    kill(pid, SIGINT);
    cr_assert_eq(run_wait_exit(pid, 20), 130);
    logp_data d = logp_read_ok(out);
    cr_assert(d.incomplete);
    cr_assert_geq(d.count, 1, "a size was finished");
    cr_assert_lt(d.count, 6, "the run was interrupted before its last size");
    /* L comes with the smallest size, not before */
    cr_assert_eq(isfinite(d.L_ns), logp_data_find(&d, 0) != NULL, "L_ns %g with%s size 0",
                 d.L_ns, logp_data_find(&d, 0) ? "" : "out");
    logp_row first = d.rows[0];
    long before = d.count;
    logp_data_free(&d);

    run_result r = run_cmd(run_prog("scibench", 0), 200, "--resume", out, "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    d = logp_read_ok(out);
    cr_assert_not(d.incomplete);
    cr_assert_geq(d.count, 6, "0..16: 6 sizes (had %ld before resume)", before);
    const logp_row *again = logp_data_find(&d, first.size_bytes);
    cr_assert_not_null(again);
    cr_assert_float_eq(again->os_ns, first.os_ns, 0.05, "a finished size is kept, not redone");
    cr_assert_float_eq(again->g_ns, first.g_ns, 0.05);
    logp_data_free(&d);
    run_free(&r);
}

/* ---- --os-fence: the drain of the send's stores ------------------------- */

/* Sweeps of the --os-fence test; each size's round-trip comparison is
 * the median over them. */
#define FENCE_RUNS 3

/* With a fence after the timed send, os stays the call and the fenced
 * send is measured beside it: both see the injected 40 us in every send,
 * and the fence does not move the round trip (the stores drain before the
 * peer can see the message either way).  A size's round trips are the mean
 * of the few its intervals need, so one stall moves a sweep's: they compare
 * in the median of FENCE_RUNS sweeps; every sweep's fenced os must still be
 * the injection. */
static int fence_try(const char *out, char *why, size_t len, double *share)
{
    enum { SIZES = 9 };   /* 1, 2, 4, ..., 256 */
    double diff[SIZES][FENCE_RUNS];
    int ok = 1;
    for (int run = 0; run < FENCE_RUNS; run++) {
        run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, run_prog("scibench", 1),
                               "--pattern", "logp", "--min-size", "1", "--max-size", "256",
                               "--os-fence", "--inject-os", INJ_OS, "--inject-or", INJ_OR,
                               "--inject-gap", INJ_GAP, "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        double sh = logp_cpu_share(out);
        *share = run ? fmin(*share, sh) : sh;
        if (ok == 1)
            ok = recovered(out, "shm", 1, SIZES, why, len);
        logp_data d = logp_read_ok(out);
        cr_assert_not_null(bench_data_header(&d.hdr, "os_fence"));
        cr_assert_not_null(bench_data_header(&d.hdr, "L_fence_ns"));
        int seen = 0;
        for (long i = 0; i < d.count; i++) {
            const logp_row *w = &d.rows[i];
            cr_assert(w->has_fence, "%ld B: no fenced columns", w->size_bytes);
            if (ok == 1 && !(fabs(w->os_fence_ns - OS_NS) < 0.1 * OS_NS)) {
                snprintf(why, len, "%ld B: fenced os %.0f ns, injected %.0f", w->size_bytes, w->os_fence_ns,
                         OS_NS);
                ok = 0;
            }
            fprintf(stderr, "os-fence sweep %d, %ld B: round trip %.0f ns, fenced %.0f\n", run,
                    w->size_bytes, w->rtt_ns, w->rtt_fence_ns);
            if (w->size_bytes & (w->size_bytes - 1))
                continue;   /* a size the nonlinearity search added */
            int k = 0;
            while ((1L << k) < w->size_bytes)
                k++;
            cr_assert_lt(k, SIZES);
            diff[k][run] = fabs(w->rtt_fence_ns - w->rtt_ns) / w->rtt_ns;
            seen |= 1 << k;
        }
        cr_assert_eq(seen, (1 << SIZES) - 1, "sizes 1..256 B: %#x of them", seen);
        logp_data_free(&d);
    }
    for (int i = 0; i < SIZES && ok == 1; i++) {
        gsl_sort(diff[i], 1, FENCE_RUNS);
        double med = gsl_stats_median_from_sorted_data(diff[i], 1, FENCE_RUNS);
        if (!(med < 0.1)) {
            snprintf(why, len, "%ld B: fenced and plain round trips %.1f%% apart (median of %d sweeps)", 1L << i,
                     100 * med, FENCE_RUNS);
            ok = 0;
        }
    }
    return ok;
}

Test(logp, os_fence_keeps_os_the_call_and_times_the_fenced_send, .init = setup,
     .fini = teardown)
{
    run_timing_lock();
    decide(fence_try, file("fence.tsv"), 3);
}
