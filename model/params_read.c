/* params_read: the params file reader (docs/formats.md, 'Params file'):
 * `key = value` lines into model_params, every key checked against its
 * range (params_bounds.c) and the cross-key rules. */
#include "model/params_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/parse.h"

/* The limit's digits for messages ("16"; the reader said 1..4 after the
 * limit became 6).  Two levels: # does not expand its argument, so one
 * level gave the macro's name. */
#define PARAMS_STR_(x) #x
#define PARAMS_STR(x) PARAMS_STR_(x)
#define MODEL_MAX_OSEG_TEXT PARAMS_STR(MODEL_MAX_OSEG)

/* Where a numeric key's value goes; `seen` catches duplicates. */
typedef struct key_slot {
    char name[40];
    double *value;
    char *string;          /* for *_source keys (gnuplot strings) */
    size_t string_len;
    int required;
    long seen;             /* the line it was read from, 0: not seen */
} key_slot;

/* LogP: L_ns, and per quantity <q>_segments and 3 keys a segment */
#define LOGP_SLOTS (1 + MODEL_LOGP_COUNT * (1 + 3 * MODEL_MAX_OSEG))
#define COV_SLOTS (MODEL_P_ALL * (MODEL_P_ALL - 1) / 2)
#define MAX_SLOTS (8 + 2 * MODEL_P_ALL + COV_SLOTS + 3 + 4 * MODEL_MAX_OSEG + 2 * (1 + 3 * MODEL_MAX_OSEG) + 3 + 2 + \
                   3 + 2 + 3 * MODEL_LAUNCH_COUNT + LOGP_SLOTS)

typedef struct reader {
    key_slot slot[MAX_SLOTS];
    int count;
    double o_segments, lb_segments;
    char links[8];         /* `links = "uni" | "bi"` (docs/model.md, 'Links') */
    double logp_segments[MODEL_LOGP_COUNT];
} reader;

static void add_slot(reader *r, const char *name, double *value, char *str,
                     size_t len, int required)
{
    key_slot *s = &r->slot[r->count++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->value = value;
    s->string = str;
    s->string_len = len;
    s->required = required;
    s->seen = 0;
}

/* PREFIX_segK_ns_err and PREFIX_segK_ns_per_byte_err, K = 1.. */
static void add_seg_err_slots(reader *r, const char *prefix, double (*err)[2])
{
    char name[40];
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        snprintf(name, sizeof name, "%s_seg%d_ns_err", prefix, i + 1);
        add_slot(r, name, &err[i][0], NULL, 0, 0);
        snprintf(name, sizeof name, "%s_seg%d_ns_per_byte_err", prefix, i + 1);
        add_slot(r, name, &err[i][1], NULL, 0, 0);
    }
}

/* PREFIX_segments and PREFIX_segK_{from_bytes,ns,ns_per_byte}, K = 1.. */
static void add_seg_slots(reader *r, const char *prefix, double *count, model_oseg *seg)
{
    char name[40];
    snprintf(name, sizeof name, "%s_segments", prefix);
    add_slot(r, name, count, NULL, 0, 0);
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        snprintf(name, sizeof name, "%s_seg%d_from_bytes", prefix, i + 1);
        add_slot(r, name, &seg[i].from_bytes, NULL, 0, 0);
        snprintf(name, sizeof name, "%s_seg%d_ns", prefix, i + 1);
        add_slot(r, name, &seg[i].ns, NULL, 0, 0);
        snprintf(name, sizeof name, "%s_seg%d_ns_per_byte", prefix, i + 1);
        add_slot(r, name, &seg[i].ns_per_byte, NULL, 0, 0);
    }
}

/* The optional LogP keys (calibrate --logp). */
static void build_logp_slots(reader *r, model_params *p)
{
    add_slot(r, "L_ns", &p->logp.L_ns, NULL, 0, 0);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        add_seg_slots(r, model_logp_key[q], &r->logp_segments[q], p->logp.seg[q]);
}

