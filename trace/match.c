/* match: in-order stream matching of sends and receives (see match.h). */
#include "trace/match.h"

#include <stdlib.h>
#include <string.h>

#include "sched/match.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

/* MPI_ANY_TAG is -1 in Open MPI's mpi.h; the analyzer does not link MPI. */
#define ANY_TAG (-1)

typedef struct wildcard {
    int src, dst, tag;       /* src -1: any; tag ANY_TAG or TRACE_TAG_FOLDED: any */
    uint64_t comm_hash;
    int comm_seq;
    uint64_t count;
} wildcard;

static int stream_cmp(const void *pa, const void *pb)
{
    const match_stream *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->comm_hash != b->comm_hash)
        return a->comm_hash < b->comm_hash ? -1 : 1;
    if (a->comm_seq != b->comm_seq)
        return a->comm_seq < b->comm_seq ? -1 : 1;
    return (a->tag > b->tag) - (a->tag < b->tag);
}

typedef struct collector {
    match_stream *s;
    size_t n, cap;
    wildcard *w;
    size_t nw, capw;
} collector;

static int push_stream(collector *c, match_stream s)
{
    if (UTIL_GROW(c->s, c->n, c->cap, 256))
        return -1;
    c->s[c->n++] = s;
    return 0;
}

static int push_wildcard(collector *c, wildcard w)
{
    if (UTIL_GROW(c->w, c->nw, c->capw, 64))
        return -1;
    c->w[c->nw++] = w;
    return 0;
}

static int collect(const trace_dir *d, collector *c, uint64_t *skipped)
{
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        for (size_t i = 0; d->loaded[r] && i < t->nrecs; i++) {
            const trace_rec *x = &t->recs[i];
            enum trace_class cls = trace_kind_class(x->kind);
            if (cls != TRACE_SEND && cls != TRACE_RECV)
                continue;
            const trace_comm *cm = &t->comms[x->comm];
            int send = cls == TRACE_SEND;
            int src = send ? r : x->peer, dst = send ? x->peer : r;
            if ((src >= 0 && !d->loaded[src]) || !d->loaded[dst]) {
                *skipped += x->messages;
                continue;
            }
            if (!send && (src < 0 || x->tag == ANY_TAG || x->tag == TRACE_TAG_FOLDED)) {
                if (push_wildcard(c, (wildcard){src, dst, x->tag, cm->hash, cm->seq,
                                                x->messages}))
                    return -1;
                continue;
            }
            match_stream s = {src, dst, x->tag, cm->hash, cm->seq, send ? x->messages : 0,
                              send ? 0 : x->messages};
            if (push_stream(c, s))
                return -1;
        }
    }
    return 0;
}

typedef struct ckey {
    uint64_t hash;
    int seq;
} ckey;

static int ckey_cmp(const void *pa, const void *pb)
{
    const ckey *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The matcher's context of a communicator: its place among the distinct ones. */
static uint64_t ctx_of(const ckey *keys, size_t n, uint64_t hash, int seq)
{
    ckey k = {hash, seq};
    const ckey *x = n ? bsearch(&k, keys, n, sizeof k, ckey_cmp) : NULL;
    return x ? (uint64_t)(x - keys) : UINT64_MAX;
}

/* Wildcard receives, in the order recorded, take the leftover sends of the
 * streams they fit, in the streams' order, through the one matcher
 * (sched/match.h): each stream with sends left is an unexpected entry of
 * its destination, a folded tag a wildcard on either side (GOAL's rule). */
static int absorb(const trace_dir *d, match_result *m, wildcard *w, size_t nw)
{
    size_t nk = 0;
    ckey *keys = malloc((m->nstreams + nw + 1) * sizeof *keys);
    sched_matcher q;
    if (!keys || m->nstreams >= SCHED_MATCH_NONE || sched_match_init(&q, (uint32_t)d->nranks, 1)) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < m->nstreams; i++)
        keys[nk++] = (ckey){m->streams[i].comm_hash, m->streams[i].comm_seq};
    for (size_t i = 0; i < nw; i++)
        keys[nk++] = (ckey){w[i].comm_hash, w[i].comm_seq};
    qsort(keys, nk, sizeof *keys, ckey_cmp);
    size_t nu = 0;
    for (size_t i = 0; i < nk; i++)
        if (!nu || ckey_cmp(&keys[nu - 1], &keys[i]))
            keys[nu++] = keys[i];
    int rc = 0;
    for (size_t i = 0; i < m->nstreams && !rc; i++) {
        const match_stream *s = &m->streams[i];
        if (s->recvs < s->sends)
            rc = sched_match_add(&q, (uint32_t)s->dst, SCHED_MATCH_UNEXPECTED,
                                 ctx_of(keys, nu, s->comm_hash, s->comm_seq), (uint32_t)s->src,
                                 s->tag == TRACE_TAG_FOLDED ? SCHED_MATCH_ANY : (uint32_t)s->tag,
                                 (uint32_t)i);
    }
    for (size_t i = 0; i < nw && !rc; i++) {
        wildcard *x = &w[i];
        uint64_t ctx = ctx_of(keys, nu, x->comm_hash, x->comm_seq);
        uint32_t src = x->src < 0 ? SCHED_MATCH_ANY : (uint32_t)x->src;
        uint32_t tag = x->tag == ANY_TAG || x->tag == TRACE_TAG_FOLDED ? SCHED_MATCH_ANY
                                                                        : (uint32_t)x->tag;
        while (x->count) {
            uint32_t e = sched_match_find(&q, (uint32_t)x->dst, SCHED_MATCH_UNEXPECTED, ctx, src, tag);
            if (e == SCHED_MATCH_NONE)
                break;
            match_stream *s = &m->streams[q.pool[e].id];
            uint64_t take = s->sends - s->recvs < x->count ? s->sends - s->recvs : x->count;
            s->recvs += take;
            x->count -= take;
            if (s->recvs >= s->sends)
                sched_match_remove(&q, (uint32_t)x->dst, SCHED_MATCH_UNEXPECTED, e);
        }
    }
    sched_match_free(&q);
    free(keys);
    return rc ? -1 : 0;
}

int match_trace(const trace_dir *d, match_result *m)
{
    collector c = {0};
    memset(m, 0, sizeof *m);
    if (collect(d, &c, &m->skipped) != 0) {
        free(c.s);
        free(c.w);
        return -1;
    }
    /* sum records of one stream */
    if (c.n)
        qsort(c.s, c.n, sizeof *c.s, stream_cmp);
    size_t out = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (out && stream_cmp(&c.s[out - 1], &c.s[i]) == 0) {
            c.s[out - 1].sends += c.s[i].sends;
            c.s[out - 1].recvs += c.s[i].recvs;
        } else {
            c.s[out++] = c.s[i];
        }
    }
    m->streams = c.s;
    m->nstreams = out;
    if (absorb(d, m, c.w, c.nw)) {
        free(c.w);
        match_free(m);
        return -1;
    }
    for (size_t i = 0; i < m->nstreams; i++) {
        match_stream *s = &m->streams[i];
        uint64_t k = s->sends < s->recvs ? s->sends : s->recvs;
        m->matched += k;
        m->unmatched_sends += s->sends - k;
        m->unmatched_recvs += s->recvs - k;
    }
    for (size_t i = 0; i < c.nw; i++)
        m->unmatched_recvs += c.w[i].count;
    free(c.w);
    return 0;
}

void match_free(match_result *m)
{
    free(m->streams);
    memset(m, 0, sizeof *m);
}
