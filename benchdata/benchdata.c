/* benchdata: the scitorus-bench TSV format (docs/formats.md), writer and strict
 * reader in one place. */
#include "benchdata/benchdata.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/parse.h"
#include "topo/topo.h"
#include "util/grow.h"

const char *const bench_p2p_modes[] = {"bsend", "rsend", "issend", "iprobe", "sendrecv",
                                       "sendrecv-replace", "bibw", "bw", NULL};

#define MAGIC "# scitorus-bench 1"
/* Rows without the floors' columns (files written before them) still read;
 * --node-times adds one column. */
#define NFIELDS_OLD 19
#define NFIELDS_FLOOR 22
#define NFIELDS 23
#define MAX_LINE_BYTES 4096

#define COLUMNS_OLD "pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns " \
                    "median_ns mean_ns sd_ns ci95_ns max_ns flag"
static const char *const columns = COLUMNS_OLD " floor_ns floor_q1_ns floor_q3_ns";
static const char *const columns_nodes = COLUMNS_OLD " floor_ns floor_q1_ns floor_q3_ns node_ns";

const char *bench_data_header(const bench_data *d, const char *key)
{
    for (int i = 0; i < d->header_count; i++)
        if (strcmp(d->header_key[i], key) == 0)
            return d->header_value[i];
    return NULL;
}

long bench_data_header_line(const bench_data *d, const char *key)
{
    for (int i = 0; i < d->header_count; i++)
        if (strcmp(d->header_key[i], key) == 0)
            return d->header_line[i];
    return 0;
}

void bench_data_write_header(FILE *fp, const bench_data *d)
{
    fprintf(fp, MAGIC "\n");
    for (int i = 0; i < d->header_count; i++)
        if (strcmp(d->header_key[i], "columns") != 0)
            fprintf(fp, "# %s: %s\n", d->header_key[i], d->header_value[i]);
    fprintf(fp, "# columns: %s\n", d->node_times ? columns_nodes : columns);
}

void bench_data_write_point(FILE *fp, const bench_point *p)
{
    fprintf(fp, "%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t"
                "%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.1f\t%s\t%.1f\t%.1f\t%.1f",
            p->pattern, p->src, p->dst, p->hops, p->fwd, p->sw, p->rhops, p->rfwd, p->rsw,
            p->size_bytes, p->reps, p->samples, p->min_ns, p->median_ns, p->mean_ns,
            p->sd_ns, p->ci95_ns, p->max_ns, p->noisy ? "noisy" : "ok", p->floor_ns,
            p->floor_q1_ns, p->floor_q3_ns);
    if (p->nodes < 0)
        fputs("\t-", fp);
    for (int i = 0; i < p->nodes && i < BENCH_NODES_MAX; i++)
        fprintf(fp, "%c%.1f", i ? ',' : '\t', p->node_ns[i]);
    fputc('\n', fp);
}

void bench_data_node_column(bench_data *d, int on)
{
    d->node_times = on;
    for (long i = 0; i < d->count; i++)
        if (!on)
            d->points[i].nodes = 0;
        else if (d->points[i].nodes == 0)
            d->points[i].nodes = -1;
}

void bench_data_write_incomplete(FILE *fp)
{
    fputs(BENCH_DATA_INCOMPLETE, fp);
}

int bench_data_write_file(const char *path, const bench_data *d)
{
    atomic_file af;
    if (atomic_file_open(&af, path) != 0)
        return -1;
    bench_data_write_header(af.fp, d);
    for (long i = 0; i < d->count; i++)
        bench_data_write_point(af.fp, &d->points[i]);
    if (ferror(af.fp)) {
        atomic_file_abort(&af);
        errno = EIO;
        return -1;
    }
    return atomic_file_commit(&af);
}

void bench_data_free(bench_data *d)
{
    free(d->points);
    d->points = NULL;
    d->count = d->cap = 0;
}

static int fail(bench_read_error *err, long line, const char *fmt, const char *arg)
{
    err->line = line;
    err->sys_errno = 0;
    snprintf(err->msg, sizeof err->msg, fmt, arg);
    return -2;
}

