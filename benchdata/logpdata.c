/* logpdata: the LogP parameter file (docs/formats.md), writer and strict reader. */
#include "benchdata/logpdata.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "util/atomicfile.h"
#include "util/parse.h"
#include "util/grow.h"

#define MAGIC "# scitorus-bench 1"
#define NFIELDS 10
#define NFIELDS_FENCE 13     /* with LOGP_FENCE_COLUMNS (--os-fence) */
#define MAX_LINE_BYTES 4096
#define MAX_NS 1e18

void logp_data_write_header(FILE *fp, const bench_data *h)
{
    fprintf(fp, MAGIC "\n");
    for (int i = 0; i < h->header_count; i++)
        if (strcmp(h->header_key[i], "columns") != 0)
            fprintf(fp, "# %s: %s\n", h->header_key[i], h->header_value[i]);
    fprintf(fp, "# columns: " LOGP_COLUMNS "%s\n",
            bench_data_header(h, "os_fence") ? " " LOGP_FENCE_COLUMNS : "");
}

double logp_estimate_L(const logp_row *rows, long n, int fence, long *used, double *lo, double *hi)
{
    double v[64];
    long k = 0;
    for (long i = 0; i < n && k < 64 && (i == 0 || rows[i].size_bytes <= LOGP_L_MAX_BYTES); i++)
        v[k++] = fence ? rows[i].rtt_fence_ns / 2 - rows[i].os_fence_ns - rows[i].or_ns
                       : rows[i].rtt_ns / 2 - rows[i].os_ns - rows[i].or_ns;
    *used = k;
    if (!k)
        return *lo = *hi = NAN;
    gsl_sort(v, 1, (size_t)k);
    *lo = v[0];
    *hi = v[k - 1];
    return gsl_stats_median_from_sorted_data(v, 1, (size_t)k);
}

void logp_data_write_row(FILE *fp, const logp_row *r)
{
    fprintf(fp, "%ld\t%.1f\t%.2f\t%.1f\t%.2f\t%.1f\t%.2f\t%.1f\t%ld\t%s", r->size_bytes,
            r->os_ns, r->os_ci_ns, r->or_ns, r->or_ci_ns, r->g_ns, r->g_ci_ns, r->rtt_ns,
            r->round_trips, r->flag);
    if (r->has_fence)
        fprintf(fp, "\t%.1f\t%.2f\t%.1f", r->os_fence_ns, r->os_fence_ci_ns, r->rtt_fence_ns);
    fputc('\n', fp);
}

void logp_data_free(logp_data *d)
{
    free(d->rows);
    d->rows = NULL;
    d->count = d->cap = 0;
}

int logp_data_add(logp_data *d, const logp_row *row)
{
    if (UTIL_GROW(d->rows, d->count, d->cap, 32))
        return -1;
    d->rows[d->count++] = *row;
    return 0;
}

const logp_row *logp_data_find(const logp_data *d, long size_bytes)
{
    for (long i = 0; i < d->count; i++)
        if (d->rows[i].size_bytes == size_bytes)
            return &d->rows[i];
    return NULL;
}

static int fail(bench_read_error *err, long line, const char *fmt, const char *arg)
{
    err->line = line;
    err->sys_errno = 0;
    snprintf(err->msg, sizeof err->msg, fmt, arg);
    return -2;
}

/* The ow_ns header, "SIZE:NS:CI_NS ...": one-way streams' time per
 * message at 1 to 64 sizes >= 1 B, times finite, NS > 0 and CI >= 0 (a
 * negative or garbled entry was taken silently).  0 when well formed. */
static int check_ow(const char *text)
{
    char copy[sizeof ((bench_data *)0)->header_value[0]], *save = NULL;
    int n = 0;
    snprintf(copy, sizeof copy, "%s", text);
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save), n++) {
        char *a = strchr(t, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        long size;
        double ns, ci;
        if (!b)
            return -1;
        *a = *b = '\0';
        if (parse_long(t, 1, LONG_MAX, &size) || parse_double(a + 1, 0, MAX_NS, &ns) ||
            !(ns > 0) || parse_double(b + 1, 0, MAX_NS, &ci))
            return -1;
    }
    return n >= 1 && n <= 64 ? 0 : -1;
}

/* "# key: value" before the first row; "# incomplete" anywhere. */
static int read_comment(logp_data *d, const char *line, long no, bench_read_error *err)
{
    const char *text = line + 1;
    while (*text == ' ')
        text++;
    if (strcmp(text, "incomplete") == 0) {
        d->incomplete = 1;
        return 0;
    }
    const char *colon = strstr(text, ": ");
    if (d->count > 0 || !colon)
        return 0;   /* a free comment */
    char key[32];
    size_t klen = (size_t)(colon - text);
    if (klen == 0 || klen >= sizeof key)
        return fail(err, no, "malformed header key%s", "");
    memcpy(key, text, klen);
    key[klen] = '\0';
    if (bench_data_header(&d->hdr, key))
        return fail(err, no, "duplicate header key '%s'", key);
    if (d->hdr.header_count == BENCH_HEADER_MAX)
        return fail(err, no, "more than %s header lines", "32");
    bench_data_set_header(&d->hdr, key, "%s", colon + 2);
    if (strcmp(key, "L_ns") == 0 && parse_double(colon + 2, -MAX_NS, MAX_NS, &d->L_ns))
        return fail(err, no, "L_ns '%.30s' is not a number", colon + 2);
    if (strcmp(key, "ow_ns") == 0 && check_ow(colon + 2))
        return fail(err, no, "ow_ns '%.40s': expected 1 to 64 SIZE:NS:CI_NS items, "
                             "sizes >= 1, NS > 0 and CI >= 0", colon + 2);
    return 0;
}

