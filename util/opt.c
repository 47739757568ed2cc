/* opt: options as data (see opt.h for how a program uses it). */
#include "util/opt.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

#ifndef SCITORUS_VERSION
#define SCITORUS_VERSION "unknown"
#endif

#define HELP_COLUMN 22        /* where --help's descriptions start */
#define ID_BASE 1000          /* getopt code of spec i: ID_BASE + i */
#define ID_HELP 2000          /* getopt codes of the implicit options */
#define ID_VERSION 2001

const char *opt_version(void)
{
    return SCITORUS_VERSION;
}

int opt_is_stdio(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int opt_usage_error(const opt_program *p, const char *fmt, ...)
{
    va_list ap;
    if (p->quiet)
        return EXIT_USAGE;
    fprintf(stderr, "%s: ", p->name);
    if (p->context)
        fprintf(stderr, "%s: ", p->context);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    return EXIT_USAGE;
}

static int takes_arg(const opt_spec *s)
{
    return s->kind != OPT_FLAG && s->kind != OPT_HEADING;
}

static int find(const opt_program *p, const char *name)
{
    for (int i = 0; i < p->nspecs; i++)
        if (p->specs[i].kind != OPT_HEADING &&
            (strcmp(p->specs[i].name, name) == 0 ||
             (p->specs[i].alias && strcmp(p->specs[i].alias, name) == 0)))
            return i;
    return -1;
}

int opt_given(const opt_state *st, const char *name)
{
    int i = find(st->prog, name);
    return i >= 0 && st->value[i] != NULL;
}

int opt_field_given(const opt_state *st, size_t field)
{
    for (int i = 0; i < st->prog->nspecs; i++)
        if (st->prog->specs[i].kind != OPT_HEADING && st->prog->specs[i].field == field &&
            st->value[i])
            return 1;
    return 0;
}

const char *opt_text(const opt_state *st, const char *name)
{
    int i = find(st->prog, name);
    if (i >= 0 && st->value[i])
        return st->text[i];
    static char buf[4][80];
    static int slot;
    char *b = buf[slot++ % 4];
    snprintf(b, sizeof buf[0], "--%s", name);
    return b;
}

/* Range words for messages: the spec's, else "min..max". */
static const char *range_words(const opt_spec *s, char *buf, size_t len)
{
    if (s->range)
        return s->range;
    snprintf(buf, len, "%g..%g", s->min, s->max);
    return buf;
}

static int no_limit(const opt_spec *s)
{
    return s->min == 0 && s->max == 0;
}

/* Parses arg into dest for spec s; on error writes why and returns 1. */
static int parse_value(const opt_spec *s, void *dest, const char *arg, char *why, size_t len)
{
    char *field = (char *)dest + s->field, rb[80];
    double lo = no_limit(s) ? -HUGE_VAL : s->min, hi = no_limit(s) ? HUGE_VAL : s->max;
    parse_status ps = PARSE_OK;
    size_t n = 0, pos;
    long lv;
    switch (s->kind) {
    case OPT_HEADING:
        return 0;
    case OPT_FLAG:
        *(int *)field = 1;
        return 0;
    case OPT_LONG:
    case OPT_SIZE:
        lo = no_limit(s) ? (double)-__LONG_MAX__ : lo;
        hi = no_limit(s) ? (double)__LONG_MAX__ : hi;
        if ((ps = parse_long(arg, (long)lo, (long)hi, &lv)) == PARSE_OK)
            *(long *)field = lv;
        break;
    case OPT_DOUBLE:
        ps = parse_double(arg, lo, hi, (double *)field);
        break;
    case OPT_LIST:
    case OPT_RANGE:
        ps = parse_list(arg, s->kind == OPT_LIST ? PARSE_RANGE_STEP1 : PARSE_RANGE_POW2,
                        (long)s->min, (long)s->max, (long *)field, s->cap, &n, &pos);
        if (ps == PARSE_OK)
            *(size_t *)((char *)dest + s->count_field) = n;
        break;
    case OPT_ENUM:
        for (int i = 0; s->choices[i]; i++)
            if (strcmp(arg, s->choices[i]) == 0)
                return *(int *)field = i, 0;
        {
            size_t k = (size_t)snprintf(why, len, "unknown value, expected ");
            for (int i = 0; s->choices[i] && k < len; i++)
                k += (size_t)snprintf(why + k, len - k, "%s%s", i ? (s->choices[i + 1] ? ", " : " or ") : "",
                                      s->choices[i]);
        }
        return 1;
    case OPT_STRING:
    case OPT_PATH:
        if (!*arg) {
            snprintf(why, len, "empty value");
            return 1;
        }
        *(const char **)field = arg;
        return 0;
    case OPT_STRINGS: {
        size_t *count = (size_t *)((char *)dest + s->count_field);
        if (!*arg)
            return snprintf(why, len, "empty value"), 1;
        if (*count >= s->cap)
            return snprintf(why, len, "at most %zu of them", s->cap), 1;
        ((const char **)field)[(*count)++] = arg;
        return 0;
    }
    case OPT_CUSTOM:
        why[0] = '\0';
        if (s->parse(dest, arg, why, len) == 0)
            return 0;
        if (!why[0])
            snprintf(why, len, "invalid value");
        return 1;
    }
    if (ps == PARSE_OK)
        return 0;
    snprintf(why, len, "%s, expected %s", parse_status_text(ps), range_words(s, rb, sizeof rb));
    return 1;
}

static int apply_defaults(const opt_program *p, void *dest)
{
    char why[256];
    for (int i = 0; i < p->nspecs; i++) {
        const opt_spec *s = &p->specs[i];
        if (s->def && parse_value(s, dest, s->def, why, sizeof why)) {
            fprintf(stderr, "%s: internal error: --%s default '%s': %s\n", p->name, s->name,
                    s->def, why);
            return EXIT_FAILURE;
        }
    }
    return 0;
}

/* getopt_long's tables, made from the specs. */
static void build_tables(const opt_program *p, struct option *longs, char *shorts)
{
    int n = 0, k = 0;
    shorts[k++] = p->stop_at_args ? '+' : ':';
    if (p->stop_at_args)
        shorts[k++] = ':';
    shorts[k++] = 'h';
    for (int i = 0; i < p->nspecs; i++) {
        const opt_spec *s = &p->specs[i];
        if (s->kind == OPT_HEADING)
            continue;
        int has = takes_arg(s) ? required_argument : no_argument;
        longs[n++] = (struct option){s->name, has, NULL, ID_BASE + i};
        if (s->alias)
            longs[n++] = (struct option){s->alias, has, NULL, ID_BASE + i};
        if (s->short_name) {
            shorts[k++] = (char)s->short_name;
            if (takes_arg(s))
                shorts[k++] = ':';
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, ID_HELP};
    longs[n++] = (struct option){"version", no_argument, NULL, ID_VERSION};
    longs[n] = (struct option){NULL, 0, NULL, 0};
    shorts[k] = '\0';
}

static int short_index(const opt_program *p, int c)
{
    for (int i = 0; i < p->nspecs; i++)
        if (p->specs[i].kind != OPT_HEADING && p->specs[i].short_name == c)
            return i;
    return -1;
}

static int getopt_error(const opt_program *p, int c, char **argv)
{
    const char *word = argv[optind - 1];
    if (c == ':') {
        if (optopt >= ID_BASE && optopt < ID_BASE + p->nspecs)
            return opt_usage_error(p, "--%s: needs a value", p->specs[optopt - ID_BASE].name);
        if (optopt && optopt < 256)
            return opt_usage_error(p, "-%c: needs a value", optopt);
        return opt_usage_error(p, "%s: needs a value", word);
    }
    if (optopt && optopt < 256)
        return opt_usage_error(p, "unrecognized option '-%c'", optopt);
    const char *eq = strchr(word, '=');
    if (eq && strncmp(word, "--", 2) == 0) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - word - 2), word + 2);
        int i = find(p, name);
        if (i >= 0 && !takes_arg(&p->specs[i]))
            return opt_usage_error(p, "--%s takes no value", p->specs[i].name);
    }
    return opt_usage_error(p, "unrecognized option '%s'", word);
}

