/* tracefile: read rank files and trace directories (format: tracefile.h).
 * Every failure names the file and the line. */
#include "trace/tracefile.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/atomicfile.h"
#include "trace/tracekinds.h"

/* MPI_COMM_WORLD sizes we accept: far above any run, far below int limits. */
#define TRACE_MAX_RANKS (1 << 24)

static int fail(trace_error *err, const char *path, long line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(err->msg, sizeof err->msg, "%s:%ld: %s", path, line, what);
    else
        snprintf(err->msg, sizeof err->msg, "%s: %s", path, what);
    return -1;
}

/* Parses a decimal integer token in [min, max]; advances *s. */
static int next_int(char **s, long long min, long long max, long long *out)
{
    char *end;
    while (**s == ' ')
        (*s)++;
    if (**s == '\0' || **s == '\n')
        return -1;
    errno = 0;
    long long v = strtoll(*s, &end, 10);
    if (end == *s || errno || v < min || v > max || (*end != ' ' && *end != '\n' && *end))
        return -1;
    *s = end;
    *out = v;
    return 0;
}

static int next_u64(char **s, uint64_t *out)
{
    char *end;
    while (**s == ' ')
        (*s)++;
    if (!(**s >= '0' && **s <= '9'))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(*s, &end, 10);
    if (errno || (*end != ' ' && *end != '\n' && *end))
        return -1;
    *s = end;
    *out = v;
    return 0;
}

static int at_end(const char *s)
{
    while (*s == ' ')
        s++;
    return *s == '\0' || *s == '\n';
}

static void copy_rest(char *dst, size_t cap, const char *s)
{
    while (*s == ' ')
        s++;
    snprintf(dst, cap, "%s", s);
    dst[strcspn(dst, "\n")] = '\0';
}

