/* Unit tests of the collectives' schedules, their replay on per-size LogP
 * parameters and the size refinement: every property against an oracle computed here
 * (information flow, closed-form trees, a synthetic curve). */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sched/collgen.h"
#include "sim/collpredict.h"
#include "coll/refine.h"

/* Every send meets exactly one receive of the same size (k-th send a->b,
 * k-th receive on b from a), and nothing is left unmatched. */
static void check_conservation(const coll_sched *s, const char *what)
{
    int n = s->ranks;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            long sends[512], recvs[512];
            int ns = 0, nr = 0;
            for (long i = 0; i < s->count; i++) {
                const coll_msg *m = &s->msgs[i];
                if (m->send && m->rank == a && m->peer == b && ns < 512)
                    sends[ns++] = m->bytes;
                if (!m->send && m->rank == b && m->peer == a && nr < 512)
                    recvs[nr++] = m->bytes;
            }
            cr_assert_eq(ns, nr, "%s: %d sends %d->%d but %d receives", what, ns, a, b, nr);
            for (int k = 0; k < ns; k++)
                cr_assert_eq(sends[k], recvs[k], "%s: message %d %d->%d: %ld sent, %ld received",
                             what, k, a, b, sends[k], recvs[k]);
        }
}

/* Which ranks' inputs each rank has heard of at the end: a send carries
 * what its rank knew when its step began; iterated to the fixed point. */
static void information(const coll_sched *s, uint64_t *know)
{
    int n = s->ranks;
    uint64_t carried[4096] = {0};
    cr_assert_lt(s->count, 4096);
    for (int pass = 0; pass < 2 * (int)s->count + 2; pass++) {
        for (int r = 0; r < n; r++)
            know[r] = UINT64_C(1) << r;
        for (long i = 0; i < s->count; i++) {
            const coll_msg *m = &s->msgs[i];
            /* knowledge at the start of this step: all earlier steps' receives */
            uint64_t k = UINT64_C(1) << m->rank;
            for (long j = 0; j < s->count; j++) {
                const coll_msg *q = &s->msgs[j];
                if (q->rank == m->rank && q->step < m->step && !q->send)
                    k |= carried[j];
            }
            if (m->send) {
                carried[i] = k;
            } else {   /* the matching send: same pair, same index */
                long idx = 0, seen = 0;
                for (long j = 0; j < i; j++)
                    idx += !s->msgs[j].send && s->msgs[j].rank == m->rank &&
                           s->msgs[j].peer == m->peer;
                for (long j = 0; j < s->count; j++)
                    if (s->msgs[j].send && s->msgs[j].rank == m->peer &&
                        s->msgs[j].peer == m->rank && seen++ == idx)
                        carried[i] = carried[j];
            }
        }
        for (long i = 0; i < s->count; i++)
            if (!s->msgs[i].send)
                know[s->msgs[i].rank] |= carried[i];
    }
}

Test(coll, every_algorithm_conserves_messages_and_delivers_the_data)
{
    for (int op = 0; op < COLL_NOPS; op++) {
        char list[128];
        snprintf(list, sizeof list, "%s", coll_algorithms(op));
        for (char *save = NULL, *alg = strtok_r(list, ",", &save); alg;
             alg = strtok_r(NULL, ",", &save))
            for (int n = 1; n <= 12; n++)
                for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
                    coll_sched s;
                    char why[160], what[160];
                    int rc = coll_generate(&s, op, alg, n, root, 64, why, sizeof why);
                    snprintf(what, sizeof what, "%s %s P=%d root %d", coll_op_names[op], alg, n, root);
                    if (rc == -2 && (n & (n - 1)) && !strcmp(alg, "recursive_doubling") &&
                        (op == COLL_ALLGATHER || op == COLL_ALLGATHERV))
                        continue;   /* refused with a reason, as documented */
                    cr_assert_eq(rc, 0, "%s: %s", what, why);
                    check_conservation(&s, what);
                    uint64_t know[64], all = (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
                    information(&s, know);
                    for (int r = 0; r < n; r++) {
                        int down = op == COLL_BCAST || op == COLL_SCATTER || op == COLL_SCATTERV;
                        int up = op == COLL_REDUCE || op == COLL_GATHER || op == COLL_GATHERV;
                        /* a scan's rank r needs the inputs of 0..r, an exscan's of 0..r-1 */
                        uint64_t prefix = (UINT64_C(1) << (r + (op == COLL_SCAN))) - 1;
                        if (down)
                            cr_assert(know[r] >> root & 1, "%s: rank %d never hears the root", what, r);
                        else if (up && r == root)
                            cr_assert_eq(know[r], all, "%s: the root misses inputs", what);
                        else if (op == COLL_SCAN || op == COLL_EXSCAN)
                            cr_assert_eq(know[r] & prefix, prefix, "%s: rank %d misses inputs"
                                         " below it (%lx)", what, r, (unsigned long)know[r]);
                        else if (!up)
                            cr_assert_eq(know[r], all, "%s: rank %d misses inputs (%lx)", what, r,
                                         (unsigned long)know[r]);
                    }
                    coll_sched_free(&s);
                }
    }
}