static void build_slots(reader *r, model_params *p)
{
    char name[40];
    r->count = 0;
    add_slot(r, "o0_ns", &p->o0_ns, NULL, 0, 1);
    add_slot(r, "o1_ns_per_byte", &p->o1_ns_per_byte, NULL, 0, 1);
    add_slot(r, "mref_bytes", &p->mref_bytes, NULL, 0, 1);
    add_slot(r, "lp_ns", &p->lp_ns, NULL, 0, 1);
    add_slot(r, "lf_ns", &p->lf_ns, NULL, 0, 1);
    add_slot(r, "ls_ns", &p->ls_ns, NULL, 0, 1);
    add_slot(r, "lb_ns_per_byte", &p->lb_ns_per_byte, NULL, 0, 0);   /* optional: cut-through */
    for (int i = 0; i < MODEL_P_ALL; i++) {
        snprintf(name, sizeof name, "%s_err", model_param_key[i]);
        add_slot(r, name, &p->err[i], NULL, 0, 0);
        snprintf(name, sizeof name, "%s_source", model_param_key[i]);
        add_slot(r, name, NULL, p->source[i], sizeof p->source[i], 0);
    }
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = i + 1; j < MODEL_P_ALL; j++) {
            snprintf(name, sizeof name, "cov_%s_%s", model_param_key[i], model_param_key[j]);
            add_slot(r, name, &p->cov[i][j], NULL, 0, 0);
        }
    add_slot(r, "link_bw_bytes_per_ns_err", &p->link_bw_err, NULL, 0, 0);
    add_slot(r, "link_bw_bytes_per_ns_source", NULL, p->link_bw_source,
             sizeof p->link_bw_source, 0);
    add_slot(r, "fitted_at", NULL, p->fitted_at, sizeof p->fitted_at, 0);
    add_slot(r, "fit_r2", &p->fit_r2, NULL, 0, 0);
    add_slot(r, "fit_chi2_dof", &p->fit_chi2_dof, NULL, 0, 0);
    add_slot(r, "fit_residual_rms", &p->fit_residual_rms, NULL, 0, 0);
    add_slot(r, "fit_statistic", NULL, p->fit_statistic, sizeof p->fit_statistic, 0);
    for (int i = 0; i < 3; i++)
        add_slot(r, model_regime_key[i], &p->regime_floor_ns[i], NULL, 0, 0);
    add_slot(r, "launches", &p->launches, NULL, 0, 0);
    add_slot(r, "launch_coverage", &p->launch_coverage, NULL, 0, 0);
    for (int q = 0; q < MODEL_LAUNCH_COUNT; q++)
        for (int i = 0; i < 3; i++) {
            model_launch_key_name(q, i, name, sizeof name);
            add_slot(r, name, &p->launch[q][i], NULL, 0, 0);
        }
    add_seg_slots(r, "o", &r->o_segments, p->oseg);
    add_seg_slots(r, "lb", &r->lb_segments, p->lbseg);
    add_seg_err_slots(r, "o", p->oseg_err);
    add_seg_err_slots(r, "lb", p->lbseg_err);
    add_slot(r, "links", NULL, r->links, sizeof r->links, 0);
    add_slot(r, "link_bw_bytes_per_ns", &p->link_bw_bytes_per_ns, NULL, 0, 0);
    build_logp_slots(r, p);
}

static key_slot *find_slot(reader *r, const char *name)
{
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->slot[i].name, name) == 0)
            return &r->slot[i];
    return NULL;
}

int params_fail(model_params_error *err, long line, const char *fmt, const char *arg)
{
    err->line = line;
    err->sys_errno = 0;
    snprintf(err->msg, sizeof err->msg, fmt, arg);
    return -2;
}

