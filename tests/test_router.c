/* Tests for the router model (sim/router.h) in process: one packet alone
 * takes the closed-form zero-load latency over the route topo gives, for
 * every pair; a ring that deadlocks without dateline classes drains with
 * them; an output VC takes a packet every other cycle; packets in one VC
 * leave head_delay cycles apart; under random load every packet arrives
 * once and whole. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/router.h"
#include "topo/topo.h"

typedef struct seen {
    uint64_t n, last_done, hops_sum, *count;
    int last_hops;
} seen;

static void on_deliver(void *arg, uint64_t tag, uint64_t created, uint64_t done, int hops)
{
    seen *s = arg;
    (void)created;
    s->n++;
    s->last_done = done;
    s->last_hops = hops;
    if (s->count)
        s->count[tag]++;
}

/* A router on *sh (parsed from shape, and kept by the router) with spec
 * over the defaults in *c, delivering to cb. */
static sim_router *router_on(const char *shape, topo_shape *sh, topo_links links, const char *spec,
                             sim_router_config *c, sim_router_deliver cb, void *arg)
{
    char why[200];
    cr_assert_eq(topo_shape_parse(shape, sh, NULL), 0);
    sim_router_defaults(c);
    cr_assert_eq(sim_router_parse(spec, c, why, sizeof why), 0, "%s", why);
    sim_router *r = sim_router_new(sh, links, c, cb, arg);
    cr_assert(r);
    return r;
}

static long route_links(const topo_shape *sh, topo_links links, long a, long b)
{
    long x[TOPO_MAX_DIMS], y[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], H = 0;
    topo_rank_to_coords(sh, a, x);
    topo_rank_to_coords(sh, b, y);
    topo_hops(sh, x, y, h);
    topo_route_dist(sh, links, h, d, NULL);
    for (int i = 0; i < sh->dims; i++)
        H += d[i];
    return H;
}

static void zero_load_all_pairs(const char *shape, topo_links links, const char *spec, uint32_t flits)
{
    topo_shape sh;
    sim_router_config c;
    char why[200];
    cr_assert_eq(topo_shape_parse(shape, &sh, NULL), 0);
    sim_router_defaults(&c);
    cr_assert_eq(sim_router_parse(spec, &c, why, sizeof why), 0, "%s", why);
    for (long s = 0; s < sh.nodes; s++)
        for (long d = 0; d < sh.nodes; d++) {
            if (s == d)
                continue;
            seen got = {0};
            sim_router *r = sim_router_new(&sh, links, &c, on_deliver, &got);
            cr_assert(r);
            for (int k = 0; k < 17; k++)   /* an idle start changes nothing */
                sim_router_step(r);
            uint64_t t0 = sim_router_now(r);
            cr_assert_eq(sim_router_inject(r, s, d, flits, 7), 0);
            while (sim_router_pending(r))
                cr_assert_eq(sim_router_step(r), 0);
            long H = route_links(&sh, links, s, d);
            cr_assert_eq(got.n, 1);
            cr_assert_eq(got.last_hops, H, "%s %s: %ld -> %ld crossed %d links, the route has %ld",
                         shape, spec, s, d, got.last_hops, H);
            cr_assert_eq(got.last_done - t0, sim_router_zero_load(&c, (int)H, flits),
                         "%s %s %u flits: %ld -> %ld took %llu cycles, closed form %llu", shape,
                         spec, flits, s, d, (unsigned long long)(got.last_done - t0),
                         (unsigned long long)sim_router_zero_load(&c, (int)H, flits));
            sim_router_free(r);
        }
}

Test(router, zero_load_is_the_closed_form_for_every_pair)
{
    zero_load_all_pairs("4x4x4", TOPO_LINKS_BI, "vc:2", 1);
    zero_load_all_pairs("8x8", TOPO_LINKS_BI, "vc:8,packet:256", 4);
    zero_load_all_pairs("5x3", TOPO_LINKS_UNI, "vc:4,delay:2,head:1,link:3", 1);
    zero_load_all_pairs("6", TOPO_LINKS_UNI, "vc:1,buf:inf,dateline:off,packet:448", 7);
}

/* Every node of a unidirectional ring sends packets n - 2 hops on at once:
 * each VC waits for the next node's, round the ring, unless the dateline
 * splits the VCs.  Returns the packets delivered; *stuck: a cycle count
 * with packets pending and no flit moving. */
