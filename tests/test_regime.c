/* Tests for the floor beside the batches (benchdata/regime.h): the engine of
 * bench/pattern.c on a backend of its own in one process, whose virtual
 * clock advances by a floor of 50 ns per message, or 250 ns inside a window
 * of virtual time: the oracle is the regime the clock was in. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/backend.h"
#include "benchdata/benchdata.h"
#include "bench/pattern.h"
#include "benchdata/regime.h"

static double vt;               /* virtual ns */
static double slow_from, slow_to;   /* the floor is slow_ns in [slow_from, slow_to), else 50 */
static double slow_ns = 250;
static long sent0, sent8;       /* messages of 0 and of 8 bytes sent in the slow window */
static bench_msg pending;
static int has_pending;

static double fake_now(void) { return vt += 1; }
static double fake_tick(void) { return 1; }
static int fake_rank(const bench_comm *c) { (void)c; return 0; }
static int fake_size(const bench_comm *c) { (void)c; return 2; }
static int fake_barrier(bench_comm *c) { (void)c; return 0; }

/* A message's way: the floor, its bytes, and 0-4 ns of jitter in turn, so
 * that no point converges before its --max-time. */
static double one_way(const bench_msg *m)
{
    static unsigned n;
    int slow = vt >= slow_from && vt < slow_to;
    if (slow && m->kind == BENCH_MSG_REQUEST)
        *(m->len ? &sent8 : &sent0) += 1;
    return (slow ? slow_ns : 50) + 0.5 * (double)m->len + n++ % 5;
}

/* Process 1 hosts node 1 of the 2-node ring: every request ends there and
 * is answered at once (ping-pong), each way costing the floor. */
static int fake_send(bench_comm *c, int to, const bench_msg *m, const void *payload)
{
    (void)c, (void)payload;
    if (m->kind == BENCH_MSG_STOP)
        return 0;
    cr_assert_eq(to, 1);
    cr_assert_eq(m->node, m->target, "a 2-node ring has no relay");
    vt += one_way(m);
    pending = (bench_msg){BENCH_MSG_RESPONSE, 0, 0, 0, 0, m->net, m->len};
    vt += one_way(&pending);
    has_pending = 1;
    return 0;
}

static int fake_recv(bench_comm *c, bench_msg *m, void *payload, size_t cap)
{
    (void)c, (void)payload, (void)cap;
    cr_assert(has_pending, "a receive with nothing sent");
    *m = pending;
    has_pending = 0;
    return 0;
}

static const bench_backend fake = {
    .name = "fake", .timer_name = "virtual", .rank = fake_rank, .size = fake_size,
    .send = fake_send, .recv = fake_recv, .barrier = fake_barrier, .now_ns = fake_now,
    .tick_ns = fake_tick,
};

/* One 8 B point with the floor slow in [from, to), ns after the run's
 * start, and the relative standard error it stops at.  Its timed batches
 * begin after the 5 ms warm-up; at 1% it converges at the shortest span,
 * 10 ms; at 1e-12 it never converges and takes all of its 50 ms
 * --max-time. */
static bench_point run(double from, double to, double rel_error)
{
    static long sizes8[1] = {8}, dst1[1] = {1};
    bench_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.pattern = BENCH_PP;
    topo_shape_equal(1, 2, &cfg.shape);
    cfg.dsts = dst1;
    cfg.ndst = 1;
    cfg.sizes[0] = sizes8[0];
    cfg.nsizes = 1;
    cfg.rel_error = rel_error;
    cfg.min_samples = 8;
    cfg.max_samples = 1000000;
    cfg.max_time_s = 0.05;
    cfg.quiet = 1;
    cfg.prog = "test";
    vt = 0;
    slow_from = from, slow_to = to;
    has_pending = 0;
    bench_data h;
    memset(&h, 0, sizeof h);
    bench_data_set_header(&h, "topology", "ring 2");
    char path[] = "/tmp/scitorus-regime-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "w");
    cr_assert_eq(bench_run(&fake, NULL, &cfg, 1, &h, &out), 0);
    fclose(out);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%ld: %s", e.line, e.msg);
    unlink(path);
    cr_assert_eq(d.count, 1);
    bench_point p = d.points[0];
    bench_data_free(&d);
    return p;
}

/* A steady floor: recorded beside the point, one regime. */
Test(regime, steady_floor_is_recorded)
{
    bench_point p = run(INFINITY, INFINITY, 0.01);
    cr_assert_float_eq(p.floor_ns, 52, 5, "floor %.1f", p.floor_ns);
    cr_assert_not(bench_regime_spans(p.floor_q1_ns, p.floor_q3_ns));
    cr_assert_float_eq(p.median_ns, 56, 5, "8 B: 50 ns + 4 ns of bytes + 2 of jitter");
}

/* The floor jumps to 250 ns 3 ms into the point's 10 ms of batches: as
 * slow batches are 4.6 times longer, over a quarter of its batches are in
 * each regime, and its row says so by its floors' quartiles (calibrate
 * counts it unsteady).  It is not measured again within the run: points
 * measured in turn would no longer share the machine's changes. */
Test(regime, point_spanning_regimes_says_so)
{
    bench_point p = run(8e6, INFINITY, 0.01);
    cr_assert(bench_regime_spans(p.floor_q1_ns, p.floor_q3_ns), "q1 %.1f q3 %.1f",
              p.floor_q1_ns, p.floor_q3_ns);
    cr_assert_float_eq(p.floor_q1_ns, 52, 5, "q1 %.1f: the old regime", p.floor_q1_ns);
    cr_assert_float_eq(p.floor_q3_ns, 252, 10, "q3 %.1f: the new one", p.floor_q3_ns);
}

/* A jump in the last fifth of the point's 50 ms (a twentieth of its
 * batches) leaves the median, and the floor recorded, in the old regime,
 * as they should be, and does not span. */
Test(regime, a_late_jump_leaves_the_point_in_its_regime)
{
    bench_point p = run(45e6, INFINITY, 1e-12);
    cr_assert_not(bench_regime_spans(p.floor_q1_ns, p.floor_q3_ns), "q1 %.1f q3 %.1f",
                  p.floor_q1_ns, p.floor_q3_ns);
    cr_assert_float_eq(p.floor_ns, 52, 5, "floor %.1f", p.floor_ns);
    cr_assert_float_eq(p.median_ns, 56, 5, "median %.1f", p.median_ns);
}

/* A busy machine stretches every batch (here each message takes 1 ms
 * from 6 ms on, after the warm-ups): the floor's batches still take a
 * tenth of the run at most, not one before every batch. */
Test(regime, the_floor_costs_a_tenth_of_a_busy_run_at_most)
{
    slow_ns = 1e6;
    run(6e6, INFINITY, 1e-12);
    cr_assert_gt(sent8, 10, "%ld requests of 8 B", sent8);
    cr_assert_leq((double)sent0, 0.1 * (double)(sent0 + sent8) + 2, "%ld floor requests beside"
                  " %ld of the point", sent0, sent8);
}
