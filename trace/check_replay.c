/* check_replay: the replay behind `scitrace check` (see check.h); the
 * search for wildcard races is in check_race.c. */
#include "trace/check.h"

#include <stdlib.h>
#include <string.h>

#include "sched/match.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

typedef struct ckey {
    uint64_t hash;
    int seq;
} ckey;

typedef struct msg {
    int src, dst, tag, eager, matched, req;
    ckey key;
    size_t call;
} msg;

typedef struct post {
    int src, tag, matched, req;
    ckey key;
    size_t call;
} post;

typedef struct rq {
    int is_send, active, complete, waited, freed, persistent;
    size_t made_call, item;   /* item: msg (send), post (receive) or inst (coll) index */
    int coll;                 /* a nonblocking collective's */
} rq;

typedef struct inst {
    ckey key;
    long k;
    int n, arrived, first_rank, complete;
    size_t first_call;
} inst;

typedef struct vec {
    size_t *v, n, cap;
} vec;

typedef struct rstate {
    size_t pc, item, item2;   /* item(s): the current call's msg/post/inst */
    int entered, forced;
    rq *reqs;
    int64_t nreqs;
    long *coll_count;         /* per communicator of the rank */
} rstate;

typedef struct sim {
    const check_alt *alt;     /* NULL: the run as recorded */
    const trace_dir *d;
    uint64_t eager;
    rstate *rs;
    msg *m;
    size_t nm, capm;
    post *p;
    size_t np, capp;
    inst *in;
    size_t nin, capin;
    vec open_inst;
    sched_matcher mq;         /* per rank: posts, and msgs to it (ids: indices) */
    ckey *ctx;                /* the distinct communicators, sorted: a key's match context */
    size_t nctx;
    check_result *res;
    int oom;
} sim;

/* Room for one more element of arr; out of memory sets s->oom. */
#define GROW(s, arr, n, cap) ((s)->oom |= UTIL_GROW(arr, n, cap, 64) != 0)

static void vpush(sim *s, vec *v, size_t x)
{
    GROW(s, v->v, v->n, v->cap);
    if (!s->oom)
        v->v[v->n++] = x;
}

static void vremove(vec *v, size_t i)
{
    memmove(v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof *v->v);
    v->n--;
}

static void finding(sim *s, check_finding f)
{
    check_result *r = s->res;
    GROW(s, r->f, r->n, r->cap);
    if (!s->oom)
        r->f[r->n++] = f;
}

static ckey key_of(const trace_rank *t, int comm)
{
    return comm >= 0 && comm < t->ncomms ? (ckey){t->comms[comm].hash, t->comms[comm].seq}
                                         : (ckey){0, -1};
}

static int key_eq(ckey a, ckey b)
{
    return a.hash == b.hash && a.seq == b.seq;
}

