/* benchdata: the scitorus-bench TSV format (SPEC.md §3), writer and strict
 * reader in one place. */
#include "bench/benchdata.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/atomicfile.h"
#include "topo/parse.h"

#define MAGIC "# scitorus-bench 1"
#define NFIELDS 19
#define MAX_LINE_BYTES 4096

static const char *const columns =
    "pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns "
    "mean_ns sd_ns ci95_ns max_ns flag";

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
    fprintf(fp, "# columns: %s\n", columns);
}

void bench_data_write_point(FILE *fp, const bench_point *p)
{
    fprintf(fp, "%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t"
                "%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.1f\t%s\n",
            p->pattern, p->src, p->dst, p->hops, p->fwd, p->sw, p->rhops, p->rfwd, p->rsw,
            p->size_bytes, p->reps, p->samples, p->min_ns, p->median_ns, p->mean_ns,
            p->sd_ns, p->ci95_ns, p->max_ns, p->noisy ? "noisy" : "ok");
}

void bench_data_write_incomplete(FILE *fp)
{
    fputs("# incomplete\n", fp);
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

/* "# key: value" header line; "# incomplete" trailer. */
static int read_comment(bench_data *d, char *line, long no, bench_read_error *err)
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
    return 0;
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

static int read_row(bench_data *d, char *line, long no, bench_read_error *err)
{
    char *f[NFIELDS + 1];
    bench_point pt;
    long *ints[11] = {&pt.src, &pt.dst, &pt.hops, &pt.fwd, &pt.sw, &pt.rhops, &pt.rfwd,
                      &pt.rsw, &pt.size_bytes, &pt.reps, &pt.samples};
    double *reals[6] = {&pt.min_ns, &pt.median_ns, &pt.mean_ns, &pt.sd_ns, &pt.ci95_ns,
                        &pt.max_ns};
    int n = split_fields(line, f);
    if (n != NFIELDS)
        return fail(err, no, "expected 19 tab-separated fields, found %s",
                    n > NFIELDS ? "more" : "fewer");
    if (strcmp(f[0], "pp") != 0 && strcmp(f[0], "ow") != 0)
        return fail(err, no, "pattern '%.20s' is not pp or ow", f[0]);
    snprintf(pt.pattern, sizeof pt.pattern, "%s", f[0]);
    for (int i = 0; i < 11; i++)
        if (parse_long(f[1 + i], 0, 1L << 50, ints[i]) != PARSE_OK)
            return fail(err, no, "field '%.30s' is not a non-negative integer", f[1 + i]);
    for (int i = 0; i < 6; i++)
        if (parse_double(f[12 + i], 0, 1e18, reals[i]) != PARSE_OK)
            return fail(err, no, "field '%.30s' is not a non-negative number", f[12 + i]);
    if (strcmp(f[18], "ok") != 0 && strcmp(f[18], "noisy") != 0)
        return fail(err, no, "flag '%.20s' is not ok or noisy", f[18]);
    pt.noisy = f[18][0] == 'n';
    if (pt.hops == 0 || pt.samples == 0 || pt.reps == 0)
        return fail(err, no, "a point needs hops, reps and samples > 0%s", "");
    if (pt.min_ns > pt.max_ns)
        return fail(err, no, "min_ns exceeds max_ns%s", "");
    if (d->count == d->cap) {
        long cap = d->cap ? 2 * d->cap : 64;
        bench_point *p = realloc(d->points, (size_t)cap * sizeof *p);
        if (!p)
            return fail(err, no, "out of memory%s", "");
        d->points = p;
        d->cap = cap;
    }
    d->points[d->count++] = pt;
    return 0;
}

static int read_lines(FILE *fp, bench_data *d, bench_read_error *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
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
            rc = read_comment(d, line, no, err);
        else if (len)
            rc = read_row(d, line, no, err);
    }
    if (rc == 0 && no == 0)
        rc = fail(err, 0, "empty file%s", "");
    if (rc == 0 && ferror(fp)) {
        err->line = 0;
        err->sys_errno = errno ? errno : EIO;
        snprintf(err->msg, sizeof err->msg, "%s", strerror(err->sys_errno));
        rc = -1;
    }
    free(line);
    return rc;
}

int bench_data_read(const char *path, bench_data *d, bench_read_error *err)
{
    memset(d, 0, sizeof *d);
    FILE *fp = file_open_input(path);
    if (!fp) {
        err->line = 0;
        err->sys_errno = errno;
        snprintf(err->msg, sizeof err->msg, "%s", file_strerror(err->sys_errno));
        return -1;
    }
    int rc = read_lines(fp, d, err);
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
