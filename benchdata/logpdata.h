/* logpdata: a LogP parameter file (docs/formats.md, 'LogP file'): the project's
 * bench TSV conventions (first line "# scitorus-bench 1", `# key: value`
 * header with "pattern: logp" and "L_ns", one row per message size), its
 * writer and its strict reader in one place, shared by scibench/mpibench
 * --pattern logp and calibrate --logp. */
#ifndef SCITORUS_LOGPDATA_H
#define SCITORUS_LOGPDATA_H

#include <stdio.h>

#include "benchdata/benchdata.h"

/* The columns of a LogP file, in order. */
#define LOGP_COLUMNS "size os_ns os_ci_ns or_ns or_ci_ns g_ns g_ci_ns rtt_ns round_trips flag"
/* A run with --os-fence (header "os_fence") has three more, from the same
 * turns: the send call followed by a store fence (the call plus the drain
 * of its stores), its interval, and the round trips it was timed in
 * (README, LogP: the round-trip identity). */
#define LOGP_FENCE_COLUMNS "os_fence_ns os_fence_ci_ns rtt_fence_ns"

/* One message size: send overhead os, receive overhead or and gap g, each
 * with its confidence half-width (at the file's "confidence" level); the
 * mean m-byte round trip; the round trips the os and or estimates took; the
 * consistency flag ("ok", or "os>g", "or>g", "wide" joined by commas). */
typedef struct logp_row {
    long size_bytes;
    double os_ns, os_ci_ns, or_ns, or_ci_ns, g_ns, g_ci_ns, rtt_ns;
    long round_trips;
    char flag[32];
    int has_fence;           /* the three --os-fence columns below are set */
    double os_fence_ns, os_fence_ci_ns, rtt_fence_ns;
} logp_row;

/* A whole file.  hdr holds the header lines only (hdr.points is unused). */
typedef struct logp_data {
    bench_data hdr;
    int incomplete;          /* ends with "# incomplete" */
    double L_ns;             /* header L_ns; NAN when absent */
    long count;
    size_t cap;
    logp_row *rows;          /* malloc'ed, count entries, in file order */
} logp_data;

/* Reads a LogP file.  Returns 0; -1 when it cannot be opened or read; -2 when
 * it is not a LogP file (another pattern: err->msg says which) or a line is
 * malformed (err->line).  The caller frees with logp_data_free. */
int logp_data_read(const char *path, logp_data *d, bench_read_error *err);
void logp_data_free(logp_data *d);

/* Appends a row (copies it).  Returns 0, or -1 when out of memory. */
int logp_data_add(logp_data *d, const logp_row *row);

/* The row of size_bytes, or NULL. */
const logp_row *logp_data_find(const logp_data *d, long size_bytes);

/* L, the wire latency, from rows sorted by size: the median over the sizes
 * up to LOGP_L_MAX_BYTES (at least the smallest) of RTT/2 - os - or, with
 * the fenced columns when fence is set.  One size's round trip off by a
 * preemption moved L by hundreds of ns; the median of several does not.
 * *used gets how many sizes, *lo and *hi the least and greatest of their
 * values.  NAN when n is 0. */
#define LOGP_L_MAX_BYTES 64
double logp_estimate_L(const logp_row *rows, long n, int fence, long *used, double *lo, double *hi);

/* Writer: header (every key of h except "columns", then the columns line,
 * with LOGP_FENCE_COLUMNS when h has "os_fence"); rows as the run goes (the
 * three more fields where has_fence). */
void logp_data_write_header(FILE *fp, const bench_data *h);
void logp_data_write_row(FILE *fp, const logp_row *r);

#endif
