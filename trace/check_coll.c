/* check_coll: collective consistency across the members of each
 * intracommunicator (check.h).  MPI requires every member to make the
 * same collective calls on a communicator in the same order, with the same
 * root, operation and type signature; the replay only sees the calls that
 * block, so a member that skipped a collective the others completed (small
 * contributions to a Reduce are buffered) is found here, from the logs. */
#include "trace/check.h"

#include <stdlib.h>
#include <string.h>

#include "trace/tracekinds.h"

typedef struct entry {
    uint64_t hash;
    int seq, rank;
    long k;            /* position among the rank's collectives on the comm */
    size_t call;
} entry;

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->rank - b->rank;
}

int check_add(check_result *res, check_finding f)
{
    check_finding *g = res->f;
    if (res->n == res->cap) {
        size_t cap = res->cap ? 2 * res->cap : 16;
        if (!(g = realloc(res->f, cap * sizeof *g)))
            return -1;
        res->f = g, res->cap = cap;
    }
    res->f[res->n++] = f;
    return 0;
}

/* The collectives the replay joins: on an intracommunicator, and the calls
 * that make communicators (collective over the parent). */
static int is_collective(const trace_rank *t, const trace_call *c)
{
    int cls = trace_kind_class(c->kind);
    return (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT || cls == TRACE_ICOLL ||
            (cls == TRACE_COMM && c->kind != TRACE_K_COMM_FREE &&
             c->kind != TRACE_K_INTERCOMM_CREATE && c->kind != TRACE_K_INTERCOMM_MERGE)) &&
           c->comm >= 0 && c->comm < t->ncomms && !t->comms[c->comm].inter;
}

/* Two type signature codes that can describe one signature. */
static int codes_agree(uint32_t a, uint32_t b)
{
    return a == b || a == TRACE_DT_UNKNOWN || b == TRACE_DT_UNKNOWN || a == TRACE_DT_BYTE ||
           b == TRACE_DT_BYTE || a == TRACE_DT_PACKED || b == TRACE_DT_PACKED;
}

/* Whether call b agrees with call a at one position. */
static int same(const trace_call *a, const trace_call *b)
{
    int cls = trace_kind_class(a->kind);
    if (a->kind != b->kind)
        return 0;
    if (cls == TRACE_COMM)
        return 1;
    if (a->peer != b->peer || (a->tag2 >= 0 && b->tag2 >= 0 && a->tag2 != b->tag2))
        return 0;   /* root, operation (-1: not recorded) */
    if (cls == TRACE_COLL_DIRECT)
        return 1;   /* per-peer counts differ by design */
    return a->bytes == b->bytes && (a->bytes == 0 || codes_agree(a->dtype, b->dtype));
}

/* A rank whose log says it reached MPI_Finalize (or exited without it):
 * a collective it never entered, it skipped.  A rank killed, crashed or
 * blocked is the replay's to report. */
static int finished(const trace_dir *d, int r)
{
    const trace_rank *t = &d->ranks[r];
    return d->loaded[r] && !t->ended_early && t->status &&
           (strcmp(t->status, "finalized") == 0 || strcmp(t->status, "no-finalize") == 0);
}

/* Whether (comm key, rank) already has a finding; marks it. */
static int reported(uint64_t **seen, size_t *n, size_t *cap, uint64_t hash, int seq, int rank,
                    int *oom)
{
    for (size_t i = 0; i < *n; i += 3)
        if ((*seen)[i] == hash && (*seen)[i + 1] == (uint64_t)seq && (*seen)[i + 2] == (uint64_t)rank)
            return 1;
    if (*n + 3 > *cap) {
        size_t c = *cap ? 2 * *cap : 48;
        uint64_t *g = realloc(*seen, c * sizeof *g);
        if (!g) {
            *oom = 1;
            return 1;
        }
        *seen = g, *cap = c;
    }
    (*seen)[(*n)++] = hash, (*seen)[(*n)++] = (uint64_t)seq, (*seen)[(*n)++] = (uint64_t)rank;
    return 0;
}

int check_collectives(const trace_dir *d, check_result *res)
{
    size_t n = 0, cap = 0;
    entry *v = NULL;
    int oom = 0;
    for (int r = 0; r < d->nranks && !oom; r++) {
        if (!d->loaded[r])
            continue;
        const trace_rank *t = &d->ranks[r];
        long *count = calloc((size_t)t->ncomms + 1, sizeof *count);
        if (!count) {
            oom = 1;
            break;
        }
        for (size_t i = 0; i < t->ncalls && !oom; i++) {
            const trace_call *c = &t->calls[i];
            if (!is_collective(t, c))
                continue;
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                entry *g = realloc(v, nc * sizeof *g);
                if (!g) {
                    oom = 1;
                    break;
                }
                v = g, cap = nc;
            }
            v[n++] = (entry){t->comms[c->comm].hash, t->comms[c->comm].seq, r, count[c->comm]++, i};
        }
        free(count);
    }
    if (n)
        qsort(v, n, sizeof *v, entry_cmp);
    uint64_t *seen = NULL;
    size_t nseen = 0, capseen = 0;
    for (size_t i = 0; i < n && !oom;) {
        size_t j = i;
        while (j < n && v[j].hash == v[i].hash && v[j].seq == v[i].seq && v[j].k == v[i].k)
            j++;
        const trace_rank *t0 = &d->ranks[v[i].rank];
        const trace_call *c0 = &t0->calls[v[i].call];
        for (size_t e = i + 1; e < j && !oom; e++) {
            const trace_call *c = &d->ranks[v[e].rank].calls[v[e].call];
            if (!same(c0, c) &&
                !reported(&seen, &nseen, &capseen, v[e].hash, v[e].seq, v[e].rank, &oom))
                oom |= check_add(res, (check_finding){CHECK_INCONSISTENT, v[e].rank, v[e].call, -1,
                                                      v[i].rank, v[i].call}) != 0;
        }
        /* the members that never came to this position */
        const trace_comm *cm = &t0->comms[c0->comm];
        for (int m = 0; m < cm->n && !oom; m++) {
            int w = cm->world[m], in = 0;
            for (size_t e = i; e < j && !in; e++)
                in = v[e].rank == w;
            if (in || w < 0 || w >= d->nranks || !finished(d, w) || !d->ranks[w].ncalls ||
                reported(&seen, &nseen, &capseen, v[i].hash, v[i].seq, w, &oom))
                continue;
            const trace_rank *tw = &d->ranks[w];
            oom |= check_add(res, (check_finding){CHECK_COLL_MISSING, w,
                                                  tw->ncalls ? tw->ncalls - 1 : SIZE_MAX, -1,
                                                  v[i].rank, v[i].call}) != 0;
        }
        i = j;
    }
    free(seen);
    free(v);
    return oom ? -1 : 0;
}
