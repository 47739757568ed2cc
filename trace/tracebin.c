/* tracebin: decode a binary rank file (trace/tracebin.h) into the text
 * lines of trace/tracefile.h, one at a time.  The text parser checks what
 * the lines say; this file checks only the records' framing. */
#include "trace/tracebin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/tracekinds.h"

int tracebin_is(FILE *fp)
{
    char m[TRACEBIN_MAGIC_LEN];
    if (fread(m, 1, sizeof m, fp) == sizeof m &&
        (memcmp(m, TRACEBIN_MAGIC, sizeof m) == 0 || memcmp(m, TRACEBIN_MAGIC_V3, sizeof m) == 0))
        return 1;
    rewind(fp);
    return 0;
}

int tracebin_open(tracebin *b, FILE *fp)
{
    struct stat st;
    memset(b, 0, sizeof *b);
    b->fp = fp;
    b->off = TRACEBIN_MAGIC_LEN;
    b->mult = (uint64_t)1 << 32;   /* ticks of 1 ns until an S record (all of version 3) */
    b->last_ns = INT64_MIN;
    b->size = fstat(fileno(fp), &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
    b->defs = calloc(TRACEBIN_SLOTS, sizeof *b->defs);
    b->res = calloc(TRACEBIN_SLOTS, sizeof *b->res);
    return b->defs && b->res ? 0 : -1;
}

void tracebin_close(tracebin *b)
{
    for (int i = 0; b->defs && i < TRACEBIN_SLOTS; i++)
        free(b->defs[i].w);
    for (int i = 0; b->res && i < TRACEBIN_SLOTS; i++)
        free(b->res[i].w);
    free(b->defs), free(b->res);
    memset(b, 0, sizeof *b);
}

static int bad(tracebin *b, const char *what)
{
    snprintf(b->why, sizeof b->why, "%s", what);
    return -1;
}

/* Room for n more bytes in the line being built. */
static int line_room(char **buf, size_t *cap, size_t used, size_t n)
{
    if (used + n <= *cap)
        return 0;
    size_t c = (used + n) * 2;
    char *g = realloc(*buf, c);
    if (!g)
        return -1;
    *buf = g, *cap = c;
    return 0;
}

static size_t put(char *p, const char *fmt, int64_t v)
{
    return (size_t)sprintf(p, fmt, v);
}

/* Time t (ticks) in ns by the current scale, never below the last one
 * given: the writer's clock may step back at a new scale.  Wrapping, not
 * undefined, on a damaged record's values; the parser bounds the result. */
static int64_t to_ns(tracebin *b, int64_t t)
{
    int64_t d = (int64_t)((uint64_t)t - (uint64_t)b->tsc0);
    __int128 p = (__int128)d * (__int128)b->mult;
    int64_t ns = (int64_t)((uint64_t)b->ns0 + (uint64_t)(int64_t)(p >> 32));
    if (ns < b->last_ns)
        ns = b->last_ns;
    return b->last_ns = ns;
}

/* "> T PHASE NAME CALLER ARGS..." from an entry signature. */
static ssize_t entry_line(tracebin *b, const tracebin_slot *s, int64_t t, char **buf, size_t *cap)
{
    if (s->n < 3 || line_room(buf, cap, 0, 96 + (size_t)s->n * 24) != 0)
        return s->n < 3 ? bad(b, "a call's signature without kind, phase and caller") : -1;
    int kind = s->w[0] >= 0 && s->w[0] < TRACE_NKINDS && trace_kind_is_call((int)s->w[0])
                   ? (int)s->w[0] : -1;
    if (kind < 0)
        return bad(b, "a call of an unknown kind");
    char *p = *buf;
    size_t n = put(p, "> %" PRId64, t);
    n += put(p + n, " %" PRId64, s->w[1]);
    n += (size_t)sprintf(p + n, " %s %" PRIx64, trace_kind_name(kind), (uint64_t)s->w[2]);
    for (uint32_t i = 3; i < s->n; i++) {
        int64_t v = s->w[i];
        if (v == TRACEBIN_HEX_NEXT && i + 1 < s->n) {
            n += (size_t)sprintf(p + n, " %" PRIx64, (uint64_t)s->w[++i]);
            continue;
        }
        if (i >= 4 && trace_kind_id_list(kind))
            v = trace_id_decode(v, b->nreq);
        n += put(p + n, " %" PRId64, v);
    }
    p[n++] = '\n';
    p[n] = '\0';
    b->open = 1, b->open_kind = kind;
    return (ssize_t)n;
}

/* "< T RESULTS..." of the call that returned; 0 when its result's record
 * is missing (the file cut before it: the call reads as not returned). */
static ssize_t return_line(tracebin *b, char **buf, size_t *cap)
{
    const tracebin_slot *s = &b->res[b->pending_res];
    b->pending = b->open = 0;
    if (b->res_follows)
        return 0;
    if (!s->w && s->n)
        return bad(b, "a call's result signature that no record defined");
    if (line_room(buf, cap, 0, 48 + (size_t)s->n * 24) != 0)
        return -1;
    char *p = *buf;
    size_t n = put(p, "< %" PRId64, b->pending_t);
    for (uint32_t i = 0; i < s->n; i++) {
        int64_t v = s->w[i];
        if (i == 0 && trace_kind_makes_request(b->open_kind)) {
            v = trace_id_decode(v, b->nreq + 1);
            b->nreq = v > 0 && (uint64_t)v > b->nreq ? (uint64_t)v : b->nreq;
        }
        n += put(p + n, " %" PRId64, v);
    }
    p[n++] = '\n';
    p[n] = '\0';
    return (ssize_t)n;
}

/* Reads n bytes at the current record's offset + at; 0, or 1 when the file
 * ends first (a record cut short: the end of the records). */
static int get(tracebin *b, uint64_t at, void *dst, size_t n)
{
    if (b->off + at + n > b->size || fseeko(b->fp, (off_t)(b->off + at), SEEK_SET) != 0)
        return 1;
    return fread(dst, 1, n, b->fp) == n ? 0 : 1;
}

/* A D or R record into its table. */
static int define(tracebin *b, const tracebin_head *h, tracebin_slot *t)
{
    if (h->slot >= TRACEBIN_SLOTS || h->n > TRACEBIN_MAX_WORDS)
        return bad(b, "a signature's slot or length out of range");
    tracebin_slot *s = &t[h->slot];
    if (h->n > s->cap) {
        int64_t *g = realloc(s->w, (size_t)h->n * sizeof *g);
        if (!g)
            return bad(b, "out of memory");
        s->w = g, s->cap = h->n;
    }
    s->n = 0;
    if (h->n && get(b, sizeof *h, s->w, (size_t)h->n * sizeof *s->w) != 0)
        return 1;
    s->n = h->n;
    if (!s->w)   /* an empty signature: defined all the same */
        s->w = malloc(1);
    return s->w ? 0 : bad(b, "out of memory");
}

ssize_t tracebin_line(tracebin *b, char **buf, size_t *cap)
{
    if (!b->started) {
        b->started = 1;
        if (line_room(buf, cap, 0, sizeof TRACE_FILE_MAGIC + 1) != 0)
            return bad(b, "out of memory");
        memcpy(*buf, TRACE_FILE_MAGIC "\n", sizeof TRACE_FILE_MAGIC + 1);
        return (ssize_t)sizeof TRACE_FILE_MAGIC;
    }
    for (;;) {
        unsigned char rec[16];
        if (get(b, 0, rec, sizeof rec) != 0 || rec[0] == 0)   /* the end of the records */
            return b->pending ? return_line(b, buf, cap) : 0;
        tracebin_head h;
        memcpy(&h, rec, sizeof h);
        /* a returned call's result may be defined after it, and a
         * communicator it made is named before its return */
        if (b->pending && rec[0] != TRACEBIN_RES && rec[0] != TRACEBIN_SCALE &&
            !(rec[0] == TRACEBIN_TEXT && h.inside))
            return b->res_follows ? bad(b, "a returned call without the result record after it")
                                  : return_line(b, buf, cap);
        switch (rec[0]) {
        case TRACEBIN_TEXT: {
            if (h.n > (1u << 20) || line_room(buf, cap, 0, (size_t)h.n + 2) != 0)
                return bad(b, h.n > (1u << 20) ? "a text record over 1 MiB" : "out of memory");
            if (get(b, sizeof h, *buf, h.n) != 0)
                return b->pending ? return_line(b, buf, cap) : 0;
            if (memchr(*buf, '\n', h.n) || memchr(*buf, '\0', h.n))
                return bad(b, "a text record holding a newline or a NUL");
            (*buf)[h.n] = '\n', (*buf)[h.n + 1] = '\0';
            b->off += tracebin_size(h.n);
            return (ssize_t)h.n + 1;
        }
        case TRACEBIN_DEF:
        case TRACEBIN_RES: {
            int rc = define(b, &h, rec[0] == TRACEBIN_DEF ? b->defs : b->res);
            if (rc != 0)
                return rc < 0 ? -1 : (b->pending ? return_line(b, buf, cap) : 0);
            b->off += tracebin_size((uint64_t)h.n * 8);
            if (rec[0] == TRACEBIN_RES && b->pending && h.slot == b->pending_res)
                b->res_follows = 0;
            break;
        }
        case TRACEBIN_SCALE: {   /* written inside a call too: a time already given keeps its scale */
            tracebin_scale sc;
            if (get(b, 0, &sc, sizeof sc) != 0)
                return b->pending ? return_line(b, buf, cap) : 0;
            b->tsc0 = sc.tsc0, b->ns0 = sc.ns0, b->mult = sc.mult;
            b->off += sizeof sc;
            break;
        }
        case TRACEBIN_TIME: {
            tracebin_time t;
            memcpy(&t, rec, sizeof t);
            b->base = t.t;
            b->off += sizeof t;
            break;
        }
        case TRACEBIN_EXIT: {
            tracebin_time t;
            memcpy(&t, rec, sizeof t);
            b->off += sizeof t;
            if (!b->open || t.res >= TRACEBIN_SLOTS)
                return bad(b, "a return record with no call open");
            b->pending = 1, b->pending_res = t.res, b->base = t.t;
            b->pending_t = to_ns(b, t.t);
            b->res_follows = 0;
            break;
        }
        case TRACEBIN_CALL:
        case TRACEBIN_DONE: {
            tracebin_call c;
            memcpy(&c, rec, sizeof c);
            if (c.sig >= TRACEBIN_SLOTS || !b->defs[c.sig].w)
                return bad(b, "a call whose signature no record defined");
            int64_t t_in = (int64_t)((uint64_t)b->base + c.dt);   /* the parser bounds it */
            b->off += sizeof c;
            ssize_t n = entry_line(b, &b->defs[c.sig], to_ns(b, t_in), buf, cap);
            b->base = t_in;
            if (n > 0 && rec[0] == TRACEBIN_DONE) {
                if (c.res >= TRACEBIN_SLOTS)
                    return bad(b, "a result signature out of range");
                b->pending = 1, b->pending_res = c.res, b->res_follows = c.res_follows != 0;
                b->base = (int64_t)((uint64_t)t_in + c.dur);
                b->pending_t = to_ns(b, b->base);
            }
            return n;
        }
        default:
            return bad(b, "an unknown record type");
        }
    }
}
