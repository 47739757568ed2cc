/* mode_goal: `scitrace goal -o FILE DIR`, the trace as a schedule in the
 * GOAL text format of LogGOPSim (docs/formats.md, 'GOAL schedule'), which
 * scisim and LogGOPSim replay.  Per rank, in program order:
 *   - the time between one call's return and the next call's entry is a
 *     `calc` of that many ns;
 *   - a blocking call requires the operation before it (the rank's chain);
 *     a nonblocking one (Isend, Irecv, a persistent Start) requires it too
 *     but the chain does not wait for it: the Wait or Test that completed
 *     its request is a `calc 0` that requires it;
 *   - a receive names the source and tag it matched in the run;
 *   - a collective is expanded into the algorithm of trace/expand.h: each
 *     member's messages to and from the others; sends wait for the
 *     receives they forward (bcast, reduce, scatter, gather: all of the
 *     rank's receives; allreduce, allgather, barrier: the receives of
 *     earlier rounds; alltoall and the v variants: none), and the chain
 *     goes on when all of them are done;
 *   - a phase change is a `// phase NAME` comment. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/goal.h"
#include "util/atomicfile.h"
#include "util/opt.h"
#include "trace/expand.h"
#include "trace/modes.h"
#include "trace/tracefile.h"
#include "trace/tracekinds.h"

/* Collective messages get tags above any MPI tag a run used here, one per
 * position on a communicator, so they never match point-to-point ones. */
#define COLL_TAG_BASE 1000000000u
#define COLL_TAG_SPAN 1000000000u

typedef struct goal_opts {
    const char *out, *phase;
    int partial;
} goal_opts;

static const opt_spec goal_specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(goal_opts, out),
     .arg = "FILE", .help = "where to write (temporary name, then renamed; - is\nstandard output)"},
    {.name = "phase", .kind = OPT_STRING, .field = offsetof(goal_opts, phase), .arg = "NAME",
     .help = "only the calls of phase NAME (all: every phase)"},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(goal_opts, partial),
     .help = "write the schedule of an incomplete trace (calls that\nnever returned are left out)"},
};

static const opt_program goal_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace goal [--phase NAME|all] -o FILE DIR\n"
"Write the trace in DIR as a GOAL schedule (the text format of LogGOPSim;\n"
"docs/formats.md, 'GOAL schedule') for scisim: every rank's calls in program\n"
"order, the time between calls as calc, blocking calls depending on the\n"
"call before, nonblocking ones starting at their call and completing at\n"
"their Wait or Test, collectives expanded with the algorithms of\n"
"`scitrace --help`, phases as comments.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 written, 1 a rank file is malformed or missing or FILE\n"
"cannot be written, 2 usage error, 3 an incomplete trace (a rank killed,\n"
"crashed or cut short, a call that never returned, a missing rank file)\n"
"without --partial.\n",
    .specs = goal_specs,
    .nspecs = sizeof goal_specs / sizeof goal_specs[0],
    .args_min = 1,
    .args_max = 1,
};

typedef struct gen {
    FILE *fp;
    long next;           /* next label number of this rank */
    long chain;          /* label the next blocking step requires (0: none) */
    long *req_label;     /* request id -> label of its operation */
    int64_t nreq;
} gen;

