/* timer: the backend clock's resolution and the cost of one read, which
 * set how long a batch must last (bench/pattern.h, BATCH_TIMER_FACTOR) and
 * what a LogP sample takes off for its clock (bench/logp_engine.c). */
#include "bench/pattern.h"

#include <math.h>

void bench_timer_measure(const bench_backend *be, double *resolution_ns, double *overhead_ns)
{
    enum { STEPS = 1000, BATCHES = 100, CALLS = 1000 };
    double res = INFINITY;
    for (int i = 0; i < STEPS; i++) {
        double a = be->now_ns(), b;
        while ((b = be->now_ns()) == a)
            ;
        if (b - a < res)
            res = b - a;
    }
    double tick = be->tick_ns();
    *resolution_ns = res > tick ? res : tick;
    /* The least batch's mean: losing the core inflates a batch, never
     * shortens one, and a mean over all of them can exceed a round trip
     * (test_timer injects the stall). */
    double least = INFINITY;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = be->now_ns();
        for (int i = 0; i < CALLS; i++)
            (void)be->now_ns();
        double mean = (be->now_ns() - t0) / CALLS;
        if (mean < least)
            least = mean;
    }
    *overhead_ns = least;
}
