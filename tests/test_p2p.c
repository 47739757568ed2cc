/* Tests for mpibench --p2p under mpirun: every mode's rows named by it and
 * read back by the bench reader, its usage errors, --resume keeping the
 * finished rows, the cut and minimum of the statistics, and --timeout. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchdata/benchdata.h"
#include "tests/mpi_hang.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-p2p-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(p2p, .init = setup, .fini = teardown, .timeout = 240);

static run_result mpirun(const char *np, const char *mode, const char *out, const char *sizes,
                         const char *extra1, const char *extra2)
{
    return run_cmd("/usr/bin/timeout", 120, "100", "mpirun", "--allow-run-as-root",
                   "--oversubscribe", "-np", np, run_prog("mpibench", 1), "--p2p", mode,
                   "--sizes", sizes, "--max-time", "0.3", "--rel-error", "0.05", "-q", "-o", out,
                   extra1, extra2, NULL);
}

static bench_data read_ok(const char *path)
{
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* Each mode: one row a size, in order, its pattern column and header the
 * mode, figures ordered min <= median <= max (its batches: the stop rule's
 * 8, or fewer when --max-time ends the point first). */
Test(p2p, every_mode_writes_its_rows)
{
    for (int m = 0; bench_p2p_modes[m]; m++) {
        const char *out = run_path(dir, bench_p2p_modes[m]);
        run_result r = mpirun("2", bench_p2p_modes[m], out, "8,4096,65536", NULL, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", bench_p2p_modes[m], r.err);
        run_free(&r);
        bench_data d = read_ok(out);
        cr_assert_eq(d.count, 3, "%s", bench_p2p_modes[m]);
        cr_assert_str_eq(bench_data_header(&d, "pattern"), bench_p2p_modes[m]);
        cr_assert_not_null(bench_data_header(&d, "time"));
        for (long i = 0; i < d.count; i++) {
            const bench_point *p = &d.points[i];
            cr_assert_str_eq(p->pattern, bench_p2p_modes[m]);
            cr_assert_eq(p->size_bytes, i == 0 ? 8 : i == 1 ? 4096 : 65536);
            cr_assert(p->min_ns > 0 && p->min_ns <= p->median_ns && p->median_ns <= p->max_ns,
                      "%s %ld B: min %g median %g max %g", p->pattern, p->size_bytes, p->min_ns,
                      p->median_ns, p->max_ns);
            cr_assert_geq(p->samples, 1, "%s: %ld batches", p->pattern, p->samples);
        }
        bench_data_free(&d);
    }
}

/* --min-samples N with --rel-error 1 (met at once) and --cut-quantile Q on
 * --max-samples N: exactly N batches, N - 2 floor(Q N) of them kept. */
Test(p2p, min_samples_and_cut_quantile)
{
    const char *out = run_path(dir, "cut.tsv");
    run_result r = run_cmd("/usr/bin/timeout", 120, "100", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 1), "--p2p",
                           "sendrecv", "--sizes", "8", "--rel-error", "1", "--min-samples", "100",
                           "--max-samples", "100", "--cut-quantile", "0.1", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 1);
    cr_assert_eq(d.points[0].samples, 80, "%ld batches kept", d.points[0].samples);
    cr_assert_str_eq(bench_data_header(&d, "cut_quantile"), "0.1");
    bench_data_free(&d);
}

/* An interrupted file (its last rows gone, '# incomplete') resumed: the rows
 * it had come back unchanged and the missing sizes are measured. */