static int record(const opt_program *p, opt_state *st, int i, const char *arg)
{
    const opt_spec *s = &p->specs[i];
    char now[128];
    snprintf(now, sizeof now, takes_arg(s) ? "--%s '%.100s'" : "--%s", s->name, arg);
    if (st->value[i] && !s->repeat && s->kind != OPT_STRINGS) {
        if (takes_arg(s))
            return opt_usage_error(p, "%s given twice (%s and %s): give it once", now,
                                   st->text[i], now);
        return opt_usage_error(p, "--%s given twice: give it once", s->name);
    }
    st->value[i] = arg;
    memcpy(st->text[i], now, sizeof now);
    return 0;
}

int opt_parse(const opt_program *p, int argc, char **argv, void *dest, opt_state *st)
{
    struct option longs[2 * OPT_MAX + 3];
    char shorts[3 * OPT_MAX + 4], why[512];
    memset(st, 0, sizeof *st);
    st->prog = p;
    if (p->nspecs > OPT_MAX)
        return fprintf(stderr, "%s: internal error: over %d options\n", p->name, OPT_MAX),
               EXIT_FAILURE;
    int rc = apply_defaults(p, dest);
    if (rc)
        return rc;
    if (getenv(OPT_BAD_CASES_ENV) && !p->quiet) {   /* for tests: the table's refusals */
        opt_bad_case bad[8 * OPT_MAX];   /* at most 7 a numeric option */
        int n = opt_bad_cases(p, bad, 8 * OPT_MAX);
        for (int i = 0; i < n; i++)
            printf("%s\t%s\t%s\n", bad[i].name, bad[i].value, bad[i].why);
        return OPT_DONE;
    }
    build_tables(p, longs, shorts);
    optind = 1;   /* (0 would also reset getopt's state; 1 is what the tools expect) */
    opterr = 0;
    int c, help = 0;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == '?' || c == ':')
            return getopt_error(p, c, argv);
        if ((c == 'h' || c == ID_HELP) && p->defer_help) {
            help = 1;
            continue;
        }
        if ((c == 'h' || c == ID_HELP || c == ID_VERSION) && !p->quiet)
            (c == ID_VERSION ? opt_print_version : opt_print_help)(p, stdout);
        if (c == 'h' || c == ID_HELP || c == ID_VERSION)
            return OPT_DONE;
        int i = c >= ID_BASE && c < ID_BASE + p->nspecs ? c - ID_BASE : short_index(p, c);
        if (i < 0)
            return opt_usage_error(p, "unrecognized option '%s'", argv[optind - 1]);
        const opt_spec *s = &p->specs[i];
        const char *arg = takes_arg(s) ? optarg : "";
        if ((rc = record(p, st, i, arg)))
            return rc;
        if (parse_value(s, dest, arg, why, sizeof why))
            return opt_usage_error(p, "--%s '%s': %s", s->name, arg, why);
    }
    st->first_arg = optind;
    st->nargs = argc - optind;
    if (help)
        return OPT_HELP;
    if (st->nargs > p->args_max)
        return opt_usage_error(p, "'%s': unexpected argument", argv[optind + p->args_max]);
    if (st->nargs < p->args_min)
        return opt_usage_error(p, "missing argument");
    for (int k = 0; k < p->nconflicts; k++) {
        const opt_conflict *x = &p->conflicts[k];
        if (opt_given(st, x->a) && opt_given(st, x->b))
            return opt_usage_error(p, "%s conflicts with %s: %s", opt_text(st, x->b),
                                   opt_text(st, x->a), x->why);
    }
    return 0;
}