Test(coll, message_counts_of_known_algorithms)
{
    struct { int op; const char *alg; int n; long msgs; long bytes_to_root; } k[] = {
        {COLL_BCAST, "binomial", 8, 7, 0}, {COLL_ALLTOALL, "linear", 5, 20, 0},
        {COLL_ALLTOALL, "pairwise", 5, 20, 0}, {COLL_BARRIER, "dissemination", 5, 15, 0},
        {COLL_GATHER, "binomial", 8, 7, 7 * 64}, {COLL_GATHER, "linear", 6, 5, 5 * 64},
        {COLL_ALLREDUCE, "recursive_doubling", 8, 24, 0},
        {COLL_ALLREDUCE, "recursive_doubling", 6, 2 + 4 * 2 + 2, 0},   /* 2 fold in, 4 ranks x 2 rounds, 2 back */
        /* a reduce-scatter and an allgather move 2 m (1 - 1/P) into each rank */
        {COLL_ALLREDUCE, "ring", 8, 8 * 2 * 7, 2 * 64 * 7 / 8}, {COLL_ALLREDUCE, "ring", 5, 5 * 2 * 4, 0},
        {COLL_ALLREDUCE, "rabenseifner", 8, 8 * 2 * 3, 2 * 64 * 7 / 8},
        {COLL_ALLREDUCE, "rabenseifner", 6, 2 + 4 * 2 * 2 + 2, 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        coll_sched s;
        char why[160];
        cr_assert_eq(coll_generate(&s, k[i].op, k[i].alg, k[i].n, 0, 64, why, sizeof why), 0);
        long sends = 0, to_root = 0;
        for (long j = 0; j < s.count; j++) {
            sends += s.msgs[j].send;
            if (!s.msgs[j].send && s.msgs[j].rank == 0)
                to_root += s.msgs[j].bytes;
        }
        cr_assert_eq(sends, k[i].msgs, "%s %s P=%d: %ld messages", coll_op_names[k[i].op],
                     k[i].alg, k[i].n, sends);
        if (k[i].bytes_to_root)
            cr_assert_eq(to_root, k[i].bytes_to_root);
        coll_sched_free(&s);
    }
}

static double c_os, c_or, c_g, c_L;
static double f_os(void *c, long m) { (void)c, (void)m; return c_os; }
static double f_or(void *c, long m) { (void)c, (void)m; return c_or; }
static double f_g(void *c, long m) { (void)c, (void)m; return c_g; }
static double f_L(void *c, long m) { (void)c, (void)m; return c_L; }

static double predict(int op, const char *alg, int n, double os, double orr, double L)
{
    coll_sched s;
    goal_schedule g;
    char why[160];
    cr_assert_eq(coll_generate(&s, op, alg, n, 0, 8, why, sizeof why), 0, "%s", why);
    cr_assert_eq(coll_goal(&s, &g), 0);
    c_os = os, c_or = orr, c_g = 0, c_L = L;
    sim_sized p = {f_os, f_or, f_g, f_L, NULL};
    double t = coll_predict_sized(&g, &p, NULL, NULL, NULL);
    goal_free(&g);
    coll_sched_free(&s);
    return t;
}

/* Closed forms: a binomial broadcast on 8 ranks is three hops deep, each
 * hop os + L + or (0 -> 4 -> 6 -> 7); the root's third send, to rank 1,
 * starts after two os and ends at 3 os + L + or, earlier.  A delay on
 * every send alone (os = D) costs the longest chain of sends: log2 P. */
Test(coll, replay_matches_closed_forms)
{
    cr_assert_float_eq(predict(COLL_BCAST, "binomial", 8, 100, 100, 1000), 3 * 1200.0, 1e-9);
    cr_assert_float_eq(predict(COLL_BCAST, "binomial", 4, 5000, 0, 0), 2 * 5000.0, 1e-9);
    cr_assert_float_eq(predict(COLL_BCAST, "linear", 4, 5000, 0, 0), 3 * 5000.0, 1e-9);
    /* two ranks: one message, or one exchange, whatever the operation */
    for (int op = 0; op < COLL_NOPS; op++)
        cr_assert_float_eq(predict(op, NULL, 2, 100, 200, 1000), 1300.0, 1e-9, "%s",
                           coll_op_names[op]);
    /* recursive doubling on 8: three exchanges, each os + L + or after the last */
    cr_assert_float_eq(predict(COLL_ALLREDUCE, NULL, 8, 100, 200, 1000), 3 * 1300.0, 1e-9);
    /* dissemination on 5: three rounds */
    cr_assert_float_eq(predict(COLL_BARRIER, NULL, 5, 100, 200, 1000), 3 * 1300.0, 1e-9);
}

/* Timed as --sync barrier times it (and osu_*): each rank from its own exit
 * of the barrier before.  On two ranks the bcast's root sends and enters
 * the barrier first, so it leaves it L after its receiver, which then waits
 * os + 2L + or; an exchange leaves both ranks together (os + L + or). */
Test(coll, barrier_synchronised_replay_matches_closed_forms)
{
    logp_row rows[2] = {{.size_bytes = 1, .os_ns = 100, .or_ns = 200, .rtt_ns = 2600},
                        {.size_bytes = 65536, .os_ns = 100, .or_ns = 200, .rtt_ns = 2600}};
    logp_data lp = {.L_ns = 1000, .count = 2, .cap = 2, .rows = rows};
    char why[400];
    double t;
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_BCAST, NULL, 2, 0, 8, 0, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, 1300.0, 1e-9);
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_BCAST, NULL, 2, 0, 8, 1, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, 2300.0, 1e-9);
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_BCAST, NULL, 2, 1, 8, 1, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, 2300.0, 1e-9, "root 1: %g", t);
    for (int op = COLL_ALLREDUCE; op <= COLL_ALLTOALL; op++) {
        cr_assert_eq(coll_predict_logp(&lp, "lp", op, NULL, 2, 0, 8, 1, NULL, &t, why, sizeof why), 0);
        cr_assert_float_eq(t, 1300.0, 1e-9, "%s: %g", coll_op_names[op], t);
        cr_assert_eq(coll_predict_logp(&lp, "lp", op, NULL, 2, 0, 8, 2, NULL, &t, why, sizeof why), 0);
        cr_assert_float_eq(t, 1300.0, 1e-9, "%s, mean of ranks: %g", coll_op_names[op], t);
    }
    /* --sync osu's figure, the mean over ranks: the root's send (os) and its
     * receiver's os + 2L + or */
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_BCAST, NULL, 2, 0, 8, 2, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, (100.0 + 2300.0) / 2, 1e-9, "bcast, mean of ranks: %g", t);
}