/* What the header says about the rows that follow: the shape of the
 * `# topology:` line, when there is one (files written by hand or by old
 * versions may lack it; their rows are still checked against each other). */
typedef struct row_context {
    int have_shape;
    topo_shape shape;
    int header_only;      /* bench_data_read_header: any pattern's columns, no rows */
    int fields;           /* the fields a row has, from '# columns:' (0: not yet read) */
} row_context;

/* "ring N" (one dimension) or "torus AxB..." (two or more), as the writer
 * (bench/cli.c) puts it. */
static int parse_topology(const char *value, topo_shape *shape)
{
    const char *rest;
    if (strncmp(value, "ring ", 5) == 0)
        rest = value + 5;
    else if (strncmp(value, "torus ", 6) == 0)
        rest = value + 6;
    else
        return -1;
    if (topo_shape_parse(rest, shape, NULL) != 0)
        return -1;
    return (shape->dims == 1) == (rest == value + 5) ? 0 : -1;
}

/* The header lines the rows depend on are checked where they stand. */
static int check_header(row_context *ctx, const char *key, const char *value, long no,
                        bench_read_error *err)
{
    if (ctx->header_only)
        return 0;
    if (strcmp(key, "pattern") == 0 && strcmp(value, "logp") == 0)   /* benchdata/logpdata.h */
        return fail(err, no, "a LogP parameter file (pattern logp), not ping-pong data: fit it"
                             " with calibrate --logp%s", "");
    if (strcmp(key, "columns") == 0) {
        if (strcmp(value, columns) != 0 && strcmp(value, columns_nodes) != 0 &&
            strcmp(value, COLUMNS_OLD) != 0)
            return fail(err, no, "'# columns:' is not this format's ('pattern src dst ..."
                                 " floor_q3_ns', with node times '... floor_q3_ns node_ns')%s",
                        "");
        ctx->fields = strcmp(value, columns) == 0         ? NFIELDS_FLOOR
                      : strcmp(value, columns_nodes) == 0 ? NFIELDS
                                                          : NFIELDS_OLD;
    }
    if (strcmp(key, "topology") == 0) {
        if (parse_topology(value, &ctx->shape) != 0)
            return fail(err, no, "topology '%.60s' is not 'ring N' or 'torus AxB...'", value);
        ctx->have_shape = 1;
    }
    return 0;
}

/* "# key: value" header line; "# incomplete" trailer. */
static int read_comment(bench_data *d, row_context *ctx, char *line, long no,
                        bench_read_error *err)
{
    char *text = line + 1;
    while (*text == ' ')
        text++;
    if (strcmp(text, "incomplete") == 0) {
        d->incomplete = 1;
        return 0;
    }
    if (d->count > 0)
        return 0;   /* free comments after the data are allowed */
    char *colon = strstr(text, ": ");
    if (!colon) {
        if (*text && text[strlen(text) - 1] == ':')  /* "key:" with empty value */
            colon = text + strlen(text) - 1;
        else
            return 0;   /* a free comment */
    }
    if (d->header_count == BENCH_HEADER_MAX)
        return fail(err, no, "more than %s header lines", "32");
    size_t klen = (size_t)(colon - text);
    if (klen == 0 || klen >= sizeof d->header_key[0])
        return fail(err, no, "malformed header key%s", "");
    memcpy(d->header_key[d->header_count], text, klen);
    d->header_key[d->header_count][klen] = '\0';
    if (bench_data_header(d, d->header_key[d->header_count]))
        return fail(err, no, "duplicate header key '%s'", d->header_key[d->header_count]);
    const char *value = colon[1] ? colon + 2 : "";
    snprintf(d->header_value[d->header_count], sizeof d->header_value[0], "%s", value);
    d->header_line[d->header_count] = no;
    d->header_count++;
    return check_header(ctx, d->header_key[d->header_count - 1],
                        d->header_value[d->header_count - 1], no, err);
}

static int split_fields(char *line, char **field)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == NFIELDS)
            return n + 1;   /* too many */
        field[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            return n;
        *p = '\0';
    }
}