/* Cuts the line at the first '#' outside a double-quoted string. */
static void strip_comment(char *s)
{
    int quoted = 0;
    for (; *s; s++) {
        if (*s == '"')
            quoted = !quoted;
        else if (*s == '#' && !quoted) {
            *s = '\0';
            return;
        }
    }
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Parses a gnuplot string literal "..." (no escapes) into out. */
static int parse_string(const char *v, char *out, size_t len)
{
    size_t n = strlen(v);
    if (n < 2 || v[0] != '"' || v[n - 1] != '"' || n - 2 >= len)
        return -1;
    if (memchr(v + 1, '"', n - 2) || memchr(v + 1, '\\', n - 2))
        return -1;
    memcpy(out, v + 1, n - 2);
    out[n - 2] = '\0';
    return 0;
}

/* One `key = value` line (comment already stripped, non-blank). */
static int read_line(reader *r, char *text, long line, model_params_error *err)
{
    char *eq = strchr(text, '=');
    if (!eq)
        return params_fail(err, line, "expected 'key = value', got '%.60s'", text);
    *eq = '\0';
    char *key = trim(text), *value = trim(eq + 1);
    key_slot *s = find_slot(r, key);
    if (!*key)
        return params_fail(err, line, "missing key before '='%s", "");
    if (!s)
        return params_fail(err, line, "unknown key '%.60s'", key);
    if (s->seen)
        return params_fail(err, line, "duplicate key '%.60s'", key);
    s->seen = line;
    if (s->string) {
        if (s->string == r->links) {
            topo_links links;
            if (parse_string(value, s->string, s->string_len) ||
                topo_links_parse(s->string, &links))
                return params_fail(err, line, "'links' must be \"uni\" or \"bi\", got '%.60s'", value);
            return 0;
        }
        if (strcmp(key, "fit_statistic") == 0) {
            char t[16];
            if (parse_string(value, t, sizeof t) ||
                (strcmp(t, "min") && strcmp(t, "median") && strcmp(t, "mean")))
                return params_fail(err, line, "'fit_statistic' must be \"min\", \"median\" or"
                                       " \"mean\", got '%.60s'", value);
            snprintf(s->string, s->string_len, "%s", t);
            return 0;
        }
        if (parse_string(value, s->string, s->string_len))
            return params_fail(err, line, "'%.60s' needs a double-quoted string", key);
        return 0;
    }
    double v;
    parse_status st = parse_double(value, -HUGE_VAL, HUGE_VAL, &v);
    if (st == PARSE_EMPTY)
        return params_fail(err, line, "'%.60s' has no value", key);
    if (st != PARSE_OK)
        return params_fail(err, line, "'%.60s' is not a finite number", value);
    if (params_check_bounds(key, v, line, err))
        return -2;
    if (v == 0 && strcmp(key, "link_bw_bytes_per_ns") == 0)
        return params_fail(err, line, "'%.60s' must be positive", key);
    *s->value = v;
    return 0;
}

/* LogP keys: all of L_ns and the three <q>_segments with their segments,
 * or none. */
static int finish_logp(reader *r, model_params *p, long lines, model_params_error *err)
{
    char name[40];
    int any = find_slot(r, "L_ns")->seen;
    for (int q = 0; q < MODEL_LOGP_COUNT; q++) {
        snprintf(name, sizeof name, "%s_segments", model_logp_key[q]);
        any |= find_slot(r, name)->seen;
    }
    if (!any)
        return 0;
    if (!find_slot(r, "L_ns")->seen)
        return params_fail(err, lines, "missing key 'L_ns' (LogP keys)%s", "");
    for (int q = 0; q < MODEL_LOGP_COUNT; q++) {
        const char *k = model_logp_key[q];
        snprintf(name, sizeof name, "%s_segments", k);
        double n = r->logp_segments[q];
        if (!find_slot(r, name)->seen)
            return params_fail(err, lines, "missing key '%s' (LogP keys)", name);
        if (n != floor(n) || n < 1 || n > MODEL_MAX_OSEG)
            return params_fail(err, lines, "%s must be 1.." MODEL_MAX_OSEG_TEXT, name);
        p->logp.segments[q] = (int)n;
        for (int i = 0; i < p->logp.segments[q]; i++) {
            static const char *const part[] = {"from_bytes", "ns", "ns_per_byte"};
            for (int j = 0; j < 3; j++) {
                snprintf(name, sizeof name, "%s_seg%d_%s", k, i + 1, part[j]);
                if (!find_slot(r, name)->seen)
                    return params_fail(err, lines, "missing key '%s' (LogP segments)", name);
            }
            if (i && p->logp.seg[q][i].from_bytes <= p->logp.seg[q][i - 1].from_bytes)
                return params_fail(err, lines, "%s segments' from_bytes not increasing", k);
        }
    }
    p->logp.present = 1;
    return 0;
}

/* The segment keys <prefix>_segments, <prefix>_seg<i>_{from_bytes,ns,
 * ns_per_byte}: all present, 1..MODEL_MAX_OSEG segments, increasing
 * starts. */
static int finish_segments(reader *r, const char *prefix, double k, int *count,
                           const model_oseg *seg, long lines, model_params_error *err)
{
    char name[40];
    snprintf(name, sizeof name, "%s_segments", prefix);
    if (!find_slot(r, name)->seen)
        return 0;
    if (k != floor(k) || k < 1 || k > MODEL_MAX_OSEG)
        return params_fail(err, lines, "%s must be 1.." MODEL_MAX_OSEG_TEXT, name);
    *count = (int)k;
    for (int i = 0; i < *count; i++) {
        static const char *const part[] = {"from_bytes", "ns", "ns_per_byte"};
        for (int j = 0; j < 3; j++) {
            snprintf(name, sizeof name, "%s_seg%d_%s", prefix, i + 1, part[j]);
            if (!find_slot(r, name)->seen)
                return params_fail(err, lines, "missing key '%s' (segments)", name);
        }
        if (i && seg[i].from_bytes <= seg[i - 1].from_bytes)
            return params_fail(err, lines, "%s_from_bytes not increasing",
                        (snprintf(name, sizeof name, "%s_seg%d", prefix, i + 1), name));
    }
    return 0;
}

/* The segments a <prefix>_seg<i>_* key may belong to: o and lb from their
 * *_segments, os, or and g from the LogP keys; -1: not a segment key. */
static int segments_of(const model_params *p, const char *name, int *index)
{
    char prefix[8];
    int n = 0;
    if (sscanf(name, "%7[a-z]_seg%d_%n", prefix, index, &n) != 2 || n == 0)
        return -1;
    if (!strcmp(prefix, "o"))
        return p->o_segments;
    if (!strcmp(prefix, "lb"))
        return p->lb_segments;
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        if (!strcmp(prefix, model_logp_key[q]))
            return p->logp.present ? p->logp.segments[q] : 0;
    return -1;
}

/* A segment key beyond its *_segments (o_seg3_ns with o_segments = 2, or
 * any o_seg key without o_segments) would be silently unused: refused as
 * an unknown key, at its line. */
static int stray_segments(reader *r, const model_params *p, model_params_error *err)
{
    for (int i = 0; i < r->count; i++) {
        int index, count = r->slot[i].seen ? segments_of(p, r->slot[i].name, &index) : -1;
        char what[120];
        if (count < 0 || index <= count)
            continue;
        snprintf(what, sizeof what, "unknown key '%s': %s", r->slot[i].name,
                 count ? "beyond the segments the file declares" : "the file declares no such"
                 " segments (its *_segments key is missing)");
        return params_fail(err, r->slot[i].seen, "%s", what);
    }
    return 0;
}

/* A covariance needs both errors, and |cov| <= err_a err_b (Cauchy-Schwarz,
 * with room for the 6 digits the writer keeps); mirrored to cov[b][a]. */
static int finish_cov(reader *r, model_params *p, model_params_error *err)
{
    char name[40];
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = i + 1; j < MODEL_P_ALL; j++) {
            snprintf(name, sizeof name, "cov_%s_%s", model_param_key[i], model_param_key[j]);
            long line = find_slot(r, name)->seen;
            if (!line)
                continue;
            if (isnan(p->err[i]) || isnan(p->err[j]))
                return params_fail(err, line, "'%s' needs both parameters' *_err keys", name);
            if (fabs(p->cov[i][j]) > p->err[i] * p->err[j] * (1 + 1e-5) + 1e-300)
                return params_fail(err, line, "'%s' is larger than the product of the two"
                                   " standard errors (a covariance cannot be)", name);
            p->cov[j][i] = p->cov[i][j];
        }
    return 0;
}

