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

int coll_walk_rank(const coll_sched *s, int r, long *i, coll_msg_fn *fn, void *ctx)
{
    long prev_lo = 0, prev_hi = 0;
    while (*i < s->count && s->msgs[*i].rank == r) {
        long lo = *i, hi = lo;
        while (hi < s->count && s->msgs[hi].rank == r && s->msgs[hi].step == s->msgs[lo].step)
            hi++;
        for (long k = lo; k < hi; k++) {
            int rc = fn(ctx, k, &s->msgs[k], prev_lo, prev_hi);
            if (rc)
                return rc;
        }
        prev_lo = lo, prev_hi = hi, *i = hi;
    }
    return 0;
}

typedef struct walking {
    const coll_sched *s;
    const walker *w;
    long *next;
} walking;

static int walk_msg(void *ctx, long k, const coll_msg *m, long plo, long phi)
{
    walking *x = ctx;
    x->w->op(x->w->ctx, k, m, x->next[(size_t)m->peer * 2 + (size_t)m->send]++, plo, phi);
    return !(k & STOP_POLL) && x->s->stop && x->s->stop() ? -3 : 0;
}

/* Returns 0, -1 out of memory, -3 when s->stop said stop. */
static int walk(const coll_sched *s, const walker *w)
{
    /* The tag: a message's index among its pair's messages that way, so
     * the k-th send from a to b meets b's k-th receive from a (MPI's
     * order).  Counted per rank: 2 counters a peer. */
    walking x = {s, w, calloc((size_t)s->ranks * 2 + 1, sizeof *x.next)};
    if (!x.next)
        return -1;
    long i = 0;
    int rc = 0;
    for (int r = 0; r < s->ranks && !rc; r++) {
        w->rank(w->ctx, r, 1);
        memset(x.next, 0, (size_t)s->ranks * 2 * sizeof *x.next);
        if (!(rc = coll_walk_rank(s, r, &i, walk_msg, &x)))
            w->rank(w->ctx, r, 0);
    }
    free(x.next);
    return rc;
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