/* A row's route against its topology: src and dst are nodes, and the six
 * counts are those topo/ computes for src -> dst and back (docs/model.md).
 * Without a topology, what holds on every shape: F + S = H - 1 on the
 * request and on the response, which use the same k dimensions (S = S'). */
static int check_route(const row_context *ctx, const bench_point *p, long no,
                       bench_read_error *err)
{
    char text[200];
    if (p->src == p->dst)
        return fail(err, no, "src and dst are the same node%s", "");
    if (!ctx->have_shape) {
        if (p->rhops == 0 || p->fwd + p->sw != p->hops - 1 || p->rfwd + p->rsw != p->rhops - 1 ||
            p->sw != p->rsw)
            return fail(err, no, "hops fwd sw rhops rfwd rsw contradict each other (need fwd + sw"
                                 " = hops - 1, rfwd + rsw = rhops - 1, sw = rsw)%s", "");
        return 0;
    }
    const topo_shape *sh = &ctx->shape;
    if (p->src >= sh->nodes || p->dst >= sh->nodes) {
        snprintf(text, sizeof text, "%s %ld is not a node of the topology (0..%ld)",
                 p->src >= sh->nodes ? "src" : "dst", p->src >= sh->nodes ? p->src : p->dst,
                 sh->nodes - 1);
        return fail(err, no, "%s", text);
    }
    long s[TOPO_MAX_DIMS], t[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
    topo_counts q, r;
    topo_rank_to_coords(sh, p->src, s);
    topo_rank_to_coords(sh, p->dst, t);
    topo_hops(sh, s, t, h);
    topo_request_counts(sh, h, &q);
    topo_response_counts(sh, h, &r);
    if (p->hops != q.links || p->fwd != q.forwards || p->sw != q.switches ||
        p->rhops != r.links || p->rfwd != r.forwards || p->rsw != r.switches) {
        snprintf(text, sizeof text, "hops fwd sw rhops rfwd rsw %ld %ld %ld %ld %ld %ld do not match"
                 " %ld -> %ld on the topology (%ld %ld %ld %ld %ld %ld)", p->hops, p->fwd, p->sw,
                 p->rhops, p->rfwd, p->rsw, p->src, p->dst, q.links, q.forwards, q.switches,
                 r.links, r.forwards, r.switches);
        return fail(err, no, "%s", text);
    }
    return 0;
}

/* A row's statistics against each other: a positive minimum, the median
 * and the mean between the minimum and the maximum. */
static int check_stats(const bench_point *p, long no, bench_read_error *err)
{
    if (p->min_ns <= 0)
        return fail(err, no, "min_ns must be > 0 (a latency)%s", "");
    if (p->min_ns > p->max_ns)
        return fail(err, no, "min_ns exceeds max_ns%s", "");
    if (p->median_ns < p->min_ns || p->median_ns > p->max_ns)
        return fail(err, no, "median_ns is not between min_ns and max_ns%s", "");
    if (p->mean_ns < p->min_ns || p->mean_ns > p->max_ns)
        return fail(err, no, "mean_ns is not between min_ns and max_ns%s", "");
    return 0;
}

/* node_ns: "-", or 1..BENCH_NODES_MAX comma-separated times (ns, >= 0). */
static int read_nodes(bench_point *pt, const char *s, long no, bench_read_error *err)
{
    if (strcmp(s, "-") == 0) {
        pt->nodes = -1;
        return 0;
    }
    char item[64];
    for (const char *p = s;; p++) {
        size_t k = strcspn(p, ",");
        if (pt->nodes == BENCH_NODES_MAX)
            return fail(err, no, "node_ns lists more than %s processes", "64");
        snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item - 1 ? k : sizeof item - 1), p);
        if (k >= sizeof item || parse_double(item, 0, 1e18, &pt->node_ns[pt->nodes]) != PARSE_OK)
            return fail(err, no, "node_ns '%.40s' is not '-' or comma-separated times in 0..1e18"
                                 " ns", s);
        pt->nodes++;
        p += k;
        if (!*p)
            return 0;
    }
}