/* Cross-key checks once the whole file is read. */
static int finish(reader *r, model_params *p, long lines, model_params_error *err)
{
    for (int i = 0; i < r->count; i++)
        if (r->slot[i].required && !r->slot[i].seen)
            return params_fail(err, lines, "missing required key '%s'", r->slot[i].name);
    if (find_slot(r, "links")->seen)
        topo_links_parse(r->links, &p->links);   /* checked in read_line */
    int rc = finish_cov(r, p, err);
    if (rc)
        return rc;
    rc = finish_logp(r, p, lines, err);
    if (rc)
        return rc;
    rc = finish_segments(r, "o", r->o_segments, &p->o_segments, p->oseg, lines, err);
    if (!rc)
        rc = finish_segments(r, "lb", r->lb_segments, &p->lb_segments, p->lbseg, lines, err);
    if (!rc)
        rc = stray_segments(r, p, err);
    return rc ? rc : params_check_nonnegative(p, lines, err);
}

/* Reads the lines of fp into p (fp is closed).  Returns as
 * model_params_read. */
int params_read_stream(FILE *fp, model_params *p, model_params_error *err)
{
    reader r;
    char *buf = NULL;
    size_t cap = 0;
    long line = 0;
    int rc = 0;

    memset(p, 0, sizeof *p);
    model_params_clear_optional(p);
    build_slots(&r, p);
    ssize_t len;
    while (rc == 0 && (len = getline(&buf, &cap, fp)) >= 0) {
        line++;
        /* getline's length, not strlen: the string functions stop at a NUL,
         * so a NUL would silently cut the line */
        if (memchr(buf, '\0', (size_t)len)) {
            rc = params_fail(err, line, "NUL byte in line%s", "");
            break;
        }
        strip_comment(buf);
        char *text = trim(buf);
        if (*text)
            rc = read_line(&r, text, line, err);
    }
    if (rc == 0 && ferror(fp)) {
        err->line = 0;
        err->sys_errno = errno ? errno : EIO;
        snprintf(err->msg, sizeof err->msg, "%s", strerror(err->sys_errno));
        rc = -1;
    }
    free(buf);
    fclose(fp);
    return rc ? rc : finish(&r, p, line, err);
}

int model_params_read(const char *path, model_params *p, model_params_error *err)
{
    FILE *fp = file_open_input(path);
    if (!fp) {
        err->line = 0;
        err->sys_errno = errno;
        snprintf(err->msg, sizeof err->msg, "%s", file_strerror(err->sys_errno));
        return -1;
    }
    int rc = params_read_stream(fp, p, err);
    if (rc == 0)
        snprintf(p->name, sizeof p->name, "%s", path);
    return rc;
}