static int key_cmp(const void *pa, const void *pb)
{
    const ckey *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The matcher's context of a communicator: 1 + its place among the
 * distinct ones, 0 for none; TRACE_ANY as a source or tag is its wildcard. */
static uint64_t ctx_of(const sim *s, ckey k)
{
    const ckey *x = s->nctx ? bsearch(&k, s->ctx, s->nctx, sizeof k, key_cmp) : NULL;
    return x ? (uint64_t)(x - s->ctx) + 1 : 0;
}

static int make_ctx(sim *s)
{
    size_t n = 0;
    for (int r = 0; r < s->d->nranks; r++)
        n += s->d->loaded[r] ? (size_t)s->d->ranks[r].ncomms : 0;
    if (!(s->ctx = malloc((n ? n : 1) * sizeof *s->ctx)))
        return -1;
    for (int r = 0; r < s->d->nranks; r++)
        for (int c = 0; s->d->loaded[r] && c < s->d->ranks[r].ncomms; c++)
            s->ctx[s->nctx++] = key_of(&s->d->ranks[r], c);
    qsort(s->ctx, s->nctx, sizeof *s->ctx, key_cmp);
    size_t out = 0;
    for (size_t i = 0; i < s->nctx; i++)
        if (!out || !key_eq(s->ctx[out - 1], s->ctx[i]))
            s->ctx[out++] = s->ctx[i];
    s->nctx = out;
    return sched_match_init(&s->mq, (uint32_t)s->d->nranks, 0);
}

static rq *req(sim *s, int r, int64_t id)
{
    return id > 0 && id < s->rs[r].nreqs ? &s->rs[r].reqs[id] : NULL;
}

static void matched(sim *s, size_t mi, size_t pi)
{
    s->m[mi].matched = 1, s->p[pi].matched = 1;
    check_result *r = s->res;
    if (s->alt || s->oom)
        return;   /* the pairs of the run as recorded (check.h) */
    GROW(s, r->pairs, r->npairs, r->cappairs);
    if (!s->oom)
        r->pairs[r->npairs++] = (check_pair){s->m[mi].src, s->m[mi].dst, s->m[mi].call, s->p[pi].call};
}

/* A message posted: the first posted receive of dst that fits takes it. */
static size_t post_msg(sim *s, int src, int dst, int tag, ckey key, uint64_t bytes, int eager,
                       size_t call, int reqid)
{
    GROW(s, s->m, s->nm, s->capm);
    if (s->oom)
        return 0;
    size_t mi = s->nm++;
    s->m[mi] = (msg){src, dst, tag, eager || bytes <= s->eager, 0, reqid, key, call};
    if (dst < 0 || dst >= s->d->nranks) {
        s->m[mi].matched = 1;   /* MPI_PROC_NULL or untranslated: nothing to wait for */
        return mi;
    }
    uint64_t ctx = ctx_of(s, key);
    uint32_t pi = sched_match_take(&s->mq, (uint32_t)dst, SCHED_MATCH_POSTED, ctx, (uint32_t)src,
                                   (uint32_t)tag);
    if (pi != SCHED_MATCH_NONE)
        matched(s, mi, pi);
    else if (mi >= SCHED_MATCH_NONE ||
             sched_match_add(&s->mq, (uint32_t)dst, SCHED_MATCH_UNEXPECTED, ctx, (uint32_t)src,
                             (uint32_t)tag, (uint32_t)mi))
        s->oom = 1;
    return mi;
}

/* A receive posted by rank r: the first unexpected message that fits. */
static size_t post_recv(sim *s, int r, int src, int tag, ckey key, size_t call, int reqid)
{
    GROW(s, s->p, s->np, s->capp);
    if (s->oom)
        return 0;
    size_t pi = s->np++;
    s->p[pi] = (post){src, tag, src == TRACE_PROC_NULL, reqid, key, call};
    if (src == TRACE_PROC_NULL)
        return pi;
    uint64_t ctx = ctx_of(s, key);
    uint32_t mi = sched_match_take(&s->mq, (uint32_t)r, SCHED_MATCH_UNEXPECTED, ctx, (uint32_t)src,
                                   (uint32_t)tag);
    if (mi != SCHED_MATCH_NONE)
        matched(s, mi, pi);
    else if (pi >= SCHED_MATCH_NONE ||
             sched_match_add(&s->mq, (uint32_t)r, SCHED_MATCH_POSTED, ctx, (uint32_t)src,
                             (uint32_t)tag, (uint32_t)pi))
        s->oom = 1;
    return pi;
}

/* Source and tag a receive call matched in the run, else as posted (or,
 * for a wildcard in another run, as that run has it). */
static void recv_match(const sim *s, int r, size_t ci, const trace_call *c,
                       const trace_completion *got, int *src, int *tag)
{
    *src = c->kind == TRACE_K_SENDRECV ? c->peer2 : c->peer;
    *tag = c->kind == TRACE_K_SENDRECV ? c->tag2 : c->tag;
    if (s->alt && *src == TRACE_ANY) {
        if (s->alt->rank == r && s->alt->call == ci)
            *src = s->alt->src;
        return;
    }
    if (c->done && c->r_src != TRACE_NO_RANK && c->kind != TRACE_K_IRECV)
        *src = c->r_src, *tag = c->r_tag;
    else if (got && got->src >= 0)
        *src = got->src, *tag = got->tag;
}

static int req_done(sim *s, int r, int64_t id)
{
    rq *q = req(s, r, id);
    if (!q || !q->active)
        return 1;
    if (q->coll)
        return s->in[q->item].complete;
    return q->is_send ? s->m[q->item].eager || s->m[q->item].matched : s->p[q->item].matched;
}

/* Collective position k of rank r on comm: joins (or opens) its instance. */
static size_t join(sim *s, int r, const trace_call *c)
{
    const trace_rank *t = &s->d->ranks[r];
    ckey key = key_of(t, c->comm);
    long k = s->rs[r].coll_count[c->comm]++;
    for (size_t i = 0; i < s->open_inst.n; i++) {
        inst *x = &s->in[s->open_inst.v[i]];
        if (!key_eq(x->key, key) || x->k != k)
            continue;
        if (++x->arrived == x->n) {
            x->complete = 1;
            vremove(&s->open_inst, i);
        }
        return (size_t)(x - s->in);
    }
    GROW(s, s->in, s->nin, s->capin);
    if (s->oom)
        return 0;
    int n = t->comms[c->comm].n;
    s->in[s->nin] = (inst){key, k, n, 1, r, 0, (size_t)(c - t->calls)};
    s->in[s->nin].complete = n <= 1;
    if (n > 1)
        vpush(s, &s->open_inst, s->nin);
    return s->nin++;
}

/* The completion a Wait/Test call recorded for request index i, or NULL. */
static const trace_completion *completion_of(const trace_rank *t, const trace_call *c, size_t i)
{
    for (size_t j = 0; j < c->ncomp; j++)
        if ((size_t)t->comps[c->comp + j].index == i)
            return &t->comps[c->comp + j];
    return NULL;
}

/* Enters rank r's current call: posts what it posts. */
static void enter(sim *s, int r, const trace_completion *const *irecv_got)
{
    const trace_rank *t = &s->d->ranks[r];
    rstate *q = &s->rs[r];
    const trace_call *c = &t->calls[q->pc];
    size_t ci = q->pc;
    int cls = trace_kind_class(c->kind), src, tag;
    ckey key = key_of(t, c->comm);
    q->entered = 1;
    q->item = q->item2 = 0;   /* calls that post nothing must not see the last call's */
    if (cls == TRACE_SEND) {
        int eager = c->buffered || c->kind == TRACE_K_RSEND || c->kind == TRACE_K_IRSEND;
        int sync = c->kind == TRACE_K_SSEND || c->kind == TRACE_K_ISSEND;
        uint64_t bytes = sync ? UINT64_MAX : c->bytes;
        q->item = post_msg(s, r, c->peer, c->tag, key, bytes, eager && !sync, ci, (int)c->made);
        if (c->kind == TRACE_K_SENDRECV) {
            recv_match(s, r, ci, c, NULL, &src, &tag);
            q->item2 = post_recv(s, r, src, tag, key, ci, 0);
        }
        rq *x = req(s, r, c->made);
        if (x)
            *x = (rq){1, 1, 0, 0, 0, 0, ci, q->item, 0};
    } else if (c->kind == TRACE_K_RECV || c->kind == TRACE_K_IRECV) {
        recv_match(s, r, ci, c, irecv_got[ci], &src, &tag);
        q->item = post_recv(s, r, src, tag, key, ci, (int)c->made);
        rq *x = req(s, r, c->made);
        if (x)
            *x = (rq){0, 1, 0, 0, 0, 0, ci, q->item, 0};
    } else if (cls == TRACE_REQ && c->kind != TRACE_K_START && c->kind != TRACE_K_REQUEST_FREE) {
        rq *x = req(s, r, c->made);
        if (x)
            *x = (rq){c->kind != TRACE_K_RECV_INIT, 0, 0, 0, 0, 1, ci, 0, 0};
    } else if (c->kind == TRACE_K_START) {
        for (size_t j = 0; j < c->nlist; j++) {
            rq *x = req(s, r, t->ids[c->list + j]);
            if (!x || !x->persistent)
                continue;
            const trace_call *m = &t->calls[x->made_call];
            ckey mk = key_of(t, m->comm);
            x->item = x->is_send ? post_msg(s, r, m->peer, m->tag, mk,
                                            m->kind == TRACE_K_SSEND_INIT ? UINT64_MAX : m->bytes,
                                            m->kind == TRACE_K_BSEND_INIT, x->made_call,
                                            (int)m->made)
                                 : post_recv(s, r, m->peer, m->tag, mk, x->made_call, (int)m->made);
            x->active = 1, x->waited = 0;
        }
    } else if (c->kind == TRACE_K_REQUEST_FREE) {
        rq *x = req(s, r, c->nlist ? t->ids[c->list] : 0);
        if (x)
            x->freed = 1;
    } else if (cls == TRACE_ICOLL && c->comm >= 0 && !t->comms[c->comm].inter) {
        size_t in = join(s, r, c);   /* ordered with the blocking ones */
        rq *x = req(s, r, c->made);
        if (x)
            *x = (rq){0, 1, 0, 0, 0, 0, ci, in, 1};
        q->item = 0;                 /* the call itself does not wait */
    } else if ((cls == TRACE_COLL || cls == TRACE_COLL_DIRECT ||
                (cls == TRACE_COMM && c->kind != TRACE_K_COMM_FREE &&
                 c->kind != TRACE_K_INTERCOMM_CREATE && c->kind != TRACE_K_INTERCOMM_MERGE)) &&
               c->comm >= 0 && !t->comms[c->comm].inter) {
        q->item = join(s, r, c) + 1;   /* 0: no instance */
    } else {
        q->item = 0;
    }
}

/* Whether rank r's current (entered) call has completed. */
static int complete(sim *s, int r)
{
    const trace_rank *t = &s->d->ranks[r];
    rstate *q = &s->rs[r];
    const trace_call *c = &t->calls[q->pc];
    int cls = trace_kind_class(c->kind);
    if (q->forced)
        return 1;
    switch (cls) {
    case TRACE_SEND:
        if (c->kind == TRACE_K_SENDRECV)
            return (s->m[q->item].eager || s->m[q->item].matched) && s->p[q->item2].matched;
        return c->made || s->m[q->item].eager || s->m[q->item].matched || c->peer < 0;
    case TRACE_RECV:
        return c->made || s->p[q->item].matched;
    case TRACE_PROBE:
        if (c->kind == TRACE_K_IPROBE || !c->done)
            return c->kind == TRACE_K_IPROBE;
        for (uint32_t e = sched_match_first(&s->mq, (uint32_t)r, SCHED_MATCH_UNEXPECTED);
             e != SCHED_MATCH_NONE; e = sched_match_next(&s->mq, e)) {
            const msg *m = &s->m[s->mq.pool[e].id];
            if (key_eq(m->key, key_of(t, c->comm)) && m->src == c->r_src && m->tag == c->r_tag)
                return 1;
        }
        return 0;
    case TRACE_WAIT: {
        int any = c->kind == TRACE_K_WAITANY || c->kind == TRACE_K_WAITSOME;
        int test = c->kind == TRACE_K_TEST || c->kind == TRACE_K_TESTALL ||
                   c->kind == TRACE_K_TESTANY || c->kind == TRACE_K_TESTSOME;
        int all_done = 1, some = 0;
        for (size_t i = 0; i < c->nlist; i++) {
            /* returned: exactly what completed then; else what the call waits for */
            int counted = c->done ? completion_of(t, c, i) != NULL : !test;
            int ok = req_done(s, r, t->ids[c->list + i]);
            if (counted) {
                all_done &= ok;
                some |= ok;
            }
        }
        if (!(c->done ? all_done : (any ? some : all_done)))
            return 0;
        for (size_t i = 0; i < c->nlist; i++)
            if (!c->done || completion_of(t, c, i)) {
                rq *x = req(s, r, t->ids[c->list + i]);
                if (x && req_done(s, r, t->ids[c->list + i]))
                    x->waited = 1, x->active = x->persistent ? 0 : x->active;
            }
        return 1;
    }
    default:
        return q->item == 0 || s->in[q->item - 1].complete;
    }
}

/* Runs every rank as far as it goes; returns whether anything moved. */
static int run(sim *s, const trace_completion *const *const *got)
{
    int moved = 0;
    for (int r = 0; r < s->d->nranks; r++) {
        if (!s->d->loaded[r])
            continue;
        rstate *q = &s->rs[r];
        const trace_rank *t = &s->d->ranks[r];
        while (q->pc < t->ncalls && !s->oom) {
            if (!q->entered)
                enter(s, r, got[r]);
            if (!complete(s, r))
                break;
            q->pc++, q->entered = 0, q->forced = 0, moved = 1;
        }
    }
    return moved;
}

/* --- when nothing moves ------------------------------------------------ */

/* The ranks rank r's current call waits for: -1 several (a wildcard, a
 * collective), -2 none found. */
static int waits_for(sim *s, int r)
{
    const trace_rank *t = &s->d->ranks[r];
    rstate *q = &s->rs[r];
    const trace_call *c = &t->calls[q->pc];
    int cls = trace_kind_class(c->kind);
    if (cls == TRACE_SEND) {
        if (c->kind == TRACE_K_SENDRECV && !s->p[q->item2].matched)
            return s->p[q->item2].src >= 0 ? s->p[q->item2].src : -1;
        return c->peer;
    }
    if (cls == TRACE_RECV || cls == TRACE_PROBE) {
        int src = cls == TRACE_RECV ? s->p[q->item].src : c->r_src;
        return src >= 0 ? src : -1;
    }
    if (cls == TRACE_WAIT) {
        for (size_t i = 0; i < c->nlist; i++) {
            rq *x = req(s, r, t->ids[c->list + i]);
            if (!x || req_done(s, r, t->ids[c->list + i]))
                continue;
            if (x->coll)
                return -1;
            if (x->is_send)
                return s->m[x->item].dst;
            return s->p[x->item].src >= 0 ? s->p[x->item].src : -1;
        }
        return -2;
    }
    if (q->item) {   /* a collective: the first member that has not arrived */
        const inst *x = &s->in[q->item - 1];
        const trace_comm *cm = &t->comms[c->comm];
        for (int i = 0; i < cm->n; i++) {
            int w = cm->world[i];
            if (w == r)
                continue;
            if (!s->d->loaded[w])
                return w;
            const trace_rank *o = &s->d->ranks[w];
            int id = -1;
            for (int k = 0; k < o->ncomms && id < 0; k++)
                id = key_eq(key_of(o, k), x->key) ? k : -1;
            if (id < 0 || s->rs[w].coll_count[id] <= x->k)
                return w;
        }
    }
    return -2;
}

static int blocked(sim *s, int r)
{
    return s->d->loaded[r] && s->rs[r].pc < s->d->ranks[r].ncalls;
}

/* Records the deadlocked ranks and a cycle (or chain) of waits. */
static void deadlock(sim *s)
{
    int n = s->d->nranks;
    for (int r = 0; r < n; r++)
        if (blocked(s, r))
            finding(s, (check_finding){CHECK_DEADLOCK, r, s->rs[r].pc, waits_for(s, r), -1, 0});
    size_t un = n > 0 ? (size_t)n : 1;
    int *seen = calloc(un, sizeof *seen), *path = malloc(un * sizeof *path);
    if (!seen || !path) {
        free(seen), free(path);
        s->oom = 1;
        return;
    }
    /* follow the first wait from each blocked rank until a rank repeats */
    int best_len = 0;
    for (int r0 = 0; r0 < n; r0++) {
        if (!blocked(s, r0))
            continue;
        int len = 0, r = r0, closed = 0;
        memset(seen, 0, un * sizeof *seen);
        while (r >= 0 && r < n && !seen[r]) {
            seen[r] = 1;
            path[len++] = r;
            if (!blocked(s, r))
                break;
            r = waits_for(s, r);
        }
        if (r >= 0 && r < n && seen[r] && blocked(s, r)) {
            int i = 0;
            while (path[i] != r)
                i++;
            memmove(path, path + i, (size_t)(len - i) * sizeof *path);
            len -= i;
            closed = 1;
        }
        if (closed || !s->res->cycle_closed) {
            if (closed && (!s->res->cycle_closed || len < best_len)) {
                best_len = len;
            } else if (!closed && len <= s->res->ncycle) {
                continue;
            }
            free(s->res->cycle);
            s->res->cycle = malloc((size_t)(len > 0 ? len : 1) * sizeof *path);
            if (!s->res->cycle) {
                s->oom = 1;
                break;
            }
            memcpy(s->res->cycle, path, (size_t)len * sizeof *path);
            s->res->ncycle = len, s->res->cycle_closed = closed;
        }
    }
    free(seen), free(path);
}

/* Blocked calls the run completed: they needed buffering.  Reported, then
 * completed; returns how many. */
static int force_buffered(sim *s)
{
    int forced = 0;
    for (int r = 0; r < s->d->nranks; r++) {
        if (!blocked(s, r) || !s->rs[r].entered)
            continue;
        const trace_call *c = &s->d->ranks[r].calls[s->rs[r].pc];
        if (!c->done)
            continue;
        if (s->alt && (trace_kind_class(c->kind) != TRACE_SEND ||   /* another run: only */
                       (c->kind == TRACE_K_SENDRECV && !s->p[s->rs[r].item2].matched)))
            continue;                                               /* buffering helps */
        if (trace_kind_class(c->kind) == TRACE_SEND && c->kind != TRACE_K_SSEND)
            finding(s, (check_finding){CHECK_POTENTIAL, r, s->rs[r].pc, c->peer, -1, 0});
        s->rs[r].forced = 1;
        forced++;
    }
    return forced;
}

static void pending(sim *s)
{
    for (size_t i = 0; i < s->nm; i++)
        if (!s->m[i].matched && s->m[i].dst >= 0 && s->d->loaded[s->m[i].dst])
            finding(s, (check_finding){CHECK_PENDING_SEND, s->m[i].src, s->m[i].call,
                                       s->m[i].dst, -1, 0});
    for (int r = 0; r < s->d->nranks; r++) {
        rstate *q = &s->rs[r];
        for (uint32_t e = sched_match_first(&s->mq, (uint32_t)r, SCHED_MATCH_POSTED);
             e != SCHED_MATCH_NONE; e = sched_match_next(&s->mq, e)) {
            const post *p = &s->p[s->mq.pool[e].id];
            if (!(blocked(s, r) && p->call == q->pc))
                finding(s, (check_finding){CHECK_PENDING_RECV, r, p->call, p->src, -1, 0});
        }
        for (int64_t id = 1; id < q->nreqs; id++) {
            const rq *x = &q->reqs[id];
            if (x->active && !x->waited && !x->freed)
                finding(s, (check_finding){CHECK_PENDING_REQ, r, x->made_call, -1, -1, 0});
        }
    }
}

int check_replay_as(const trace_dir *d, uint64_t eager_limit, const check_alt *a,
                    check_result *res)
{
    sim s = {.alt = a, .d = d, .eager = eager_limit, .res = res};
    memset(res, 0, sizeof *res);
    s.rs = calloc((size_t)d->nranks, sizeof *s.rs);
    const trace_completion ***got = calloc((size_t)d->nranks, sizeof *got);
    if (!s.rs || !got || make_ctx(&s)) {
        free(s.rs), free(got), free(s.ctx);
        return -1;
    }
    for (int r = 0; r < d->nranks && !s.oom; r++) {
        if (!d->loaded[r]) {
            finding(&s, (check_finding){CHECK_ENDED, r, SIZE_MAX, -1, -1, 0});
            continue;
        }
        const trace_rank *t = &d->ranks[r];
        rstate *q = &s.rs[r];
        for (size_t i = 0; i < t->ncalls; i++)
            q->nreqs = t->calls[i].made >= q->nreqs && trace_kind_class(t->calls[i].kind) != TRACE_COMM
                           ? t->calls[i].made + 1 : q->nreqs;
        q->nreqs = q->nreqs ? q->nreqs : 1;
        q->reqs = calloc((size_t)q->nreqs, sizeof *q->reqs);
        q->coll_count = calloc((size_t)t->ncomms + 1, sizeof *q->coll_count);
        got[r] = calloc(t->ncalls + 1, sizeof *got[r]);
        size_t *maker = calloc((size_t)q->nreqs, sizeof *maker);
        if (!q->reqs || !q->coll_count || !got[r] || !maker) {
            free(maker);
            s.oom = 1;
            break;
        }
        for (size_t i = 0; i < t->ncalls; i++) {
            const trace_call *c = &t->calls[i];
            if (c->kind == TRACE_K_IRECV && c->made > 0 && c->made < q->nreqs)
                maker[c->made] = i + 1;
            for (size_t j = 0; trace_kind_class(c->kind) == TRACE_WAIT && j < c->ncomp; j++) {
                const trace_completion *x = &t->comps[c->comp + j];
                int64_t id = t->ids[c->list + (size_t)x->index];
                if (id > 0 && id < q->nreqs && maker[id] && !got[r][maker[id] - 1])
                    got[r][maker[id] - 1] = x;
            }
        }
        free(maker);
        size_t last = t->ncalls ? t->ncalls - 1 : SIZE_MAX;
        if (strncmp(t->status, "crashed", 7) == 0)
            finding(&s, (check_finding){CHECK_DIED, r, last, -1, -1, 0});
        else if (t->ended_early || strncmp(t->status, "killed", 6) == 0)
            finding(&s, (check_finding){CHECK_ENDED, r, last, -1, -1, 0});
        else if (strcmp(t->status, "no-finalize") == 0)
            finding(&s, (check_finding){CHECK_NO_FINALIZE, r, last, -1, -1, 0});
    }
    while (!s.oom) {
        while (run(&s, (const trace_completion *const *const *)got) && !s.oom)
            ;
        int any = 0;
        for (int r = 0; r < d->nranks; r++)
            any |= blocked(&s, r);
        if (!any || s.oom)
            break;
        if (force_buffered(&s) == 0) {
            deadlock(&s);
            break;
        }
    }
    if (!s.oom)
        pending(&s);
    for (int r = 0; r < d->nranks; r++) {
        free(s.rs[r].reqs), free(s.rs[r].coll_count), free(got[r]);
    }
    free(s.rs), free(got), free(s.m), free(s.p), free(s.in), free(s.open_inst.v), free(s.ctx);
    sched_match_free(&s.mq);
    if (s.oom)
        check_free(res);
    return s.oom ? -1 : 0;
}

void check_free(check_result *res)
{
    free(res->f);
    free(res->pairs);
    free(res->cycle);
    memset(res, 0, sizeof *res);
}
