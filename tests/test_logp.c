/* Tests for --pattern logp: the nonlinearity search on synthetic
 * curves, recovery of injected os, or and g with both backends, bad input,
 * and an interrupted run that keeps its finished sizes. */
#include <fcntl.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

#include "bench/logp.h"
#include "bench/logpdata.h"
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

/* calibrate --logp on a made-up LogP file, base.tsv holding text, its
 * params written to base.params. */
static run_result calibrate_logp_text(const char *base, const char *text)
{
    char in[64], params[64];
    snprintf(in, sizeof in, "%s.tsv", base);
    snprintf(params, sizeof params, "%s.params", base);
    run_write_text(file(in), text);
    return run_cmd(run_prog("calibrate", 0), 60, "--logp", file(in), "-o", file(params), NULL);
}

static logp_data read_ok(const char *path)
{
    logp_data d;
    bench_read_error e;
    int rc = logp_data_read(path, &d, &e);
    cr_assert_eq(rc, 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* Known costs, in both processes: 40 us in every send, 60 us after every
 * receive, sends at least 160 us apart (so g = 160 us, above os and or).
 * Tens of microseconds: the transports' own costs up to 1 KiB (under 1 us
 * with shared memory, 0.5-2.5 us with Open MPI on this loaded VM) stay
 * inside 10%. */
#define OS_NS 40000.0
#define OR_NS 60000.0
#define GAP_NS 160000.0
/* The injected costs are busy-waits on the wall clock: a process that
 * loses its CPU in a stream stretches it.  On this 2-core VM shared with
 * builds (load 2.5-3.5) g came out at 1.5-1.9 x the injection in one run
 * in three at nice 0; the benchmark runs at a higher priority than the
 * builds (as root; elsewhere nice only warns and runs it as it is). */
#define NICE_BOOST "-10"
#define INJ_OS "40000"
#define INJ_OR "60000"
#define INJ_GAP "160000"

/* Every size (strict), or every size the benchmark did not flag: on this
 * shared 2-core VM, Open MPI oversubscribed yields the CPU whenever it
 * waits, and at some sizes every round trip took 5-12 ms instead of 100 us
 * (or and g then wide, flagged); at least half the sizes must be clean.  MPI
 * up to 256 B only: above, os came out 2-4 us over the injection under
 * load (the eager copy of 832 B is not 4 us unloaded: 0.5 us). */
/* A negative L (or L_fence) is flagged in the file, with the reason, and
 * only then: the oracle is the file's own L_ns. */
static void assert_negative_L_flagged(const logp_data *d)
{
    const char *lf = bench_data_header(&d->hdr, "L_fence_ns"), *flag;
    int negative = d->L_ns < 0 || (lf && atof(lf) < 0);
    flag = bench_data_header(&d->hdr, "L_flag");
    cr_assert_eq(flag != NULL, negative, "L_ns %.1f, L_fence_ns %s, L_flag %s", d->L_ns,
                 lf ? lf : "-", flag ? flag : "-");
    if (flag)
        cr_assert_not_null(strstr(flag, "exceed RTT/2"), "L_flag without its reason: %s", flag);
}

static void assert_recovered(const char *path, const char *backend, int strict, long sizes)
{
    logp_data d = read_ok(path);
    long clean = 0;
    cr_assert_not(d.incomplete);
    assert_negative_L_flagged(&d);
    cr_assert_str_eq(bench_data_header(&d.hdr, "backend"), backend);
    cr_assert_geq(d.count, sizes, "%s: %ld sizes, expected at least %ld", backend, d.count, sizes);
    for (long i = 0; i < d.count; i++) {
        const logp_row *r = &d.rows[i];
        if (!strict && strcmp(r->flag, "ok") != 0)
            continue;
        clean++;
        cr_assert_lt(fabs(r->os_ns - OS_NS), 0.1 * OS_NS, "%s %ld B: os %.0f ns, injected"
                     " %.0f", backend, r->size_bytes, r->os_ns, OS_NS);
        cr_assert_lt(fabs(r->or_ns - OR_NS), 0.1 * OR_NS, "%s %ld B: or %.0f ns, injected"
                     " %.0f", backend, r->size_bytes, r->or_ns, OR_NS);
        cr_assert_lt(fabs(r->g_ns - GAP_NS), 0.1 * GAP_NS, "%s %ld B: g %.0f ns, injected"
                     " %.0f", backend, r->size_bytes, r->g_ns, GAP_NS);
    }
    cr_assert_geq(2 * clean, d.count, "%s: %ld of %ld sizes clean", backend, clean, d.count);
    logp_data_free(&d);
}

/* One shm logp run with the injected delays; os, or and g checked, the
 * one-way stream's time at 1024 B and its interval returned. */
static void shm_logp_run(const char *out, double *ow_ns, double *ci)
{
    run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, run_prog("scibench", 1),
                           "--pattern", "logp", "--max-size",
                           "1024", "--inject-os", INJ_OS, "--inject-or", INJ_OR, "--inject-gap",
                           INJ_GAP, "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    assert_recovered(out, "shm", 1, 12);   /* 0, 1, 2, ..., 1024 */
    logp_data d = read_ok(out);
    const char *ow = bench_data_header(&d.hdr, "ow_ns");
    long m = 0;
    cr_assert_not_null(ow, "no ow_ns header");
    cr_assert_eq(sscanf(ow, "%ld:%lf:%lf", &m, ow_ns, ci), 3, "ow_ns: %s", ow);
    cr_assert_eq(m, 1024);
    logp_data_free(&d);
}

Test(logp, shm_recovers_injected_os_or_g, .init = setup, .fini = teardown)
{
    run_timing_lock();
    /* The one-way stream (128 x 160 us) judges the gap only when its interval is within eps (3%);
     * a stream that lost its CPU in every try is kept with an interval of 100% (one CI run in two
     * here).  Such a run (~1 s) is measured again, five at most; os, or and g hold in each. */
    double ow_ns = 0, ci = 0;
    int runs = 0;
    do
        shm_logp_run(file("shm.tsv"), &ow_ns, &ci);
    while (++runs < 5 && ci > LOGP_DEFAULT_EPS * ow_ns);
    cr_assert_leq(ci, LOGP_DEFAULT_EPS * ow_ns, "the ow stream's interval was %.1f%% of %.0f ns "
                  "after %d runs, wider than eps (%.0f%%)", 100 * ci / ow_ns, ow_ns, runs,
                  100 * LOGP_DEFAULT_EPS);
    cr_assert_lt(fabs(ow_ns - GAP_NS), 0.1 * GAP_NS, "ow %.0f ns +- %.0f, injected gap %.0f",
                 ow_ns, ci, GAP_NS);
}

Test(logp, mpi_recovers_injected_os_or_g_with_isend_irecv, .init = setup, .fini = teardown)
{
    run_timing_lock();
    const char *out = file("mpi.tsv");
    run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, "/usr/bin/timeout", "100",
                           "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                           run_prog("mpibench", 1), "--pattern", "logp", "--max-size", "256",
                           "--mpi-send", "isend", "--mpi-recv",
                           "irecv", "--inject-os", INJ_OS, "--inject-or", INJ_OR,
                           "--inject-gap", INJ_GAP, "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_recovered(out, "mpi", 0, 10);   /* 0, 1, 2, ..., 256 */
    logp_data d = read_ok(out);
    cr_assert_str_eq(bench_data_header(&d.hdr, "variant"), "isend/irecv");
    logp_data_free(&d);
    run_free(&r);
}

/* LogP/MPI's os of the Isend variant is the MPI_Isend call alone, its
 * MPI_Wait untimed.  At 64 KiB Open MPI's shared-memory transport hands the
 * message over by rendezvous: a call that waited for completion would last
 * the transfer (os at least the one-way time, rtt/2 -- as MPI_Send's does),
 * the post alone is a small part of it (0.3-0.7 us against 11-12 us one way,
 * 12:13 UTC runs). */
Test(logp, mpi_isend_os_is_the_post_not_the_transfer, .init = setup, .fini = teardown)
{
    run_timing_lock();
    const char *out = file("isend.tsv");
    run_result r = run_cmd("/usr/bin/timeout", 70, "60", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 1), "--pattern",
                           "logp", "--min-size", "65536", "--max-size", "65536", "--mpi-send",
                           "isend", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    logp_data d = read_ok(out);
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
    logp_data d = read_ok(out);
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

/* ---- an interrupted run keeps its finished sizes; --resume completes it -- */

static pid_t start_slow_run(const char *out, const char *errfile)
{
    /* 1 ms gaps: each size's turn takes about 25 ms.  Injected os and or:
     * their intervals close at the first check, after 5 turns, so every
     * size finishes in the fifth round, which goes up the sizes (0 B first,
     * the other nine in the next 200 ms); without them os and or ran to the
     * cap, 20 turns, in a round going down */
    char *argv[] = {(char *)run_prog("scibench", 0), "--pattern", "logp", "--max-size", "256",
                    "--inject-gap", "1000000", "--inject-os", "40000", "--inject-or", "60000",
                    "--max-rtt", "5", "--timeout", "5", "-o", (char *)out, NULL};
    pid_t pid = run_spawn(argv, errfile);
    cr_assert(run_wait_text(errfile, " B: os", 30),   /* a size is finished */
              "scibench did not finish a size in 30 s");
    return pid;
}

Test(logp, sigint_keeps_finished_sizes_and_resume_completes, .init = setup, .fini = teardown)
{
    run_timing_lock();
    const char *out = file("int.tsv"), *err = file("int.err");
    pid_t pid = start_slow_run(out, err);
    kill(pid, SIGINT);
    cr_assert_eq(run_wait_exit(pid, 20), 130);
    logp_data d = read_ok(out);
    cr_assert(d.incomplete);
    cr_assert_geq(d.count, 1, "a size was finished");
    cr_assert_lt(d.count, 10, "the run was interrupted before its last size");
    /* L comes with the smallest size, not before */
    cr_assert_eq(isfinite(d.L_ns), logp_data_find(&d, 0) != NULL, "L_ns %g with%s size 0",
                 d.L_ns, logp_data_find(&d, 0) ? "" : "out");
    logp_row first = d.rows[0];
    long before = d.count;
    logp_data_free(&d);

    run_result r = run_cmd(run_prog("scibench", 0), 200, "--resume", out, "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    d = read_ok(out);
    cr_assert_not(d.incomplete);
    cr_assert_geq(d.count, 10, "0..256: 10 sizes (had %ld before resume)", before);
    const logp_row *again = logp_data_find(&d, first.size_bytes);
    cr_assert_not_null(again);
    cr_assert_float_eq(again->os_ns, first.os_ns, 0.05, "a finished size is kept, not redone");
    cr_assert_float_eq(again->g_ns, first.g_ns, 0.05);
    logp_data_free(&d);
    run_free(&r);
}

/* ---- calibrate --logp --------------------------------------------------- */

#include "model/params.h"

Test(logp, calibrate_writes_logp_keys_that_params_reads_back, .init = setup, .fini = teardown)
{
    const char *params = file("logp.params"), *lgs = file("logp.lgs");
    const char *in = run_root_path("data/sample/logp-mpi-send-recv.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--logp", in, "--loggopsim", lgs, "-o",
                           params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "identity RTT(m)/2 = os(m) + L + or(m)"), "%s", r.out);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    cr_assert(p.logp.present);
    logp_data d = read_ok(in);
    cr_assert_float_eq(p.logp.L_ns, fmax(d.L_ns, 0), 1e-6);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        cr_assert(p.logp.segments[q] >= 1 && p.logp.segments[q] <= MODEL_MAX_OSEG);
    /* the fitted g(m) follows the measured one at the 2^k sizes above 4 KiB
     * (the rendezvous regime: a line through them) within 20% */
    for (long i = 0; i < d.count; i++) {
        const logp_row *row = &d.rows[i];
        if (row->size_bytes < 8192 || (row->size_bytes & (row->size_bytes - 1)))
            continue;
        double fit = model_logp_ns(&p, MODEL_LOGP_G, (double)row->size_bytes);
        cr_assert_lt(fabs(fit - row->g_ns), 0.2 * row->g_ns, "g(%ld): fit %.0f, measured %.0f",
                     row->size_bytes, fit, row->g_ns);
    }
    logp_data_free(&d);
    FILE *fp = fopen(lgs, "r");
    char text[1024] = "";
    cr_assert_not_null(fp);
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = '\0';
    fclose(fp);
    cr_assert_not_null(strstr(text, "\n-L "), "%s", text);
    cr_assert_not_null(strstr(text, " -o "), "%s", text);
    cr_assert_not_null(strstr(text, " -G "), "%s", text);
    run_free(&r);
}

/* --loggopsim-unit ps: the same fit's L, g(0) and G (g's slope on its
 * last segment, from the params file calibrate wrote beside it) times
 * 1000, rounded; in ns the shared-memory sample's G (0.06 ns/B) rounds to
 * 0, in ps it does not. */
Test(logp, loggopsim_export_in_ps_keeps_the_per_byte_terms, .init = setup, .fini = teardown)
{
    const char *in = run_root_path("data/sample/logp-shm.tsv");
    static const char *const unit[2] = {"ns", "ps"};
    double L[2], o[2], g[2], G[2], O[2];
    model_params p;
    for (int k = 0; k < 2; k++) {
        char lgs[32], params[32];
        snprintf(lgs, sizeof lgs, "export-%s.lgs", unit[k]);
        snprintf(params, sizeof params, "export-%s.params", unit[k]);
        run_result r = run_cmd(run_prog("calibrate", 0), 60, "--logp", in, "--loggopsim",
                               file(lgs), "--loggopsim-unit", unit[k], "-o", file(params), NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        char *text = run_read_text(file(lgs));
        const char *line = strstr(text, "\n-L ");
        cr_assert_not_null(line, "%s", text);
        cr_assert_eq(sscanf(line, "\n-L %lf -o %lf -g %lf -G %lf -O %lf", &L[k], &o[k], &g[k],
                            &G[k], &O[k]), 5, "%s", line);
        free(text);
        model_params_error e;
        cr_assert_eq(model_params_read(file(params), &p, &e), 0, "%s", e.msg);
    }
    const model_logp *l = &p.logp;
    double slope = l->seg[MODEL_LOGP_G][l->segments[MODEL_LOGP_G] - 1].ns_per_byte;
    cr_assert_eq(L[1], round(1000 * l->L_ns), "L %.0f ps, params %.6f ns", L[1], l->L_ns);
    cr_assert_eq(g[1], round(1000 * model_logp_ns(&p, MODEL_LOGP_G, 0)));
    cr_assert_eq(G[1], round(1000 * slope), "G %.0f ps/B, params %.6f ns/B", G[1], slope);
    cr_assert_eq(G[0], round(slope));
    cr_assert(slope > 0 && slope < 0.5 && G[0] == 0 && G[1] > 0,
              "the sample's G (%.5f ns/B) is 0 in ns and kept in ps (%.0f)", slope, G[1]);
    /* the ns export is the ps one to the nearest ns */
    cr_assert(fabs(L[0] - L[1] / 1000) <= 0.5 && fabs(o[0] - o[1] / 1000) <= 0.5 &&
                  fabs(g[0] - g[1] / 1000) <= 0.5 && fabs(O[0] - O[1] / 1000) <= 0.5,
              "ns: -L %.0f -o %.0f -g %.0f -O %.0f; ps: -L %.0f -o %.0f -g %.0f -O %.0f", L[0],
              o[0], g[0], O[0], L[1], o[1], g[1], O[1]);
}

Test(logp, calibrate_rejects_the_wrong_kind_of_file)
{
    const char *logp = run_root_path("data/sample/logp-shm.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--data", logp, "-o", "/dev/null",
                           NULL);
    run_assert_error(&r, 1, "fit it with calibrate --logp", "a LogP file to --data");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", run_root_path("tests/fixtures/plots/ring2.tsv"),
                "-o", "/dev/null", NULL);
    run_assert_error(&r, 1, "not a LogP file", "a ping-pong file to --logp");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--loggopsim", "x.lgs", NULL);
    run_assert_error(&r, 2, "--loggopsim 'x.lgs'", "--loggopsim without --logp");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", logp, "--loggopsim", "x.lgs",
                "--loggopsim-unit", "us", NULL);
    run_assert_error(&r, 2, "--loggopsim-unit 'us'", "a unit LogGOPSim export has no");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", logp, "--loggopsim-unit", "ps", NULL);
    run_assert_error(&r, 2, "--loggopsim-unit 'ps'", "--loggopsim-unit without --loggopsim");
    run_free(&r);
}

Test(logp, params_reader_wants_every_logp_key_or_none, .init = setup, .fini = teardown)
{
    const char *path = file("half.params");
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs("o0_ns = 1\no1_ns_per_byte = 0\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"
          "L_ns = 80\nos_segments = 1\nos_seg1_from_bytes = 0\nos_seg1_ns = 10\n"
          "os_seg1_ns_per_byte = 0\n", fp);
    fclose(fp);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(path, &p, &e), -2);
    cr_assert_not_null(strstr(e.msg, "or_segments"), "%s", e.msg);
}