static long op(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static long op(gen *g, const char *fmt, ...)
{
    va_list ap;
    long l = ++g->next;
    fprintf(g->fp, "l%ld: ", l);
    va_start(ap, fmt);
    vfprintf(g->fp, fmt, ap);
    va_end(ap);
    fputc('\n', g->fp);
    return l;
}

static void requires(gen *g, long a, long b)
{
    if (a && b)
        fprintf(g->fp, "l%ld requires l%ld\n", a, b);
}

/* A step of the chain: requires the chain, becomes it. */
static long step(gen *g, long l)
{
    requires(g, l, g->chain);
    return g->chain = l;
}

typedef struct msgs {
    int peer[4096];
    uint64_t size[4096];
    int round[4096];
    int n;
    int target;          /* collecting: only messages to this comm index */
    int round_now;
} msgs;

static void collect(void *ctx, int dst, uint64_t size)
{
    msgs *m = ctx;
    if ((m->target < 0 || dst == m->target) && m->n < 4096) {
        m->peer[m->n] = dst, m->size[m->n] = size, m->round[m->n] = m->round_now;
        m->n++;
    }
    m->round_now++;
}

/* This rank's part of collective c: sends and receives, with their
 * dependencies; then the chain waits for all of them. */
static void collective(gen *g, const trace_rank *t, const trace_call *c, long k)
{
    const trace_comm *cm = &t->comms[c->comm];
    int me = trace_comm_index(cm, t->rank), root = c->peer >= 0 ? trace_comm_index(cm, c->peer) : 0;
    unsigned tag = COLL_TAG_BASE + (unsigned)(k % COLL_TAG_SPAN);
    static msgs out, in;
    long first = g->next + 1, start = g->chain;
    out.n = 0, out.target = -1, out.round_now = 0;
    in.n = 0;
    if (trace_kind_class(c->kind) == TRACE_COLL_DIRECT) {
        for (size_t j = 0; j < c->nlist && out.n < 4096; j++) {
            int w = (int)t->ids[c->list + 2 * j], i = trace_comm_index(cm, w);
            if (i >= 0)
                collect(&out, i, (uint64_t)t->ids[c->list + 2 * j + 1]);
        }
    } else {
        expand_collective(c->kind, cm->n, me, root, c->bytes, collect, &out);
        for (int j = 0; j < cm->n; j++) {
            if (j == me)
                continue;
            msgs one = {.target = me};
            expand_collective(c->kind, cm->n, j, root, c->bytes, collect, &one);
            for (int i = 0; i < one.n && in.n < 4096; i++) {
                in.peer[in.n] = j, in.size[in.n] = one.size[i], in.round[in.n] = one.round[i];
                in.n++;
            }
        }
    }
    long recv_label[4096];
    for (int i = 0; i < in.n; i++) {
        recv_label[i] = op(g, "recv %" PRIu64 "b from %d tag %u", in.size[i], cm->world[in.peer[i]], tag);
        requires(g, recv_label[i], start);
    }
    int all_in = c->kind == TRACE_K_BCAST || c->kind == TRACE_K_REDUCE ||
                 c->kind == TRACE_K_SCATTER || c->kind == TRACE_K_GATHER;
    int rounds = c->kind == TRACE_K_ALLREDUCE || c->kind == TRACE_K_ALLGATHER ||
                 c->kind == TRACE_K_BARRIER;
    for (int i = 0; i < out.n; i++) {
        long s = op(g, "send %" PRIu64 "b to %d tag %u", out.size[i], cm->world[out.peer[i]], tag);
        requires(g, s, start);
        for (int j = 0; j < in.n; j++)
            if (all_in || (rounds && in.round[j] < out.round[i]))
                requires(g, s, recv_label[j]);
    }
    long last = g->next, join = op(g, "calc 0");
    for (long l = first; l <= last; l++)
        requires(g, join, l);
    if (first > last)
        requires(g, join, start);
    g->chain = join;
}

/* Label of request id's operation, 0 when unknown. */
static long *req_slot(gen *g, int64_t id)
{
    static long none;
    none = 0;
    return id > 0 && id < g->nreq ? &g->req_label[id] : &none;
}

static int write_rank(FILE *fp, const trace_rank *t, const char *phase)
{
    gen g = {.fp = fp};
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
    fprintf(fp, "rank %d {\n", t->rank);
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
            step(&g, op(&g, "calc %" PRId64, c->t_in - t_prev));
        if (!c->done)
            break;   /* the run ended inside this call */
        t_prev = c->t_out;
        if (c->kind == TRACE_K_SENDRECV) {
            long s = op(&g, "send %" PRIu64 "b to %d tag %d", c->bytes, c->peer, c->tag);
            long r = c->r_src >= 0 ? op(&g, "recv %" PRIu64 "b from %d tag %d", c->r_bytes, c->r_src, c->r_tag) : 0;
            requires(&g, s, g.chain), requires(&g, r, g.chain);
            long j = op(&g, "calc 0");
            requires(&g, j, s), requires(&g, j, r);
            g.chain = j;
        } else if (cls == TRACE_SEND && c->peer >= 0) {
            long s = op(&g, "send %" PRIu64 "b to %d tag %d", c->bytes, c->peer, c->tag);
            requires(&g, s, g.chain);
            if (c->made)
                *req_slot(&g, c->made) = c->buffered ? 0 : s;
            else if (!c->buffered)   /* a buffered send holds nothing up */
                g.chain = s;
        } else if (c->kind == TRACE_K_RECV && c->r_src >= 0) {
            step(&g, op(&g, "recv %" PRIu64 "b from %d tag %d", c->r_bytes, c->r_src, c->r_tag));
        } else if (c->kind == TRACE_K_IRECV && c->peer != TRACE_PROC_NULL) {
            int64_t src = irecv_src[2 * c->made] ? irecv_src[2 * c->made] - 1 : c->peer;
            int64_t tag = irecv_src[2 * c->made] ? irecv_src[2 * c->made + 1] - 1 : c->tag;
            long r = op(&g, "recv %" PRIu64 "b from %" PRId64 " tag %" PRId64, c->bytes, src,
                        tag < 0 ? 0 : tag);
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
                             ? op(&g, "recv %" PRIu64 "b from %d tag %d", m->bytes, m->peer, m->tag)
                             : op(&g, "send %" PRIu64 "b to %d tag %d", m->bytes, m->peer, m->tag);
                requires(&g, l, g.chain);
                *req_slot(&g, id) = l;
            }
        } else if (cls == TRACE_WAIT && c->ncomp) {
            long j = op(&g, "calc 0");
            requires(&g, j, g.chain);
            for (size_t k = 0; k < c->ncomp; k++) {
                long *l = req_slot(&g, t->ids[c->list + (size_t)t->comps[c->comp + k].index]);
                requires(&g, j, *l);
                *l = 0;
            }
            g.chain = j;
        } else if ((cls == TRACE_COLL || cls == TRACE_COLL_DIRECT) && c->comm >= 0 &&
                   !t->comms[c->comm].inter && trace_comm_index(&t->comms[c->comm], t->rank) >= 0) {
            collective(&g, t, c, coll_pos[c->comm] - 1);
        }
    }
    fprintf(fp, "}\n");
    free(g.req_label), free(coll_pos), free(irecv_src);
    return 0;
}