static int parse_comm(char *s, trace_rank *r)
{
    long long id, seq, n, w;
    char *end;
    if (next_int(&s, 0, INT32_MAX, &id) || id != r->ncomms)
        return -1;
    while (*s == ' ')
        s++;
    errno = 0;
    unsigned long long hash = strtoull(s, &end, 16);
    if (end == s || errno || *end != ' ')
        return -1;
    s = end;
    if (next_int(&s, 0, INT32_MAX, &seq) || next_int(&s, 0, r->ranks, &n) || n < 1)
        return -1;
    trace_comm *grown = realloc(r->comms, (size_t)(r->ncomms + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->comms = grown;
    trace_comm *c = &r->comms[r->ncomms];
    *c = (trace_comm){.n = (int)n, .seq = (int)seq, .hash = hash,
                      .world = malloc((size_t)n * sizeof(int))};
    if (!c->world)
        return -1;
    r->ncomms++;
    for (long long i = 0; i < n; i++) {
        if (next_int(&s, 0, r->ranks - 1, &w))
            return -1;
        c->world[i] = (int)w;
    }
    return at_end(s) ? 0 : -1;
}

static int parse_rec(char *s, trace_rank *r, size_t *cap)
{
    char name[40];
    int len = 0;
    long long peer, comm, tag, folded;
    trace_rec x;
    if (sscanf(s, " %39[a-z_]%n", name, &len) != 1 || (x.kind = trace_kind_from_name(name)) < 0)
        return -1;
    s += len;
    if (next_int(&s, -1, r->ranks - 1, &peer) || next_int(&s, 0, r->ncomms - 1, &comm) ||
        next_int(&s, INT32_MIN, INT32_MAX, &tag) || next_u64(&s, &x.size_bytes) ||
        next_u64(&s, &x.messages) || next_u64(&s, &x.bytes) || next_int(&s, 0, 1, &folded) ||
        !at_end(s))
        return -1;
    x.peer = (int)peer, x.comm = (int)comm, x.tag = (int)tag, x.folded = (int)folded;
    if (r->nrecs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        trace_rec *grown = realloc(r->recs, ncap * sizeof *grown);
        if (!grown)
            return -1;
        r->recs = grown, *cap = ncap;
    }
    r->recs[r->nrecs++] = x;
    return 0;
}

/* Header lines, in order: keyword and how to read the rest. */
static int parse_header(long line, char *s, trace_rank *r)
{
    long long v;
    uint64_t a, b;
    switch (line) {
    case 2: return strncmp(s, "rank ", 5) == 0 && (s += 4, !next_int(&s, 0, TRACE_MAX_RANKS, &v))
                       ? (r->rank = (int)v, 0) : -1;
    case 3: if (strncmp(s, "ranks ", 6) || (s += 5, next_int(&s, 1, TRACE_MAX_RANKS, &v)) ||
                v <= r->rank)
                return -1;
            r->ranks = (int)v;
            return 0;
    case 4: return strncmp(s, "status ", 7) ? -1 : (copy_rest(r->status, sizeof r->status, s + 7), 0);
    case 5: return strncmp(s, "host ", 5) ? -1 : (copy_rest(r->host, sizeof r->host, s + 5), 0);
    case 6: return strncmp(s, "command ", 8) ? -1 : (copy_rest(r->command, sizeof r->command, s + 8), 0);
    case 7: if (strncmp(s, "table ", 6) || (s += 5, next_u64(&s, &a)) || next_u64(&s, &b))
                return -1;
            r->table_used = (unsigned)a, r->table_cap = (unsigned)b;
            return 0;
    case 8: if (strncmp(s, "dropped ", 8) || (s += 7, next_u64(&s, &a)) || next_u64(&s, &b))
                return -1;
            r->dropped_messages = a, r->dropped_bytes = b;
            return 0;
    case 9: return strncmp(s, "untraced_starts ", 16) || (s += 15, next_u64(&s, &r->untraced_starts))
                   ? -1 : 0;
    }
    return -1;
}

int trace_rank_read(const char *path, trace_rank *r, trace_error *err)
{
    static const char *const header_names[] = {"", "", "rank", "ranks", "status", "host",
                                               "command", "table", "dropped", "untraced_starts"};
    FILE *fp = file_open_input(path);
    char *buf = NULL;
    size_t bufcap = 0, reccap = 0;
    long line = 0, end_count = -1;
    int rc = -1;
    memset(r, 0, sizeof *r);
    if (!fp)
        return fail(err, path, 0, "%s", strerror(errno));
    while (getline(&buf, &bufcap, fp) > 0) {
        line++;
        if (end_count >= 0) {
            fail(err, path, line, "text after the closing 'end' line");
            goto out;
        }
        if (line == 1) {
            if (strncmp(buf, TRACE_FILE_MAGIC, strlen(TRACE_FILE_MAGIC)) != 0 ||
                !at_end(buf + strlen(TRACE_FILE_MAGIC))) {
                fail(err, path, 1, "not a scitrace rank file (no '%s' line)", TRACE_FILE_MAGIC);
                goto out;
            }
        } else if (line < 10) {
            if (parse_header(line, buf, r) != 0) {
                fail(err, path, line, "expected a valid '%s' line", header_names[line]);
                goto out;
            }
        } else if (strncmp(buf, "comm ", 5) == 0) {
            if (r->nrecs || parse_comm(buf + 4, r) != 0) {
                fail(err, path, line, "malformed 'comm' line");
                goto out;
            }
        } else if (strncmp(buf, "rec ", 4) == 0) {
            if (parse_rec(buf + 3, r, &reccap) != 0) {
                fail(err, path, line, "malformed 'rec' line");
                goto out;
            }
        } else if (strncmp(buf, "end ", 4) == 0) {
            char *s = buf + 3;
            long long v;
            if (next_int(&s, 0, INT64_MAX, &v) || !at_end(s) || v != line - 1) {
                fail(err, path, line, "'end' line does not count the %ld lines before it", line - 1);
                goto out;
            }
            end_count = v;
        } else {
            fail(err, path, line, "unknown line '%.40s'", strtok(buf, "\n"));
            goto out;
        }
    }
    if (ferror(fp))
        fail(err, path, 0, "read error: %s", strerror(errno));
    else if (line == 0)
        fail(err, path, 0, "empty file (not a scitrace rank file)");
    else if (end_count < 0)
        fail(err, path, line, "truncated: no closing 'end' line after line %ld", line);
    else if (r->ncomms == 0)
        fail(err, path, 0, "no communicator lines");
    else
        rc = 0;
out:
    free(buf);
    fclose(fp);
    if (rc != 0)
        trace_rank_free(r);
    return rc;
}

void trace_rank_free(trace_rank *r)
{
    for (int i = 0; i < r->ncomms; i++)
        free(r->comms[i].world);
    free(r->comms);
    free(r->recs);
    memset(r, 0, sizeof *r);
}

int trace_comm_index(const trace_comm *c, int w)
{
    for (int i = 0; i < c->n; i++)
        if (c->world[i] == w)
            return i;
    return -1;
}

/* --- directories ------------------------------------------------------- */

/* Rank of a file name "rank-NNNNN.trace" (partial: "rank-NNNNN.trace.tmp.*"),
 * or -1. */
static int rank_of_name(const char *name, int *partial)
{
    int rank, len = 0;
    if (sscanf(name, "rank-%d.trace%n", &rank, &len) != 1 || len == 0 || rank < 0)
        return -1;
    *partial = name[len] != '\0';
    return *partial && strncmp(name + len, ".tmp.", 5) ? -1 : rank;
}

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static int list_add(name_list *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **g = realloc(l->names, cap * sizeof *g);
        if (!g)
            return -1;
        l->names = g, l->cap = cap;
    }
    return (l->names[l->n++] = strdup(s)) ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_files(const char *dir, name_list *files, trace_dir *d, trace_error *err)
{
    char path[4096];
    time_t newest = 0;
    for (size_t i = 0; i < files->n; i++) {
        trace_rank r;
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, files->names[i]);
        if (trace_rank_read(path, &r, err) != 0)
            return -1;
        if (d->nranks == 0) {
            d->nranks = r.ranks;
            d->ranks = calloc((size_t)r.ranks, sizeof *d->ranks);
            d->loaded = calloc((size_t)r.ranks, 1);
            d->partial = calloc((size_t)r.ranks, 1);
            if (!d->ranks || !d->loaded || !d->partial) {
                trace_rank_free(&r);
                return fail(err, path, 0, "out of memory");
            }
        }
        int partial = 0, name_rank = rank_of_name(files->names[i], &partial);
        if (r.ranks != d->nranks || r.rank != name_rank || d->loaded[r.rank]) {
            int ranks = r.ranks, rank = r.rank;
            trace_rank_free(&r);
            if (ranks != d->nranks)
                return fail(err, path, 3, "%d ranks, but other files of this trace say %d",
                            ranks, d->nranks);
            return fail(err, path, 2, rank != name_rank ? "rank %d does not match the file name"
                                                        : "a second file for rank %d", rank);
        }
        if (stat(path, &sb) == 0 && sb.st_mtime > newest)
            newest = sb.st_mtime;
        d->ranks[r.rank] = r;
        d->loaded[r.rank] = 1;
        d->nloaded++;
    }
    strftime(d->date, sizeof d->date, "%Y-%m-%d %H:%M UTC", gmtime(&newest));
    return 0;
}

int trace_dir_load(const char *dir, trace_dir *d, trace_error *err)
{
    name_list files = {0}, partials = {0};
    int rc = -1;
    memset(d, 0, sizeof *d);
    DIR *dp = opendir(dir);
    if (!dp)
        return fail(err, dir, 0, "cannot open trace directory: %s", strerror(errno));
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        int partial, rank = rank_of_name(e->d_name, &partial);
        if (rank >= 0 && list_add(partial ? &partials : &files, e->d_name) != 0) {
            fail(err, dir, 0, "out of memory");
            goto out;
        }
    }
    if (files.n == 0) {
        fail(err, dir, 0, "no rank files (rank-NNNNN.trace) in this directory%s",
             partials.n ? "; only unfinished ones: every rank ended before MPI_Finalize" : "");
        goto out;
    }
    qsort(files.names, files.n, sizeof *files.names, by_name);
    if (load_files(dir, &files, d, err) != 0)
        goto out;
    for (size_t i = 0; i < partials.n; i++) {
        int partial, rank = rank_of_name(partials.names[i], &partial);
        if (rank < d->nranks && !d->loaded[rank])
            d->partial[rank] = 1;
    }
    d->path = strdup(dir);
    rc = d->path ? 0 : fail(err, dir, 0, "out of memory");
out:
    closedir(dp);
    for (size_t i = 0; i < files.n; i++)
        free(files.names[i]);
    for (size_t i = 0; i < partials.n; i++)
        free(partials.names[i]);
    free(files.names);
    free(partials.names);
    if (rc != 0)
        trace_dir_free(d);
    return rc;
}

void trace_dir_free(trace_dir *d)
{
    for (int i = 0; i < d->nranks && d->ranks; i++)
        if (d->loaded[i])
            trace_rank_free(&d->ranks[i]);
    free(d->ranks);
    free(d->loaded);
    free(d->partial);
    free(d->path);
    memset(d, 0, sizeof *d);
}
