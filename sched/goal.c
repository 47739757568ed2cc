/* goal: the GOAL reader.  A hand-written scanner with the states of
 * LogGOPSim's txt2bin.re (re2c): keywords where txt2bin has no identifier
 * rule match as prefixes ("requiresl2" reads as "requires l2"), where it
 * has one (a line's first word) the longest word wins ("sendx" is a label). */
#include "sched/goal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/grow.h"

typedef struct edge { uint32_t from, to; uint8_t start; } edge;
typedef struct block { uint32_t rank; size_t first; uint32_t count; long line; } block;
typedef struct deferred { uint32_t op; long line; } deferred;
typedef struct label { const char *name; uint32_t len, op; } label;

typedef struct parser {
    const char *p, *end;
    long line;
    goal_error *err;
    goal_schedule *s;
    size_t op_cap;
    edge *edges; size_t nedges, edge_cap;
    block *blocks; size_t nblocks, block_cap;
    deferred *later; size_t nlater, later_cap;
    label *tab; size_t tab_cap, tab_used;
    uint32_t *used; size_t nused;   /* slots of tab in use (cleared per block) */
    int64_t num_ranks;              /* -1: not stated yet */
    int in_block;
    uint32_t rank;
} parser;

static int fail(parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err->msg, sizeof ps->err->msg, fmt, ap);
    va_end(ap);
    ps->err->line = ps->line;
    return -2;
}

static int oom(parser *ps)
{
    ps->err->sys_errno = ENOMEM;
    snprintf(ps->err->msg, sizeof ps->err->msg, "out of memory");
    return -1;
}

/* What the scanner found instead, for messages. */
static const char *found(const parser *ps)
{
    static __thread char buf[24];
    if (ps->p >= ps->end)
        return "the end of the file";
    unsigned char c = (unsigned char)*ps->p;
    if (c == '\n' || (c == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n'))
        return "the end of the line";
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, sizeof buf, "'%c'", c);
    else
        snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
        ps->p++;
}

static int lit(parser *ps, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, s, n) == 0) {
        ps->p += n;
        return 1;
    }
    return 0;
}

