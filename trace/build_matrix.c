/* build_matrix: rank files -> traffic matrix rows (see build_matrix.h). */
#include "trace/build_matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/flows.h"
#include "util/atomicfile.h"
#include "trace/expand.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

typedef struct builder {
    trace_matrix *m;
    size_t cap;
    int src, nomem;
    const expand_choice *choice;   /* NULL: collectives left out */
    expand_cache cache;
} builder;

static void add(builder *b, int dst, uint64_t size, uint64_t messages)
{
    if (UTIL_GROW(b->m->rows, b->m->nrows, b->cap, 1024)) {
        b->nomem = 1;
        return;
    }
    b->m->rows[b->m->nrows++] = (trace_matrix_row){b->src, dst, size, messages};
}

/* Size of one message of a record: exact, or the mean of a folded one. */
static uint64_t rec_size(const trace_rec *x)
{
    if (!x->folded || x->messages == 0)
        return x->size_bytes;
    return (x->bytes + x->messages / 2) / x->messages;
}

static int add_rank(builder *b, const trace_rank *r, uint64_t calls, trace_error *err)
{
    for (size_t i = 0; i < r->nrecs; i++) {
        const trace_rec *x = &r->recs[i];
        if (calls && !(calls >> x->kind & 1))
            continue;
        enum trace_class cls = trace_kind_class(x->kind);
        b->m->folded_rows += x->folded;
        if ((cls == TRACE_SEND || cls == TRACE_COLL_DIRECT) && x->peer >= 0 && x->messages) {
            if (cls == TRACE_SEND || b->choice)
                add(b, x->peer, rec_size(x), x->messages);
        } else if (cls == TRACE_COLL && b->choice && x->messages && !r->comms[x->comm].inter) {
            /* an intercommunicator's collectives are not expanded, as in goal */
            const trace_comm *c = &r->comms[x->comm];
            int me = trace_comm_index(c, r->rank);
            int root = x->peer >= 0 ? trace_comm_index(c, x->peer) : -1;
            const coll_sched *s;
            char why[300];
            int rc = me < 0 ? -2 : expand_schedule(&b->cache, b->choice, x->kind, c->n,
                                                   root < 0 ? 0 : root, me, rec_size(x), &s,
                                                   why, sizeof why);
            if (rc == -1) {
                b->nomem = 1;
                return 0;
            }
            if (rc) {
                snprintf(err->msg, sizeof err->msg,
                         "rank %d: %s on communicator %d: rank or root %d not a member",
                         r->rank, trace_kind_name(x->kind), x->comm, x->peer);
                return -1;
            }
            long lo, hi;
            expand_rank_msgs(s, me, &lo, &hi);
            for (long k = lo; k < hi; k++)
                if (s->msgs[k].send)
                    add(b, c->world[s->msgs[k].peer], (uint64_t)s->msgs[k].bytes, x->messages);
        }
    }
    return 0;
}

int trace_matrix_build(const trace_dir *d, int with_collectives, uint64_t calls,
                       trace_matrix *m, trace_error *err)
{
    expand_choice traced = {.lib = expand_library_of(d)};
    return trace_matrix_build_with(d, with_collectives ? &traced : NULL, calls, m, err);
}

int trace_matrix_build_with(const trace_dir *d, const expand_choice *choice, uint64_t calls,
                            trace_matrix *m, trace_error *err)
{
    builder b = {.m = m, .choice = choice};
    int rc = 0;
    memset(m, 0, sizeof *m);
    m->ranks = d->nranks;
    for (int s = 0; s < d->nranks && !rc; s++) {
        b.src = s;
        rc = d->loaded[s] ? add_rank(&b, &d->ranks[s], calls, err) : 0;
    }
    expand_cache_free(&b.cache);
    if (!rc && b.nomem) {
        snprintf(err->msg, sizeof err->msg, "%s: out of memory", d->path);
        rc = -1;
    }
    if (rc) {
        trace_matrix_free(m);
        return -1;
    }
    sched_flows_merge(m->rows, &m->nrows);
    return 0;
}

void trace_matrix_free(trace_matrix *m)
{
    free(m->rows);
    memset(m, 0, sizeof *m);
}

/* The matrix reader keeps lines under 256 characters; long command lines
 * are cut. */
#define SOURCE_COMMAND_MAX 120

/* "# grid: 3x2 (MPI_Cart_create)": rank 0's first Cartesian grid when it
 * spans every rank, its sides of 1 left out (a projection's candidate,
 * docs/model.md, 'Candidates'). */
static void print_grid(FILE *fp, const trace_dir *d, int ranks)
{
    if (!d || !d->nranks || !d->loaded[0] || !d->ranks[0].cart_dims)
        return;
    const trace_rank *r = &d->ranks[0];
    long long prod = 1;
    int sides = 0;
    for (int i = 0; i < r->cart_dims; i++) {
        prod *= r->cart_n[i];
        sides += r->cart_n[i] > 1;
    }
    if (prod != ranks || sides < 1 || sides > 4)
        return;
    fputs("# grid: ", fp);
    for (int i = 0, k = 0; i < r->cart_dims; i++)
        if (r->cart_n[i] > 1)
            fprintf(fp, "%s%d", k++ ? "x" : "", r->cart_n[i]);
    fputs(" (MPI_Cart_create)\n", fp);
}

static void print_matrix(FILE *fp, const trace_matrix *m, const char *command, const char *host,
                         const char *date, const trace_dir *d, const expand_choice *choice,
                         const char *phase)
{
    fprintf(fp, "# scitorus-traffic 1\n# ranks: %d\n", m->ranks);
    fprintf(fp, "# source: trace of `mpirun -np %d %.*s%s` (%.40s, %s)\n", m->ranks,
            SOURCE_COMMAND_MAX, command, strlen(command) > SOURCE_COMMAND_MAX ? "..." : "", host,
            date);
    if (choice) {
        fprintf(fp, "# collectives: the messages of the algorithms below, v variants and "
                "reduce_scatter as called\n");
        expand_report(fp, "# collective: ", d, phase, choice);
    } else {
        fprintf(fp, "# collectives: left out (--collectives p2p-only)\n");
    }
    if (phase)
        fprintf(fp, "# phase: %.60s\n", phase);
    print_grid(fp, d, m->ranks);
    fprintf(fp, "# columns: src dst size_bytes messages\n");
    for (size_t i = 0; i < m->nrows; i++) {
        const trace_matrix_row *r = &m->rows[i];
        fprintf(fp, "%d\t%d\t%llu\t%llu\n", r->src, r->dst, (unsigned long long)r->size_bytes,
                (unsigned long long)r->messages);
    }
}

int trace_matrix_write(const trace_matrix *m, const char *path, const char *command,
                       const char *host, const char *date, const trace_dir *d,
                       const expand_choice *choice, const char *phase)
{
    if (strcmp(path, "-") == 0) {
        print_matrix(stdout, m, command, host, date, d, choice, phase);
        return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
    }
    atomic_file af;
    if (atomic_file_open(&af, path) != 0)
        return -1;
    print_matrix(af.fp, m, command, host, date, d, choice, phase);
    if (ferror(af.fp)) {
        int e = errno ? errno : EIO;
        atomic_file_abort(&af);
        errno = e;
        return -1;
    }
    return atomic_file_commit(&af);
}
