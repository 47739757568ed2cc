/* tracegoal: a trace as a schedule in the
 * GOAL text format of LogGOPSim (docs/formats.md, 'GOAL schedule'), which
 * scisim and LogGOPSim replay (`scitrace goal`).  Per rank, in program order:
 *   - the time between one call's return and the next call's entry is a
 *     `calc` of that many ns;
 *   - a blocking call requires the operation before it (the rank's chain);
 *     a nonblocking one (Isend, Irecv, a persistent Start) requires it too
 *     but the chain does not wait for it: the Wait or Test that completed
 *     its request is a `calc 0` that requires it;
 *   - a receive names the source and tag it matched in the run;
 *   - a collective is its messages under the algorithm of trace/expand.h,
 *     step by step as sched/collgen.h generates them (each step's requiring
 *     every operation of the step before), and the chain goes on when all
 *     of them are done; the v variants are their recorded sends;
 *   - a phase change is a `// phase NAME` comment. */
#include "trace/tracegoal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched/goal.h"
#include "trace/tracekinds.h"

/* Collective messages get tags above any MPI tag a run used here, one per
 * position on a communicator, so they never match point-to-point ones. */
#define COLL_TAG_BASE 1000000000u
#define COLL_TAG_SPAN 1000000000u

typedef struct gen {
    FILE *fp;
    long next;           /* next label number of this rank */
    long chain;          /* label the next blocking step requires (0: none) */
    long *req_label;     /* request id -> label of its operation */
    int64_t nreq;
    const expand_choice *choice;
    expand_cache *cache;
} gen;

/* The next label's operation (sched/goal.h spells it); returns the label. */
static long send_op(gen *g, uint64_t bytes, long long to, long long tag)
{
    goal_put_send(g->fp, ++g->next, bytes, to, tag);
    return g->next;
}

static long recv_op(gen *g, uint64_t bytes, long long from, long long tag)
{
    goal_put_recv(g->fp, ++g->next, bytes, from, tag);
    return g->next;
}

static long calc_op(gen *g, uint64_t ns)
{
    goal_put_calc(g->fp, ++g->next, ns);
    return g->next;
}

static void requires(gen *g, long a, long b)
{
    if (a && b)
        goal_put_requires(g->fp, a, b);
}

/* A step of the chain: requires the chain, becomes it. */
static long step(gen *g, long l)
{
    requires(g, l, g->chain);
    return g->chain = l;
}

typedef struct expanding {
    gen *g;
    const trace_comm *cm;
    unsigned tag;
    long start;          /* what the collective's first step requires */
    long lo, *labels;    /* the label of the rank's message lo + j */
} expanding;

static int expand_msg(void *ctx, long k, const coll_msg *m, long plo, long phi)
{
    expanding *x = ctx;
    long l = x->labels[k - x->lo] =
        (m->send ? send_op : recv_op)(x->g, (uint64_t)m->bytes, x->cm->world[m->peer], x->tag);
    if (plo == phi)
        requires(x->g, l, x->start);
    for (long d = plo; d < phi; d++)
        requires(x->g, l, x->labels[d - x->lo]);
    return 0;
}

/* This rank's part of collective c: its messages of the schedule, each
 * step's requiring every operation of the step before (the first, the
 * chain); then the chain waits for all of them.  The v collectives: the
 * recorded sends alone.  Returns 0, -1 out of memory, -2 (why: the schedule). */
