/* check_race: `scitrace check`'s search for wildcard races.  The replay
 * follows the run: an MPI_ANY_SOURCE receive takes the message it took
 * then.  Another arrival order could give it another sender's message; the
 * search replays each such receive with each other sender that sends it a
 * fitting message (check_replay_as), and a replay that deadlocks is a
 * potential deadlock.  Bounded: RACE_REPLAYS replays at most, receives in
 * rank and call order; a receive whose source the program goes on to use
 * is not tried (uses_source). */
#include <stdlib.h>
#include <string.h>

#include "trace/check.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

#define RACE_REPLAYS 64

/* A message some rank sends: destination, source, communicator, tag. */
typedef struct sent {
    int dst, src, seq, tag;
    uint64_t hash;
} sent;

static int sent_cmp(const void *pa, const void *pb)
{
    const sent *a = pa, *b = pb;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return (a->tag > b->tag) - (a->tag < b->tag);
}

/* Every (dst, src, communicator, tag) that a send or persistent send of a
 * loaded rank names, sorted; NULL when out of memory. */
static sent *all_sent(const trace_dir *d, size_t *n)
{
    sent *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (int o = 0; o < d->nranks; o++) {
        const trace_rank *t = &d->ranks[o];
        for (size_t i = 0; d->loaded[o] && i < t->ncalls; i++) {
            const trace_call *x = &t->calls[i];
            int cls = trace_kind_class(x->kind);
            if (!(cls == TRACE_SEND || (cls == TRACE_REQ && x->kind != TRACE_K_RECV_INIT &&
                                        x->kind != TRACE_K_START && x->kind != TRACE_K_REQUEST_FREE)) ||
                x->peer < 0 || x->peer >= d->nranks || x->comm < 0 || x->comm >= t->ncomms)
                continue;
            if (UTIL_GROW(v, *n, cap, 256)) {
                free(v);
                return NULL;
            }
            v[(*n)++] = (sent){x->peer, o, t->comms[x->comm].seq, x->tag, t->comms[x->comm].hash};
        }
    }
    if (*n)
        qsort(v, *n, sizeof *v, sent_cmp);
    return v ? v : calloc(1, sizeof *v);
}

