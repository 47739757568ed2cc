/* Round trip: for every collective, every algorithm, P = 1..64 and three
 * sizes, the schedule written as GOAL and parsed back holds every rank's
 * messages in order, each step's operations requiring those of the step
 * before, and is the schedule coll_goal builds in memory, operation for
 * operation and edge for edge; replayed by scisim's engine on per-size
 * LogP parameters it finishes every rank exactly when the direct
 * prediction of a LogP file (coll_predict_sized) does.  That prediction is
 * the engine's replay, LogGOPSim's rules: the last test holds it to
 * LogGOPSim's own runs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/collgen.h"
#include "sched/goal.h"
#include "sim/collpredict.h"
#include "sim/engine.h"
#include "tests/runcmd.h"

/* Per-size parameters with an overhead at both ends, a gap, and L(m) < 0
 * for a third of the sizes (a send call spanning the delivery). */
static double v_os(void *c, long m) { (void)c; return 50 + (double)(m % 13) * 10; }
static double v_or(void *c, long m) { (void)c; return 70 + (double)(m % 5) * 20; }
static double v_g(void *c, long m) { (void)c; return 30 + (double)(m % 3) * 40; }
static double v_L(void *c, long m) { (void)c; return 400 - (double)(m % 3) * 300; }

/* g and h hold the same operations, ranks and edges. */
static void assert_same_schedule(const goal_schedule *g, const goal_schedule *h, const char *what)
{
    cr_assert(g->ranks == h->ranks && g->nops == h->nops && g->edges == h->edges &&
                  g->max_cpu == h->max_cpu && g->max_nic == h->max_nic,
              "%s: %u ranks %zu ops %zu edges read, %u %zu %zu built", what, g->ranks, g->nops,
              g->edges, h->ranks, h->nops, h->edges);
    for (uint32_t r = 0; r < g->ranks; r++)
        cr_assert(g->first[r] == h->first[r] && g->count[r] == h->count[r], "%s: rank %u", what, r);
    for (size_t i = 0; i < g->nops; i++) {
        const goal_op *a = &g->op[i], *b = &h->op[i];
        cr_assert(a->size == b->size && a->peer == b->peer && a->tag == b->tag &&
                      a->rank == b->rank && a->deps == b->deps && a->kind == b->kind &&
                      a->cpu == b->cpu && a->nic == b->nic,
                  "%s: operation %zu", what, i);
        cr_assert(g->done_at[i + 1] == h->done_at[i + 1] && g->start_at[i + 1] == h->start_at[i + 1],
                  "%s: edges of operation %zu", what, i);
    }
    for (size_t e = 0; e < g->done_at[g->nops]; e++)
        cr_assert_eq(g->done_to[e], h->done_to[e], "%s: edge %zu", what, e);
}

Test(sched_roundtrip, goal_text_replays_as_the_direct_prediction, .timeout = 300)
{
    sim_sized lp = {v_os, v_or, v_g, v_L, NULL};
    sim_config c = {.sized = &lp, .S = UINT64_MAX};
    static const long sizes[] = {8, 4096, 65536};
    long points = 0;
    for (int op = 0; op < COLL_NOPS; op++) {
        char list[160];
        snprintf(list, sizeof list, "%s", coll_algorithms(op));
        for (char *save = NULL, *alg = strtok_r(list, ",", &save); alg;
             alg = strtok_r(NULL, ",", &save))
            for (int n = 1; n <= 64; n++)
                for (int k = 0; k < 3; k++) {
                    long size = sizes[k];
                    coll_sched s;
                    char why[200], what[160], *text = NULL;
                    size_t len = 0;
                    snprintf(what, sizeof what, "%s %s P=%d %ld B", coll_op_names[op], alg, n,
                             size);
                    int rc = coll_generate(&s, op, alg, n, n / 3, size, why, sizeof why);
                    if (rc == -2 && (op == COLL_ALLGATHER || op == COLL_ALLGATHERV) &&
                        !strcmp(alg, "recursive_doubling") &&
                        (n & (n - 1)))
                        continue;   /* refused with a reason: powers of two only */
                    cr_assert_eq(rc, 0, "%s: %s", what, why);
                    goal_schedule built;
                    cr_assert_eq(coll_goal(&s, &built), 0, "%s", what);
                    double direct[64];
                    double end = coll_predict_sized(&built, &lp, NULL, direct, NULL);
                    cr_assert_geq(end, 0, "%s: %g", what, end);
                    FILE *mem = open_memstream(&text, &len);
                    cr_assert_eq(coll_write_goal(mem, &s), 0);
                    cr_assert_eq(fclose(mem), 0);
                    goal_schedule g;
                    goal_error err;
                    cr_assert_eq(goal_parse(text, len, &g, &err), 0, "%s: %ld: %s", what,
                                 err.line, err.msg);
                    for (int rk = 0; rk < n; rk++) {
                        long k = 0, prev = 0, in_step = 0;
                        while (k < s.count && s.msgs[k].rank < rk)
                            k++;
                        long first = k;
                        for (uint32_t j = 0; j < g.count[rk]; j++, k++) {
                            const goal_op *o = &g.op[g.first[rk] + j];
                            const coll_msg *m = &s.msgs[k];
                            cr_assert(k < s.count && m->rank == rk, "%s: rank %d: extra ops", what, rk);
                            if (k > first && m->step != s.msgs[k - 1].step)
                                prev = in_step, in_step = 0;
                            in_step++;
                            cr_assert(o->kind == (m->send ? GOAL_SEND : GOAL_RECV) &&
                                          o->peer == (uint32_t)m->peer && o->size == (uint64_t)m->bytes,
                                      "%s: rank %d op %u", what, rk, j);
                            cr_assert_eq(o->deps, (uint32_t)prev, "%s: rank %d op %u: %u deps, want %ld",
                                         what, rk, j, o->deps, prev);
                        }
                        cr_assert(k == s.count || s.msgs[k].rank != rk, "%s: rank %d: ops lost", what, rk);
                    }
                    assert_same_schedule(&g, &built, what);
                    sim_result r;
                    cr_assert_eq(sim_run(&g, &c, &r), 0, "%s", what);
                    cr_assert_str_empty(r.stuck, "%s: %s", what, r.stuck);
                    cr_assert_eq(r.makespan, end, "%s", what);
                    for (int i = 0; i < n; i++)
                        cr_assert_eq(r.finish[i], direct[i],
                                     "%s: rank %d finishes at %.17g replayed, %.17g predicted",
                                     what, i, r.finish[i], direct[i]);
                    points++;
                    sim_result_free(&r);
                    goal_free(&g);
                    goal_free(&built);
                    free(text);
                    coll_sched_free(&s);
                }
    }
    cr_log_info("%ld schedules replayed", points);
}