static int collective(gen *g, const trace_rank *t, const trace_call *c, long k, char *why,
                      size_t len)
{
    const trace_comm *cm = &t->comms[c->comm];
    int me = trace_comm_index(cm, t->rank), root = c->peer >= 0 ? trace_comm_index(cm, c->peer) : 0;
    unsigned tag = COLL_TAG_BASE + (unsigned)(k % COLL_TAG_SPAN);
    long first = g->next + 1, start = g->chain;
    if (trace_kind_class(c->kind) == TRACE_COLL_DIRECT) {
        for (size_t j = 0; j < c->nlist; j++) {
            int w = (int)t->ids[c->list + 2 * j];
            if (trace_comm_index(cm, w) >= 0)
                requires(g, send_op(g, (uint64_t)t->ids[c->list + 2 * j + 1], w, tag), start);
        }
    } else if (me >= 0) {   /* a rank outside the communicator sends nothing in it */
        const coll_sched *s;
        int rc = expand_schedule(g->cache, g->choice, c->kind, cm->n, root, me, c->bytes, &s, why,
                                 len);
        if (rc)
            return rc;
        expanding x = {g, cm, tag, start, 0, NULL};
        long hi;
        expand_rank_msgs(s, me, &x.lo, &hi);
        if (!(x.labels = malloc((size_t)(hi - x.lo + 1) * sizeof *x.labels)))
            return -1;
        long i = x.lo;
        coll_walk_rank(s, me, &i, expand_msg, &x);
        free(x.labels);
    }
    long last = g->next, join = calc_op(g, 0);
    for (long l = first; l <= last; l++)
        requires(g, join, l);
    if (first > last)
        requires(g, join, start);
    g->chain = join;
    return 0;
}

/* Label of request id's operation, 0 when unknown. */
static long *req_slot(gen *g, int64_t id)
{
    static long none;
    none = 0;
    return id > 0 && id < g->nreq ? &g->req_label[id] : &none;
}

