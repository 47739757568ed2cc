/* --pattern logp --flood (LogP/MPI's -flood): every size's streams get the
 * length of their own saturation test, and g(m) is still the injected gap,
 * the least time between two sends (--inject-gap, a truth the test knows),
 * decided as test_logp decides its injected delays (tests/logp_decide.h). */
#include <math.h>
#include <stdlib.h>

#include "benchdata/logpdata.h"
#include "bench/logp.h"
#include "tests/logp_decide.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-flood-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(logp_flood, .init = setup, .fini = teardown, .timeout = 300);

/* tens of microseconds would leave the machine's own stretch of a busy-wait near 10% */
#define GAP_NS 160000.0

/* One flood run: each size's stream length is in flood_messages, and g is the injected gap
 * within 10% at every size, judged when every g's own interval is within eps. */
static int flood_try(const char *out, char *why, size_t len, double *share)
{
    run_result r = run_cmd("/usr/bin/nice", 280, "-n", NICE_BOOST, run_prog("scibench", 1),
                           "--pattern", "logp", "--sizes", "0..64", "--flood", "--inject-gap",
                           "160000", "--max-rtt", "20", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    *share = logp_cpu_share(out);
    logp_data d = logp_read_ok(out);
    const char *flood = bench_data_header(&d.hdr, "flood_messages");
    cr_assert_not_null(flood, "no flood_messages header");
    cr_assert_geq(d.count, 8, "%ld sizes", d.count);   /* 0, 1, 2, ..., 64 */
    int v = 1;
    for (long i = 0; i < d.count; i++) {
        const logp_row *row = &d.rows[i];
        char want[32];
        snprintf(want, sizeof want, "%ld:", row->size_bytes);
        const char *at = strstr(flood, want);
        cr_assert(at && (at == flood || at[-1] == ' '), "%ld B: no stream length in '%s'",
                  row->size_bytes, flood);
        cr_assert_geq(atol(at + strlen(want)), 2, "%s", flood);
        if (v == 1 && row->g_ci_ns > LOGP_DEFAULT_EPS * row->g_ns) {
            snprintf(why, len, "%ld B: g %.0f ns +- %.0f, wider than eps (%.0f%%)",
                     row->size_bytes, row->g_ns, row->g_ci_ns, 100 * LOGP_DEFAULT_EPS);
            v = -1;
        }
        if (v != 0 && !(fabs(row->g_ns - GAP_NS) <= 0.1 * GAP_NS)) {
            snprintf(why, len, "%ld B: g %.1f ns +- %.0f, injected %.0f", row->size_bytes,
                     row->g_ns, row->g_ci_ns, GAP_NS);
            v = 0;
        }
    }
    logp_data_free(&d);
    return v;
}

Test(logp_flood, every_size_saturates_and_g_is_the_injected_gap)
{
    run_timing_lock();
    decide(flood_try, run_path(dir, "flood.tsv"), 3);
}

Test(logp_flood, not_for_other_patterns)
{
    run_result r = run_cmd(run_prog("scibench", 0), 30, "--flood", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--flood"), "%s", r.err);
    run_free(&r);
}

/* --extend-to: the sweep's largest size doubles until g there is on the
 * line through the two sizes below (within --max-diff), or the next would
 * pass the limit; the oracle is that rule on the file's own rows (the
 * powers of two: the nonlinearity search adds sizes between them). */
Test(logp_flood, extension_stops_where_g_is_straight)
{
    run_timing_lock();
    const char *out = run_path(dir, "extend.tsv");
    run_result r = run_cmd(run_prog("scibench", 1), 280, "--pattern", "logp", "--sizes", "0..64",
                           "--extend-to", "65536", "--max-rtt", "20", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    logp_data d;
    bench_read_error e;
    cr_assert_eq(logp_data_read(out, &d, &e), 0, "%s:%ld: %s", out, e.line, e.msg);
    const logp_row *p[3] = {NULL, NULL, NULL};   /* the three largest powers of two */
    for (long i = 0; i < d.count; i++) {
        long m = d.rows[i].size_bytes;
        if (m < 1 || (m & (m - 1)))
            continue;
        cr_assert_leq(m, 65536, "%ld B beyond --extend-to", m);
        for (int k = 2; k >= 0; k--)
            if (!p[k] || m > p[k]->size_bytes) {
                for (int j = 0; j < k; j++)
                    p[j] = p[j + 1];
                p[k] = &d.rows[i];
                break;
            }
    }
    cr_assert(p[0] && p[1] && p[2]);
    const char *top = bench_data_header(&d.hdr, "extended_to");
    cr_assert_not_null(top);
    cr_assert_eq(atol(top), p[2]->size_bytes, "extended_to %s, largest %ld", top,
                 p[2]->size_bytes);
    double line = p[1]->g_ns + (p[1]->g_ns - p[0]->g_ns) *
                                   (double)(p[2]->size_bytes - p[1]->size_bytes) /
                                   (double)(p[1]->size_bytes - p[0]->size_bytes);
    cr_assert(fabs(p[2]->g_ns - line) <= 0.03 * p[2]->g_ns || 2 * p[2]->size_bytes > 65536,
              "g(%ld) %.1f ns, the line says %.1f: the rule asks for %ld B", p[2]->size_bytes,
              p[2]->g_ns, line, 2 * p[2]->size_bytes);
    logp_data_free(&d);
}
