/* The replay's work against the schedule's size, counted, not timed: waits
 * on one CPU and one matching queue made a linear alltoall's replay grow as P^3
 * (P = 64 to 256: 65 times the pops, 60 times the matching steps, 16 the messages). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "sched/collgen.h"
#include "sim/engine.h"
#include "sched/goal.h"

typedef struct work {
    double messages, pops, match_steps, makespan;
} work;

/* scisim --collective OP --algorithm ALG --procs P --emit-goal, replayed
 * with LogGOPSim's default parameters. */
static work replay(int op, const char *alg, int procs)
{
    coll_sched cs;
    char why[160], *text = NULL;
    size_t len = 0;
    cr_assert_eq(coll_generate(&cs, op, alg, procs, 0, 8, why, sizeof why), 0, "%s", why);
    FILE *mem = open_memstream(&text, &len);
    cr_assert_not_null(mem);
    coll_write_goal(mem, &cs);
    cr_assert_eq(fclose(mem), 0);
    coll_sched_free(&cs);
    goal_schedule s;
    goal_error err;
    cr_assert_eq(goal_parse(text, len, &s, &err), 0, "%ld: %s", err.line, err.msg);
    free(text);
    sim_config c = {.lg = {SIM_DEFAULT_L, SIM_DEFAULT_o, SIM_DEFAULT_g, SIM_DEFAULT_G,
                           SIM_DEFAULT_O},
                    .S = SIM_DEFAULT_S};
    sim_result r;
    cr_assert_eq(sim_run(&s, &c, &r), 0);
    cr_assert_str_empty(r.stuck, "%s", r.stuck);
    work w = {(double)r.messages, (double)r.pops, (double)r.match_steps, r.makespan};
    sim_result_free(&r);
    goal_free(&s);
    return w;
}

/* Per message, P = 256 may cost at most 1.25 times what P = 64 costs (it
 * cost 4.0 times the pops and 3.7 times the matching steps before). */
#define PER_MESSAGE_GROWTH 1.25

Test(sim_work, alltoall_replay_work_grows_with_the_messages_only)
{
    static const struct { int op; const char *alg; } cases[] = {
        {COLL_ALLTOALL, "linear"}, {COLL_ALLTOALL, "pairwise"}, {COLL_GATHER, "linear"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        work a = replay(cases[i].op, cases[i].alg, 64), b = replay(cases[i].op, cases[i].alg, 256);
        const char *name = cases[i].alg;
        cr_assert_gt(b.makespan, a.makespan, "%s", name);
        cr_assert_leq(b.pops / b.messages, PER_MESSAGE_GROWTH * a.pops / a.messages,
                      "%s: %.1f queue pops a message at P = 256, %.1f at 64", name,
                      b.pops / b.messages, a.pops / a.messages);
        cr_assert_leq(b.match_steps / b.messages, PER_MESSAGE_GROWTH * a.match_steps / a.messages,
                      "%s: %.1f matching steps a message at P = 256, %.1f at 64", name,
                      b.match_steps / b.messages, a.match_steps / a.messages);
    }
}