int opt_check_scope(const opt_state *st, unsigned scope, const char *what)
{
    for (int i = 0; i < st->prog->nspecs; i++) {
        const opt_spec *s = &st->prog->specs[i];
        if (st->value[i] && s->scope && !(s->scope & scope))
            return opt_usage_error(st->prog, "--%s: not an option of %s", s->name, what);
    }
    return 0;
}

/* --help ------------------------------------------------------------------ */

static int in_help(const opt_program *p, const opt_spec *s)
{
    return !p->scope || !s->scope || (s->scope & p->scope);
}

static void help_line(FILE *fp, const char *left, const char *help, const char *def)
{
    int col = fprintf(fp, "%s", left);
    const char *line = help ? help : "";
    for (int first = 1;; first = 0) {
        const char *nl = strchr(line, '\n');
        int n = nl ? (int)(nl - line) : (int)strlen(line);
        if (!first || col >= HELP_COLUMN)
            fprintf(fp, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(fp, "%*s", HELP_COLUMN - col, "");
        fprintf(fp, "%.*s", n, line);
        if (!nl) {
            if (def && !strstr(help, "default"))
                fprintf(fp, "%s(default %s)", n ? " " : "", def);
            fputc('\n', fp);
            return;
        }
        line = nl + 1;
    }
}

void opt_print_options(const opt_program *p, FILE *fp)
{
    for (int i = 0; i < p->nspecs; i++) {
        const opt_spec *s = &p->specs[i];
        char left[128];
        if (!in_help(p, s))
            continue;
        if (s->kind == OPT_HEADING) {
            fprintf(fp, "%s%s\n", i ? "\n" : "", s->help);
            continue;
        }
        int k = snprintf(left, sizeof left, "  ");
        if (s->short_name)
            k += snprintf(left + k, sizeof left - k, "-%c, ", s->short_name);
        k += snprintf(left + k, sizeof left - k, "--%s", s->name);
        if (takes_arg(s))
            snprintf(left + k, sizeof left - k, " %s", s->arg ? s->arg : "VALUE");
        help_line(fp, left, s->help, s->def);
    }
}

void opt_print_help(const opt_program *p, FILE *fp)
{
    fputs(p->synopsis, fp);
    if (p->nspecs && p->specs[0].kind == OPT_HEADING)
        fputc('\n', fp);
    opt_print_options(p, fp);
    help_line(fp, "  -h, --help", "this text", NULL);
    help_line(fp, "  --version", "the program's version", NULL);
    if (p->more_help)
        p->more_help(fp);
    if (p->epilog)
        fputs(p->epilog, fp);
}

void opt_print_version(const opt_program *p, FILE *fp)
{
    fprintf(fp, "%s (scitorus) %s\n", p->name, opt_version());
}

/* Bad values for tests ---------------------------------------------------- */

static void add(opt_bad_case *out, int cap, int *n, const char *name, const char *why,
                const char *value)
{
    if (*n >= cap)
        return;
    out[*n].name = name;
    out[*n].why = why;
    snprintf(out[*n].value, sizeof out[*n].value, "%s", value);
    (*n)++;
}

int opt_bad_cases(const opt_program *p, opt_bad_case *out, int cap)
{
    int n = 0;
    char v[64];
    for (int i = 0; i < p->nspecs; i++) {
        const opt_spec *s = &p->specs[i];
        int integral = s->kind == OPT_LONG || s->kind == OPT_SIZE || s->kind == OPT_LIST ||
                       s->kind == OPT_RANGE;
        switch (s->kind) {
        case OPT_LONG:
        case OPT_SIZE:
        case OPT_DOUBLE:
        case OPT_LIST:
        case OPT_RANGE:
            add(out, cap, &n, s->name, "not a number", "12abc");
            add(out, cap, &n, s->name, "empty", "");
            add(out, cap, &n, s->name, "NaN", "nan");
            add(out, cap, &n, s->name, "infinite", "inf");
            add(out, cap, &n, s->name, "overflow", "99999999999999999999999");
            if (no_limit(s))
                break;
            snprintf(v, sizeof v, integral ? "%.0f" : "%.17g",
                     integral ? s->min - 1 : s->min - fmax(1, fabs(s->min)));
            add(out, cap, &n, s->name, "below the range", v);
            snprintf(v, sizeof v, integral ? "%.0f" : "%.17g",
                     integral ? s->max + 1 : s->max + fmax(1, fabs(s->max)));
            add(out, cap, &n, s->name, "above the range", v);
            break;
        case OPT_ENUM:
            add(out, cap, &n, s->name, "an unknown choice", "no-such-choice");
            break;
        case OPT_STRING:
        case OPT_PATH:
        case OPT_CUSTOM:
            if (s->bad)
                add(out, cap, &n, s->name, "refused", s->bad);
            break;
        default:
            break;
        }
    }
    return n;
}