/* Before the first row: is this a LogP file at all? */
static int check_pattern(const logp_data *d, long no, bench_read_error *err)
{
    const char *p = bench_data_header(&d->hdr, "pattern");
    if (!p)
        return fail(err, no, "no '# pattern: logp' header: not a LogP file%s", "");
    if (strcmp(p, "logp") != 0)
        return fail(err, no, "a '%.20s' file, not a LogP file (pattern logp); ping-pong data "
                             "is fitted with calibrate --data", p);
    return 0;
}

static int flag_ok(const char *f)
{
    static const char *const words[] = {"ok", "os>g", "or>g", "wide"};
    char copy[32], *save = NULL;
    if (!*f || strlen(f) >= sizeof copy)
        return 0;
    snprintf(copy, sizeof copy, "%s", f);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t k = 0;
        while (k < 4 && strcmp(t, words[k]) != 0)
            k++;
        if (k == 4)
            return 0;
    }
    return 1;
}

static int read_row(logp_data *d, char *line, long no, bench_read_error *err)
{
    char *f[NFIELDS_FENCE + 1];
    int n = 0, fence = bench_data_header(&d->hdr, "os_fence") != NULL;
    int want = fence ? NFIELDS_FENCE : NFIELDS;
    for (char *p = line; p && n <= want; n++) {
        f[n] = p;
        if ((p = strchr(p, '\t')))
            *p++ = '\0';
    }
    if (n != want && fence)
        return fail(err, no, "expected 13 tab-separated fields (" LOGP_COLUMNS " "
                             LOGP_FENCE_COLUMNS ": the header says os_fence), found %s",
                    n > want ? "more" : "fewer");
    if (n != want)
        return fail(err, no, "expected 10 tab-separated fields (" LOGP_COLUMNS "), found %s",
                    n > want ? "more" : "fewer");
    logp_row r = {.has_fence = fence};
    double *fences[3] = {&r.os_fence_ns, &r.os_fence_ci_ns, &r.rtt_fence_ns};
    for (int i = 0; i < 3 && fence; i++)
        if (parse_double(f[NFIELDS + i], 0, MAX_NS, fences[i]))
            return fail(err, no, "field '%.30s' is not a non-negative number", f[NFIELDS + i]);
    double *reals[7] = {&r.os_ns, &r.os_ci_ns, &r.or_ns, &r.or_ci_ns, &r.g_ns, &r.g_ci_ns,
                        &r.rtt_ns};
    if (parse_long(f[0], 0, 1L << 40, &r.size_bytes))
        return fail(err, no, "size '%.30s' is not a non-negative integer", f[0]);
    for (int i = 0; i < 7; i++)
        if (parse_double(f[1 + i], 0, MAX_NS, reals[i]))
            return fail(err, no, "field '%.30s' is not a non-negative number", f[1 + i]);
    if (parse_long(f[8], 1, 1L << 50, &r.round_trips))
        return fail(err, no, "round_trips '%.30s' is not a positive integer", f[8]);
    if (!flag_ok(f[9]))
        return fail(err, no, "flag '%.30s' is not ok, os>g, or>g or wide", f[9]);
    snprintf(r.flag, sizeof r.flag, "%s", f[9]);
    if (logp_data_find(d, r.size_bytes))
        return fail(err, no, "size %s appears twice", f[0]);
    return logp_data_add(d, &r) ? fail(err, no, "out of memory%s", "") : 0;
}

static int read_line(logp_data *d, char *line, ssize_t len, long no, bench_read_error *err)
{
    if (len > MAX_LINE_BYTES)
        return fail(err, no, "line longer than %s bytes", "4096");
    if ((size_t)len != strlen(line))
        return fail(err, no, "NUL byte in line%s", "");
    if (len == 0 || line[len - 1] != '\n')
        return fail(err, no, "truncated last line (no newline)%s", "");
    line[--len] = '\0';
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (no == 1)
        return strcmp(line, MAGIC) ? fail(err, 1, "not a scitorus-bench file (first line must"
                                                  " be '%s')", MAGIC) : 0;
    if (line[0] == '#')
        return read_comment(d, line, no, err);
    if (!len)
        return 0;
    if (d->incomplete)
        return fail(err, no, "data after '# incomplete'%s", "");
    int rc = d->count == 0 ? check_pattern(d, no, err) : 0;
    return rc ? rc : read_row(d, line, no, err);
}

int logp_data_read(const char *path, logp_data *d, bench_read_error *err)
{
    memset(d, 0, sizeof *d);
    d->L_ns = NAN;
    FILE *fp = file_open_input(path);
    if (!fp)
        return bench_read_error_sys(err, errno);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0)
        rc = read_line(d, line, len, ++no, err);
    if (rc == 0 && no == 0)
        rc = fail(err, 0, "empty file%s", "");
    if (rc == 0 && ferror(fp))
        rc = bench_read_error_sys(err, errno);
    if (rc == 0 && d->count == 0)
        rc = check_pattern(d, no, err);
    free(line);
    fclose(fp);
    if (rc)
        logp_data_free(d);
    return rc;
}
