/* tracedir: a trace directory (every rank's file, one run), the aggregates
 * the matrix and the matcher read, and callers' source lines. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace/tracefile.h"
#include "trace/tracekinds.h"
#include "util/grow.h"


/* --- aggregates -------------------------------------------------------- */

typedef struct agg {
    trace_rec *v;
    size_t n, cap;
    int overflow;
} agg;

static void push(agg *a, int kind, int peer, int comm, int tag, uint64_t size)
{
    if (peer < 0 && !(trace_kind_class(kind) == TRACE_RECV && peer == TRACE_ANY) &&
        trace_kind_class(kind) != TRACE_COLL)
        return;   /* MPI_PROC_NULL, an untranslated rank */
    if (UTIL_GROW(a->v, a->n, a->cap, 256)) {
        a->overflow = -1;
        return;
    }
    a->v[a->n++] = (trace_rec){kind, peer, comm, tag, 0, size, 1, size};
}

static int rec_cmp(const void *pa, const void *pb)
{
    const trace_rec *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->peer != b->peer)
        return a->peer - b->peer;
    if (a->comm != b->comm)
        return a->comm - b->comm;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return (a->size_bytes > b->size_bytes) - (a->size_bytes < b->size_bytes);
}

/* The call that made request id (persistent or not), or NULL. */
static const trace_call *maker(const trace_call **made_by, int64_t nmade, int64_t id)
{
    return id > 0 && id < nmade ? made_by[id] : NULL;
}

int trace_rank_aggregate(trace_rank *r, const char *phase, trace_error *err)
{
    agg a = {0};
    int64_t nmade = 1;
    for (size_t i = 0; i < r->ncalls; i++)
        nmade = r->calls[i].made >= nmade ? r->calls[i].made + 1 : nmade;
    const trace_call **made_by = calloc((size_t)nmade, sizeof *made_by);
    trace_call *got = calloc(r->ncalls ? r->ncalls : 1, sizeof *got);   /* receive statuses */
    if (!made_by || !got) {
        free(made_by), free(got);
        return trace_error_set(err, r->path ? r->path : "trace", 0, "out of memory");
    }
    for (size_t i = 0; i < r->ncalls; i++) {
        const trace_call *c = &r->calls[i];
        if (trace_kind_class(c->kind) != TRACE_COMM && c->made > 0)
            made_by[c->made] = c;
        if (trace_kind_class(c->kind) != TRACE_WAIT)
            continue;
        for (size_t j = 0; j < c->ncomp; j++) {   /* a completed Irecv's status */
            const trace_completion *x = &r->comps[c->comp + j];
            const trace_call *m = maker(made_by, nmade, r->ids[c->list + (size_t)x->index]);
            if (m && m->kind == TRACE_K_IRECV && !got[m - r->calls].done)
                got[m - r->calls] = (trace_call){.done = 1, .r_src = x->src, .r_tag = x->tag,
                                                 .r_bytes = x->bytes};
        }
    }
    int phase_id = -2;
    for (int p = 0; phase && p < r->nphases; p++)
        if (strcmp(r->phases[p], phase) == 0)
            phase_id = p;
    for (size_t i = 0; i < r->ncalls; i++) {
        const trace_call *c = &r->calls[i];
        if (phase && c->phase != phase_id)
            continue;
        int cls = trace_kind_class(c->kind);
        const trace_call *g = c->kind == TRACE_K_IRECV ? &got[i] : c;
        if (c->kind == TRACE_K_SENDRECV) {
            push(&a, TRACE_K_SENDRECV, c->peer, c->comm, c->tag, c->bytes);
            if (c->done && c->r_src != TRACE_NO_RANK)
                push(&a, TRACE_K_SENDRECV_RECV, c->r_src, c->comm, c->r_tag, c->r_bytes);
            else
                push(&a, TRACE_K_SENDRECV_RECV, c->peer2, c->comm, c->tag2, c->bytes2);
        } else if (cls == TRACE_SEND || cls == TRACE_COLL) {
            push(&a, c->kind, c->peer, c->comm, c->tag, c->bytes);
        } else if (cls == TRACE_RECV) {
            if (g->done && g->r_src != TRACE_NO_RANK)
                push(&a, c->kind, g->r_src, c->comm, g->r_tag, g->r_bytes);
            else
                push(&a, c->kind, c->peer, c->comm, c->tag, c->bytes);
        } else if (cls == TRACE_COLL_DIRECT) {
            for (size_t j = 0; j < c->nlist; j++)
                push(&a, c->kind, (int)r->ids[c->list + 2 * j], c->comm, -1,
                     (uint64_t)r->ids[c->list + 2 * j + 1]);
        } else if (c->kind == TRACE_K_START) {
            for (size_t j = 0; j < c->nlist; j++) {
                const trace_call *m = maker(made_by, nmade, r->ids[c->list + j]);
                if (m)
                    push(&a, m->kind == TRACE_K_RECV_INIT ? TRACE_K_PRECV : TRACE_K_PSEND,
                         m->peer, m->comm, m->tag, m->bytes);
            }
        }
    }
    free(made_by), free(got);
    if (a.overflow) {
        free(a.v);
        return trace_error_set(err, r->path ? r->path : "trace", 0, "out of memory");
    }
    if (a.n)
        qsort(a.v, a.n, sizeof *a.v, rec_cmp);
    size_t out = 0;
    for (size_t i = 0; i < a.n; i++) {
        trace_rec *x = &a.v[i];
        if (out && rec_cmp(&a.v[out - 1], x) == 0) {
            trace_rec *y = &a.v[out - 1];
            if (__builtin_add_overflow(y->messages, x->messages, &y->messages) ||
                __builtin_add_overflow(y->bytes, x->bytes, &y->bytes)) {
                int kind = x->kind, peer = x->peer;
                free(a.v);
                return trace_error_set(err, r->path ? r->path : "trace", 0,
                            "the bytes of %s to or from rank %d exceed 2^64", trace_kind_name(kind),
                            peer);
            }
        } else {
            a.v[out++] = *x;
        }
    }
    free(r->recs);
    r->recs = a.v, r->nrecs = out;
    return 0;
}

