/* Round trip: for every collective, every algorithm and P = 1..64 (each), the
 * schedule written as GOAL and parsed back holds every rank's messages in
 * order, each step's operations requiring those of the step before; and
 * replayed by scisim's engine (LogGOPSim's rules) it finishes every rank
 * when sched/'s own replay of the schedule does, on the parameters where
 * the two models are one: latency alone (eager messages, no overhead, gap
 * or per-byte term; with an overhead they differ -- the engine takes a
 * receive that arrived before its step ahead of the step's sends, sched/
 * sends first -- and LogGOPSim sides with the engine: the last test). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/collgen.h"
#include "sim/engine.h"
#include "sched/goal.h"
#include "tests/runcmd.h"

#define L_NS 700.0
#define O_NS 0.0

static double os(void *c, long m) { (void)c, (void)m; return O_NS; }
static double g0(void *c, long m) { (void)c, (void)m; return 0; }
/* LogGOPSim's defaults o and g, for sched/'s replay */
static double os1500(void *c, long m) { (void)c, (void)m; return 1500; }
static double g1000(void *c, long m) { (void)c, (void)m; return 1000; }

Test(sched_roundtrip, goal_text_replays_as_the_schedule_predicts, .timeout = 300)
{
    coll_logp lp = {os, os, g0, L_NS, NULL, NULL};
    sim_config c = {.lg = {L_NS, O_NS, 0, 0, 0}, .S = UINT64_MAX};
    long points = 0;
    for (int op = 0; op < COLL_NOPS; op++) {
        char list[160];
        snprintf(list, sizeof list, "%s", coll_algorithms(op));
        for (char *save = NULL, *alg = strtok_r(list, ",", &save); alg;
             alg = strtok_r(NULL, ",", &save))
            for (int n = 1; n <= 64; n++)
                for (int k = 0; k < 2; k++) {
                    long size = k ? 65536 : 8;
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
                    double direct[64];
                    double end = coll_predict(&s, &lp, direct);
                    cr_assert_geq(end, 0, "%s: %g", what, end);
                    FILE *mem = open_memstream(&text, &len);
                    coll_write_goal(mem, &s);
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
                    sim_result r;
                    cr_assert_eq(sim_run(&g, &c, &r), 0, "%s", what);
                    cr_assert_str_empty(r.stuck, "%s: %s", what, r.stuck);
                    for (int i = 0; i < n; i++)
                        cr_assert(fabs(r.finish[i] - direct[i]) < 1e-6,
                                  "%s: rank %d finishes at %.1f replayed, %.1f predicted", what,
                                  i, r.finish[i], direct[i]);
                    points++;
                    sim_result_free(&r);
                    goal_free(&g);
                    free(text);
                    coll_sched_free(&s);
                }
    }
    cr_log_info("%ld schedules replayed", points);
}

/* With an overhead (o > 0) the two replays are not one, and LogGOPSim says
 * which is right: every generated schedule (P = 2..16, 8 B and 4 KiB) as
 * GOAL, replayed by the engine on LogGOPSim's default parameters, ends when
 * LogGOPSim ends it (tests/fixtures/sched/loggopsim-collgen.tsv, LogGOPSim's
 * own runs).  sched/'s replay, which starts a step's sends before taking the
 * receives that arrived, is counted where it departs from it. */
Test(sched_roundtrip, with_an_overhead_the_engine_is_loggopsim, .timeout = 300)
{
    FILE *fp = fopen(run_fixture("sched/loggopsim-collgen.tsv"), "r");
    cr_assert_not_null(fp);
    char line[256], op[32], alg[40];
    int n;
    long size, rows = 0, departs = 0;
    double want;
    sim_config c = {.lg = {2500, 1500, 1000, 6, 0}, .S = 65535};
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%31s %39s %d %ld %lf", op, alg, &n, &size, &want), 5, "%s", line);
        coll_sched s;
        char why[200], *text = NULL;
        size_t len = 0;
        cr_assert_eq(coll_generate(&s, coll_op_parse(op), alg, n, 0, size, why, sizeof why), 0, "%s", why);
        FILE *mem = open_memstream(&text, &len);
        coll_write_goal(mem, &s);
        cr_assert_eq(fclose(mem), 0);
        goal_schedule g;
        goal_error err;
        cr_assert_eq(goal_parse(text, len, &g, &err), 0, "%s", err.msg);
        sim_result r;
        cr_assert_eq(sim_run(&g, &c, &r), 0);
        cr_assert_eq(r.makespan, want, "%s %s P %d %ld B: engine %.0f, LogGOPSim %.0f", op, alg, n,
                     size, r.makespan, want);
        sim_result_free(&r);
        if (size == 8) {   /* the same parameters without G, which sched/'s replay lacks */
            sim_config c0 = {.lg = {2500, 1500, 1000, 0, 0}, .S = 65535};
            coll_logp lp = {os1500, os1500, g1000, 2500, NULL, NULL};
            cr_assert_eq(sim_run(&g, &c0, &r), 0);
            departs += coll_predict(&s, &lp, NULL) != r.makespan;
            sim_result_free(&r);
        }
        rows++;
        goal_free(&g);
        free(text);
        coll_sched_free(&s);
    }
    fclose(fp);
    cr_assert_geq(rows, 1000, "%ld rows", rows);
    cr_log_info("sched/'s replay departs from LogGOPSim's rules on %ld of %ld 8-byte shapes"
                " (o = 1500 ns, G = 0)", departs, rows / 2);
}
