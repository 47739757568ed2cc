/* parse: strict number and list parsing shared by every command line and
 * file reader (whole string must be consumed; NaN, inf and overflow are
 * errors).  Lives in util/, the bottom layer every stage links. */
#ifndef SCITORUS_PARSE_H
#define SCITORUS_PARSE_H

#include <stddef.h>

typedef enum parse_status {
    PARSE_OK = 0,
    PARSE_EMPTY,       /* empty string */
    PARSE_SYNTAX,      /* not a number, or trailing garbage */
    PARSE_RANGE,       /* outside [min, max], overflow, NaN or infinite */
    PARSE_ORDER,       /* range "a..b" with a > b */
    PARSE_TOO_MANY     /* list longer than the caller's capacity */
} parse_status;

/* Text for a status, e.g. "not a number" (static). */
const char *parse_status_text(parse_status st);

/* Parses a decimal integer in [min, max].  Accepts an exponent form that is
 * an exact integer ("1e6"), rejects fractions. */
parse_status parse_long(const char *s, long min, long max, long *out);

/* Parses a finite real number in [min, max]. */
parse_status parse_double(const char *s, double min, double max, double *out);

/* How "a..b" expands in parse_list. */
typedef enum parse_range_mode {
    PARSE_RANGE_STEP1,   /* a, a+1, ..., b           (dims: 1..4) */
    PARSE_RANGE_POW2     /* a, 2a, 4a, ... <= b; "a..b:s" steps by s (sizes) */
} parse_range_mode;

/* Parses a comma-separated list of items, each a number or a range
 * "a..b" (and, in PARSE_RANGE_POW2 mode, "a..b:step"), every value in
 * [min, max].  out has room for cap values; *count gets the number written.
 * *err_pos (if not NULL) gets the offset of the offending item. */
parse_status parse_list(const char *s, parse_range_mode mode, long min, long max,
                        long *out, size_t cap, size_t *count, size_t *err_pos);

#endif