/* --- directories ------------------------------------------------------- */

static int rank_of_name(const char *name)
{
    int rank, len = 0;
    if (sscanf(name, "rank-%d.trace%n", &rank, &len) != 1 || len == 0 || rank < 0 || name[len])
        return -1;
    return rank;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds rank file r (read from path, rank `want`) to d; frees r when it
 * does not belong.  The trace's date: path's mtime unless `dated`. */
static int add_rank(trace_rank *r, const char *path, int want, const char *phase, trace_dir *d,
                    time_t *newest, int dated, trace_error *err)
{
    struct stat sb;
    if (d->nranks == 0) {
        d->nranks = r->ranks;
        d->ranks = calloc((size_t)r->ranks, sizeof *d->ranks);
        d->loaded = calloc((size_t)r->ranks, 1);
        if (!d->ranks || !d->loaded) {
            trace_rank_free(r);
            return trace_error_set(err, path, 0, "out of memory");
        }
    }
    const trace_rank *first = NULL;
    for (int i = 0; i < d->nranks && !first; i++)
        first = d->loaded[i] ? &d->ranks[i] : NULL;
    int rc = 0;
    if (r->ranks != d->nranks)
        rc = trace_error_set(err, path, 4, "%d ranks, but other files of this trace say %d", r->ranks, d->nranks);
    else if (r->rank != want)
        rc = trace_error_set(err, path, 3, "rank %d does not match the file name", r->rank);
    else if (first && strcmp(first->run, r->run) != 0)
        rc = trace_error_set(err, path, 2, "run %s, but %s is of run %s: files of two runs in one directory",
                  r->run, first->path, first->run);
    else if (d->loaded[r->rank])
        rc = trace_error_set(err, path, 3, "a second rank %d", r->rank);
    if (rc) {
        trace_rank_free(r);
        return rc;
    }
    if (!dated && stat(path, &sb) == 0 && sb.st_mtime > *newest)
        *newest = sb.st_mtime;
    d->ranks[r->rank] = *r;
    d->loaded[r->rank] = 1;
    d->nloaded++;
    char *own = strdup(path);
    d->ranks[r->rank].path = own;
    if (!own || trace_rank_aggregate(&d->ranks[r->rank], phase, err) != 0)
        return own ? -1 : trace_error_set(err, path, 0, "out of memory");
    return 0;
}

static int load_one(const char *dir, const char *name, const char *phase, trace_dir *d,
                    time_t *newest, trace_error *err)
{
    char path[4096];
    trace_rank r;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (trace_rank_read(path, &r, err) != 0)
        return -1;
    return add_rank(&r, path, rank_of_name(name), phase, d, newest, 0, err);
}

/* One location's lines, for trace_rank_parse. */
typedef struct mem_lines {
    const char *s;
} mem_lines;

static ssize_t mem_next(void *src, char **buf, size_t *cap, trace_error *err)
{
    mem_lines *m = src;
    (void)err;
    size_t n = strcspn(m->s, "\n");
    if (!*m->s)
        return 0;
    n += m->s[n] == '\n';
    if (n + 1 > *cap) {
        char *g = realloc(*buf, n + 1);
        if (!g)
            return trace_error_set(err, "(memory)", 0, "out of memory");
        *buf = g, *cap = n + 1;
    }
    memcpy(*buf, m->s, n);
    (*buf)[n] = '\0';
    m->s += n;
    return (ssize_t)n;
}

/* The ranks of an OTF2 archive, each read as its rank file. */
static int load_otf2(const char *anchor, const char *phase, trace_dir *d, time_t *newest,
                     trace_error *err)
{
    trace_otf2_text t;
    if (trace_otf2_read(anchor, &t, err) != 0)
        return -1;
    int rc = t.n ? 0 : trace_error_set(err, anchor, 0, "an OTF2 archive without locations");
    for (int i = 0; i < t.n && rc == 0; i++) {
        char path[4300];
        trace_rank r;
        mem_lines m = {t.text[i]};
        snprintf(path, sizeof path, "%.4200s (location %d)", anchor, i);
        rc = trace_rank_parse(path, mem_next, &m, &r, err);
        time_t end = 0;   /* the date of the trace, not of the archive */
        for (size_t k = 0; rc == 0 && k < r.ncalls; k++) {
            int64_t t = r.calls[k].done ? r.calls[k].t_out : r.calls[k].t_in;
            time_t s = (time_t)((r.start_ns + t) / 1000000000);
            end = s > end ? s : end;
        }
        if (rc == 0)
            rc = add_rank(&r, anchor, r.rank, phase, d, newest, 1, err);
        if (rc == 0 && end > *newest)
            *newest = end;
        if (rc == 0) {   /* messages name the archive and the location */
            char *own = strdup(path);
            if (own) {
                free((char *)d->ranks[r.rank].path);
                d->ranks[r.rank].path = own;
            }
        }
    }
    trace_otf2_free(&t);
    return rc;
}

int trace_dir_load(const char *dir, const char *phase, trace_dir *d, trace_error *err)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    time_t newest = 0;
    memset(d, 0, sizeof *d);
    char anchor[4200];
    DIR *dp = NULL;
    if (trace_otf2_anchor(dir, anchor, sizeof anchor)) {
        if (load_otf2(anchor, phase && strcmp(phase, "all") ? phase : NULL, d, &newest, err) != 0)
            goto out;
        goto loaded;
    }
    dp = opendir(dir);
    if (!dp)
        return trace_error_set(err, dir, 0, "cannot open trace directory: %s", strerror(errno));
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        if (rank_of_name(e->d_name) < 0)
            continue;
        if (UTIL_GROW(names, n, cap, 64))
            goto out;
        if (!(names[n] = strdup(e->d_name)))
            goto out;
        n++;
    }
    if (n == 0) {
        trace_error_set(err, dir, 0, "no rank files (rank-NNNNN.trace) in this directory");
        goto out;
    }
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++)
        if (load_one(dir, names[i], phase && strcmp(phase, "all") ? phase : NULL, d, &newest,
                     err) != 0)
            goto out;