static uint64_t ring_burst(const char *spec, int *stuck)
{
    topo_shape sh;
    sim_router_config c;
    seen got = {0};
    sim_router *r = router_on("8", &sh, TOPO_LINKS_UNI, spec, &c, on_deliver, &got);
    for (long s = 0; s < sh.nodes; s++)
        for (int k = 0; k < 40; k++)
            cr_assert_eq(sim_router_inject(r, s, (s + sh.nodes - 2) % sh.nodes, 4, 0), 0);
    *stuck = 0;
    while (sim_router_pending(r) && !*stuck) {
        cr_assert_eq(sim_router_step(r), 0);
        *stuck = sim_router_idle(r) > sim_router_frozen(&c);
    }
    sim_router_free(r);
    return got.n;
}

Test(router, a_ring_deadlocks_without_dateline_classes_and_drains_with_them)
{
    int stuck;
    uint64_t n = ring_burst("vc:2,buf:4,dateline:off", &stuck);
    cr_assert(stuck, "without the dateline the burst drained (%llu packets): no cycle of waiting"
              " closed, so this test shows nothing", (unsigned long long)n);
    cr_assert_lt(n, 320);
    n = ring_burst("vc:2,buf:4", &stuck);
    cr_assert(!stuck);
    cr_assert_eq(n, 320, "with the dateline %llu of 320 packets arrived", (unsigned long long)n);
}

typedef struct nth {
    uint64_t n, first, at;   /* deliveries, the first's cycle, the 40th's */
} nth;

static void on_nth(void *arg, uint64_t tag, uint64_t created, uint64_t done, int hops)
{
    nth *x = arg;
    (void)tag, (void)created, (void)hops;
    if (++x->n == 1)
        x->first = done;
    if (x->n == 40)
        x->at = done;
}

/* The cycles from the first to the 40th delivery of 20 single-flit packets
 * offered at once at each of the four neighbours of the centre of a 5x5
 * torus, for the centre: its ejection port is the bottleneck while all
 * four still send (the last packets trail behind one input VC). */
static uint64_t burst_spread(const char *spec)
{
    topo_shape sh;
    sim_router_config c;
    nth got = {0};
    sim_router *r = router_on("5x5", &sh, TOPO_LINKS_BI, spec, &c, on_nth, &got);
    static const long nbr[] = {7, 11, 13, 17};   /* around 12, (2, 2) */
    for (int i = 0; i < 20; i++)
        for (int s = 0; s < 4; s++)
            cr_assert_eq(sim_router_inject(r, nbr[s], 12, 1, 0), 0);
    while (sim_router_pending(r))
        cr_assert_eq(sim_router_step(r), 0);
    sim_router_free(r);
    cr_assert_eq(got.n, 80);
    return got.at - got.first;
}

/* VC allocation is a stage before switch allocation (BookSim's iq router):
 * an output VC takes a packet at most every other cycle, so one ejection
 * VC delivers half a flit a cycle, two deliver one. */
Test(router, an_output_vc_takes_a_packet_every_other_cycle)
{
    uint64_t one = burst_spread("vc:1,buf:inf,dateline:off"), two = burst_spread("vc:2,dateline:off");
    cr_assert_eq(one, 78, "one VC: 40 deliveries over %llu cycles, not 2 x 39", (unsigned long long)one);
    cr_assert_eq(two, 39, "two VCs: 40 deliveries over %llu cycles, not 39", (unsigned long long)two);
}

typedef struct times {
    uint64_t done[8];
    int n;
} times;

static void on_time(void *arg, uint64_t tag, uint64_t created, uint64_t done, int hops)
{
    times *t = arg;
    (void)tag, (void)created, (void)hops;
    if (t->n < 8)
        t->done[t->n++] = done;
}

/* Why --contention is not the limit of one VC with unbounded buffers: a
 * FIFO link passes back-to-back messages of f flits every f cycles, but a
 * packet behind another in a VC waits its head_delay at the front, so a
 * stream of packets leaves one every f + head_delay cycles. */
