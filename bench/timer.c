/* timer: the backend clock's resolution and the cost of one read, which
 * set how long a batch must last (bench/pattern.h, BATCH_TIMER_FACTOR). */
#include "bench/pattern.h"

#include <math.h>

void bench_timer_measure(const bench_backend *be, double *resolution_ns, double *overhead_ns)
{
    enum { STEPS = 1000, CALLS = 100000 };
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
    double t0 = be->now_ns();
    for (int i = 0; i < CALLS; i++)
        (void)be->now_ns();
    *overhead_ns = (be->now_ns() - t0) / CALLS;
}