int scitrace_goal(int argc, char **argv)
{
    goal_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&goal_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    if (!o.out)
        return opt_usage_error(&goal_program, "goal: -o FILE is required");
    const char *out = o.out, *phase = o.phase;
    int first = st.first_arg;
    trace_dir d;
    trace_error err;
    if (trace_dir_load(argv[first], phase, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    int whole = trace_dir_require_whole(&d, "goal", o.partial);
    if (whole || trace_dir_within(&d, GOAL_MAX_SIZE, &err) != 0) {
        if (!whole)
            fprintf(stderr, "scitrace: goal: %s\n", err.msg);
        trace_dir_free(&d);
        return whole ? whole : 1;
    }
    if (phase && strcmp(phase, "all") == 0)
        phase = NULL;
    int rc = 1;
    struct stat so, sr;
    for (int r = 0; r < d.nranks; r++) {
        if (!d.loaded[r]) {
            fprintf(stderr, "scitrace: goal: %s: rank %d left no rank file: no schedule without "
                    "it\n", d.path, r);
            goto done;
        }
        if (strcmp(out, "-") && stat(out, &so) == 0 && stat(d.ranks[r].path, &sr) == 0 &&
            so.st_dev == sr.st_dev && so.st_ino == sr.st_ino) {
            fprintf(stderr, "scitrace: goal: -o '%s' is the same file as %s, an input\n", out,
                    d.ranks[r].path);
            goto done;
        }
    }
    atomic_file af;
    FILE *fp = stdout;
    if (strcmp(out, "-") != 0) {
        if (atomic_file_open(&af, out) != 0) {
            fprintf(stderr, "scitrace: goal: cannot write '%s': %s\n", out, strerror(errno));
            goto done;
        }
        fp = af.fp;
    }
    fprintf(fp, "// scitrace goal: %s, %d ranks, run %s (%s)\n", d.ranks[0].command, d.nranks,
            d.ranks[0].run, d.date);
    fprintf(fp, "num_ranks %d\n", d.nranks);
    int bad = 0;
    for (int r = 0; r < d.nranks && !bad; r++)
        bad = write_rank(fp, &d.ranks[r], phase);
    if (fp == stdout) {
        rc = bad || fflush(stdout) != 0 || ferror(stdout);
    } else if (bad || ferror(fp)) {
        atomic_file_abort(&af);
    } else {
        rc = atomic_file_commit(&af) != 0;
    }
    if (rc)
        fprintf(stderr, "scitrace: goal: cannot write '%s': %s\n", out,
                bad ? "out of memory" : strerror(errno ? errno : EIO));
done:
    trace_dir_free(&d);
    return rc;
}