static int newline(parser *ps)
{
    if (lit(ps, "\n") || lit(ps, "\r\n")) {
        ps->line++;
        return 1;
    }
    return 0;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* An unsigned integer no larger than max; what: for the message. */
static int number(parser *ps, uint64_t max, const char *what, uint64_t *v)
{
    if (ps->p >= ps->end || !is_digit(*ps->p))
        return fail(ps, "expected %s, found %s", what, found(ps));
    uint64_t x = 0;
    while (ps->p < ps->end && is_digit(*ps->p)) {
        unsigned d = (unsigned)(*ps->p++ - '0');
        if (x > (max - d) / 10)
            return fail(ps, "%s too large (at most %llu)", what, (unsigned long long)max);
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* A number, or "-1" meaning GOAL_ANY where any is allowed. */
static int number_or_any(parser *ps, int any_ok, uint64_t max, const char *what, uint32_t *v)
{
    if (any_ok && lit(ps, "-1")) {
        *v = GOAL_ANY;
        return 0;
    }
    uint64_t x;
    int rc = number(ps, max, what, &x);
    *v = (uint32_t)x;
    return rc;
}

static int end_of_line(parser *ps, const char *expected)
{
    ws(ps);
    if (!newline(ps))
        return fail(ps, "expected %s, found %s", expected, found(ps));
    return 0;
}

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static label *lookup(parser *ps, const char *name, size_t len)
{
    size_t mask = ps->tab_cap - 1;
    for (size_t i = hash(name, len) & mask;; i = (i + 1) & mask) {
        label *l = &ps->tab[i];
        if (!l->name || (l->len == len && memcmp(l->name, name, len) == 0))
            return l;
    }
}

static int define(parser *ps, const char *name, size_t len, uint32_t op)
{
    if (2 * (ps->tab_used + 1) > ps->tab_cap) {
        size_t nc = ps->tab_cap ? ps->tab_cap * 2 : 1024;
        label *old = ps->tab;
        size_t oc = ps->tab_cap;
        uint32_t *nu = realloc(ps->used, nc / 2 * sizeof *nu);
        if (nu)
            ps->used = nu;
        if (!(ps->tab = calloc(nc, sizeof *ps->tab)) || !nu) {
            ps->tab = old;
            return oom(ps);
        }
        ps->tab_cap = nc;
        ps->nused = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i].name) {
                label *l = lookup(ps, old[i].name, old[i].len);
                *l = old[i];
                ps->used[ps->nused++] = (uint32_t)(l - ps->tab);
            }
        free(old);
    }
    label *l = lookup(ps, name, len);
    if (l->name)   /* txt2bin keeps the first definition (std::map::insert) */
        return 0;
    l->name = name;
    l->len = (uint32_t)len;
    l->op = op;
    ps->used[ps->nused++] = (uint32_t)(l - ps->tab);
    ps->tab_used++;
    return 0;
}

static void clear_labels(parser *ps)
{
    for (size_t i = 0; i < ps->nused; i++)
        ps->tab[ps->used[i]].name = NULL;
    ps->nused = ps->tab_used = 0;
}

static int ident(parser *ps, const char **name, size_t *len)
{
    if (ps->p >= ps->end || !is_alpha(*ps->p))
        return fail(ps, "expected a label, found %s", found(ps));
    const char *b = ps->p;
    while (ps->p < ps->end && (is_alpha(*ps->p) || is_digit(*ps->p) || *ps->p == '_'))
        ps->p++;
    *name = b;
    *len = (size_t)(ps->p - b);
    return 0;
}

static int check_peer(parser *ps, uint32_t op)
{
    goal_op *o = &ps->s->op[op];
    if (o->kind == GOAL_CALC || o->peer == GOAL_ANY)
        return 0;
    if (ps->num_ranks >= 0) {
        if (o->peer >= ps->num_ranks)
            return fail(ps, "rank %u does not exist (num_ranks %lld)", o->peer,
                        (long long)ps->num_ranks);
        return 0;
    }
    if (UTIL_GROW(ps->later, ps->nlater, ps->later_cap, 64))
        return oom(ps);
    ps->later[ps->nlater++] = (deferred){op, ps->line};
    return 0;
}

/* send / recv / calc after its keyword; label (may be NULL) names it. */
static int operation(parser *ps, int kind, const char *name, size_t len)
{
    if (!ps->in_block)
        return fail(ps, "an operation outside any 'rank N { ... }' block");
    if (ps->s->nops >= GOAL_MAX_OPS)
        return fail(ps, "more than %lu operations", (unsigned long)GOAL_MAX_OPS);
    goal_op o = {0};
    uint64_t v;
    int rc;
    o.kind = (uint8_t)kind;
    o.rank = ps->rank;
    ws(ps);
    if ((rc = number(ps, GOAL_MAX_SIZE, kind == GOAL_CALC ? "a time in ns" : "a size", &o.size)))
        return rc;
    if (kind == GOAL_CALC) {
        ws(ps);
        if (lit(ps, "cpu")) {
            ws(ps);
            if ((rc = number(ps, 255, "a cpu number", &v)))
                return rc;
            o.cpu = (uint8_t)v;
            if ((rc = end_of_line(ps, "the end of the line")))
                return rc;
        } else if ((rc = end_of_line(ps, "'cpu' or the end of the line")))
            return rc;
    } else {
        ws(ps);
        if (!lit(ps, "b"))
            return fail(ps, "expected 'b' after the size, found %s", found(ps));
        ws(ps);
        if (!lit(ps, kind == GOAL_SEND ? "to" : "from"))
            return fail(ps, "expected '%s', found %s", kind == GOAL_SEND ? "to" : "from", found(ps));
        ws(ps);
        if ((rc = number_or_any(ps, kind == GOAL_RECV, UINT32_MAX - 1, "a rank", &o.peer)))
            return rc;
        ws(ps);
        int stage = 0;   /* 0: tag, cpu, nic may follow; 1: cpu, nic; 2: nic; 3: none */
        for (;;) {
            if (newline(ps))
                break;
            if (stage == 0 && lit(ps, "tag")) {
                ws(ps);
                if ((rc = number_or_any(ps, 1, UINT32_MAX - 1, "a tag", &o.tag)))
                    return rc;
                stage = 1;
            } else if (stage <= 1 && lit(ps, "cpu")) {
                ws(ps);
                if ((rc = number(ps, 255, "a cpu number", &v)))
                    return rc;
                o.cpu = (uint8_t)v;
                stage = 2;
            } else if (stage <= 2 && lit(ps, "nic")) {
                ws(ps);
                if ((rc = number(ps, 255, "a nic number", &v)))
                    return rc;
                o.nic = (uint8_t)v;
                stage = 3;
            } else {
                static const char *const want[] = {"'tag', 'cpu', 'nic' or the end of the line",
                                                   "'cpu', 'nic' or the end of the line",
                                                   "'nic' or the end of the line",
                                                   "the end of the line"};
                return fail(ps, "expected %s, found %s", want[stage], found(ps));
            }
            ws(ps);
        }
        ps->line--;   /* errors below name the operation's line */
    }
    if (kind == GOAL_CALC)
        ps->line--;
    goal_schedule *s = ps->s;
    if (UTIL_GROW(s->op, s->nops, ps->op_cap, 64))
        return oom(ps);
    uint32_t id = (uint32_t)s->nops++;
    s->op[id] = o;
    if (o.cpu > s->max_cpu)
        s->max_cpu = o.cpu;
    if (o.nic > s->max_nic)
        s->max_nic = o.nic;
    ps->blocks[ps->nblocks - 1].count++;
    rc = check_peer(ps, id);
    if (!rc && name)
        rc = define(ps, name, len, id);
    ps->line++;
    return rc;
}

static int dependency(parser *ps, int start, const char *a, size_t alen)
{
    const char *b;
    size_t blen;
    int rc;
    ws(ps);
    if ((rc = ident(ps, &b, &blen)))
        return rc;
    if ((rc = end_of_line(ps, "the end of the line after the label")))
        return rc;
    ps->line--;
    label *la = ps->tab_cap ? lookup(ps, a, alen) : NULL;
    label *lb = ps->tab_cap ? lookup(ps, b, blen) : NULL;
    if (!ps->in_block)
        return fail(ps, "a dependency outside any 'rank N { ... }' block");
    if (!la || !la->name)
        return fail(ps, "label '%.*s' is not defined (before this line, in this rank)", (int)alen, a);
    if (!lb || !lb->name)
        return fail(ps, "label '%.*s' is not defined (before this line, in this rank)", (int)blen, b);
    if (ps->s->op[la->op].deps == UINT32_MAX)
        return fail(ps, "too many dependencies");
    if (UTIL_GROW(ps->edges, ps->nedges, ps->edge_cap, 64))
        return oom(ps);
    ps->edges[ps->nedges++] = (edge){lb->op, la->op, (uint8_t)start};
    ps->s->op[la->op].deps++;
    ps->line++;
    return 0;
}

static int keyword_word(const char *w, size_t n, const char *k)
{
    return strlen(k) == n && memcmp(w, k, n) == 0;
}

static int rank_block(parser *ps)
{
    uint64_t r;
    int rc;
    if (ps->in_block)
        return fail(ps, "'rank' inside rank %u's block (missing '}')", ps->rank);
    ws(ps);
    if ((rc = number(ps, UINT32_MAX - 1, "a rank number", &r)))
        return rc;
    if (ps->num_ranks >= 0 && (int64_t)r >= ps->num_ranks)
        return fail(ps, "rank %llu does not exist (num_ranks %lld)", (unsigned long long)r,
                    (long long)ps->num_ranks);
    ws(ps);
    if (!lit(ps, "{"))
        return fail(ps, "expected '{', found %s", found(ps));
    if (UTIL_GROW(ps->blocks, ps->nblocks, ps->block_cap, 64))
        return oom(ps);
    ps->blocks[ps->nblocks++] = (block){(uint32_t)r, ps->s->nops, 0, ps->line};
    ps->in_block = 1;
    ps->rank = (uint32_t)r;
    return 0;
}

static int line_start(parser *ps)
{
    const char *w;
    size_t n;
    int rc;
    uint64_t v;
    if (ps->p < ps->end && is_alpha(*ps->p)) {
        ident(ps, &w, &n);
        if (keyword_word(w, n, "send"))
            return operation(ps, GOAL_SEND, NULL, 0);
        if (keyword_word(w, n, "recv"))
            return operation(ps, GOAL_RECV, NULL, 0);
        if (keyword_word(w, n, "calc"))
            return operation(ps, GOAL_CALC, NULL, 0);
        if (keyword_word(w, n, "rank"))
            return rank_block(ps);
        if (keyword_word(w, n, "num_ranks")) {
            ws(ps);
            if ((rc = number(ps, GOAL_MAX_RANKS, "the number of ranks", &v)))
                return rc;
            if (v < 1)
                return fail(ps, "num_ranks 0: a schedule needs a rank");
            if (ps->num_ranks >= 0 && (uint64_t)ps->num_ranks != v)
                return fail(ps, "num_ranks %llu after num_ranks %lld", (unsigned long long)v,
                            (long long)ps->num_ranks);
            ps->num_ranks = (int64_t)v;
            return 0;
        }
        ws(ps);
        if (lit(ps, ":")) {
            ws(ps);
            if (lit(ps, "send"))
                return operation(ps, GOAL_SEND, w, n);
            if (lit(ps, "recv"))
                return operation(ps, GOAL_RECV, w, n);
            if (lit(ps, "calc"))
                return operation(ps, GOAL_CALC, w, n);
            return fail(ps, "expected 'send', 'recv' or 'calc' after '%.*s:', found %s", (int)n, w,
                        found(ps));
        }
        if (lit(ps, "requires"))
            return dependency(ps, 0, w, n);
        if (lit(ps, "irequires"))
            return dependency(ps, 1, w, n);
        return fail(ps, "expected ':', 'requires' or 'irequires' after '%.*s', found %s", (int)n, w,
                    found(ps));
    }
    if (newline(ps))
        return 0;
    if (lit(ps, "}")) {
        if (!ps->in_block)
            return fail(ps, "'}' outside any rank block");
        ps->in_block = 0;
        clear_labels(ps);
        return 0;
    }
    if (lit(ps, "//")) {
        while (ps->p < ps->end && *ps->p != '\n')
            ps->p++;
        return 0;
    }
    if (lit(ps, "/*")) {
        long from = ps->line;
        for (;;) {
            if (ps->p >= ps->end) {
                ps->line = from;
                return fail(ps, "a '/*' comment that never ends");
            }
            if (lit(ps, "*/"))
                return 0;
            if (*ps->p++ == '\n')
                ps->line++;
        }
    }
    return fail(ps, "expected 'rank', 'num_ranks', 'send', 'recv', 'calc', a label or '}', found %s",
                found(ps));
}

/* The rank table and the edges in CSR form, each op's edges in file order. */
static int finish(parser *ps)
{
    goal_schedule *s = ps->s;
    if (ps->in_block)
        return fail(ps, "the file ends inside rank %u's block (missing '}')", ps->rank);
    if (ps->num_ranks < 0) {
        ps->line = 0;
        return fail(ps, "no 'num_ranks N' line");
    }
    for (size_t i = 0; i < ps->nlater; i++)
        if (s->op[ps->later[i].op].peer >= ps->num_ranks) {
            ps->line = ps->later[i].line;
            return fail(ps, "rank %u does not exist (num_ranks %lld)", s->op[ps->later[i].op].peer,
                        (long long)ps->num_ranks);
        }
    s->ranks = (uint32_t)ps->num_ranks;
    if (!(s->first = malloc(s->ranks * sizeof *s->first)) ||
        !(s->count = calloc(s->ranks, sizeof *s->count)) ||
        !(s->done_at = calloc(s->nops + 1, sizeof *s->done_at)) ||
        !(s->start_at = calloc(s->nops + 1, sizeof *s->start_at)))
        return oom(ps);
    for (uint32_t r = 0; r < s->ranks; r++)
        s->first[r] = SIZE_MAX;   /* no block yet */
    for (size_t i = 0; i < ps->nblocks; i++) {
        block *b = &ps->blocks[i];
        if (b->rank >= s->ranks) {
            ps->line = b->line;
            return fail(ps, "rank %u does not exist (num_ranks %u)", b->rank, s->ranks);
        }
        if (s->first[b->rank] != SIZE_MAX) {
            ps->line = b->line;
            return fail(ps, "a second block for rank %u", b->rank);
        }
        s->first[b->rank] = b->first;
        s->count[b->rank] = b->count;
    }
    for (uint32_t r = 0; r < s->ranks; r++)
        if (s->first[r] == SIZE_MAX)
            s->first[r] = 0;   /* a rank without a block has nothing to do */
    size_t nd = 0, ns = 0;
    for (size_t i = 0; i < ps->nedges; i++) {
        if (ps->edges[i].start)
            s->start_at[ps->edges[i].from + 1]++, ns++;
        else
            s->done_at[ps->edges[i].from + 1]++, nd++;
    }
    for (size_t i = 0; i < s->nops; i++) {
        s->done_at[i + 1] += s->done_at[i];
        s->start_at[i + 1] += s->start_at[i];
    }
    if (!(s->done_to = malloc((nd + 1) * sizeof *s->done_to)) ||
        !(s->start_to = malloc((ns + 1) * sizeof *s->start_to)))
        return oom(ps);
    for (size_t i = 0; i < ps->nedges; i++) {
        edge *e = &ps->edges[i];
        if (e->start)
            s->start_to[s->start_at[e->from]++] = e->to;
        else
            s->done_to[s->done_at[e->from]++] = e->to;
    }
    for (size_t i = s->nops; i > 0; i--) {   /* the fill advanced every start by its count */
        s->done_at[i] = s->done_at[i - 1];
        s->start_at[i] = s->start_at[i - 1];
    }
    s->done_at[0] = s->start_at[0] = 0;
    s->edges = ps->nedges;
    return 0;
}

int goal_parse(const char *text, size_t len, goal_schedule *s, goal_error *err)
{
    parser ps = {0};
    memset(s, 0, sizeof *s);
    memset(err, 0, sizeof *err);
    ps.p = text;
    ps.end = text + len;
    ps.line = 1;
    ps.err = err;
    ps.s = s;
    ps.num_ranks = -1;
    int rc = 0;
    while (!rc) {
        ws(&ps);
        if (ps.p >= ps.end)
            break;
        rc = line_start(&ps);
    }
    if (!rc)
        rc = finish(&ps);
    free(ps.edges);
    free(ps.blocks);
    free(ps.later);
    free(ps.tab);
    free(ps.used);
    if (rc)
        goal_free(s);
    return rc;
}

int goal_read(const char *path, goal_schedule *s, goal_error *err)
{
    memset(err, 0, sizeof *err);
    memset(s, 0, sizeof *s);
    FILE *fp = file_open_input(path);
    if (!fp) {
        err->sys_errno = errno;
        snprintf(err->msg, sizeof err->msg, "%s", file_strerror(errno));
        return -1;
    }
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) {
            char *q = realloc(buf, cap *= 2);
            if (!q) {
                free(buf);
                buf = NULL;
            }
            buf = q;
        }
    }
    int rerr = ferror(fp) ? errno : 0;
    fclose(fp);
    if (!buf || rerr) {
        free(buf);
        err->sys_errno = buf ? rerr : ENOMEM;
        snprintf(err->msg, sizeof err->msg, "%s", strerror(err->sys_errno));
        return -1;
    }
    int rc = goal_parse(buf, len, s, err);
    free(buf);
    return rc;
}

void goal_free(goal_schedule *s)
{
    free(s->op);
    free(s->first);
    free(s->count);
    free(s->done_at);
    free(s->start_at);
    free(s->done_to);
    free(s->start_to);
    memset(s, 0, sizeof *s);
}
