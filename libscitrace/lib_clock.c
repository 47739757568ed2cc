/* lib_clock: the time of the records, in ticks since the rank's trace
 * started, and the scale that turns them into ns of CLOCK_MONOTONIC
 * (docs/traces.md, 'The clock').  Where the kernel keeps time by the TSC
 * (clocksource "tsc"), a tick is the TSC's (clock_gettime reads it too, and
 * more: make bench-trace measures both); else a tick is 1 ns of
 * clock_gettime.  The slope is taken over everything since the first pair of
 * readings, and renewed at least once a second (an S record each time), so
 * the times follow CLOCK_MONOTONIC as it is slewed. */
#include "libscitrace/lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

trace_clock trace_clk;
static uint64_t first_tsc;
static int64_t first_ns;

int64_t trace_clock_mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - trace_clk.t0.tv_sec) * 1000000000 +
           (t.tv_nsec - trace_clk.t0.tv_nsec);
}

static int tsc_usable(void)
{
#if TRACE_HAVE_TSC
    char cs[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(cs, sizeof cs, f))
            cs[0] = '\0';
        fclose(f);
    }
    return strcmp(cs, "tsc\n") == 0 && !getenv("SCITRACE_NO_TSC");
#else
    return 0;
#endif
}

/* A (tsc, ns) pair read together: the tsc in the middle of two clock reads. */
static void pair(uint64_t *tsc, int64_t *ns)
{
    int64_t a = trace_clock_mono();
    *tsc = trace_tsc();
    *ns = (a + trace_clock_mono()) / 2;
}

/* New anchor; the slope over everything since the first pair, so its
 * error (one pair's, over the span) shrinks as the run goes on. */
void trace_clock_anchor(void)
{
    uint64_t t;
    int64_t ns;
    pair(&t, &ns);
    if (t > first_tsc && ns > first_ns)
        trace_clk.mult =
            (uint64_t)(((unsigned __int128)(ns - first_ns) << 32) / (t - first_tsc));
    trace_clk.tsc0 = (int64_t)(t - trace_clk.start), trace_clk.ns0 = ns;
}

int64_t trace_clock_ticks(int64_t ns)
{
    return trace_clk.mult ? (int64_t)(((unsigned __int128)ns << 32) / trace_clk.mult) : ns;
}

void trace_clock_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &trace_clk.t0);
    trace_clk.tsc = tsc_usable();
    if (trace_clk.tsc) {
        pair(&first_tsc, &first_ns);
        trace_clk.start = first_tsc;
        while (trace_clock_mono() < 2000000)   /* a first slope over 2 ms */
            ;
        trace_clock_anchor();
        trace_clk.tsc = trace_clk.mult > 0;
    }
    if (!trace_clk.tsc)   /* ticks of 1 ns */
        trace_clk.tsc0 = 0, trace_clk.ns0 = 0, trace_clk.mult = (uint64_t)1 << 32;
}
