/* tracefile: read one rank file (format: tracefile.h).  Every failure
 * names the file and the line. */
#include "trace/tracefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "trace/tracebin.h"
#include "trace/tracekinds.h"
#include "util/grow.h"

/* MPI_COMM_WORLD sizes we accept: more ranks than the largest machines run,
 * and a directory holds a trace_rank per rank, read or not. */
#define TRACE_MAX_RANKS (1 << 23)
#define MAX_PHASES 4096

int trace_error_set(trace_error *err, const char *path, long line, const char *fmt, ...)
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
    if (!((**s >= '0' && **s <= '9') || **s == '-'))
        return -1;
    errno = 0;
    long long v = strtoll(*s, &end, 10);
    if (end == *s || errno || v < min || v > max || (*end != ' ' && *end != '\n' && *end))
        return -1;
    *s = end;
    *out = v;
    return 0;
}

static int next_hex(char **s, uint64_t *out)
{
    char *end;
    while (**s == ' ')
        (*s)++;
    if (!((**s >= '0' && **s <= '9') || (**s >= 'a' && **s <= 'f')))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(*s, &end, 16);
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

/* The rest of the line, at most cap - 1 bytes, into a fresh *dst (freed
 * first); -1 when out of memory. */
static int text_rest(char **dst, size_t cap, const char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strcspn(s, "\n");
    n = n < cap ? n : cap - 1;
    free(*dst);
    if (!(*dst = malloc(n + 1)))
        return -1;
    memcpy(*dst, s, n);
    (*dst)[n] = '\0';
    return 0;
}

static void copy_rest(char *dst, size_t cap, const char *s)
{
    while (*s == ' ')
        s++;
    snprintf(dst, cap, "%s", s);
    dst[strcspn(dst, "\n")] = '\0';
}

typedef struct reader {
    trace_rank *r;
    size_t cap_calls, cap_ids, cap_comps;
    int open_call;            /* the last call has no return line yet */
} reader;

static int parse_comm(char *s, trace_rank *r, int inter)
{
    long long id, seq, n, w;
    uint64_t hash;
    if (next_int(&s, 0, INT32_MAX, &id) || id != r->ncomms || next_hex(&s, &hash) ||
        next_int(&s, 0, INT32_MAX, &seq) || next_int(&s, 1, r->ranks, &n))
        return -1;
    trace_comm *grown = realloc(r->comms, (size_t)(r->ncomms + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->comms = grown;
    trace_comm *c = &r->comms[r->ncomms];
    *c = (trace_comm){.n = (int)n, .seq = (int)seq, .hash = hash, .inter = inter,
                      .world = malloc((size_t)n * sizeof(int))};
    if (!c->world)
        return -1;
    r->ncomms++;
    for (long long i = 0; i < n; i++) {
        if (next_int(&s, 0, r->ranks - 1, &w))
            return -1;
        c->world[i] = (int)w;
    }
    /* an intracommunicator holds its own rank: the matcher and the replay
     * look this rank up in it */
    if (!inter && trace_comm_index(c, r->rank) < 0)
        return -1;
    return at_end(s) ? 0 : -1;
}

static int parse_phase(char *s, trace_rank *r)
{
    long long id;
    if (next_int(&s, 0, MAX_PHASES - 1, &id) || id != r->nphases)
        return -1;
    char (*g)[64] = realloc(r->phases, (size_t)(r->nphases + 1) * sizeof *g);
    if (!g)
        return -1;
    r->phases = g;
    copy_rest(r->phases[r->nphases], 64, s);
    if (!r->phases[r->nphases][0] || strchr(r->phases[r->nphases], ' '))
        return -1;
    r->nphases++;
    return 0;
}

static int peer_tag_bytes_from(char **s, const trace_rank *r, int lowest, int *peer, int *tag,
                               uint64_t *bytes)
{
    long long p, t, b;
    if (next_int(s, lowest, r->ranks - 1, &p) || next_int(s, INT32_MIN, INT32_MAX, &t) ||
        next_int(s, 0, (long long)TRACE_MAX_BYTES, &b))
        return -1;
    *peer = (int)p, *tag = (int)t, *bytes = (uint64_t)b;
    return 0;
}

static int peer_tag_bytes(char **s, const trace_rank *r, int *peer, int *tag, uint64_t *bytes)
{
    return peer_tag_bytes_from(s, r, TRACE_NO_RANK, peer, tag, bytes);
}

/* The optional " COUNT CODE[ CONTIG]" of a call (older traces have none). */
static int type_args(char **s, int64_t *count, uint32_t *code, int *contig)
{
    long long n, k;
    uint64_t x;
    if (at_end(*s))
        return 0;
    if (next_int(s, 0, INT32_MAX, &n) || next_hex(s, &x) || x > UINT32_MAX)
        return -1;
    *count = n, *code = (uint32_t)x;
    if (contig) {
        if (next_int(s, 0, 1, &k))
            return -1;
        *contig = (int)k;
    }
    return 0;
}

static int comm_arg(char **s, const trace_rank *r, int *comm)
{
    long long c;
    if (next_int(s, -1, r->ncomms - 1, &c))
        return -1;
    *comm = (int)c;
    return 0;
}

/* "N ID..." or "K (PEER BYTES)..." into r->ids. */
static int id_list(char **s, reader *rd, trace_call *c, int pairs)
{
    trace_rank *r = rd->r;
    long long n, v;
    if (next_int(s, 0, INT32_MAX, &n))
        return -1;
    c->list = r->nids, c->nlist = (size_t)n;
    for (long long i = 0; i < n * (pairs ? 2 : 1); i++) {
        int odd = pairs && i % 2;
        if (next_int(s, odd ? 0 : (pairs ? TRACE_NO_RANK : 0),
                     odd ? (long long)TRACE_MAX_BYTES : (pairs ? r->ranks - 1 : INT64_MAX), &v) ||
            UTIL_GROW(r->ids, r->nids, rd->cap_ids, 64))
            return -1;
        r->ids[r->nids++] = v;
    }
    return 0;
}

/* What MPI itself refuses: a send to MPI_ANY_SOURCE or with a negative
 * tag, a receive with a tag below MPI_ANY_TAG. */
static int args_valid(const trace_call *c)
{
    int cls = trace_kind_class(c->kind);
    int send = cls == TRACE_SEND || (cls == TRACE_REQ && c->kind != TRACE_K_RECV_INIT &&
                                     c->kind != TRACE_K_START && c->kind != TRACE_K_REQUEST_FREE);
    int recv = cls == TRACE_RECV || cls == TRACE_PROBE || c->kind == TRACE_K_RECV_INIT;
    if (send && (c->peer == TRACE_ANY || c->tag < 0))
        return 0;
    if (recv && c->tag < TRACE_ANY)
        return 0;
    return c->kind != TRACE_K_SENDRECV || c->tag2 >= TRACE_ANY;
}

/* A status: a message from a rank has that message's tag. */
static int status_valid(int src, int tag)
{
    return src < 0 || tag >= 0;
}

static int parse_enter(char *s, reader *rd)
{
    trace_rank *r = rd->r;
    char name[40];
    int len = 0;
    long long t, ph;
    if (UTIL_GROW(r->calls, r->ncalls, rd->cap_calls, 64))
        return -1;
    trace_call *c = &r->calls[r->ncalls];
    memset(c, 0, sizeof *c);
    if (next_int(&s, 0, INT64_MAX, &t) || next_int(&s, 0, r->nphases - 1, &ph) ||
        sscanf(s, " %39[a-z_]%n", name, &len) != 1 || (c->kind = trace_kind_from_name(name)) < 0 ||
        !trace_kind_is_call(c->kind))
        return -1;
    s += len;
    if (next_hex(&s, &c->addr))
        return -1;
    c->t_in = t, c->phase = (int)ph, c->comm = -1, c->peer = TRACE_ANY, c->r_src = TRACE_NO_RANK;
    c->count = c->count2 = -1, c->contig = -1;
    int rc = 0;
    long long v = -1;
    switch (trace_kind_class(c->kind)) {
    case TRACE_SEND:
    case TRACE_RECV:
    case TRACE_PROBE:
        rc = comm_arg(&s, r, &c->comm) || peer_tag_bytes(&s, r, &c->peer, &c->tag, &c->bytes);
        if (!rc && c->kind == TRACE_K_SENDRECV)
            rc = peer_tag_bytes(&s, r, &c->peer2, &c->tag2, &c->bytes2);
        if (!rc && c->kind != TRACE_K_PROBE && c->kind != TRACE_K_IPROBE)
            rc = type_args(&s, &c->count, &c->dtype, &c->contig);
        if (!rc && c->kind == TRACE_K_SENDRECV && c->count >= 0)
            rc = type_args(&s, &c->count2, &c->dtype2, NULL) || c->count2 < 0;
        break;
    case TRACE_REQ:
        if (c->kind == TRACE_K_START || c->kind == TRACE_K_REQUEST_FREE)
            rc = id_list(&s, rd, c, 0);
        else
            rc = comm_arg(&s, r, &c->comm) || peer_tag_bytes(&s, r, &c->peer, &c->tag, &c->bytes) ||
                 type_args(&s, &c->count, &c->dtype, &c->contig);
        break;
    case TRACE_WAIT: rc = id_list(&s, rd, c, 0); break;
    case TRACE_COLL:
    case TRACE_COLL_DIRECT:
    case TRACE_ICOLL:
        rc = comm_arg(&s, r, &c->comm) || next_int(&s, -1, r->ranks - 1, &v) ||
             (trace_kind_class(c->kind) != TRACE_COLL_DIRECT
                  ? next_int(&s, 0, (long long)TRACE_MAX_BYTES, (long long *)&c->bytes)
                  : id_list(&s, rd, c, 1));
        c->peer = (int)v, c->tag2 = -1;   /* the operation: unknown until read */
        if (!rc && !at_end(s))   /* a collective's op is kept in tag2 */
            rc = type_args(&s, &c->count, &c->dtype, &c->contig) ||
                 next_int(&s, 0, TRACE_OP_USER, &v) || (c->tag2 = (int)v, 0);
        break;
    case TRACE_COMM: rc = comm_arg(&s, r, &c->comm); break;
    case TRACE_LIFE:
        if (c->kind == TRACE_K_ABORT)
            rc = comm_arg(&s, r, &c->comm) || next_int(&s, INT32_MIN, INT32_MAX, &v);
        break;
    }
    if (rc || !at_end(s) || !args_valid(c))
        return -1;
    r->ncalls++;
    rd->open_call = 1;
    return 0;
}

static int parse_exit(char *s, reader *rd)
{
    trace_rank *r = rd->r;
    long long t, v, k;
    if (!rd->open_call)
        return -1;
    trace_call *c = &r->calls[r->ncalls - 1];
    if (next_int(&s, c->t_in, INT64_MAX, &t))
        return -1;
    c->t_out = t, c->done = 1, rd->open_call = 0;
    int cls = trace_kind_class(c->kind), rc = 0;
    if (c->kind == TRACE_K_IPROBE) {
        rc = next_int(&s, 0, 1, &v);
        c->flag = (int)v;
        if (!rc && c->flag)
            rc = peer_tag_bytes(&s, r, &c->r_src, &c->r_tag, &c->r_bytes) ||
                 !status_valid(c->r_src, c->r_tag);
    } else if (c->kind == TRACE_K_RECV || c->kind == TRACE_K_SENDRECV || c->kind == TRACE_K_PROBE) {
        if (!at_end(s))   /* no status: the call failed */
            rc = peer_tag_bytes(&s, r, &c->r_src, &c->r_tag, &c->r_bytes) ||
                 !status_valid(c->r_src, c->r_tag);
    } else if (c->kind == TRACE_K_ISEND || c->kind == TRACE_K_IBSEND || c->kind == TRACE_K_ISSEND ||
               c->kind == TRACE_K_IRSEND || c->kind == TRACE_K_IRECV || cls == TRACE_ICOLL ||
               (cls == TRACE_REQ && c->kind != TRACE_K_START && c->kind != TRACE_K_REQUEST_FREE)) {
        /* ids count this rank's request-making calls from 1: a larger one
         * is garbage, and the aggregates size a table by the largest */
        rc = next_int(&s, 0, (long long)r->ncalls, &v);
        c->made = v;
    } else if (cls == TRACE_COMM && c->kind != TRACE_K_COMM_FREE) {
        rc = next_int(&s, -1, r->ncomms - 1, &v);
        c->made = v;
    } else if (cls == TRACE_WAIT) {
        rc = next_int(&s, 0, (long long)c->nlist, &k);
        c->comp = r->ncomps, c->ncomp = (size_t)k;
        for (long long j = 0; !rc && j < k; j++) {
            trace_completion x;
            rc = next_int(&s, 0, (long long)c->nlist - 1, &v) ||
                 peer_tag_bytes_from(&s, r, TRACE_CANCELLED, &x.src, &x.tag, &x.bytes) ||
                 !status_valid(x.src, x.tag) ||
                 UTIL_GROW(r->comps, r->ncomps, rd->cap_comps, 64);
            x.index = (int)v;
            if (!rc)
                r->comps[r->ncomps++] = x;
        }
    }
    return rc || !at_end(s) ? -1 : 0;
}

/* Header lines, in order. */
static const char *const header_keys[] = {"", "run", "rank", "ranks", "host", "command",
                                          "start_ns"};
#define HEADER_LINES 7

static int parse_header(long line, char *s, trace_rank *r)
{
    size_t n = strlen(header_keys[line - 1]);
    long long v;
    if (strncmp(s, header_keys[line - 1], n) || s[n] != ' ')
        return -1;
    s += n;
    switch (line) {
    case 2: return text_rest(&r->run, TRACE_RUN_MAX, s) || !r->run[0] ? -1 : 0;
    case 3: return next_int(&s, 0, TRACE_MAX_RANKS, &v) || !at_end(s) ? -1 : (r->rank = (int)v, 0);
    case 4: if (next_int(&s, 1, TRACE_MAX_RANKS, &v) || !at_end(s) || v <= r->rank)
                return -1;
            r->ranks = (int)v;
            return 0;
    case 5: return text_rest(&r->host, TRACE_HOST_MAX, s);
    case 6: return text_rest(&r->command, TRACE_COMMAND_MAX, s);
    case 7: return next_int(&s, 0, INT64_MAX, &v) || !at_end(s) ? -1 : (r->start_ns = v, 0);
    }
    return -1;
}

static int parse_map(char *s, trace_rank *r)
{
    uint64_t base;
    if (next_hex(&s, &base))
        return -1;
    while (*s == ' ')
        s++;
    trace_map *g = realloc(r->maps, (size_t)(r->nmaps + 1) * sizeof *g);
    if (!g)
        return -1;
    r->maps = g;
    s[strcspn(s, "\n")] = '\0';
    if (*s != '/' || !(g[r->nmaps].path = strdup(s)))
        return -1;
    g[r->nmaps++].base = base;
    return 0;
}

/* "cart D N1 .. ND P1 .. PD": the first one is kept. */
static int parse_cart(char *s, trace_rank *r)
{
    long long d, v[32];
    if (next_int(&s, 1, 16, &d))
        return -1;
    for (long long i = 0; i < 2 * d; i++)
        if (next_int(&s, i < d ? 1 : 0, i < d ? INT32_MAX : 1, &v[i]))
            return -1;
    if (!at_end(s))
        return -1;
    if (r->cart_dims)
        return 0;
    if (!(r->cart_n = malloc((size_t)d * sizeof *r->cart_n)))
        return -1;
    r->cart_dims = (int)d;
    for (long long i = 0; i < d; i++)
        r->cart_n[i] = (int)v[i], r->cart_periodic |= (unsigned)v[d + i] << i;
    return 0;
}

/* One body line; returns 0, -1 (malformed), 1 (the closing end line). */
static int parse_line(char *buf, long line, reader *rd, long *status_line)
{
    trace_rank *r = rd->r;
    if (strncmp(buf, "> ", 2) == 0)
        return parse_enter(buf + 1, rd);
    if (strncmp(buf, "< ", 2) == 0)
        return parse_exit(buf + 1, rd);
    if (*status_line) {
        long long v;
        char *s = buf + 3;
        return strncmp(buf, "end ", 4) || next_int(&s, 0, INT64_MAX, &v) || !at_end(s) ||
               v != line - 1 ? -1 : 1;
    }
    if (strncmp(buf, "comm ", 5) == 0)
        return parse_comm(buf + 4, r, 0);
    if (strncmp(buf, "icomm ", 6) == 0)
        return parse_comm(buf + 5, r, 1);
    if (strncmp(buf, "phase ", 6) == 0)
        return parse_phase(buf + 5, r);
    if (strncmp(buf, "cart ", 5) == 0)
        return parse_cart(buf + 4, r);
    if (strncmp(buf, "map ", 4) == 0 && r->ncalls == 0 && r->ncomms == 0)
        return parse_map(buf + 3, r);
    if (strncmp(buf, "mpi ", 4) == 0 && r->ncalls == 0 && r->ncomms == 0 && r->nmaps == 0) {
        return text_rest(&r->mpi, TRACE_MPI_MAX, buf + 4);
    }
    if (strncmp(buf, "status ", 7) == 0) {
        if (text_rest(&r->status, TRACE_STATUS_MAX, buf + 7) != 0)
            return -1;
        *status_line = line;
        return r->status[0] ? 0 : -1;
    }
    return -1;
}

/* Reads operations that move nothing as such (see tracefile.h). */
static int normalise(trace_rank *r, const char *path, trace_error *err)
{
    int64_t nmade = 1;
    for (size_t i = 0; i < r->ncalls; i++)
        if (trace_kind_class(r->calls[i].kind) != TRACE_COMM && r->calls[i].made >= nmade)
            nmade = r->calls[i].made + 1;
    size_t *made_by = calloc((size_t)nmade, sizeof *made_by);
    if (!made_by)
        return trace_error_set(err, path, 0, "out of memory");
    for (size_t i = 0; i < r->ncalls; i++) {
        trace_call *c = &r->calls[i];
        int cls = trace_kind_class(c->kind);
        if ((cls == TRACE_SEND || cls == TRACE_RECV) && c->made > 0)
            made_by[c->made] = i + 1;   /* Isend..Irecv: not the persistent ones */
        for (size_t j = 0; cls == TRACE_WAIT && j < c->ncomp; j++) {
            trace_completion *x = &r->comps[c->comp + j];
            int64_t id = r->ids[c->list + (size_t)x->index];
            if (x->src != TRACE_CANCELLED)
                continue;
            x->src = TRACE_PROC_NULL;
            if (id > 0 && id < nmade && made_by[id]) {
                trace_call *m = &r->calls[made_by[id] - 1];
                m->peer = TRACE_PROC_NULL, m->cancelled = 1;
            }
        }
        c->buffered = c->kind == TRACE_K_BSEND || c->kind == TRACE_K_IBSEND;
        if (c->kind == TRACE_K_SENDRECV && c->peer == TRACE_NO_RANK)
            c->peer = TRACE_PROC_NULL;   /* as a Send to it: no analyzer can place it */
        /* a receive from a rank the library could not name: from any, its
         * status (when there is one) saying from whom */
        if ((cls == TRACE_RECV || c->kind == TRACE_K_RECV_INIT) && c->peer == TRACE_NO_RANK)
            c->peer = TRACE_ANY;
        if (c->kind == TRACE_K_SENDRECV && c->peer2 == TRACE_NO_RANK)
            c->peer2 = TRACE_ANY;
        if (c->kind == TRACE_K_SENDRECV && c->peer2 == TRACE_PROC_NULL) {
            c->kind = TRACE_K_SEND;
            c->r_src = TRACE_NO_RANK;
        } else if (c->kind == TRACE_K_SENDRECV && c->peer == TRACE_PROC_NULL) {
            c->kind = TRACE_K_RECV;
            c->peer = c->peer2, c->tag = c->tag2, c->bytes = c->bytes2;
            c->count = c->count2, c->dtype = c->dtype2, c->contig = -1;
        }
    }
    free(made_by);
    return 0;
}

int trace_lines_open(trace_lines *l, const char *path, trace_error *err)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    if (!(l->fp = file_open_input(path)))
        return trace_error_set(err, path, 0, "%s", strerror(errno));
    /* binary (what the library writes) or text (`scitrace dump`, older traces) */
    l->binary = tracebin_is(l->fp);
    if (l->binary && tracebin_open(&l->bin, l->fp) != 0) {
        trace_lines_close(l);
        return trace_error_set(err, path, 0, "out of memory");
    }
    return 0;
}

ssize_t trace_lines_next(void *src, char **buf, size_t *cap, trace_error *err)
{
    trace_lines *l = src;
    ssize_t len = l->binary ? tracebin_line(&l->bin, buf, cap) : getline(buf, cap, l->fp);
    if (len < 0 && l->binary)
        return trace_error_set(err, l->path, 0, "record at byte %llu (after line %ld): %s",
                               (unsigned long long)l->bin.off, l->line,
                               l->bin.why[0] ? l->bin.why : "out of memory");
    if (len < 0 && ferror(l->fp))
        return trace_error_set(err, l->path, 0, "read error: %s", strerror(errno));
    l->line += len > 0;
    return len < 0 ? 0 : len;
}

void trace_lines_close(trace_lines *l)
{
    if (l->binary)
        tracebin_close(&l->bin);
    if (l->fp)
        fclose(l->fp);
    memset(l, 0, sizeof *l);
}

int trace_rank_read(const char *path, trace_rank *r, trace_error *err)
{
    trace_lines l;
    memset(r, 0, sizeof *r);
    if (trace_lines_open(&l, path, err) != 0)
        return -1;
    int rc = trace_rank_parse(path, trace_lines_next, &l, r, err);
    trace_lines_close(&l);
    return rc;
}

int trace_rank_parse(const char *path, trace_line_fn next, void *src, trace_rank *r,
                     trace_error *err)
{
    char *buf = NULL;
    size_t bufcap = 0;
    long line = 0, status_line = 0;
    int rc = -1, closed = 0;
    ssize_t len;
    reader rd = {.r = r};
    memset(r, 0, sizeof *r);
    err->msg[0] = '\0';
    while ((len = next(src, &buf, &bufcap, err)) > 0) {
        /* the zero-filled rest of the last window, or a last line cut
         * short: the rank ended there */
        if (buf[0] == '\0' || buf[len - 1] != '\n' || strlen(buf) != (size_t)len)
            break;
        line++;
        if (closed) {
            trace_error_set(err, path, line, "text after the closing 'end' line");
            goto out;
        }
        if (line == 1) {
            if (strcmp(buf, TRACE_FILE_MAGIC "\n") != 0) {
                trace_error_set(err, path, 1, "not a scitrace rank file of this version (no '%s' line)",
                     TRACE_FILE_MAGIC);
                goto out;
            }
        } else if (line <= HEADER_LINES) {
            if (parse_header(line, buf, r) != 0) {
                trace_error_set(err, path, line, "expected a valid '%s' line", header_keys[line - 1]);
                goto out;
            }
        } else {
            int p = parse_line(buf, line, &rd, &status_line);
            if (p < 0) {
                trace_error_set(err, path, line, "malformed line '%.60s'", strtok(buf, "\n"));
                goto out;
            }
            if (r->ncalls && r->calls[r->ncalls - 1].line == 0 && buf[0] == '>')
                r->calls[r->ncalls - 1].line = line;
            closed = p == 1;
        }
    }
    if (len < 0)
        ;   /* err says why */
    else if (line <= HEADER_LINES)
        trace_error_set(err, path, line, "%s", line == 0 ? "empty file (not a scitrace rank file)"
                                              : "the header is cut short");
    else if (r->ncomms == 0 || r->nphases == 0)
        trace_error_set(err, path, 0, "no communicator or phase lines");
    else if (status_line && !closed)
        trace_error_set(err, path, status_line, "a 'status' line without the closing 'end' line after it");
    else if (r->status && strncmp(r->status, "unsupported", 11) == 0)
        trace_error_set(err, path, status_line, "not traced: %s (scitrace records the MPI calls "
                        "of one thread at a time)", r->status + 11 + (r->status[11] == ' '));
    else if (!closed && text_rest(&r->status, TRACE_STATUS_MAX, "ended-early") != 0)
        trace_error_set(err, path, 0, "out of memory");
    else
        rc = normalise(r, path, err);
    r->ended_early = !closed;
out:
    free(buf);
    if (rc != 0)
        trace_rank_free(r);
    return rc;
}

void trace_rank_free(trace_rank *r)
{
    free(r->run), free(r->status), free(r->host), free(r->command), free(r->mpi);
    for (int i = 0; i < r->ncomms; i++)
        free(r->comms[i].world);
    for (int i = 0; i < r->nmaps; i++)
        free(r->maps[i].path);
    free(r->comms);
    free(r->maps);
    free(r->phases);
    free(r->calls);
    free(r->ids);
    free(r->comps);
    free(r->recs);
    free(r->cart_n);
    memset(r, 0, sizeof *r);
}

int trace_comm_index(const trace_comm *c, int w)
{
    for (int i = 0; i < c->n; i++)
        if (c->world[i] == w)
            return i;
    return -1;
}
