/* params: presets (thesis Table 1, §6.2), o(m), and the params file reader
 * and writer (SPEC.md §4).  The file is valid gnuplot so plot scripts can
 * `load` it. */
#include "model/params.h"

#include <errno.h>
#include <float.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/parse.h"

const char *const model_param_key[MODEL_P_ALL] = {
    [MODEL_P_O0] = "o0_ns", [MODEL_P_O1] = "o1_ns_per_byte",
    [MODEL_P_LP] = "lp_ns", [MODEL_P_LF] = "lf_ns", [MODEL_P_LS] = "ls_ns",
    [MODEL_P_LB] = "lb_ns_per_byte",
};

/* The limit's digits for messages ("16"; the reader said 1..4 after the
 * limit became 6).  Two levels: # does not expand its argument, so one
 * level gave the macro's name. */
#define PARAMS_STR_(x) #x
#define PARAMS_STR(x) PARAMS_STR_(x)
#define MODEL_MAX_OSEG_TEXT PARAMS_STR(MODEL_MAX_OSEG)

const char *const model_logp_key[MODEL_LOGP_COUNT] = {"os", "or", "g"};

/* thesis Table 1 (o at 64 B and its slope, lp for 1 m of cable, lf, ls) and
 * §6.2 (the "enhanced" switch halves ls). */
static const struct preset {
    const char *name;
    double o0_ns, o1_ns_per_byte, mref_bytes, lp_ns, lf_ns, ls_ns;
} presets[] = {
    {"current", 2085, 11.6, 64, 7, 60, 670},
    {"enhanced", 2085, 11.6, 64, 7, 60, 335},
};

void model_params_clear_optional(model_params *p)
{
    p->o_segments = 0;
    p->lb_segments = 0;
    for (int i = 0; i < MODEL_P_ALL; i++) {
        p->err[i] = NAN;
        p->source[i][0] = '\0';
    }
    p->fit_r2 = NAN;
    p->fit_statistic[0] = '\0';
    p->fit_chi2_dof = NAN;
    p->links = TOPO_LINKS_UNI;
    p->link_bw_bytes_per_ns = MODEL_DEFAULT_LINK_BW_BYTES_PER_NS;
    memset(&p->logp, 0, sizeof p->logp);
}

int model_params_preset(const char *name, model_params *p)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const struct preset *s = &presets[i];
        if (strcmp(name, s->name) != 0)
            continue;
        memset(p, 0, sizeof *p);
        p->o0_ns = s->o0_ns;
        p->o1_ns_per_byte = s->o1_ns_per_byte;
        p->mref_bytes = s->mref_bytes;
        p->lp_ns = s->lp_ns;
        p->lf_ns = s->lf_ns;
        p->ls_ns = s->ls_ns;
        model_params_clear_optional(p);
        snprintf(p->name, sizeof p->name, "preset %s", s->name);
        return 0;
    }
    return -1;
}

/* Segment i of segs holding size_bytes (sizes below the first: the first). */
static const model_oseg *segment_at(const model_oseg *segs, int n, double size_bytes)
{
    int i = 0;
    while (i + 1 < n && size_bytes >= segs[i + 1].from_bytes)
        i++;
    return &segs[i];
}

double model_relay_bytes_ns(const model_params *p, double size_bytes)
{
    if (p->lb_segments <= 0)
        return size_bytes * p->lb_ns_per_byte;
    const model_oseg *s = segment_at(p->lbseg, p->lb_segments, size_bytes);
    return s->ns + s->ns_per_byte * (size_bytes - s->from_bytes);
}

double model_overhead_ns(const model_params *p, double size_bytes)
{
    if (p->o_segments <= 0)
        return p->o0_ns + p->o1_ns_per_byte * (size_bytes - p->mref_bytes);
    int i = 0;
    while (i + 1 < p->o_segments && size_bytes >= p->oseg[i + 1].from_bytes)
        i++;
    const model_oseg *s = &p->oseg[i];
    return s->ns + s->ns_per_byte * (size_bytes - s->from_bytes);
}

/* Piecewise linear, as o(m): segment i covers [from_i, from_{i+1}). */
static double segments_ns(const model_oseg *seg, int n, double size_bytes)
{
    int i = 0;
    while (i + 1 < n && size_bytes >= seg[i + 1].from_bytes)
        i++;
    return seg[i].ns + seg[i].ns_per_byte * (size_bytes - seg[i].from_bytes);
}