static int read_row(bench_data *d, const row_context *ctx, char *line, long no,
                    bench_read_error *err)
{
    char *f[NFIELDS + 1];
    char text[160];
    bench_point pt;
    long *ints[11] = {&pt.src, &pt.dst, &pt.hops, &pt.fwd, &pt.sw, &pt.rhops, &pt.rfwd,
                      &pt.rsw, &pt.size_bytes, &pt.reps, &pt.samples};
    double *reals[6] = {&pt.min_ns, &pt.median_ns, &pt.mean_ns, &pt.sd_ns, &pt.ci95_ns,
                        &pt.max_ns};
    static const char *const int_names[11] = {"src", "dst", "hops", "fwd", "sw", "rhops",
                                              "rfwd", "rsw", "size", "reps", "samples"};
    static const char *const real_names[6] = {"min_ns", "median_ns", "mean_ns", "sd_ns",
                                              "ci95_ns", "max_ns"};
    int n = split_fields(line, f), want = ctx->fields ? ctx->fields : n;
    if (n != want || (n != NFIELDS_FLOOR && n != NFIELDS_OLD && n != NFIELDS)) {
        if (!ctx->fields)
            return fail(err, no, "expected 22 (or, without the floors, 19; with node_ns, 23)"
                                 " tab-separated fields, found %s", n > NFIELDS ? "more" : "fewer");
        snprintf(text, sizeof text, "expected %d tab-separated fields (as '# columns:' says),"
                 " found %s", want, n > want ? "more" : "fewer");
        return fail(err, no, "%s", text);
    }
    int known = strcmp(f[0], "pp") == 0 || strcmp(f[0], "ow") == 0;
    for (int i = 0; bench_p2p_modes[i] && !known; i++)
        known = strcmp(f[0], bench_p2p_modes[i]) == 0;
    if (!known)
        return fail(err, no, "pattern '%.20s' is not pp, ow or an mpibench --p2p mode", f[0]);
    snprintf(pt.pattern, sizeof pt.pattern, "%s", f[0]);
    pt.floor_ns = pt.floor_q1_ns = pt.floor_q3_ns = 0;
    pt.nodes = 0;
    /* a value that is a number but out of range is named as such, with
     * the range (1e307 ns used to be "not a non-negative number") */
    for (int i = 0; i < 11; i++) {
        parse_status st = parse_long(f[1 + i], 0, 1L << 50, ints[i]);
        if (st == PARSE_OK)
            continue;
        snprintf(text, sizeof text, st == PARSE_RANGE
                     ? "%s '%.30s' is out of range: expected an integer in 0..2^50"
                     : "%s '%.30s' is not an integer", int_names[i], f[1 + i]);
        return fail(err, no, "%s", text);
    }
    for (int i = 0; i < 6; i++) {
        parse_status st = parse_double(f[12 + i], 0, 1e18, reals[i]);
        if (st == PARSE_OK)
            continue;
        snprintf(text, sizeof text, st == PARSE_RANGE
                     ? "%s '%.30s' is out of range: expected 0..1e18 ns (31 years)"
                     : "%s '%.30s' is not a number", real_names[i], f[12 + i]);
        return fail(err, no, "%s", text);
    }
    if (strcmp(f[18], "ok") != 0 && strcmp(f[18], "noisy") != 0)
        return fail(err, no, "flag '%.20s' is not ok or noisy", f[18]);
    pt.noisy = f[18][0] == 'n';
    double *floors[3] = {&pt.floor_ns, &pt.floor_q1_ns, &pt.floor_q3_ns};
    static const char *const floor_names[3] = {"floor_ns", "floor_q1_ns", "floor_q3_ns"};
    for (int i = 0; n >= NFIELDS_FLOOR && i < 3; i++)
        if (parse_double(f[19 + i], 0, 1e18, floors[i]) != PARSE_OK) {
            snprintf(text, sizeof text, "%s '%.30s' is not a number in 0..1e18 ns",
                     floor_names[i], f[19 + i]);
            return fail(err, no, "%s", text);
        }
    if (pt.floor_ns > 0 && !(pt.floor_q1_ns <= pt.floor_ns && pt.floor_ns <= pt.floor_q3_ns))
        return fail(err, no, "floor_ns is not between floor_q1_ns and floor_q3_ns%s", "");
    if (n == NFIELDS && read_nodes(&pt, f[22], no, err))
        return -2;
    if (pt.hops == 0 || pt.samples == 0 || pt.reps == 0)
        return fail(err, no, "a point needs hops, reps and samples > 0%s", "");
    int rc = check_route(ctx, &pt, no, err);
    if (rc == 0)
        rc = check_stats(&pt, no, err);
    if (rc)
        return rc;
    if (UTIL_GROW(d->points, d->count, d->cap, 64))
        return fail(err, no, "out of memory%s", "");
    d->points[d->count++] = pt;
    return 0;
}

