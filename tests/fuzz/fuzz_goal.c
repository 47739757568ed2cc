/* libFuzzer target: the GOAL reader (goal_parse) and, for a schedule it
 * accepts with few operations, its replay on a LogGP network and, with
 * contention, on a 2x2 torus. */
#include <stdint.h>

#include "model/params.h"
#include "sim/engine.h"
#include "sched/goal.h"

/* Larger schedules are valid too, but they take time, not code. */
#define FUZZ_MAX_OPS 4096
#define FUZZ_MAX_RANKS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    goal_schedule s;
    goal_error err;
    if (goal_parse((const char *)data, size, &s, &err) != 0)
        return 0;
    if (s.nops <= FUZZ_MAX_OPS && s.ranks <= FUZZ_MAX_RANKS) {
        sim_config c = {0};
        sim_result r;
        c.lg = (sim_loggp){2500, 1500, 1000, 6, 0};
        c.S = 100;
        if (sim_run(&s, &c, &r) == 0)
            sim_result_free(&r);
        model_params p;
        model_params_preset("current", &p);
        topo_shape sh;
        long n[2] = {2, 2}, node[FUZZ_MAX_RANKS];
        topo_shape_make(2, n, &sh);
        for (uint32_t i = 0; i < s.ranks; i++)
            node[i] = i % 4;
        c.torus = 1;
        c.t = (sim_torus){&p, &p, &sh, TOPO_LINKS_BI, node, 1, NULL, 50, 0.1, NULL, NULL};   /* --duplex on: its path fuzzed too */
        if (sim_run(&s, &c, &r) == 0)
            sim_result_free(&r);
    }
    goal_free(&s);
    return 0;
}
