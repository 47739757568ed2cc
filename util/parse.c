/* parse: strict number and list parsing for command lines and file readers. */
#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *parse_status_text(parse_status st)
{
    static const char *const text[] = {
        [PARSE_OK] = "ok",
        [PARSE_EMPTY] = "empty value",
        [PARSE_SYNTAX] = "not a number",
        [PARSE_RANGE] = "out of range",
        [PARSE_ORDER] = "range ends before it starts",
        [PARSE_TOO_MANY] = "too many values",
    };
    return (unsigned)st < sizeof text / sizeof text[0] ? text[st] : "invalid";
}

parse_status parse_double(const char *s, double min, double max, double *out)
{
    char *end;
    if (!s || !*s)
        return PARSE_EMPTY;
    /* strtod accepts leading blanks, hex floats, "nan" and "inf": we accept
     * only plain decimal text. */
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789+-.eE", *p))
            return PARSE_SYNTAX;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        return PARSE_SYNTAX;
    if (errno == ERANGE || !isfinite(v) || v < min || v > max)
        return PARSE_RANGE;
    *out = v;
    return PARSE_OK;
}

parse_status parse_long(const char *s, long min, long max, long *out)
{
    double v;
    parse_status st;
    char *end;

    if (!s || !*s)
        return PARSE_EMPTY;
    if (!strpbrk(s, ".eE")) {
        /* Plain integers go through strtol: exact beyond 2^53. */
        if (strspn(s, "+-0123456789") != strlen(s))
            return PARSE_SYNTAX;
        errno = 0;
        long l = strtol(s, &end, 10);
        if (end == s || *end)
            return PARSE_SYNTAX;
        if (errno == ERANGE || l < min || l > max)
            return PARSE_RANGE;
        *out = l;
        return PARSE_OK;
    }
    st = parse_double(s, (double)min, (double)max, &v);
    if (st != PARSE_OK)
        return st;
    if (v != floor(v))
        return PARSE_SYNTAX;
    *out = (long)v;
    return PARSE_OK;
}

/* Copies item [s, s+len) into a NUL-terminated buffer; -1 if too long. */
static int copy_item(const char *s, size_t len, char *buf, size_t cap)
{
    if (len >= cap)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return 0;
}

static parse_status push(long v, long *out, size_t cap, size_t *count)
{
    if (*count >= cap)
        return PARSE_TOO_MANY;
    out[(*count)++] = v;
    return PARSE_OK;
}

static parse_status parse_item(const char *item, parse_range_mode mode, long min,
                               long max, long *out, size_t cap, size_t *count)
{
    char a[64], b[64];
    const char *dots = strstr(item, "..");
    long lo, hi, step = 0;
    parse_status st;

    if (!dots)
        return (st = parse_long(item, min, max, &lo)) ? st : push(lo, out, cap, count);
    if (copy_item(item, (size_t)(dots - item), a, sizeof a))
        return PARSE_SYNTAX;
    const char *rest = dots + 2;
    const char *colon = strchr(rest, ':');
    if (colon && mode != PARSE_RANGE_POW2)
        return PARSE_SYNTAX;
    if (copy_item(rest, colon ? (size_t)(colon - rest) : strlen(rest), b, sizeof b))
        return PARSE_SYNTAX;
    if ((st = parse_long(a, min, max, &lo)) || (st = parse_long(b, min, max, &hi)))
        return st;
    if (colon && (st = parse_long(colon + 1, 1, max, &step)))
        return st;
    if (lo > hi)
        return PARSE_ORDER;
    if (mode == PARSE_RANGE_STEP1)
        step = 1;
    if (step == 0 && lo <= 0)
        return PARSE_RANGE;  /* doubling from 0 never advances */
    for (long v = lo; v <= hi;) {
        if ((st = push(v, out, cap, count)))
            return st;
        long next = step ? v + step : v * 2;
        if (next <= v || next > hi)
            break;
        v = next;
    }
    return PARSE_OK;
}

parse_status parse_list(const char *s, parse_range_mode mode, long min, long max,
                        long *out, size_t cap, size_t *count, size_t *err_pos)
{
    char item[160];
    size_t pos = 0;

    *count = 0;
    if (!s || !*s)
        return PARSE_EMPTY;
    for (;;) {
        size_t len = strcspn(s + pos, ",");
        parse_status st = PARSE_EMPTY;
        if (len && copy_item(s + pos, len, item, sizeof item) == 0)
            st = parse_item(item, mode, min, max, out, cap, count);
        else if (len)
            st = PARSE_SYNTAX;
        if (st) {
            if (err_pos)
                *err_pos = pos;
            return st;
        }
        pos += len;
        if (!s[pos])
            return PARSE_OK;
        pos++;  /* skip ',' */
    }
}