/* A send call that lasts the one-way time (os + L >= 90% of RTT/2, as a
 * blocking MPI_Send's by rendezvous) holds L and the receiver's copy: the
 * identity check names those sizes and no others.  Rows made up: L = 10;
 * at 4096 B os + L = 1010 of a 1050 ns half round trip, at 1024 B 410 of
 * 500 ns, at 1 B 210 of 300 ns.  (os, or and g are lines that stay
 * positive down to 1 B: with os 40, 100, 1000 ns the fitted os(m) was
 * below 0 at 1 B, a params file the reader refuses, which calibrate now
 * declines to write.) */
Test(logp, identity_names_sizes_whose_send_spans_the_delivery, .init = setup, .fini = teardown)
{
    run_result r = calibrate_logp_text(
        "spans", "# scitorus-bench 1\n# backend: mpi\n# variant: send/recv\n# pattern: logp\n"
                 "# L_ns: 10\n# columns: " LOGP_COLUMNS "\n"
                 "1\t200\t1\t120\t1\t100\t1\t600\t100\tok\n"
                 "1024\t400\t1\t350\t1\t300\t1\t1000\t100\tok\n"
                 "4096\t1000\t1\t1100\t1\t900\t1\t2100\t100\tok\n");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *row4096 = strstr(r.out, "    4096 ");
    const char *row1024 = strstr(r.out, "    1024 ");
    cr_assert(row4096 && row1024, "%s", r.out);
    cr_assert(strncmp(strchr(row4096, '%'), "%  os spans the delivery", 24) == 0, "%s", r.out);
    cr_assert(strncmp(strchr(row1024, '%'), "%\n", 2) == 0, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "(1 sizes: the send call lasted the one-way time"), "%s",
                       r.out);
    run_free(&r);
}

