/* mpibench --op's default, --sync osu, against osu_*'s loop (OSU 5.x,
 * mpi/collective/osu_coll.h and osu_<op>.c): traced under mpirun (scitrace
 * run), each rank's calls say how many untimed and timed repetitions a size
 * took and that a barrier stands between every two; the file's mean_ns is
 * the mean over ranks of each rank's mean, osu_*'s Avg Latency.  Counts
 * and arithmetic, no clock decides: cli tier. */
#include <math.h>
#include <stdlib.h>

#include "coll/colldata.h"
#include "tests/runcmd.h"

TestSuite(coll_osu, .timeout = 300);

#define MPIRUN "/usr/bin/timeout", "200", "mpirun", "--allow-run-as-root", "--oversubscribe", \
               "-np", "2"

/* A size's calls on one rank: the op's and the barriers before them. */
typedef struct calls {
    long size, ops, barriers;
} calls;

/* Reads `scitrace dump` of one rank file: per size (the op's bytes), its
 * op calls and the barriers that preceded them.  Returns the sizes seen. */
static int count_calls(const char *dump, const char *op, calls *c, int cap)
{
    FILE *fp = fopen(dump, "r");
    cr_assert_not_null(fp, "%s", dump);
    char line[1024], name[64];
    long pending = 0, bytes;
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "> %*s %*s %63s %*s %*s %*s %ld", name, &bytes) != 2)
            continue;
        if (!strcmp(name, "barrier")) {
            pending++;
            continue;
        }
        if (strcmp(name, op))
            continue;
        int k = 0;
        while (k < n && c[k].size != bytes)
            k++;
        if (k == n) {
            cr_assert_lt(n, cap, "more sizes than asked for in %s", dump);
            c[n++] = (calls){bytes, 0, 0};
        }
        c[k].ops++, c[k].barriers += pending;
        pending = 0;
    }
    fclose(fp);
    cr_assert_eq(pending, 0, "%s: %ld barriers after the last %s", dump, pending, op);
    return n;
}

/* osu_*'s counts (skip + iterations: 200 + 1000 up to 8192 elements, 10 +
 * 100 above; the reductions count floats): per size, barrier then op for
 * each untimed and each timed repetition, the timed ones in one batch
 * after one more op. */
Test(coll_osu, a_size_runs_osu_counts_with_a_barrier_between_repetitions)
{
    struct {
        const char *op, *sizes;
        long size[2], skip[2], iters[2];
    } c[] = {
        {"alltoall", "8,16384", {8, 16384}, {200, 10}, {1000, 100}},
        {"allreduce", "32768,65536", {32768, 65536}, {200, 10}, {1000, 100}},
    };
    char dir[] = "/tmp/scitorus-collosu-XXXXXX";
    run_tmpdir_make(dir);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char tdir[600], out[600], dump[600], file[700];
        snprintf(tdir, sizeof tdir, "%s/%s", dir, c[i].op);
        snprintf(out, sizeof out, "%s/%s.tsv", dir, c[i].op);
        snprintf(dump, sizeof dump, "%s/dump.txt", dir);
        run_result r = run_cmd(run_prog("scitrace", 0), 250, "run", "-d", tdir, "--", MPIRUN,
                               run_prog("mpibench", 1), "--op", c[i].op, "--sizes", c[i].sizes,
                               "--node-times", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", c[i].op, r.err);
        run_free(&r);
        coll_data d;
        file_error e;
        cr_assert_eq(coll_data_read(out, &d, &e), 0, "%s:%ld: %s", out, e.line, e.msg);
        cr_assert_str_eq(d.sync, "osu", "the default");
        cr_assert_eq(d.count, 2);
        for (int rank = 0; rank < 2; rank++) {
            snprintf(file, sizeof file, "%s/rank-%05d.trace", tdir, rank);
            r = run_cmd(run_prog("scitrace", 0), 30, "dump", "-o", dump, file, NULL);
            cr_assert_eq(r.status, 0, "%s", r.err);
            run_free(&r);
            calls k[4];
            cr_assert_eq(count_calls(dump, c[i].op, k, 4), 2, "%s rank %d", c[i].op, rank);
            for (int s = 0; s < 2; s++) {
                const coll_row *row = coll_data_find(&d, 2, c[i].size[s]);
                cr_assert_not_null(row, "%s %ld B", c[i].op, c[i].size[s]);
                cr_assert_eq(k[s].size, c[i].size[s]);
                long reps = row->reps, batches = 1;
                cr_assert_eq(reps, c[i].iters[s], "%s %ld B: %ld repetitions", c[i].op,
                             row->size, reps);
                cr_assert_eq(k[s].barriers, c[i].skip[s] + reps, "%s %ld B rank %d: %ld"
                             " barriers, want skip %ld + %ld repetitions", c[i].op, row->size,
                             rank, k[s].barriers, c[i].skip[s], reps);
                cr_assert_eq(k[s].ops, c[i].skip[s] + reps + batches, "%s %ld B rank %d: %ld"
                             " calls", c[i].op, row->size, rank, k[s].ops);
            }
        }
        /* mean over repetitions of the mean over ranks = mean over ranks of
         * each rank's mean (no repetition cut or dropped) */
        for (long j = 0; j < d.count; j++) {
            const coll_row *row = &d.rows[j];
            double a, b;
            cr_assert_eq(row->dropped, 0);
            cr_assert_eq(sscanf(row->node_mean_ns, "%lf,%lf", &a, &b), 2, "'%s'",
                         row->node_mean_ns);
            cr_assert(fabs(row->mean_ns - (a + b) / 2) <= 0.1 + 1e-9 * row->mean_ns,
                      "%s %ld B: mean_ns %.1f, the ranks' means %.1f and %.1f", c[i].op,
                      row->size, row->mean_ns, a, b);
        }
        coll_data_free(&d);
    }
    run_tmpdir_remove(dir);
}