double model_logp_ns(const model_params *p, model_logp_q q, double size_bytes)
{
    if (!p->logp.present || p->logp.segments[q] < 1)
        return NAN;
    return segments_ns(p->logp.seg[q], p->logp.segments[q], size_bytes);
}

/* ---- reader --------------------------------------------------------------- */

/* Where a numeric key's value goes; `seen` catches duplicates. */
typedef struct key_slot {
    char name[40];
    double *value;
    char *string;          /* for *_source keys (gnuplot strings) */
    size_t string_len;
    int required;
    int seen;
} key_slot;

/* LogP: L_ns, and per quantity <q>_segments and 3 keys a segment */
#define LOGP_SLOTS (1 + MODEL_LOGP_COUNT * (1 + 3 * MODEL_MAX_OSEG))
#define MAX_SLOTS (7 + 2 * MODEL_P_ALL + 2 * (1 + 3 * MODEL_MAX_OSEG) + 3 + 2 + LOGP_SLOTS)

typedef struct reader {
    key_slot slot[MAX_SLOTS];
    int count;
    double o_segments, lb_segments;
    char links[8];         /* `links = "uni" | "bi"` (SPEC.md §7) */
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

/* The optional LogP keys (calibrate --logp). */
static void build_logp_slots(reader *r, model_params *p)
{
    char name[40];
    add_slot(r, "L_ns", &p->logp.L_ns, NULL, 0, 0);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++) {
        const char *k = model_logp_key[q];
        snprintf(name, sizeof name, "%s_segments", k);
        add_slot(r, name, &r->logp_segments[q], NULL, 0, 0);
        for (int i = 0; i < MODEL_MAX_OSEG; i++) {
            model_oseg *sg = &p->logp.seg[q][i];
            snprintf(name, sizeof name, "%s_seg%d_from_bytes", k, i + 1);
            add_slot(r, name, &sg->from_bytes, NULL, 0, 0);
            snprintf(name, sizeof name, "%s_seg%d_ns", k, i + 1);
            add_slot(r, name, &sg->ns, NULL, 0, 0);
            snprintf(name, sizeof name, "%s_seg%d_ns_per_byte", k, i + 1);
            add_slot(r, name, &sg->ns_per_byte, NULL, 0, 0);
        }
    }
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
    add_slot(r, "lb_ns_per_byte", &p->lb_ns_per_byte, NULL, 0, 0);   /* SPEC.md §6 */
    for (int i = 0; i < MODEL_P_ALL; i++) {
        snprintf(name, sizeof name, "%s_err", model_param_key[i]);
        add_slot(r, name, &p->err[i], NULL, 0, 0);
        snprintf(name, sizeof name, "%s_source", model_param_key[i]);
        add_slot(r, name, NULL, p->source[i], sizeof p->source[i], 0);
    }
    add_slot(r, "fit_r2", &p->fit_r2, NULL, 0, 0);
    add_slot(r, "fit_chi2_dof", &p->fit_chi2_dof, NULL, 0, 0);
    add_slot(r, "fit_statistic", NULL, p->fit_statistic, sizeof p->fit_statistic, 0);
    add_slot(r, "o_segments", &r->o_segments, NULL, 0, 0);
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        snprintf(name, sizeof name, "o_seg%d_from_bytes", i + 1);
        add_slot(r, name, &p->oseg[i].from_bytes, NULL, 0, 0);
        snprintf(name, sizeof name, "o_seg%d_ns", i + 1);
        add_slot(r, name, &p->oseg[i].ns, NULL, 0, 0);
        snprintf(name, sizeof name, "o_seg%d_ns_per_byte", i + 1);
        add_slot(r, name, &p->oseg[i].ns_per_byte, NULL, 0, 0);
    }
    add_slot(r, "lb_segments", &r->lb_segments, NULL, 0, 0);
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        snprintf(name, sizeof name, "lb_seg%d_from_bytes", i + 1);
        add_slot(r, name, &p->lbseg[i].from_bytes, NULL, 0, 0);
        snprintf(name, sizeof name, "lb_seg%d_ns", i + 1);
        add_slot(r, name, &p->lbseg[i].ns, NULL, 0, 0);
        snprintf(name, sizeof name, "lb_seg%d_ns_per_byte", i + 1);
        add_slot(r, name, &p->lbseg[i].ns_per_byte, NULL, 0, 0);
    }
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

static int fail(model_params_error *err, long line, const char *fmt, const char *arg)
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