/* ---- --os-fence: the drain of the send's stores ------------------------- */

/* Sweeps of the --os-fence test; each size's round-trip comparison is
 * the median over them. */
#define FENCE_RUNS 3

/* With a fence after the timed send, os stays the call and the fenced
 * send is measured beside it: both see the injected 40 us in every send
 * (the drain of a few lines is under 1 us, 2.5% of it), and the fence does
 * not move the round trip (the stores drain before the peer can see the
 * message either way).  A size's round trips are the mean of the few its
 * os and or intervals need (about five: the injected waits are steady),
 * so one stall of the VM in one of them moved a sweep's fenced round trip
 * 15% (256 B: 231 against 201 us, once in 13 sweeps): the round trips
 * compare in the median of FENCE_RUNS sweeps, as the other timing tests
 * take rounds; every sweep's fenced os must still be the injection. */
Test(logp, os_fence_keeps_os_the_call_and_times_the_fenced_send, .init = setup,
     .fini = teardown)
{
    run_timing_lock();
    enum { SIZES = 9 };   /* 1, 2, 4, ..., 256 */
    double diff[SIZES][FENCE_RUNS];
    for (int run = 0; run < FENCE_RUNS; run++) {
        const char *out = file("fence.tsv");
        run_result r = run_cmd("/usr/bin/nice", 120, "-n", NICE_BOOST, run_prog("scibench", 1),
                               "--pattern", "logp", "--min-size", "1", "--max-size", "256",
                               "--os-fence", "--inject-os", INJ_OS, "--inject-or", INJ_OR,
                               "--inject-gap", INJ_GAP, "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        assert_recovered(out, "shm", 1, SIZES);
        logp_data d = read_ok(out);
        cr_assert_not_null(bench_data_header(&d.hdr, "os_fence"));
        cr_assert_not_null(bench_data_header(&d.hdr, "L_fence_ns"));
        int seen = 0;
        for (long i = 0; i < d.count; i++) {
            const logp_row *w = &d.rows[i];
            cr_assert(w->has_fence, "%ld B: no fenced columns", w->size_bytes);
            cr_assert_lt(fabs(w->os_fence_ns - OS_NS), 0.1 * OS_NS, "%ld B: fenced os %.0f ns,"
                         " injected %.0f", w->size_bytes, w->os_fence_ns, OS_NS);
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
    for (int i = 0; i < SIZES; i++) {
        gsl_sort(diff[i], 1, FENCE_RUNS);
        double med = gsl_stats_median_from_sorted_data(diff[i], 1, FENCE_RUNS);
        cr_assert_lt(med, 0.1, "%ld B: fenced and plain round trips %.1f%% apart (median of %d"
                     " sweeps)", 1L << i, 100 * med, FENCE_RUNS);
    }
}

/* The identity with the drain, RTT/2 = os + L + or + D(m), D(m) = drain(m)
 * - drain(1 B), drain = os_fence - os, on rows made up to satisfy it
 * exactly (os, or and g lines that stay positive, so that calibrate fits
 * and writes them): L 20 ns; 1 B: os 10, or 100, drain 80, RTT/2 130;
 * 1025 B: os 42, or 228, drain 140 (D 60), RTT/2 350 (without D 17.1%
 * short); 4097 B: os 138, or 612, drain 180 (D 100), RTT/2 870 (11.5%
 * short).  The fenced round trip at 1025 B is 1% longer. */
Test(logp, drain_identity_is_exact_on_rows_that_satisfy_it, .init = setup, .fini = teardown)
{
    run_result r = calibrate_logp_text(
        "drain", "# scitorus-bench 1\n# backend: shm\n# variant: store/poll\n# pattern: logp\n"
                 "# os_fence: made up\n# L_ns: 20\n# columns: " LOGP_COLUMNS " "
                 LOGP_FENCE_COLUMNS "\n"
                 "1\t10\t1\t100\t1\t300\t1\t260\t100\tok\t90\t1\t260\n"
                 "1025\t42\t1\t228\t1\t556\t1\t700\t100\tok\t182\t1\t707\n"
                 "4097\t138\t1\t612\t1\t1324\t1\t1740\t100\tok\t318\t1\t1740\n");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *table = strstr(r.out, "D(m) = drain(m) - drain(1 B)");
    cr_assert_not_null(table, "%s", r.out);
    const char *row1024 = strstr(table, "    1025 "), *row4096 = strstr(table, "    4097 ");
    cr_assert(row1024 && row4096, "%s", r.out);
    double half, os, drain, D, sum, diff, rttf;
    cr_assert_eq(sscanf(row1024, "%*s %lf %lf %lf %lf %lf %lf%% %lf%%", &half, &os, &drain, &D,
                        &sum, &diff, &rttf), 7, "%s", row1024);
    cr_assert(half == 350 && drain == 140 && D == 60 && sum == 350 && diff == 0, "%s", row1024);
    cr_assert_float_eq(rttf, 1.0, 1e-9, "%s", row1024);
    cr_assert_eq(sscanf(row4096, "%*s %lf %lf %lf %lf %lf %lf%%", &half, &os, &drain, &D, &sum,
                        &diff), 6, "%s", row4096);
    cr_assert(half == 870 && D == 100 && sum == 870 && diff == 0, "%s", row4096);
    cr_assert_not_null(strstr(table, "within 10%: 3 of 3 sizes with D, 1 without"), "%s", r.out);
    run_free(&r);
}

/* The three fenced columns come with the os_fence header and only with it. */
Test(logp, fenced_columns_need_their_header, .init = setup, .fini = teardown)
{
#define HEAD "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n"
    static const char *const bodies[2] = {
        HEAD "# L_ns: 20\n# columns: " LOGP_COLUMNS "\n"
             "1\t10\t1\t100\t1\t300\t1\t260\t100\tok\t90\t1\t260\n",
        HEAD "# os_fence: made up\n# L_ns: 20\n# columns: " LOGP_COLUMNS " " LOGP_FENCE_COLUMNS
             "\n1\t10\t1\t100\t1\t300\t1\t260\t100\tok\n"};
#undef HEAD
    static const char *const want[2] = {"expected 10 tab-separated fields",
                                        "expected 13 tab-separated fields"};
    for (int k = 0; k < 2; k++) {
        run_result r = calibrate_logp_text(k ? "short" : "long", bodies[k]);
        cr_assert_eq(r.status, 1, "%s", r.err);
        cr_assert_not_null(strstr(r.err, want[k]), "%s", r.err);
        cr_assert_not_null(strstr(r.err, k ? ".tsv:7: " : ".tsv:6: "), "the row's line: %s",
                           r.err);
        run_free(&r);
    }
}

/* The one-way streams' header, ow_ns "SIZE:NS:CI_NS ...", is read as
 * numbers: a garbled or negative entry is refused at its line (it was
 * taken silently), a well-formed one passes. */
Test(logp, ow_header_is_checked, .init = setup, .fini = teardown)
{
#define HEAD "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n# L_ns: 20\n# ow_reps: 128\n"
#define ROWS "# columns: " LOGP_COLUMNS "\n1\t10\t1\t100\t1\t300\t1\t260\t100\tok\n"
    static const struct { const char *ow; int ok; } cases[] = {
        {"1024:300.5:2.1 4096:900:3", 1}, {"garbage", 0}, {"1024:-300:2", 0},
        {"1024:300", 0}, {"-8:300:2", 0}, {"1024:300:2 x:1:1", 0}, {"1024:nan:1", 0},
    };
#undef HEAD
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n"
                                    "# L_ns: 20\n# ow_reps: 128\n# ow_ns: %s\n" ROWS, cases[i].ow);
        logp_data d;
        bench_read_error e;
        const char *path = file("ow.tsv");
        FILE *fp = fopen(path, "w");
        cr_assert_not_null(fp);
        fputs(text, fp);
        fclose(fp);
        int rc = logp_data_read(path, &d, &e);
        if (cases[i].ok) {
            cr_assert_eq(rc, 0, "'%s': %s", cases[i].ow, e.msg);
            logp_data_free(&d);
        } else {
            cr_assert_eq(rc, -2, "'%s' accepted", cases[i].ow);
            cr_assert_eq(e.line, 6, "'%s': line %ld", cases[i].ow, e.line);
            cr_assert_not_null(strstr(e.msg, "ow_ns"), "%s", e.msg);
        }
    }
#undef ROWS
}
