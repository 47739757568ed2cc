/* goal_write: GOAL text -- its lines (sched/goal.h) -- and a collective
 * schedule as GOAL, written as text or built in memory (sched/collgen.h). */
#include "sched/collgen.h"
#include "sched/goal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void goal_put_num_ranks(FILE *fp, long ranks) { fprintf(fp, "num_ranks %ld\n", ranks); }
void goal_put_rank_open(FILE *fp, long rank) { fprintf(fp, "rank %ld {\n", rank); }
void goal_put_rank_close(FILE *fp) { fputs("}\n", fp); }

void goal_put_send(FILE *fp, long label, uint64_t bytes, long long to, long long tag)
{
    fprintf(fp, "l%ld: send %llub to %lld tag %lld\n", label, (unsigned long long)bytes, to, tag);
}

void goal_put_recv(FILE *fp, long label, uint64_t bytes, long long from, long long tag)
{
    fprintf(fp, "l%ld: recv %llub from %lld tag %lld\n", label, (unsigned long long)bytes, from,
            tag);
}

void goal_put_calc(FILE *fp, long label, uint64_t ns)
{
    fprintf(fp, "l%ld: calc %llu\n", label, (unsigned long long)ns);
}

void goal_put_requires(FILE *fp, long label, long on)
{
    fprintf(fp, "l%ld requires l%ld\n", label, on);
}

/* The one walk of a collective as GOAL, which the text and the schedule in
 * memory both follow: rank by rank, every operation with its tag and the
 * operations [plo, phi) of the step before, which it requires. */
typedef struct walker {
    void (*rank)(void *ctx, int rank, int open);
    void (*op)(void *ctx, long k, const coll_msg *m, long tag, long plo, long phi);
    void *ctx;
} walker;

#define STOP_POLL 0xfffffL   /* a walk looks at s->stop every 2^20 operations */

/* Returns 0, -1 out of memory, -3 when s->stop said stop. */
static int walk(const coll_sched *s, const walker *w)
{
    /* The tag: a message's index among its pair's messages that way, so
     * the k-th send from a to b meets b's k-th receive from a (MPI's
     * order).  Counted per rank: 2 counters a peer. */
    long *next = calloc((size_t)s->ranks * 2 + 1, sizeof *next);
    if (!next)
        return -1;
    long i = 0;
    for (int r = 0; r < s->ranks; r++) {
        w->rank(w->ctx, r, 1);
        long prev_lo = 0, prev_hi = 0;
        memset(next, 0, (size_t)s->ranks * 2 * sizeof *next);
        while (i < s->count && s->msgs[i].rank == r) {
            long lo = i;
            while (i < s->count && s->msgs[i].rank == r && s->msgs[i].step == s->msgs[lo].step)
                i++;
            for (long k = lo; k < i; k++) {
                const coll_msg *m = &s->msgs[k];
                w->op(w->ctx, k, m, next[(size_t)m->peer * 2 + (size_t)m->send]++, prev_lo, prev_hi);
                if (!(k & STOP_POLL) && s->stop && s->stop()) {
                    free(next);
                    return -3;
                }
            }
            prev_lo = lo, prev_hi = i;
        }
        w->rank(w->ctx, r, 0);
    }
    free(next);
    return 0;
}

static void text_rank(void *ctx, int rank, int open)
{
    FILE *fp = ctx;
    if (open) {
        fputc('\n', fp);
        goal_put_rank_open(fp, rank);
    } else {
        goal_put_rank_close(fp);
    }
}

static void text_op(void *ctx, long k, const coll_msg *m, long tag, long plo, long phi)
{
    FILE *fp = ctx;
    (m->send ? goal_put_send : goal_put_recv)(fp, k, (uint64_t)m->bytes, m->peer, tag);
    for (long d = plo; d < phi; d++)
        goal_put_requires(fp, k, d);
}

int coll_write_goal(FILE *fp, const coll_sched *s)
{
    fprintf(fp, "// %s (%s) of %ld bytes on %d ranks, root %d (scitorus collgen)\n",
            coll_op_names[s->op], s->alg, s->size, s->ranks, s->root);
    goal_put_num_ranks(fp, s->ranks);
    return walk(s, &(walker){text_rank, text_op, fp});
}

/* In memory: what goal_parse makes of the text.  Two walks, as the
 * reader's two passes: the operations and each one's count of edges out,
 * then the edges, each operation's in the order the text states them. */
typedef struct builder {
    goal_schedule *g;
    int fill;
} builder;

static void mem_rank(void *ctx, int rank, int open)
{
    builder *b = ctx;
    if (open && !b->fill)
        b->g->first[rank] = b->g->nops;
}

static void mem_op(void *ctx, long k, const coll_msg *m, long tag, long plo, long phi)
{
    builder *b = ctx;
    goal_schedule *g = b->g;
    if (b->fill) {
        for (long d = plo; d < phi; d++)
            g->done_to[g->done_at[d]++] = (uint32_t)k;
        return;
    }
    g->op[k] = (goal_op){(uint64_t)m->bytes, (uint32_t)m->peer, (uint32_t)tag, (uint32_t)m->rank,
                         (uint32_t)(phi - plo), m->send ? GOAL_SEND : GOAL_RECV, 0, 0};
    g->nops = (size_t)k + 1;
    g->count[m->rank]++;
    for (long d = plo; d < phi; d++)
        g->done_at[d + 1]++;
    g->edges += (size_t)(phi - plo);
}

int coll_goal(const coll_sched *s, goal_schedule *g)
{
    memset(g, 0, sizeof *g);
    size_t n = (size_t)s->count;
    g->ranks = (uint32_t)s->ranks;
    int rc = -1;
    if (!(g->op = malloc((n + 1) * sizeof *g->op)) ||
        !(g->first = calloc((size_t)s->ranks + 1, sizeof *g->first)) ||
        !(g->count = calloc((size_t)s->ranks + 1, sizeof *g->count)) ||
        !(g->done_at = calloc(n + 1, sizeof *g->done_at)) ||
        !(g->start_at = calloc(n + 1, sizeof *g->start_at)) ||
        !(g->start_to = malloc(sizeof *g->start_to)))
        goto fail;
    builder b = {g, 0};
    if ((rc = walk(s, &(walker){mem_rank, mem_op, &b})))
        goto fail;
    for (size_t i = 0; i < n; i++)
        g->done_at[i + 1] += g->done_at[i];
    rc = -1;
    if (!(g->done_to = malloc((g->edges + 1) * sizeof *g->done_to)))
        goto fail;
    b.fill = 1;
    if ((rc = walk(s, &(walker){mem_rank, mem_op, &b})))
        goto fail;
    for (size_t i = n; i > 0; i--)   /* the fill advanced every start by its count */
        g->done_at[i] = g->done_at[i - 1];
    g->done_at[0] = 0;
    return 0;
fail:
    goal_free(g);
    return rc;
}
