/* expand: traced collectives as the schedules of sched/collgen.h (expand.h). */
#include "trace/expand.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracefile.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

int expand_op(int kind)
{
    switch (kind) {
    case TRACE_K_BARRIER: return COLL_BARRIER;
    case TRACE_K_BCAST: return COLL_BCAST;
    case TRACE_K_REDUCE: return COLL_REDUCE;
    case TRACE_K_ALLREDUCE: return COLL_ALLREDUCE;
    case TRACE_K_ALLGATHER: return COLL_ALLGATHER;
    case TRACE_K_ALLTOALL: return COLL_ALLTOALL;
    case TRACE_K_GATHER: return COLL_GATHER;
    case TRACE_K_SCATTER: return COLL_SCATTER;
    default: return -1;
    }
}

static int has_alg(int op, const char *name)
{
    char why[200];
    return coll_validate(op, name, 2, why, sizeof why) == 0;
}

int expand_choice_add(expand_choice *c, const char *arg, char *why, size_t len)
{
    const char *eq = strchr(arg, '=');
    if (!eq && (!strcmp(arg, "tuned") || !strcmp(arg, "mpich"))) {
        c->lib = arg;
        return 0;
    }
    if (eq) {
        char op_name[32];
        snprintf(op_name, sizeof op_name, "%.*s", (int)(eq - arg), arg);
        int op = coll_op_parse(op_name);
        if (op < 0 || op >= EXPAND_NOPS) {
            snprintf(why, len, "no collective '%s' (one of barrier, bcast, reduce, allreduce, "
                     "allgather, alltoall, gather, scatter)", op_name);
            return -1;
        }
        if (!has_alg(op, eq + 1)) {
            snprintf(why, len, "no algorithm '%s' for %s (one of %s)", eq + 1, op_name,
                     coll_algorithms(op));
            return -1;
        }
        c->alg[op] = eq + 1;
        return 0;
    }
    int any = 0;
    for (int op = 0; op < EXPAND_NOPS; op++)
        if (has_alg(op, arg))
            c->alg[op] = arg, any = 1;
    if (!any)
        snprintf(why, len, "no collective has an algorithm of that name "
                 "(scisim --collective-list lists them)");
    return any ? 0 : -1;
}

static const char *alg_of(const expand_choice *c, int op)
{
    return c->alg[op] ? c->alg[op] : c->lib ? c->lib : "tuned";
}

const char *expand_describe(const expand_choice *c, int op, int n, uint64_t m, char *buf,
                            size_t len)
{
    char name[64], native[40];
    const char *a = alg_of(c, op), *family;
    coll_algorithm(op, a, n, (long)m, name, sizeof name);
    const char *who = strcmp(a, "mpich") ? "Open MPI 4.1 tuned" : "MPICH";
    if (c->alg[op])
        snprintf(buf, len, "%s (--algorithm)", name);
    else
        switch (coll_library_pick(op, a, n, (long)m, native, sizeof native, &family)) {
        case 1: snprintf(buf, len, "%s (%s runs %s: the nearest family)", name, who, native); break;
        case 2: snprintf(buf, len, "%s (%s runs %s, which falls back to it here)", name, who,
                         native); break;
        default: snprintf(buf, len, "%s (%s runs %s)", name, who, native);
        }
    return buf;
}

int expand_schedule(expand_cache *x, const expand_choice *c, int kind, int n, int root, int me,
                    uint64_t m, const coll_sched **out, char *why, size_t len)
{
    int op = expand_op(kind);
    int rooted = op == COLL_BCAST || op == COLL_REDUCE || op == COLL_GATHER || op == COLL_SCATTER;
    if (op < 0 || n < 1 || (rooted && (root < 0 || root >= n)) || me < 0 || me >= n ||
        m > (uint64_t)1 << 53) {
        snprintf(why, len, "a collective outside the communicator or too large");
        return -2;
    }
    if (!rooted)
        root = 0;
    if (x->valid && x->op == op && x->n == n && x->root == root && x->rank == me && x->m == m) {
        *out = &x->s;
        return 0;
    }
    expand_cache_free(x);
    int rc = coll_generate_rank(&x->s, op, alg_of(c, op), n, root, (long)m, me, why, len);
    if (rc)
        return rc == -1 ? -1 : -2;
    x->valid = 1, x->op = op, x->n = n, x->root = root, x->rank = me, x->m = m;
    *out = &x->s;
    return 0;
}

void expand_cache_free(expand_cache *x)
{
    if (x->valid)
        coll_sched_free(&x->s);
    x->valid = 0;
}

void expand_rank_msgs(const coll_sched *s, int r, long *lo, long *hi)
{
    long a = 0, b = s->count;
    while (a < b) {   /* the first message of a rank >= r */
        long mid = a + (b - a) / 2;
        if (s->msgs[mid].rank < r)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (b < s->count && s->msgs[b].rank == r)
        b++;
    *hi = b < a ? a : b;
}

const char *expand_library_of(const struct trace_dir *d)
{
    static const char *const mpich_family[] = {"MPICH", "MVAPICH", "Intel(R) MPI"};
    for (int r = 0; r < d->nranks; r++)
        for (size_t k = 0; d->loaded[r] && k < sizeof mpich_family / sizeof *mpich_family; k++)
            if (d->ranks[r].mpi && strstr(d->ranks[r].mpi, mpich_family[k]))
                return "mpich";
    return "tuned";
}

typedef struct shape {
    int op, n;
    uint64_t m;
} shape;

static int by_shape(const void *a, const void *b)
{
    const shape *x = a, *y = b;
    if (x->op != y->op)
        return x->op - y->op;
    if (x->n != y->n)
        return x->n - y->n;
    return (x->m > y->m) - (x->m < y->m);
}

int expand_report(FILE *fp, const char *prefix, const struct trace_dir *d, const char *phase,
                  const expand_choice *c)
{
    shape *v = NULL;
    size_t n = 0, cap = 0;
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        for (size_t i = 0; d->loaded[r] && i < t->ncalls; i++) {
            const trace_call *x = &t->calls[i];
            int op = expand_op(x->kind);
            if (op < 0 || x->comm < 0 || x->comm >= t->ncomms || t->comms[x->comm].inter ||
                (phase && strcmp(t->phases[x->phase], phase)))
                continue;
            shape s = {op, t->comms[x->comm].n, x->bytes};
            int seen = 0;
            for (size_t k = n; k-- > 0 && !seen;)
                seen = !by_shape(&v[k], &s);
            if (!seen && UTIL_GROW(v, n, cap, 16) == 0)
                v[n++] = s;
        }
    }
    if (n > 1)
        qsort(v, n, sizeof *v, by_shape);
    int r0 = 0;
    while (r0 < d->nranks && !d->loaded[r0])
        r0++;
    if (n && r0 < d->nranks && d->ranks[r0].mpi && d->ranks[r0].mpi[0])
        fprintf(fp, "%straced MPI: %s\n", prefix, d->ranks[r0].mpi);
    for (size_t k = 0; k < n; k++) {
        char buf[200];
        fprintf(fp, "%s%s on %d ranks, %" PRIu64 " B: %s\n", prefix, coll_op_names[v[k].op],
                v[k].n, v[k].m, expand_describe(c, v[k].op, v[k].n, v[k].m, buf, sizeof buf));
    }
    free(v);
    return (int)n;
}
