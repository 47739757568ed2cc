/* build_matrix: rank files -> traffic matrix rows (see build_matrix.h). */
#include "trace/build_matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "trace/expand.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

typedef struct builder {
    trace_matrix *m;
    size_t cap;
    int src, nomem;
    const trace_comm *comm;   /* while expanding a collective */
    uint64_t calls;
} builder;

static void add(builder *b, int dst, uint64_t size, uint64_t messages)
{
    if (UTIL_GROW(b->m->rows, b->m->nrows, b->cap, 1024)) {
        b->nomem = 1;
        return;
    }
    b->m->rows[b->m->nrows++] = (trace_matrix_row){b->src, dst, size, messages};
}

/* expand_fn: a collective's message, comm index -> world rank, x calls. */
static void add_expanded(void *ctx, int dst, uint64_t size)
{
    builder *b = ctx;
    add(b, b->comm->world[dst], size, b->calls);
}

static int by_key(const void *pa, const void *pb)
{
    const trace_matrix_row *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return (a->size_bytes > b->size_bytes) - (a->size_bytes < b->size_bytes);
}

/* Sorts and sums rows with equal keys. */
static void merge(trace_matrix *m)
{
    size_t out = 0;
    if (m->nrows == 0)
        return;
    qsort(m->rows, m->nrows, sizeof *m->rows, by_key);
    for (size_t i = 0; i < m->nrows; i++) {
        if (out && by_key(&m->rows[out - 1], &m->rows[i]) == 0)
            m->rows[out - 1].messages += m->rows[i].messages;
        else
            m->rows[out++] = m->rows[i];
    }
    m->nrows = out;
}

/* Size of one message of a record: exact, or the mean of a folded one. */
static uint64_t rec_size(const trace_rec *x)
{
    if (!x->folded || x->messages == 0)
        return x->size_bytes;
    return (x->bytes + x->messages / 2) / x->messages;
}

static int add_rank(builder *b, const trace_rank *r, int with_collectives, uint64_t calls,
                    trace_error *err)
{
    for (size_t i = 0; i < r->nrecs; i++) {
        const trace_rec *x = &r->recs[i];
        if (calls && !(calls >> x->kind & 1))
            continue;
        enum trace_class cls = trace_kind_class(x->kind);
        b->m->folded_rows += x->folded;
        if ((cls == TRACE_SEND || cls == TRACE_COLL_DIRECT) && x->peer >= 0 && x->messages) {
            if (cls == TRACE_SEND || with_collectives)
                add(b, x->peer, rec_size(x), x->messages);
        } else if (cls == TRACE_COLL && with_collectives && x->messages) {
            const trace_comm *c = &r->comms[x->comm];
            int me = trace_comm_index(c, r->rank);
            int root = x->peer >= 0 ? trace_comm_index(c, x->peer) : -1;
            b->comm = c, b->calls = x->messages;
            if (me < 0 || expand_collective(x->kind, c->n, me, root < 0 ? 0 : root,
                                            rec_size(x), add_expanded, b) != 0) {
                snprintf(err->msg, sizeof err->msg,
                         "rank %d: %s on communicator %d: rank or root %d not a member",
                         r->rank, trace_kind_name(x->kind), x->comm, x->peer);
                return -1;
            }
        }
    }
    return 0;
}

int trace_matrix_build(const trace_dir *d, int with_collectives, uint64_t calls,
                       trace_matrix *m, trace_error *err)
{
    builder b = {.m = m};
    memset(m, 0, sizeof *m);
    m->ranks = d->nranks;
    for (int s = 0; s < d->nranks; s++) {
        if (!d->loaded[s])
            continue;
        b.src = s;
        if (add_rank(&b, &d->ranks[s], with_collectives, calls, err) != 0) {
            trace_matrix_free(m);
            return -1;
        }
    }
    if (b.nomem) {
        snprintf(err->msg, sizeof err->msg, "%s: out of memory", d->path);
        trace_matrix_free(m);
        return -1;
    }
    merge(m);
    return 0;
}

void trace_matrix_free(trace_matrix *m)
{
    free(m->rows);
    memset(m, 0, sizeof *m);
}

const char *trace_matrix_collectives_note(int with_collectives)
{
    return with_collectives
               ? "bcast reduce binomial, allreduce recursive-doubling, alltoall pairwise, "
                 "allgather ring, gather scatter linear, barrier dissemination, "
                 "v variants and reduce_scatter as called (scitrace --help)"
               : "left out (--collectives p2p-only)";
}

/* The matrix reader keeps lines under 256 characters; long command lines
 * are cut. */
#define SOURCE_COMMAND_MAX 120

static void print_matrix(FILE *fp, const trace_matrix *m, const char *command, const char *host,
                         const char *date, int with_collectives, const char *phase)
{
    fprintf(fp, "# scitorus-traffic 1\n# ranks: %d\n", m->ranks);
    fprintf(fp, "# source: trace of `mpirun -np %d %.*s%s` (%.40s, %s)\n", m->ranks,
            SOURCE_COMMAND_MAX, command, strlen(command) > SOURCE_COMMAND_MAX ? "..." : "", host,
            date);
    fprintf(fp, "# collectives: %s\n", trace_matrix_collectives_note(with_collectives));
    if (phase)
        fprintf(fp, "# phase: %.60s\n", phase);
    fprintf(fp, "# columns: src dst size_bytes messages\n");
    for (size_t i = 0; i < m->nrows; i++) {
        const trace_matrix_row *r = &m->rows[i];
        fprintf(fp, "%d\t%d\t%llu\t%llu\n", r->src, r->dst, (unsigned long long)r->size_bytes,
                (unsigned long long)r->messages);
    }
}

int trace_matrix_write(const trace_matrix *m, const char *path, const char *command,
                       const char *host, const char *date, int with_collectives, const char *phase)
{
    if (strcmp(path, "-") == 0) {
        print_matrix(stdout, m, command, host, date, with_collectives, phase);
        return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
    }
    atomic_file af;
    if (atomic_file_open(&af, path) != 0)
        return -1;
    print_matrix(af.fp, m, command, host, date, with_collectives, phase);
    if (ferror(af.fp)) {
        int e = errno ? errno : EIO;
        atomic_file_abort(&af);
        errno = e;
        return -1;
    }
    return atomic_file_commit(&af);
}