/* A blocking send that spans the delivery (L(m) = RTT/2 - os - or < 0, as
 * above 256 B here): an exchange costs RTT/2 as one message does, the
 * receive being progressed inside the send call, not os + or. */
Test(coll, a_send_spanning_the_delivery_overlaps_the_exchange)
{
    logp_row rows[1] = {{.size_bytes = 1, .os_ns = 500, .or_ns = 600, .rtt_ns = 1800}};
    logp_data lp = {.L_ns = 5, .count = 1, .cap = 1, .rows = rows};
    char why[400];
    double t;
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_ALLTOALL, NULL, 2, 0, 1, 0, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, 900.0, 1e-9, "alltoall: %g", t);
    cr_assert_eq(coll_predict_logp(&lp, "lp", COLL_BCAST, NULL, 2, 0, 1, 0, NULL, &t, why, sizeof why), 0);
    cr_assert_float_eq(t, 900.0, 1e-9, "bcast: %g", t);
}

/* Behind a barrier the measured figure compared is the largest rank's
 * median (node_ns), the replay's own definition, not the slowest rank per
 * repetition; a window file keeps the latter (its replay's definition). */
Test(coll, compare_takes_the_statistic_the_replay_defines)
{
    logp_row rows[1] = {{.size_bytes = 1, .os_ns = 100, .or_ns = 200, .rtt_ns = 2600}};
    logp_data lp = {.L_ns = 1000, .count = 1, .cap = 1, .rows = rows};
    coll_row row = {.op = "alltoall", .procs = 2, .size = 1, .median_ns = 2000,
                    .node_ns = "1100.0,1300.0"};
    coll_data d = {.op = "alltoall", .sync = "barrier", .count = 1, .cap = 1, .rows = &row};
    double got[2], ns[2];
    for (int k = 0; k < 2; k++) {
        coll_compare_plan p;
        char why[200];
        cr_assert_eq(coll_compare_plan_of(&d, NULL, &p), 0);
        cr_assert_eq(coll_compare_row(&p, &row, &lp, "lp", &got[k], &ns[k], why, sizeof why), 0, "%s", why);
        snprintf(d.sync, sizeof d.sync, "window");
    }
    cr_assert_float_eq(got[0], 1300.0, 1e-9, "barrier: the largest rank's median");
    cr_assert_float_eq(ns[0], 1300.0, 0.05);
    cr_assert_float_eq(got[1], 2000.0, 1e-9, "window: the slowest rank's median");
    cr_assert_float_eq(ns[1], 1300.0, 0.05);
}