static int read_lines(FILE *fp, bench_data *d, bench_read_error *err, int header_only)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
    row_context ctx = {0};
    ctx.header_only = header_only;
    while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        no++;
        if (len > MAX_LINE_BYTES) {
            rc = fail(err, no, "line longer than %s bytes", "4096");
            break;
        }
        if ((size_t)len != strlen(line)) {
            rc = fail(err, no, "NUL byte in line%s", "");
            break;
        }
        if (len == 0 || line[len - 1] != '\n') {
            rc = fail(err, no, "truncated last line (no newline)%s", "");
            break;
        }
        line[--len] = '\0';
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';   /* CRLF files (edited on Windows) */
        if (no == 1) {
            if (strcmp(line, MAGIC) != 0)
                rc = fail(err, 1, "not a scitorus-bench file (first line must be '%s')", MAGIC);
            continue;
        }
        if (d->incomplete && line[0] != '#' && len) {
            rc = fail(err, no, "data after '# incomplete'%s", "");
            break;
        }
        if (line[0] == '#')
            rc = read_comment(d, &ctx, line, no, err);
        else if (len && header_only)
            break;
        else if (len)
            rc = read_row(d, &ctx, line, no, err);
    }
    if (rc == 0 && no == 0)
        rc = fail(err, 0, "empty file%s", "");
    const char *cols = bench_data_header(d, "columns");
    d->node_times = cols && strcmp(cols, columns_nodes) == 0;
    if (rc == 0 && ferror(fp))
        rc = bench_read_error_sys(err, errno);
    free(line);
    return rc;
}

int bench_read_error_sys(bench_read_error *err, int e)
{
    return file_error_sys(err, e);
}

int bench_data_read_header(const char *path, bench_data *d, bench_read_error *err)
{
    memset(d, 0, sizeof *d);
    FILE *fp = file_open_input(path);
    if (!fp)
        return bench_read_error_sys(err, errno);
    int rc = read_lines(fp, d, err, 1);
    fclose(fp);
    if (rc)
        bench_data_free(d);
    return rc;
}

int bench_data_read(const char *path, bench_data *d, bench_read_error *err)
{
    memset(d, 0, sizeof *d);
    FILE *fp = file_open_input(path);
    if (!fp)
        return bench_read_error_sys(err, errno);
    int rc = read_lines(fp, d, err, 0);
    fclose(fp);
    if (rc == 0 && !bench_data_header(d, "columns"))
        rc = fail(err, 0, "no '# columns:' header line%s", "");
    if (rc)
        bench_data_free(d);
    return rc;
}

/* Appends a header line (key, printf-style value); silently ignores
 * overflow beyond BENCH_HEADER_MAX. */
void bench_data_set_header(bench_data *d, const char *key, const char *fmt, ...)
{
    int i = 0;
    while (i < d->header_count && strcmp(d->header_key[i], key) != 0)
        i++;
    if (i == BENCH_HEADER_MAX)
        return;
    if (i == d->header_count) {
        d->header_line[i] = 0;
        d->header_count++;
    }
    snprintf(d->header_key[i], sizeof d->header_key[0], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->header_value[i], sizeof d->header_value[0], fmt, ap);
    va_end(ap);
}