/* Whether rank o sends rank r a message that receive call c of r fits. */
static int fits(const sent *v, size_t n, const trace_rank *me, int o, const trace_call *c)
{
    int tag = c->kind == TRACE_K_SENDRECV ? c->tag2 : c->tag;
    sent key = {me->rank, o, me->comms[c->comm].seq, INT32_MIN, me->comms[c->comm].hash};
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* the first entry not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (sent_cmp(&v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && v[lo].dst == key.dst && v[lo].src == o && v[lo].hash == key.hash &&
           v[lo].seq == key.seq; lo++)
        if (tag == TRACE_ANY || tag == v[lo].tag)
            return 1;
    return 0;
}

/* The source each wildcard receive of t matched in the run (src[i] for
 * call i; -1: not a wildcard receive, or not known); 0, or -1. */
static int wildcard_sources(const trace_rank *t, int *src)
{
    int64_t nmade = 1;
    for (size_t i = 0; i < t->ncalls; i++)
        if (t->calls[i].kind == TRACE_K_IRECV && t->calls[i].made >= nmade)
            nmade = t->calls[i].made + 1;
    size_t *maker = calloc((size_t)nmade, sizeof *maker);
    if (!maker)
        return -1;
    for (size_t i = 0; i < t->ncalls; i++) {
        const trace_call *c = &t->calls[i];
        int posted = c->kind == TRACE_K_SENDRECV ? c->peer2 : c->peer;
        src[i] = -1;
        if (posted == TRACE_ANY && c->done && c->comm >= 0 &&
            (c->kind == TRACE_K_RECV || c->kind == TRACE_K_SENDRECV))
            src[i] = c->r_src;
        else if (posted == TRACE_ANY && c->comm >= 0 && c->kind == TRACE_K_IRECV && c->made > 0)
            maker[c->made] = i + 1;
        for (size_t j = 0; trace_kind_class(c->kind) == TRACE_WAIT && j < c->ncomp; j++) {
            const trace_completion *x = &t->comps[c->comp + j];
            int64_t id = t->ids[c->list + (size_t)x->index];
            if (id > 0 && id < nmade && maker[id]) {
                src[maker[id] - 1] = x->src;
                maker[id] = 0;
            }
        }
    }
    free(maker);
    return 0;
}

/* Whether rank t's next point-to-point call after call i names src: the
 * program then most likely took the source from the status (a reply to
 * whoever asked), and with another match its later calls would differ
 * from the recorded ones; such a receive is not tried. */
static int uses_source(const trace_rank *t, size_t i, int src)
{
    for (size_t k = i + 1; k < t->ncalls; k++) {
        const trace_call *c = &t->calls[k];
        int cls = trace_kind_class(c->kind);
        if (cls != TRACE_SEND && cls != TRACE_RECV && cls != TRACE_PROBE)
            continue;
        return c->peer == src || (c->kind == TRACE_K_SENDRECV && c->peer2 == src);
    }
    return 0;
}

/* A replay of another match: 1 when it deadlocks, 0 not, -1 out of memory.
 * A replay whose chosen receive itself never matches had no such message
 * to give it (an earlier wildcard receive took it): not another run. */
static int deadlocks(const trace_dir *d, uint64_t eager_limit, const check_alt *a)
{
    check_result other;
    if (check_replay_as(d, eager_limit, a, &other) != 0)
        return -1;
    int dead = 0, infeasible = 0;
    for (size_t k = 0; k < other.n; k++) {
        dead |= other.f[k].kind == CHECK_DEADLOCK;
        infeasible |= other.f[k].kind == CHECK_DEADLOCK && other.f[k].rank == a->rank &&
                      other.f[k].call == a->call;
    }
    dead &= !infeasible;
    check_free(&other);
    return dead;
}

static int races(const trace_dir *d, uint64_t eager_limit, check_result *res)
{
    size_t nsent;
    sent *v = all_sent(d, &nsent);
    int replays = 0, rc = v ? 0 : -1;
    for (int r = 0; r < d->nranks && replays < RACE_REPLAYS && rc == 0; r++) {
        const trace_rank *t = &d->ranks[r];
        int *src = d->loaded[r] ? malloc((t->ncalls + 1) * sizeof *src) : NULL;
        if (!d->loaded[r])
            continue;
        if (!src || wildcard_sources(t, src) != 0) {
            free(src);
            rc = -1;
            break;
        }
        for (size_t i = 0; i < t->ncalls && replays < RACE_REPLAYS && rc == 0; i++) {
            if (src[i] >= 0 && uses_source(t, i, src[i]))
                continue;
            for (int o = 0; src[i] >= 0 && o < d->nranks && replays < RACE_REPLAYS; o++) {
                if (o == src[i] || !d->loaded[o] || !fits(v, nsent, t, o, &t->calls[i]))
                    continue;
                check_alt a = {r, o, i};
                replays++;
                int dead = deadlocks(d, eager_limit, &a);
                if (dead < 0 || (dead && UTIL_GROW(res->f, res->n, res->cap, 64))) {
                    rc = -1;
                    break;
                }
                if (dead) {
                    res->f[res->n++] = (check_finding){CHECK_RACE, r, i, o, src[i], 0};
                    break;
                }
            }
        }
        free(src);
    }
    free(v);
    return rc;
}

int check_replay(const trace_dir *d, uint64_t eager_limit, check_result *res)
{
    if (check_replay_as(d, eager_limit, NULL, res) != 0)
        return -1;
    if (check_collectives(d, res) != 0 || check_types(d, res) != 0) {
        check_free(res);
        return -1;
    }
    for (size_t i = 0; i < res->n; i++)
        if (res->f[i].kind == CHECK_DEADLOCK)
            return 0;   /* the run itself deadlocked: that is the finding */
    if (races(d, eager_limit, res) != 0) {
        check_free(res);
        return -1;
    }
    return 0;
}