/* LogGOPSim's parameters (L 2500, o 1500, g 1000, G 6, O 0) as a LogP
 * file's per-size terms: os(m) = o, or(m) = o + (m-1)G, g(m) = g + (m-1)G
 * (LogGOPSim's unsigned (m-1) for an empty message is its -1 here). */
static double lg_os(void *c, long m) { (void)c, (void)m; return 1500; }
static double lg_or(void *c, long m) { (void)c; return 1500 + (double)(m - 1) * 6; }
static double lg_g(void *c, long m) { (void)c; return 1000 + (double)(m - 1) * 6; }
static double lg_L(void *c, long m) { (void)c, (void)m; return 2500; }

/* LogGOPSim is the oracle: every generated schedule (P = 2..16, 8 B and
 * 4 KiB) as GOAL, replayed by the engine on LogGOPSim's default parameters,
 * ends when LogGOPSim ends it (tests/fixtures/sched/loggopsim-collgen.tsv,
 * LogGOPSim's own runs); and so does the prediction of a LogP file that
 * holds those parameters size by size. */
Test(sched_roundtrip, with_an_overhead_the_engine_and_the_prediction_are_loggopsim, .timeout = 300)
{
    FILE *fp = fopen(run_fixture("sched/loggopsim-collgen.tsv"), "r");
    cr_assert_not_null(fp);
    char line[256], op[32], alg[40];
    int n;
    long size, rows = 0;
    double want;
    sim_config c = {.lg = {2500, 1500, 1000, 6, 0}, .S = 65535};
    sim_sized lp = {lg_os, lg_or, lg_g, lg_L, NULL};
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%31s %39s %d %ld %lf", op, alg, &n, &size, &want), 5, "%s", line);
        coll_sched s;
        char why[200], *text = NULL;
        size_t len = 0;
        cr_assert_eq(coll_generate(&s, coll_op_parse(op), alg, n, 0, size, why, sizeof why), 0, "%s", why);
        FILE *mem = open_memstream(&text, &len);
        cr_assert_eq(coll_write_goal(mem, &s), 0);
        cr_assert_eq(fclose(mem), 0);
        goal_schedule g, built;
        goal_error err;
        cr_assert_eq(goal_parse(text, len, &g, &err), 0, "%s", err.msg);
        sim_result r;
        cr_assert_eq(sim_run(&g, &c, &r), 0);
        cr_assert_eq(r.makespan, want, "%s %s P %d %ld B: engine %.0f, LogGOPSim %.0f", op, alg, n,
                     size, r.makespan, want);
        sim_result_free(&r);
        cr_assert_eq(coll_goal(&s, &built), 0);
        double got = coll_predict_sized(&built, &lp, NULL, NULL, NULL);
        cr_assert_eq(got, want, "%s %s P %d %ld B: LogP-file prediction %.0f, LogGOPSim %.0f", op,
                     alg, n, size, got, want);
        rows++;
        goal_free(&g);
        goal_free(&built);
        free(text);
        coll_sched_free(&s);
    }
    fclose(fp);
    cr_assert_geq(rows, 1000, "%ld rows", rows);
}
