/* scicampaign interrupted and resumed gives the files an uninterrupted run
 * gives: the same points (pattern, nodes, hop counts, size, in order) and
 * the same header keys, in the bench format (timing tier: scibench
 * measures). */
#include <signal.h>
#include <stdlib.h>

#include "benchdata/benchdata.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-campaign-resume-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(campaign_resume, .init = setup, .fini = teardown, .timeout = 600);

static const char *campaign_text =
    "# scitorus-campaign 1\n"
    "[ring2]\nring = 2\nsizes = 1..64\nmax-time = 0.02\nrel-error = 0.05\ntimeout = 120\n"
    "[ring4]\nring = 4\nall-dst\npoint-by-point\nsizes = 1..256\nmin-samples = 50\n"
    "batch-time = 1000\nmax-time = 0.2\nrel-error = 0.02\ntimeout = 120\n"
    "[ow]\npattern = ow\nsizes = 1..64\nmax-time = 0.02\nrel-error = 0.05\ntimeout = 120\n";

static void run_campaign(const char *c, const char *out)
{
    run_result r = run_cmd(run_prog("scicampaign", 1), 400, "-q", "-o", out, c, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
}

static void read_bench(const char *path, bench_data *d)
{
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    cr_assert_eq(d->incomplete, 0, "%s is incomplete", path);
}

static int rows_in(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char *t = run_slurp(fp);
    fclose(fp);
    int n = 0;
    for (char *p = t; (p = strstr(p, "\npp\t")) != NULL; p++)
        n++;
    free(t);
    return n;
}

Test(campaign_resume, interrupted_and_resumed_gives_the_same_files)
{
    run_timing_lock();
    const char *c = run_path(dir, "c.txt");
    run_write_text(c, campaign_text);
    char whole[600], cut[600];
    snprintf(whole, sizeof whole, "%s/whole", dir);
    snprintf(cut, sizeof cut, "%s/cut", dir);
    run_campaign(c, whole);

    /* interrupted once ring4 has finished a point or more, mid-run; ring4's rows come one by
     * one over about a second, and a test process kept off the CPU for all of it misses them:
     * then the run is stopped and made again */
    const char *journal = run_path(cut, "ring4.tsv.incomplete");
    const char *ring4 = run_path(cut, "ring4.tsv");
    char *argv[] = {(char *)run_prog("scicampaign", 1), "-q", "-o", cut, (char *)c, NULL};
    pid_t pid = -1;
    int points = 0, missed = 0;
    for (int attempt = 0; attempt < 3 && points < 1; attempt++) {
        char clean[700];
        snprintf(clean, sizeof clean, "rm -rf '%s'", cut);
        cr_assert_eq(system(clean), 0);
        pid = run_spawn(argv, run_path(dir, "cut.err"));
        for (int i = 0; i < 12000 && (points = rows_in(journal)) < 1; i++) {
            if (!run_alive(pid) || access(ring4, F_OK) == 0)
                break;
            usleep(10000);
        }
        if (points < 1) {
            missed++;
            kill(-pid, SIGKILL);
            run_wait_exit(pid, 60);
        }
    }
    cr_assert_geq(points, 1, "ring4's rows were missed %d times (ring4.tsv %s)", missed,
                  access(ring4, F_OK) == 0 ? "finished" : "never finished");
    kill(pid, SIGINT);
    int st = run_wait_exit(pid, 120);
    char *err = run_read_text(run_path(dir, "cut.err"));
    cr_assert_eq(st, 130, "interrupted campaign: exit %d, %s", st, err);
    cr_assert_not_null(strstr(err, "stopped during [ring4]"), "%s", err);
    free(err);
    cr_assert_eq(access(run_path(cut, "ow.tsv"), F_OK), -1, "ow measured after the stop");

    run_campaign(c, cut);   /* resumed */
    static const char *const names[] = {"ring2.tsv", "ring4.tsv", "ow.tsv"};
    for (size_t k = 0; k < 3; k++) {
        bench_data a, b;
        read_bench(run_path(whole, names[k]), &a);
        read_bench(run_path(cut, names[k]), &b);
        cr_assert_eq(a.count, b.count, "%s: %ld points, resumed %ld", names[k], a.count, b.count);
        for (long i = 0; i < a.count; i++) {
            const bench_point *p = &a.points[i], *q = &b.points[i];
            cr_assert(!strcmp(p->pattern, q->pattern) && p->src == q->src && p->dst == q->dst &&
                          p->hops == q->hops && p->fwd == q->fwd && p->sw == q->sw &&
                          p->rhops == q->rhops && p->rfwd == q->rfwd && p->rsw == q->rsw &&
                          p->size_bytes == q->size_bytes,
                      "%s row %ld: %s %ld->%ld %ld B, resumed %s %ld->%ld %ld B", names[k], i,
                      p->pattern, p->src, p->dst, p->size_bytes, q->pattern, q->src, q->dst,
                      q->size_bytes);
        }
        cr_assert_eq(a.header_count, b.header_count, "%s: header keys", names[k]);
        for (int h = 0; h < a.header_count; h++)
            cr_assert_not_null(bench_data_header(&b, a.header_key[h]), "%s: no '%s' resumed",
                               names[k], a.header_key[h]);
        bench_data_free(&a);
        bench_data_free(&b);
    }
    cr_assert_eq(access(journal, F_OK), -1, "the journal is left");
}