/* Returns 0, -1 out of memory, -2 a collective without its schedule (why). */
static int write_rank(FILE *fp, const trace_rank *t, const char *phase, const expand_choice *ch,
                      expand_cache *cache, char *why, size_t len)
{
    gen g = {.fp = fp, .choice = ch, .cache = cache};
    int rc = 0;
    g.nreq = 1;
    for (size_t i = 0; i < t->ncalls; i++)
        if (trace_kind_class(t->calls[i].kind) != TRACE_COMM && t->calls[i].made >= g.nreq)
            g.nreq = t->calls[i].made + 1;
    g.req_label = calloc((size_t)g.nreq, sizeof *g.req_label);
    long *coll_pos = calloc((size_t)t->ncomms + 1, sizeof *coll_pos);
    int64_t *irecv_src = calloc((size_t)g.nreq * 2, sizeof *irecv_src);   /* src, tag + 1 */
    if (!g.req_label || !coll_pos || !irecv_src) {
        free(g.req_label), free(coll_pos), free(irecv_src);
        return -1;
    }
    /* the source and tag each Irecv matched, from the Wait that completed it */
    size_t *irecv_call = calloc((size_t)g.nreq, sizeof *irecv_call);
    for (size_t i = 0; irecv_call && i < t->ncalls; i++) {
        const trace_call *c = &t->calls[i];
        if (c->kind == TRACE_K_IRECV && c->made > 0)
            irecv_call[c->made] = i + 1;
        for (size_t j = 0; trace_kind_class(c->kind) == TRACE_WAIT && j < c->ncomp; j++) {
            const trace_completion *x = &t->comps[c->comp + j];
            int64_t id = t->ids[c->list + (size_t)x->index];
            if (id > 0 && id < g.nreq && irecv_call[id] && x->src >= 0)
                irecv_src[2 * id] = x->src + 1, irecv_src[2 * id + 1] = (int64_t)x->tag + 1;
        }
    }
    free(irecv_call);
    goal_put_rank_open(fp, t->rank);
    int last_phase = -1;
    int64_t t_prev = 0;
    for (size_t i = 0; i < t->ncalls; i++) {
        const trace_call *c = &t->calls[i];
        int cls = trace_kind_class(c->kind);
        if (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT ||
            (cls == TRACE_COMM && c->kind != TRACE_K_COMM_FREE))
            coll_pos[c->comm >= 0 ? c->comm : t->ncomms]++;   /* every rank counts alike */
        if (phase && strcmp(t->phases[c->phase], phase) != 0) {
            t_prev = c->done ? c->t_out : c->t_in;
            continue;
        }
        if (c->phase != last_phase)
            fprintf(fp, "// phase %s\n", t->phases[last_phase = c->phase]);
        if (c->t_in > t_prev && i > 0)
            step(&g, calc_op(&g, (uint64_t)(c->t_in - t_prev)));
        if (!c->done)
            break;   /* the run ended inside this call */
        t_prev = c->t_out;
        if (c->kind == TRACE_K_SENDRECV) {
            long s = send_op(&g, c->bytes, c->peer, c->tag);
            long r = c->r_src >= 0 ? recv_op(&g, c->r_bytes, c->r_src, c->r_tag) : 0;
            requires(&g, s, g.chain), requires(&g, r, g.chain);
            long j = calc_op(&g, 0);
            requires(&g, j, s), requires(&g, j, r);
            g.chain = j;
        } else if (cls == TRACE_SEND && c->peer >= 0) {
            long s = send_op(&g, c->bytes, c->peer, c->tag);
            requires(&g, s, g.chain);
            if (c->made)
                *req_slot(&g, c->made) = c->buffered ? 0 : s;
            else if (!c->buffered)   /* a buffered send holds nothing up */
                g.chain = s;
        } else if (c->kind == TRACE_K_RECV && c->r_src >= 0) {
            step(&g, recv_op(&g, c->r_bytes, c->r_src, c->r_tag));
        } else if (c->kind == TRACE_K_IRECV && c->peer != TRACE_PROC_NULL) {
            int64_t src = irecv_src[2 * c->made] ? irecv_src[2 * c->made] - 1 : c->peer;
            /* no wait completed it: as posted, -1 (any source or tag) kept, as GOAL has it */
            int64_t tag = irecv_src[2 * c->made] ? irecv_src[2 * c->made + 1] - 1 : c->tag;
            long r = recv_op(&g, c->bytes, src, tag < 0 ? -1 : tag);
            requires(&g, r, g.chain);
            *req_slot(&g, c->made) = r;
        } else if (c->kind == TRACE_K_START) {
            for (size_t j = 0; j < c->nlist; j++) {
                int64_t id = t->ids[c->list + j];
                const trace_call *m = NULL;
                for (size_t k = 0; k < i && !m; k++)
                    m = t->calls[k].made == id && trace_kind_class(t->calls[k].kind) == TRACE_REQ ? &t->calls[k] : NULL;
                if (!m || m->peer < 0)
                    continue;
                long l = m->kind == TRACE_K_RECV_INIT
                             ? recv_op(&g, m->bytes, m->peer, m->tag)
                             : send_op(&g, m->bytes, m->peer, m->tag);
                requires(&g, l, g.chain);
                *req_slot(&g, id) = l;
            }
        } else if (cls == TRACE_WAIT && c->ncomp) {
            long j = calc_op(&g, 0);
            requires(&g, j, g.chain);
            for (size_t k = 0; k < c->ncomp; k++) {
                long *l = req_slot(&g, t->ids[c->list + (size_t)t->comps[c->comp + k].index]);
                requires(&g, j, *l);
                *l = 0;
            }
            g.chain = j;
        } else if ((cls == TRACE_COLL || cls == TRACE_COLL_DIRECT) && c->comm >= 0 &&
                   !t->comms[c->comm].inter && trace_comm_index(&t->comms[c->comm], t->rank) >= 0) {
            if ((rc = collective(&g, t, c, coll_pos[c->comm] - 1, why, len))) {
                snprintf(why + strlen(why), len - strlen(why), " (%s:%ld)", t->path, c->line);
                break;
            }
        }
    }
    goal_put_rank_close(fp);
    free(g.req_label), free(coll_pos), free(irecv_src);
    return rc;
}

int trace_goal_write(FILE *fp, const trace_dir *d, const char *phase, const expand_choice *choice,
                     char *why, size_t len)
{
    fprintf(fp, "// scitrace goal: %s, %d ranks, run %s (%s)\n", d->ranks[0].command, d->nranks,
            d->ranks[0].run, d->date);
    expand_report(fp, "// collective: ", d, phase, choice);
    goal_put_num_ranks(fp, d->nranks);
    int bad = 0;
    expand_cache cache = {0};
    for (int r = 0; r < d->nranks && !bad; r++)
        bad = write_rank(fp, &d->ranks[r], phase, choice, &cache, why, len);
    expand_cache_free(&cache);
    return bad;
}
