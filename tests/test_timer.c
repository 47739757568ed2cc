/* Tests for the clock's measured cost (bench/timer.c), on a virtual clock
 * that costs a known time per read and stalls once, as a process that loses
 * its core does: the oracle is the cost per read put into the clock. */
#include <criterion/criterion.h>

#include "bench/backend.h"
#include "bench/pattern.h"

#define READ_NS 20.0   /* within 1%: a batch times its reads and one more */

static double vt;
static long reads, stall_at;
static double stall_ns;

static double fake_now(void)
{
    if (++reads == stall_at)
        vt += stall_ns;
    return vt += READ_NS;
}
static double fake_tick(void) { return 1; }

static const bench_backend fake = {.name = "fake", .timer_name = "virtual", .now_ns = fake_now,
                                   .tick_ns = fake_tick};

static void measure(long at, double ns, double *res, double *ovh)
{
    vt = 0, reads = 0, stall_at = at, stall_ns = ns;
    bench_timer_measure(&fake, res, ovh);
}

Test(timer, reads_cost_what_the_clock_takes)
{
    double res, ovh;
    measure(-1, 0, &res, &ovh);
    cr_assert_float_eq(res, READ_NS, READ_NS / 100);
    cr_assert_float_eq(ovh, READ_NS, READ_NS / 100);
}

/* A 50 ms stall inside the reads' timing, 500 ns a read over all of them:
 * more than a shared-memory round trip, which then measured negative. */
Test(timer, a_stall_while_reading_is_not_a_reads_cost)
{
    double res, ovh;
    for (long at = 2500; at <= 102000; at += 9950) {
        measure(at, 50e6, &res, &ovh);
        cr_assert_float_eq(ovh, READ_NS, READ_NS / 100, "stall at read %ld: %.1f ns a read", at, ovh);
    }
}