loaded:;
    int found = !phase || strcmp(phase, "all") == 0;
    for (int r = 0; r < d->nranks && !found; r++)
        for (int p = 0; d->loaded[r] && p < d->ranks[r].nphases; p++)
            found |= strcmp(d->ranks[r].phases[p], phase) == 0;
    if (!found) {
        trace_error_set(err, dir, 0, "no rank has a phase named '%s'", phase);
        goto out;
    }
    strftime(d->date, sizeof d->date, "%Y-%m-%d %H:%M UTC", gmtime(&newest));
    d->path = strdup(dir);
    rc = d->path ? 0 : trace_error_set(err, dir, 0, "out of memory");
out:
    if (rc && !err->msg[0])
        trace_error_set(err, dir, 0, "out of memory");
    if (dp)
        closedir(dp);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc != 0)
        trace_dir_free(d);
    return rc;
}

void trace_dir_free(trace_dir *d)
{
    for (int i = 0; i < d->nranks && d->ranks; i++)
        if (d->loaded[i]) {
            free((char *)d->ranks[i].path);
            trace_rank_free(&d->ranks[i]);
        }
    free(d->ranks);
    free(d->loaded);
    free(d->path);
    memset(d, 0, sizeof *d);
}

/* --- records that never completed --------------------------------------- */

