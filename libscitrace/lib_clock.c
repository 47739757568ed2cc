/* lib_clock: the time of the records, ns of CLOCK_MONOTONIC since the
 * rank's trace started (docs/traces.md, 'The clock').  Where the kernel
 * keeps time by the TSC (clocksource "tsc"), a record reads the TSC and
 * scales it (trace_now in lib.h): clock_gettime reads the TSC too, and more
 * (make bench-trace measures both).  The scale is taken over everything since
 * the first pair of readings, and the anchor is renewed at least once a
 * second, so the times follow CLOCK_MONOTONIC as it is slewed. */
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
    trace_clk.tsc0 = t, trace_clk.ns0 = ns;
}

void trace_clock_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &trace_clk.t0);
    trace_clk.tsc = tsc_usable();
    if (!trace_clk.tsc)
        return;
    pair(&first_tsc, &first_ns);
    while (trace_clock_mono() < 2000000)   /* a first slope over 2 ms */
        ;
    trace_clock_anchor();
    trace_clk.tsc = trace_clk.mult > 0;
}