Test(router, a_stream_in_one_vc_leaves_a_packet_every_f_plus_head_delay_cycles)
{
    topo_shape sh;
    sim_router_config c;
    const char *specs[] = {"vc:1,buf:inf,dateline:off", "vc:1,buf:inf,dateline:off,head:4"};
    for (size_t k = 0; k < 2; k++)
        for (uint32_t f = 4; f <= 16; f *= 2) {
            times t = {0};
            sim_router *r = router_on("8", &sh, TOPO_LINKS_UNI, specs[k], &c, on_time, &t);
            for (int i = 0; i < 8; i++)
                cr_assert_eq(sim_router_inject(r, 0, 1, f, 0), 0);
            while (sim_router_pending(r))
                cr_assert_eq(sim_router_step(r), 0);
            sim_router_free(r);
            cr_assert_eq(t.n, 8);
            for (int i = 0; i < 8; i++)
                cr_assert_eq(t.done[i], sim_router_zero_load(&c, 1, f) + (uint64_t)i * (f + (uint32_t)c.head_delay),
                             "%s, %u flits: packet %d done at %llu", specs[k], f, i,
                             (unsigned long long)t.done[i]);
        }
}

Test(router, every_packet_arrives_once_under_random_load)
{
    topo_shape sh;
    sim_router_config c;
    char why[200];
    cr_assert_eq(topo_shape_parse("4x4x4", &sh, NULL), 0);
    const char *specs[] = {"vc:2,buf:2", "vc:3,buf:1,packet:192", "vc:1,buf:inf,dateline:off"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        sim_router_defaults(&c);
        cr_assert_eq(sim_router_parse(specs[k], &c, why, sizeof why), 0, "%s", why);
        enum { PACKETS = 20000 };
        seen got = {0};
        got.count = calloc(PACKETS, sizeof *got.count);
        sim_router *r = sim_router_new(&sh, TOPO_LINKS_BI, &c, on_deliver, &got);
        uint64_t rng = 88172645463325252ull, flits = 0;
        for (uint64_t i = 0; i < PACKETS;) {
            for (int j = 0; j < 8 && i < PACKETS; j++, i++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                long s = (long)(rng % 64), d = (long)((rng >> 20) % 63);
                d += d >= s;
                uint32_t f = 1 + (uint32_t)(rng >> 40) % 5;
                flits += f;
                cr_assert_eq(sim_router_inject(r, s, d, f, i), 0);
            }
            cr_assert_eq(sim_router_step(r), 0);
        }
        while (sim_router_pending(r)) {
            cr_assert_eq(sim_router_step(r), 0);
            cr_assert_leq(sim_router_idle(r), sim_router_frozen(&c), "%s: stuck", specs[k]);
        }
        sim_router_stats st;
        sim_router_get_stats(r, &st);
        cr_assert_eq(got.n, PACKETS);
        cr_assert_eq(st.flits_ejected, flits, "%s: %llu flits out of %llu in", specs[k],
                     (unsigned long long)st.flits_ejected, (unsigned long long)flits);
        for (uint64_t i = 0; i < PACKETS; i++)
            cr_assert_eq(got.count[i], 1, "%s: packet %llu arrived %llu times", specs[k],
                         (unsigned long long)i, (unsigned long long)got.count[i]);
        sim_router_free(r);
        free(got.count);
    }
}

Test(router, bad_specs_are_refused_with_the_reason)
{
    static const struct { const char *spec, *why; } bad[] = {
        {"vc:0", "vc:0"}, {"vc:1", "dateline"}, {"buf:0", "buf:0"}, {"vc", "not KEY:VALUE"},
        {"speed:3", "not KEY:VALUE"}, {"dateline:maybe", "on or off"}, {"packet:32", "one flit"},
        {"link:0", "link:0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sim_router_config c;
        char why[200] = "";
        sim_router_defaults(&c);
        cr_assert_eq(sim_router_parse(bad[i].spec, &c, why, sizeof why), -1, "%s accepted", bad[i].spec);
        cr_assert(strstr(why, bad[i].why), "%s: '%s' does not say '%s'", bad[i].spec, why, bad[i].why);
    }
}

/* --traffic-pattern bitcomp is BookSim's name for complement: on n_i a
 * power of two, node number bits complemented are coordinates n_i - 1 - s_i. */
Test(router, bitcomp_is_the_complement_pattern)
{
    topo_pattern p;
    topo_shape sh;
    cr_assert_eq(topo_pattern_parse("bitcomp", &p), 0);
    cr_assert_eq(p, TOPO_PATTERN_COMPLEMENT);
    cr_assert_eq(topo_shape_parse("4x8x2", &sh, NULL), 0);
    for (long s = 0; s < sh.nodes; s++) {
        long d;
        cr_assert_eq(topo_pattern_dests(&sh, p, s, &d), 1);
        cr_assert_eq(d, (~s) & (sh.nodes - 1), "%ld: %ld", s, d);
    }
}