Test(p2p, resume_keeps_the_finished_rows)
{
    const char *out = run_path(dir, "rs.tsv");
    run_result r = mpirun("2", "rsend", out, "8,1024", NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *text = run_read_text(out);
    char *last = strrchr(text, '\n');
    cr_assert_not_null(last);
    *last = '\0';
    last = strrchr(text, '\n');   /* drop the 1024 B row */
    cr_assert_not_null(last);
    last[1] = '\0';
    char *cut = malloc(strlen(text) + 32);
    sprintf(cut, "%s# incomplete\n", text);
    run_write_text(out, cut);
    bench_data before = read_ok(out);
    cr_assert_eq(before.count, 1);
    r = run_cmd("/usr/bin/timeout", 120, "100", "mpirun", "--allow-run-as-root", "--oversubscribe",
                "-np", "2", run_prog("mpibench", 1), "--resume", out, "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data after = read_ok(out);
    cr_assert_not(after.incomplete);
    cr_assert_eq(after.count, 2);
    cr_assert_eq(after.points[0].size_bytes, 8);
    cr_assert_eq(after.points[0].median_ns, before.points[0].median_ns);
    cr_assert_eq(after.points[0].samples, before.points[0].samples);
    cr_assert_eq(after.points[1].size_bytes, 1024);
    bench_data_free(&before);
    bench_data_free(&after);
    free(text);
    free(cut);
}

/* --timeout: a rank that stops answering (SIGSTOP, as a hung node) ends
 * the run within the timeout, and rank 0 keeps its finished points in the
 * file marked '# incomplete' (--p2p ignored --timeout and hung). */
/* --node-times: each rank's own time of its batches, rank 0 first, in the
 * row's unit; rank 0's is the very series the row's median comes from. */
Test(p2p, node_times_each_rank)
{
    const char *modes[] = {"bsend", "sendrecv", "bw"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        const char *out = run_path(dir, modes[m]);
        run_result r = mpirun("2", modes[m], out, "8,65536", "--node-times", NULL);
        cr_assert_eq(r.status, 0, "%s: %s", modes[m], r.err);
        run_free(&r);
        bench_data d = read_ok(out);
        cr_assert(d.node_times, "%s: no node_ns column", modes[m]);
        cr_assert_eq(d.count, 2);
        for (long i = 0; i < d.count; i++) {
            const bench_point *p = &d.points[i];
            cr_assert_eq(p->nodes, 2, "%s: %d ranks", modes[m], p->nodes);
            cr_assert_float_eq(p->node_ns[0], p->median_ns, 0.051, "%s %ld B: rank 0 %g, median"
                               " %g", modes[m], p->size_bytes, p->node_ns[0], p->median_ns);
            cr_assert_gt(p->node_ns[1], 0, "%s %ld B: rank 1 %g", modes[m], p->size_bytes,
                         p->node_ns[1]);
        }
        bench_data_free(&d);
    }
}

Test(p2p, timeout_writes_incomplete_file)
{
    static const char *const args[] = {"--p2p", "sendrecv", "--sizes", "1..64", "--max-time",
                                       "0.3", "--timeout", "1", NULL};
    mpi_hang_check(args, SIGSTOP, -1, "no progress within --timeout");
}

Test(p2p, usage_errors)
{
    const char *out = run_path(dir, "bad.tsv");
    struct {
        const char *np, *mode, *a, *b, *word;
    } cases[] = {
        {"2", "bsnd", NULL, NULL, "--p2p"},
        {"2", "rsend", "--window", "8", "--window"},
        {"3", "bibw", NULL, NULL, "2 MPI ranks"},
        {"2", "bibw", "--op", "bcast", "--op"},
        {"2", "bibw", "--pattern", "pp", "--pattern"},
        {"2", "bibw", "--ring", "4", "--ring"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = mpirun(cases[i].np, cases[i].mode, out, "8", cases[i].a, cases[i].b);
        cr_assert_eq(r.status, 2, "case %zu: status %d: %s", i, r.status, r.err);
        cr_assert(strstr(r.err, cases[i].word), "case %zu: %s", i, r.err);
        run_free(&r);
    }
    cr_assert_neq(access(out, F_OK), 0, "a refused run left %s", out);
    run_result r = run_cmd(run_prog("scibench", 0), 30, "--p2p", "bibw", NULL);
    cr_assert_eq(r.status, 2, "scibench --p2p: %d", r.status);
    run_free(&r);
}

/* The next row of make bench-p2p's output from *at on: its mode, reference,
 * size, the reference's ns a message (the mean of its two launches) and its
 * second launch's over its first; 0 at the end (comments skipped). */
static int next_bench_row(char **at, char mode[32], char ref[32], long *size, double *ref_ns,
                          double *ref_self)
{
    double x;
    for (char *l = *at; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (*l != '#' && sscanf(l, "%31s %31s %ld %lf %lf %lf %lf %lf %lf %lf", mode, ref, size,
                                ref_ns, &x, &x, &x, &x, &x, ref_self) == 10) {
            *at = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
            return 1;
        }
    return 0;
}

/* make bench-p2p's references, from stand-ins whose figures are known
 * (tests/fake_p2p_ref.sh): SKaMPI's round trip is two messages, its Iprobe
 * loop two an iteration of the count its file asks, its Bsend ping-pong runs
 * with a buffer attached by a preloaded shim, a mode neither tool has is
 * labelled fallback:osu_latency, and a parameter file not timing in ns or
 * cycling its buffers is refused.  Each reference runs twice a round: its
 * figure is the mean of the two, and the second over the first is reported
 * (the stand-ins' second launch reads 1.25 times the first).  mpibench is
 * launched with its reference's statistic.  The ratios are timed; not
 * asserted. */
Test(p2p, bench_reads_each_reference_in_ns_a_message)
{
    const char *fake = run_root_path("tests/fake_p2p_ref.sh");
    char osu[600], link[700];
    snprintf(osu, sizeof osu, "%s/osu", dir);
    const char *sk = run_path(dir, "skampi");
    const char *ski = run_path(dir, "p2p.ski"), *nons = run_path(dir, "us.ski");
    const char *cyc = run_path(dir, "cycling.ski");
    cr_assert_eq(mkdir(osu, 0700), 0);
    const char *names[] = {"osu_latency", "osu_bw", "osu_bibw"};
    for (int i = 0; i < 3; i++) {
        snprintf(link, sizeof link, "%s/%s", osu, names[i]);
        cr_assert_eq(symlink(fake, link), 0);
    }
    cr_assert_eq(symlink(fake, sk), 0);
    FILE *f = fopen(ski, "w");
    cr_assert_not_null(f);
    fputs("set_unit(1000000000.0)\nswitch_buffer_cycling_off()\n"
          "      measure comm_pt2pt : Pingpong_Send_Iprobe_Recv(count, datatype, 0, 64)\n", f);
    fclose(f);
    f = fopen(cyc, "w");
    cr_assert_not_null(f);
    fputs("set_unit(1000000000.0)\n", f), fclose(f);
    f = fopen(nons, "w");
    cr_assert_not_null(f);
    fputs("datatype = MPI_CHAR\n", f), fclose(f);
    char real[600], bin[600], e_sk[700], e_ski[700], e_nons[700], e_cyc[700], e_lock[700];
    snprintf(real, sizeof real, "%s", run_prog("", 1));
    real[strlen(real) - 1] = '\0';   /* the directory, without the trailing slash */
    /* a bin directory whose mpibench logs its options, then is the real one */
    char args[700];
    snprintf(args, sizeof args, "%s/mpibench.args", dir);
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    const char *linked[] = {"scibench", "test"};
    for (int i = 0; i < 2; i++) {
        char to[700];
        snprintf(link, sizeof link, "%s/%s", bin, linked[i]);
        snprintf(to, sizeof to, "%s/%s", real, linked[i]);
        cr_assert_eq(symlink(to, link), 0);
    }
    snprintf(link, sizeof link, "%s/mpibench", bin);
    f = fopen(link, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\n[ \"$OMPI_COMM_WORLD_RANK\" != 0 ] || echo \"$*\" >> '%s'\n"
               "exec '%s/mpibench' \"$@\"\n", args, real);
    fclose(f);
    cr_assert_eq(chmod(link, 0700), 0);
    snprintf(e_sk, sizeof e_sk, "SKAMPI=%s", sk);
    snprintf(e_ski, sizeof e_ski, "SKAMPI_SKI=%s", ski);
    snprintf(e_nons, sizeof e_nons, "SKAMPI_SKI=%s", nons);
    snprintf(e_cyc, sizeof e_cyc, "SKAMPI_SKI=%s", cyc);
    snprintf(e_lock, sizeof e_lock, "MEASURE_LOCK=%s/lock", dir);
    char e_calls[700], calls[660];
    snprintf(calls, sizeof calls, "%s/calls", dir);
    cr_assert_eq(mkdir(calls, 0700), 0);
    snprintf(e_calls, sizeof e_calls, "FAKE_CALLS=%s", calls);
    const char *script = run_root_path("mpibench/p2p_bench.sh");
    /* (mpibench's figures are not asserted: a short --max-time a point) */
    run_result r = run_cmd("/usr/bin/env", 200, "MODES=issend sendrecv bsend iprobe", "ROUNDS=1",
                           "MAX_TIME=0.02", e_lock, e_sk, e_ski, e_calls, "sh", script, bin, osu,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    long rows[4] = {0}, size;
    char mode[32], ref[32];
    double ref_ns, ref_self;
    for (char *at = r.out; next_bench_row(&at, mode, ref, &size, &ref_ns, &ref_self);) {
        int k = strcmp(mode, "issend") == 0     ? 0
                : strcmp(mode, "sendrecv") == 0 ? 1
                : strcmp(mode, "bsend") == 0    ? 2
                                                : 3;
        const char *want_ref = k == 2 ? "fallback:osu_latency" : "skampi";
        double want_ns = (k == 0 ? 1500 : k == 1 ? 3000 : k == 2 ? 2000 : 3000.0 / 128) * 1.125;
        cr_assert_str_eq(ref, want_ref, "%s %ld B", mode, size);
        cr_assert_float_eq(ref_ns, want_ns, 0.01, "%s %ld B: %g ns", mode, size, ref_ns);
        cr_assert_float_eq(ref_self, 1.25, 0.0005, "%s %ld B: second over first %g", mode, size,
                           ref_self);
        rows[k]++;
    }
    for (int k = 0; k < 4; k++)
        cr_assert_eq(rows[k], 18, "mode %d: %ld sizes of 18: %s", k, rows[k], r.out);
    run_free(&r);
    /* mpibench takes its reference's statistic: against SKaMPI the middle
     * half of its batches, as SKaMPI's of its repetitions; against OSU all */
    char *opts = run_read_text(args);
    int launches = 0;
    for (char *l = strtok(opts, "\n"); l; l = strtok(NULL, "\n"), launches++)
        cr_assert_eq(strstr(l, "--cut-quantile 0.25") != NULL, strstr(l, "--p2p bsend") == NULL,
                     "%s", l);
    cr_assert_eq(launches, 4, "one launch a mode: %d", launches);
    free(opts);
    r = run_cmd("/usr/bin/env", 60, "MODES=issend", "ROUNDS=1", e_lock, e_sk, e_nons, "sh", script,
                bin, osu, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "set_unit(1000000000.0)"), "%s", r.err);
    run_free(&r);
    r = run_cmd("/usr/bin/env", 60, "MODES=issend", "ROUNDS=1", e_lock, e_sk, e_cyc, "sh", script,
                bin, osu, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "switch_buffer_cycling_off()"), "%s", r.err);
    run_free(&r);

    /* a file that measures Bsend: bsend is SKaMPI's, with the shim that
     * attaches its buffer preloaded; without the shim, refused */
    const char *bski = run_path(dir, "bsend.ski"), *log = run_path(dir, "preload.log");
    f = fopen(bski, "w");
    cr_assert_not_null(f);
    fputs("set_unit(1000000000.0)\nswitch_buffer_cycling_off()\n"
          "      measure comm_pt2pt : Pingpong_Bsend_Recv(count, datatype, 0, 16)\n", f);
    fclose(f);
    char e_bski[700], e_log[700];
    snprintf(e_bski, sizeof e_bski, "SKAMPI_SKI=%s", bski);
    snprintf(e_log, sizeof e_log, "FAKE_PRELOAD_LOG=%s", log);
    r = run_cmd("/usr/bin/env", 200, "MODES=bsend", "ROUNDS=1", "MAX_TIME=0.02", e_lock, e_sk,
                e_bski, e_log, "sh", script, bin, osu, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    long bsend_rows = 0;
    for (char *at = r.out; next_bench_row(&at, mode, ref, &size, &ref_ns, &ref_self);) {
        cr_assert(!strcmp(mode, "bsend") && !strcmp(ref, "skampi"), "%s %s %ld B", mode, ref, size);
        cr_assert_float_eq(ref_ns, 1500, 0.01, "bsend %ld B: %g ns", size, ref_ns);
        cr_assert_float_eq(ref_self, 1, 0.0005, "bsend %ld B: second over first %g", size, ref_self);
        bsend_rows++;
    }
    cr_assert_eq(bsend_rows, 18, "%s", r.out);
    run_free(&r);
    char *seen = run_read_text(log);
    cr_assert(seen && strstr(seen, "/test/bsend_attach.so"), "SKaMPI's LD_PRELOAD: %s", seen);
    free(seen);
    const char *nobin = run_path(dir, "nobin");
    cr_assert_eq(mkdir(nobin, 0700), 0);
    r = run_cmd("/usr/bin/env", 60, "MODES=bsend", "ROUNDS=1", e_lock, e_sk, e_bski, "sh", script,
                nobin, osu, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "bsend_attach.so"), "%s", r.err);
    run_free(&r);
}