/* An osu file (each repetition the mean over ranks) without node times is
 * compared with the replay's mean over ranks; with them, as a barrier file. */
Test(coll, compare_of_an_osu_file_takes_the_mean_over_ranks)
{
    logp_row rows[1] = {{.size_bytes = 1, .os_ns = 100, .or_ns = 200, .rtt_ns = 2600}};
    logp_data lp = {.L_ns = 1000, .count = 1, .cap = 1, .rows = rows};
    coll_row row = {.op = "bcast", .procs = 2, .size = 1, .median_ns = 1250};
    coll_data d = {.op = "bcast", .sync = "osu", .count = 1, .cap = 1, .rows = &row};
    coll_compare_plan p;
    char why[200];
    double got, ns;
    cr_assert_eq(coll_compare_plan_of(&d, NULL, &p), 0);
    cr_assert_eq(coll_compare_row(&p, &row, &lp, "lp", &got, &ns, why, sizeof why), 0, "%s", why);
    cr_assert_float_eq(got, 1250.0, 1e-9, "the file's median");
    cr_assert_float_eq(ns, 1200.0, 0.05, "the mean of the root's 100 and the receiver's 2300");
    snprintf(row.node_ns, sizeof row.node_ns, "200.0,2400.0");
    cr_assert_eq(coll_compare_plan_of(&d, NULL, &p), 0);
    cr_assert_eq(coll_compare_row(&p, &row, &lp, "lp", &got, &ns, why, sizeof why), 0, "%s", why);
    cr_assert_float_eq(got, 2400.0, 1e-9, "the largest rank's median");
    cr_assert_float_eq(ns, 2300.0, 0.05, "the slowest rank's replay");
}

/* A curve with a knee at 4096 bytes (slope 0.1 below, 1.0 above). */
static double knee(long x) { return 500 + (x < 4096 ? 0.1 * (double)x : 409.6 + (double)(x - 4096)); }
static double line(long x) { return 500 + 0.25 * (double)x; }

static int refine_all(double (*f)(long), long *x, double *y, int n, long *added)
{
    refine_cfg cfg = {0.02, 64, 1};
    int k = 0;
    for (long s; (s = refine_next(&cfg, x, y, n)) >= 0 && k < 100; k++) {
        added[k] = s;
        refine_insert(x, y, &n, s, f(s));
    }
    return k;
}

Test(coll, refine_inserts_at_a_knee_and_not_on_a_line)
{
    long x[128] = {8, 512, 1024, 8192, 16384, 65536}, added[128];
    double y[128];
    for (int i = 0; i < 6; i++)
        y[i] = line(x[i]);
    cr_assert_eq(refine_all(line, x, y, 6, added), 0, "a size inserted on a straight line");

    long xk[128] = {8, 512, 1024, 8192, 16384, 65536};
    double yk[128];
    for (int i = 0; i < 6; i++)
        yk[i] = knee(xk[i]);
    int k = refine_all(knee, xk, yk, 6, added);
    cr_assert_gt(k, 0, "nothing inserted at the knee");
    long nearest = LONG_MAX;
    for (int i = 0; i < k; i++) {
        cr_assert(added[i] > 1024 && added[i] < 8192, "inserted %ld, away from the knee", added[i]);
        nearest = labs(added[i] - 4096) < nearest ? labs(added[i] - 4096) : nearest;
    }
    cr_assert_leq(nearest, 128, "closest inserted size %ld bytes from the knee", nearest);
    for (int i = 0; i + 1 < 6 + k; i++)
        cr_assert_geq(xk[i + 1] - xk[i], 64, "sizes %ld and %ld closer than the minimum distance",
                      xk[i], xk[i + 1]);
}