/* Physically meaningful ranges of the values (issue 14).  A value outside
 * its range is a typo or a broken fit, and the model would only turn it into
 * inf, a 300-digit number or a bogus crossover, so the reader refuses it at
 * file:line.  The first row whose pattern (fnmatch) matches the key applies
 * (the last row: any other number only needs to be finite and not
 * negative).  A new key gets a row here, above the last, with the reason
 * for its limits (or is covered by its unit suffix). */
typedef struct param_bound {
    const char *pattern;
    double min, max;
    const char *why;
} param_bound;

#define PARAM_MAX_NS 1e9                    /* 1 s */
#define PARAM_MAX_NS_PER_BYTE 1e6           /* 1 kB/s */
#define PARAM_MAX_BYTES 1099511627776.0     /* 2^40 B = 1 TiB */
#define PARAM_MAX_BYTES_PER_NS 1e6          /* 1 PB/s */

static const param_bound param_bounds[] = {
    {"fit_r2", -DBL_MAX, 1, "R^2 = 1 - chi^2/SST is at most 1"},
    {"fit_chi2_dof", 0, DBL_MAX, "a sum of squares is not negative"},
    {"*_err", 0, DBL_MAX, "a standard error is not negative"},
    {"*_ns_per_byte", 0, PARAM_MAX_NS_PER_BYTE,
     "1e6 ns/B is 1 kB/s, slower than any network or memory copy"},
    {"*_bytes", 0, PARAM_MAX_BYTES, "no single message is larger than 1 TiB"},
    {"*_ns", 0, PARAM_MAX_NS,
     "an overhead or a hop of 1 s is a stalled machine, not a latency"},
    {"link_bw_bytes_per_ns", 0, PARAM_MAX_BYTES_PER_NS,
     "1e6 B/ns is 1 PB/s, ten thousand times the fastest link built"},
    {"*", 0, DBL_MAX, "a time, size, rate or count is not negative"},
};

static const param_bound *bound_of(const char *key)
{
    for (size_t i = 0; i < sizeof param_bounds / sizeof param_bounds[0]; i++)
        if (fnmatch(param_bounds[i].pattern, key, 0) == 0)
            return &param_bounds[i];
    return NULL;
}