int trace_dir_incomplete(const trace_dir *d, char *why, size_t cap)
{
    int n = 0;
    why[0] = '\0';
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        const trace_call *open = NULL;
        for (size_t i = 0; d->loaded[r] && i < t->ncalls && !open; i++)
            open = t->calls[i].done || t->calls[i].kind == TRACE_K_ABORT ? NULL : &t->calls[i];
        int killed = d->loaded[r] && (strncmp(t->status, "killed", 6) == 0 ||
                                      strncmp(t->status, "crashed", 7) == 0);
        if (d->loaded[r] && !t->ended_early && !killed && !open)
            continue;
        if (n++)
            continue;
        if (!d->loaded[r])
            snprintf(why, cap, "%s: rank %d left no rank file (rank-%05d.trace)", d->path, r, r);
        else if (open)
            snprintf(why, cap, "%s:%ld: rank %d's MPI_%c%s never returned (%s)", t->path, open->line,
                     r, trace_kind_name(open->kind)[0] - 32, trace_kind_name(open->kind) + 1,
                     t->ended_early ? "its log ended early" : t->status);
        else
            snprintf(why, cap, "%s: rank %d %s", t->path, r,
                     t->ended_early ? "ended early, without closing lines" : t->status);
    }
    return n;
}

int trace_dir_within(const trace_dir *d, uint64_t limit, trace_error *err)
{
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        for (size_t i = 0; d->loaded[r] && i < t->ncalls; i++) {
            const trace_call *c = &t->calls[i];
            int over = (uint64_t)c->t_in > limit || (uint64_t)c->t_out > limit ||
                       c->bytes > limit || c->bytes2 > limit || c->r_bytes > limit;
            for (size_t j = 0; trace_kind_class(c->kind) == TRACE_COLL_DIRECT && j < c->nlist; j++)
                over |= (uint64_t)t->ids[c->list + 2 * j + 1] > limit;
            if (over)
                return trace_error_set(err, t->path, c->line, "a time or size above %llu, more "
                                       "than a schedule holds", (unsigned long long)limit);
        }
    }
    return 0;
}

/* --- callers ----------------------------------------------------------- */

/* addr2line -f -C -e PATH 0xOFF: "function\nfile:line\n". */
void trace_where(const trace_rank *r, uint64_t addr, char *out, size_t cap)
{
    snprintf(out, cap, "0x%llx", (unsigned long long)addr);
    const trace_map *m = NULL;
    for (int i = 0; i < r->nmaps; i++)
        if (r->maps[i].base <= addr && (!m || r->maps[i].base > m->base))
            m = &r->maps[i];
    if (!m || addr == 0)
        return;
    char off[32], buf[1024] = "";
    snprintf(off, sizeof off, "0x%llx", (unsigned long long)(addr - m->base - 1));  /* the call */
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]), close(fd[1]);
        execlp("addr2line", "addr2line", "-f", "-C", "-e", m->path, off, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t k;
    while (pid > 0 && len + 1 < sizeof buf && (k = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = '\0';
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    char *nl = strchr(buf, '\n');
    if (!nl || strncmp(nl + 1, "??", 2) == 0)
        return;
    *nl = '\0';
    nl[1 + strcspn(nl + 1, "\n ")] = '\0';
    const char *file = strrchr(nl + 1, '/');
    snprintf(out, cap, "%s (%s)", file ? file + 1 : nl + 1, buf);
}