/* A receive whose sender never sends: the replay says deadlock (-1). */
Test(coll, replay_of_an_unmatched_receive_deadlocks)
{
    coll_msg m[2] = {{0, 0, 1, 0, 8}, {1, 0, 0, 0, 8}};   /* both receive, nobody sends */
    coll_sched s = {.ranks = 2, .count = 2, .cap = 2, .msgs = m};
    goal_schedule g;
    cr_assert_eq(coll_goal(&s, &g), 0);
    c_os = 50, c_or = 70, c_g = 30, c_L = 400;
    sim_sized p = {f_os, f_or, f_g, f_L, NULL};
    double per[2];
    cr_assert_eq(coll_predict_sized(&g, &p, NULL, per, NULL), -1);
    goal_free(&g);
}

static int polls, polls_allowed;
static int stop_later(void) { return ++polls > polls_allowed; }

/* Ctrl-C inside one large point: the generator, the schedule's building
 * and the replay each give up (-3) once the stop callback says so, without
 * leaking (the sanitizer). */
Test(coll, generation_and_replay_stop_when_told, .timeout = 120)
{
    coll_sched s;
    goal_schedule g;
    char why[160];
    polls = 0, polls_allowed = 3;   /* 600 ranks' alltoall: 718800 messages, 10 polls */
    cr_assert_eq(coll_generate_until(&s, COLL_ALLTOALL, NULL, 600, 0, 8, stop_later, why,
                                     sizeof why), -3);
    cr_assert_null(s.msgs);
    polls_allowed = 1 << 30;
    cr_assert_eq(coll_generate_until(&s, COLL_ALLTOALL, NULL, 600, 0, 8, stop_later, why,
                                     sizeof why), 0);
    cr_assert_gt(polls, 3);
    polls = 0, polls_allowed = 1;
    cr_assert_eq(coll_goal(&s, &g), -3);
    cr_assert_null(g.op);
    polls_allowed = 1 << 30;
    cr_assert_eq(coll_goal(&s, &g), 0);
    c_os = 50, c_or = 70, c_g = 30, c_L = 400;
    sim_sized p = {f_os, f_or, f_g, f_L, NULL};
    polls = 0, polls_allowed = 0;
    cr_assert_eq(coll_predict_sized(&g, &p, NULL, NULL, stop_later), -3);
    cr_assert_eq(polls, 1);
    goal_free(&g);
    coll_sched_free(&s);
}

/* coll_generate_rank gives rank r exactly its messages of the whole
 * schedule, in order, for every collective, algorithm, P = 1..40 and root;
 * and holds only them: a 4096-rank alltoall is 2 (P - 1) messages, not
 * 2 P (P - 1). */
Test(coll, one_rank_schedule_is_that_ranks_part_of_the_whole, .timeout = 300)
{
    for (int op = 0; op < COLL_NOPS; op++) {
        char list[160];
        snprintf(list, sizeof list, "%s", coll_algorithms(op));
        for (char *save = NULL, *alg = strtok_r(list, ",", &save); alg;
             alg = strtok_r(NULL, ",", &save))
            for (int n = 1; n <= 40; n += n < 17 ? 1 : 5)
                for (int root = 0; root < n; root += n > 2 ? n - 2 : 1) {
                    coll_sched all, one;
                    char why[200];
                    if (coll_generate(&all, op, alg, n, root, 4096, why, sizeof why)) {
                        cr_assert_eq(coll_validate(op, alg, n, why, sizeof why), -2);
                        continue;   /* a shape the algorithm refuses */
                    }
                    long at = 0;
                    for (int r = 0; r < n; r++) {
                        cr_assert_eq(coll_generate_rank(&one, op, alg, n, root, 4096, r, why,
                                                        sizeof why), 0, "%s", why);
                        for (long k = 0; k < one.count; k++, at++) {
                            const coll_msg *a = &all.msgs[at], *b = &one.msgs[k];
                            cr_assert(at < all.count && a->rank == b->rank && a->step == b->step &&
                                          a->peer == b->peer && a->send == b->send &&
                                          a->bytes == b->bytes,
                                      "%s %s n %d root %d rank %d message %ld", coll_op_names[op],
                                      alg, n, root, r, k);
                        }
                        coll_sched_free(&one);
                    }
                    cr_assert_eq(at, all.count, "%s %s n %d: every message", coll_op_names[op],
                                 alg, n);
                    coll_sched_free(&all);
                }
    }
    coll_sched one;
    char why[200];
    cr_assert_eq(coll_generate_rank(&one, COLL_ALLTOALL, "linear", 4096, 0, 8, 17, why, sizeof why), 0);
    cr_assert_eq(one.count, 2 * 4095);
    coll_sched_free(&one);
    cr_assert_eq(coll_generate_rank(&one, COLL_ALLTOALL, "linear", 4, 0, 8, 4, why, sizeof why), -2);
}