/* 0 when v is within key's range, else -2 with err filled. */
static int check_bounds(const char *key, double v, long line, model_params_error *err)
{
    const param_bound *b = bound_of(key);
    char text[200];
    if (!b || (v >= b->min && v <= b->max))
        return 0;
    if (v < 0 && b->min == 0) {
        snprintf(text, sizeof text, "'%.60s' must not be negative", key);
    } else {
        snprintf(text, sizeof text, "'%.40s = %.6g' is out of range: %s must be %s%.6g (%s)",
                 key, v, key, v < b->min ? "at least " : "at most ",
                 v < b->min ? b->min : b->max, b->why);
    }
    return fail(err, line, "%s", text);
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
        return fail(err, line, "expected 'key = value', got '%.60s'", text);
    *eq = '\0';
    char *key = trim(text), *value = trim(eq + 1);
    key_slot *s = find_slot(r, key);
    if (!*key)
        return fail(err, line, "missing key before '='%s", "");
    if (!s)
        return fail(err, line, "unknown key '%.60s'", key);
    if (s->seen)
        return fail(err, line, "duplicate key '%.60s'", key);
    s->seen = 1;
    if (s->string) {
        if (s->string == r->links) {
            topo_links links;
            if (parse_string(value, s->string, s->string_len) ||
                topo_links_parse(s->string, &links))
                return fail(err, line, "'links' must be \"uni\" or \"bi\", got '%.60s'", value);
            return 0;
        }
        if (strcmp(key, "fit_statistic") == 0) {
            char t[16];
            if (parse_string(value, t, sizeof t) ||
                (strcmp(t, "min") && strcmp(t, "median") && strcmp(t, "mean")))
                return fail(err, line, "'fit_statistic' must be \"min\", \"median\" or"
                                       " \"mean\", got '%.60s'", value);
            snprintf(s->string, s->string_len, "%s", t);
            return 0;
        }
        if (parse_string(value, s->string, s->string_len))
            return fail(err, line, "'%.60s' needs a double-quoted string", key);
        return 0;
    }
    double v;
    parse_status st = parse_double(value, -HUGE_VAL, HUGE_VAL, &v);
    if (st == PARSE_EMPTY)
        return fail(err, line, "'%.60s' has no value", key);
    if (st != PARSE_OK)
        return fail(err, line, "'%.60s' is not a finite number", value);
    if (check_bounds(key, v, line, err))
        return -2;
    if (v == 0 && strcmp(key, "link_bw_bytes_per_ns") == 0)
        return fail(err, line, "'%.60s' must be positive", key);
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
        return fail(err, lines, "missing key 'L_ns' (LogP keys)%s", "");
    for (int q = 0; q < MODEL_LOGP_COUNT; q++) {
        const char *k = model_logp_key[q];
        snprintf(name, sizeof name, "%s_segments", k);
        double n = r->logp_segments[q];
        if (!find_slot(r, name)->seen)
            return fail(err, lines, "missing key '%s' (LogP keys)", name);
        if (n != floor(n) || n < 1 || n > MODEL_MAX_OSEG)
            return fail(err, lines, "%s must be 1.." MODEL_MAX_OSEG_TEXT, name);
        p->logp.segments[q] = (int)n;
        for (int i = 0; i < p->logp.segments[q]; i++) {
            static const char *const part[] = {"from_bytes", "ns", "ns_per_byte"};
            for (int j = 0; j < 3; j++) {
                snprintf(name, sizeof name, "%s_seg%d_%s", k, i + 1, part[j]);
                if (!find_slot(r, name)->seen)
                    return fail(err, lines, "missing key '%s' (LogP segments)", name);
            }
            if (i && p->logp.seg[q][i].from_bytes <= p->logp.seg[q][i - 1].from_bytes)
                return fail(err, lines, "%s segments' from_bytes not increasing", k);
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
        return fail(err, lines, "%s must be 1.." MODEL_MAX_OSEG_TEXT, name);
    *count = (int)k;
    for (int i = 0; i < *count; i++) {
        static const char *const part[] = {"from_bytes", "ns", "ns_per_byte"};
        for (int j = 0; j < 3; j++) {
            snprintf(name, sizeof name, "%s_seg%d_%s", prefix, i + 1, part[j]);
            if (!find_slot(r, name)->seen)
                return fail(err, lines, "missing key '%s' (segments)", name);
        }
        if (i && seg[i].from_bytes <= seg[i - 1].from_bytes)
            return fail(err, lines, "%s_from_bytes not increasing",
                        (snprintf(name, sizeof name, "%s_seg%d", prefix, i + 1), name));
    }
    return 0;
}

/* Cross-key checks once the whole file is read. */
static int finish(reader *r, model_params *p, long lines, model_params_error *err)
{
    for (int i = 0; i < r->count; i++)
        if (r->slot[i].required && !r->slot[i].seen)
            return fail(err, lines, "missing required key '%s'", r->slot[i].name);
    if (find_slot(r, "links")->seen)
        topo_links_parse(r->links, &p->links);   /* checked in read_line */
    int rc = finish_logp(r, p, lines, err);
    if (rc)
        return rc;
    rc = finish_segments(r, "o", r->o_segments, &p->o_segments, p->oseg, lines, err);
    return rc ? rc : finish_segments(r, "lb", r->lb_segments, &p->lb_segments, p->lbseg, lines,
                                     err);
}

/* Reads the lines of fp into p (fp is closed).  Returns as
 * model_params_read. */
static int read_stream(FILE *fp, model_params *p, model_params_error *err)
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
         * so a NUL would silently cut the line (issue 15) */
        if (memchr(buf, '\0', (size_t)len)) {
            rc = fail(err, line, "NUL byte in line%s", "");
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
    int rc = read_stream(fp, p, err);
    if (rc == 0)
        snprintf(p->name, sizeof p->name, "%s", path);
    return rc;
}

/* ---- writer --------------------------------------------------------------- */

static void write_comments(FILE *fp, const char *comments)
{
    while (comments && *comments) {
        size_t n = strcspn(comments, "\n");
        fprintf(fp, "# %.*s\n", (int)n, comments);
        comments += n + (comments[n] == '\n');
    }
}

/* LogP keys (SPEC.md §11), when present. */
static void write_logp(FILE *fp, const model_logp *l)
{
    if (!l->present)
        return;
    fprintf(fp, "# LogP (calibrate --logp): os(m), or(m), g(m) piecewise linear like o(m)\n"
                "L_ns = %.10g\n", l->L_ns);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++) {
        const char *k = model_logp_key[q];
        fprintf(fp, "%s_segments = %d\n", k, l->segments[q]);
        for (int i = 0; i < l->segments[q]; i++)
            fprintf(fp, "%s_seg%d_from_bytes = %.10g\n%s_seg%d_ns = %.10g\n"
                        "%s_seg%d_ns_per_byte = %.10g\n", k, i + 1, l->seg[q][i].from_bytes, k,
                    i + 1, l->seg[q][i].ns, k, i + 1, l->seg[q][i].ns_per_byte);
    }
}

/* The file's text for p, as model_params_write writes it. */
static void write_stream(FILE *fp, const model_params *p, const char *comments)
{
    const double value[MODEL_P_ALL] = {p->o0_ns, p->o1_ns_per_byte, p->lp_ns,
                                         p->lf_ns, p->ls_ns, p->lb_ns_per_byte};
    fprintf(fp, "# scitorus params (SPEC.md §4); gnuplot: load \"<this file>\"\n");
    write_comments(fp, comments);
    for (int i = 0; i < MODEL_P_ALL; i++) {
        /* lb is optional: a cut-through file nobody fitted stays as it was */
        if (i == MODEL_P_LB && value[i] == 0 && !p->source[i][0] && isnan(p->err[i]))
            continue;
        fprintf(fp, "%s = %.10g\n", model_param_key[i], value[i]);
        if (i == MODEL_P_O1)
            fprintf(fp, "mref_bytes = %.10g\n", p->mref_bytes);
    }
    for (int i = 0; i < MODEL_P_ALL; i++) {
        if (!isnan(p->err[i]))
            fprintf(fp, "%s_err = %.6g\n", model_param_key[i], p->err[i]);
        if (p->source[i][0])
            fprintf(fp, "%s_source = \"%s\"\n", model_param_key[i], p->source[i]);
    }
    if (p->o_segments > 0) {
        fprintf(fp, "o_segments = %d\n", p->o_segments);
        for (int i = 0; i < p->o_segments; i++)
            fprintf(fp, "o_seg%d_from_bytes = %.10g\no_seg%d_ns = %.10g\n"
                        "o_seg%d_ns_per_byte = %.10g\n",
                    i + 1, p->oseg[i].from_bytes, i + 1, p->oseg[i].ns, i + 1,
                    p->oseg[i].ns_per_byte);
    }
    if (p->lb_segments > 0) {
        fprintf(fp, "lb_segments = %d\n", p->lb_segments);
        for (int i = 0; i < p->lb_segments; i++)
            fprintf(fp, "lb_seg%d_from_bytes = %.10g\nlb_seg%d_ns = %.10g\n"
                        "lb_seg%d_ns_per_byte = %.10g\n",
                    i + 1, p->lbseg[i].from_bytes, i + 1, p->lbseg[i].ns, i + 1,
                    p->lbseg[i].ns_per_byte);
    }
    if (p->links != TOPO_LINKS_UNI)
        fprintf(fp, "links = \"%s\"\n", topo_links_name(p->links));
    if (p->link_bw_bytes_per_ns != MODEL_DEFAULT_LINK_BW_BYTES_PER_NS)
        fprintf(fp, "link_bw_bytes_per_ns = %.10g\n", p->link_bw_bytes_per_ns);
    if (!isnan(p->fit_r2))
        fprintf(fp, "fit_r2 = %.8g\n", p->fit_r2);
    if (!isnan(p->fit_chi2_dof))
        fprintf(fp, "fit_chi2_dof = %.8g\n", p->fit_chi2_dof);
    if (p->fit_statistic[0])
        fprintf(fp, "fit_statistic = \"%s\"\n", p->fit_statistic);
    write_logp(fp, &p->logp);
}

/* The writer's text read back by the reader, in memory: one range table
 * and one set of rules for both (a writer-side copy of the checks would
 * drift from the reader's). */
int model_params_check(const model_params *p, model_params_error *err)
{
    char *text = NULL;
    size_t len = 0;
    model_params back;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        goto sys;
    write_stream(out, p, NULL);
    if (fclose(out) != 0)
        goto sys;
    FILE *in = fmemopen(text, len, "r");
    if (!in)
        goto sys;
    int rc = read_stream(in, &back, err);
    free(text);
    return rc;
sys:
    err->line = 0;
    err->sys_errno = errno ? errno : ENOMEM;
    snprintf(err->msg, sizeof err->msg, "%s", strerror(err->sys_errno));
    free(text);
    return -1;
}

int model_params_write(const char *path, const model_params *p, const char *comments)
{
    atomic_file af;
    model_params_error err;
    int rc = model_params_check(p, &err);
    if (rc) {
        errno = rc == -2 ? EINVAL : err.sys_errno;
        return -1;
    }
    if (atomic_file_open(&af, path) != 0)
        return -1;
    write_stream(af.fp, p, comments);
    return atomic_file_commit(&af);
}
