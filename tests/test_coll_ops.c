/* mpibench --op's collectives beside the eight (v-variants, reduce_scatter,
 * scan, exscan, communicator operations, master-worker) under mpirun:
 * their rows, read back by the collectives reader, and each repetition
 * being its slowest rank's under --sync barrier (a median of maxima is at
 * least every rank's own median), and their usage errors. */
#include <stdlib.h>

#include "coll/colldata.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-cops-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(coll_ops, .init = setup, .fini = teardown, .timeout = 300);

#define MPIRUN(np) "/usr/bin/timeout", 150, "120", "mpirun", "--allow-run-as-root", \
                   "--oversubscribe", "-np", np, run_prog("mpibench", 1)

static const char *const ops[] = {"gatherv", "scatterv", "allgatherv", "alltoallv",
                                  "reduce_scatter", "scan", "exscan", "comm_dup", "comm_split",
                                  "master_worker"};

Test(coll_ops, each_op_writes_rows_of_its_slowest_rank)
{
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        int sizeless = !strncmp(ops[k], "comm_", 5);
        const char *out = run_path(dir, ops[k]);
        run_result r = run_cmd(MPIRUN("3"), "--op", ops[k], "--sync", "barrier", "--node-times",
                               "--min-samples", "32", "--max-samples", "200",
                               sizeless ? "--root" : "--sizes",
                               sizeless ? "0" : "8,4096", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", ops[k], r.err);
        run_free(&r);
        coll_data d;
        file_error e;
        cr_assert_eq(coll_data_read(out, &d, &e), 0, "%s:%ld: %s", out, e.line, e.msg);
        cr_assert_str_eq(d.op, ops[k]);
        cr_assert_eq(d.count, sizeless ? 1 : 2, "%s: %ld rows", ops[k], d.count);
        for (long i = 0; i < d.count; i++) {
            const coll_row *row = &d.rows[i];
            cr_assert_str_eq(row->op, ops[k]);
            cr_assert_eq(row->procs, 3);
            cr_assert_eq(row->size, sizeless ? 0 : i ? 4096 : 8);
            const char *p = row->node_ns;
            char *end;
            for (int rank = 0; rank < 3; rank++) {
                double v = strtod(p, &end);
                p = end;
                cr_assert(v > 0 && v <= row->median_ns * (1 + 1e-9), "%s %ld B rank %d: %g over"
                          " the median of maxima %g", ops[k], row->size, rank, v, row->median_ns);
                p += *p == ',';
            }
        }
        coll_data_free(&d);
    }
}

Test(coll_ops, usage_errors)
{
    struct {
        const char *a, *b, *c, *d, *word;
    } cases[] = {
        {"--op", "comm_dup", "--sizes", "8", "moves no data"},
        {"--op", "master_worker", "--algorithm", "linear", "no schedule"},
        {"--op", "reduce_scatter", "--algorithm", "binomial", "no algorithm 'binomial'"},
        {"--op", "scatterw", NULL, NULL, "--op"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(MPIRUN("2"), cases[i].a, cases[i].b, cases[i].c, cases[i].d, NULL);
        cr_assert_eq(r.status, 2, "case %zu: status %d: %s", i, r.status, r.err);
        cr_assert(strstr(r.err, cases[i].word), "case %zu: %s", i, r.err);
        run_free(&r);
    }
}
