/* benchdata: one benchmark data file (docs/formats.md): its `# key: value`
 * header and its points; the writer and the reader live together so the
 * format has one definition. */
#ifndef SCITORUS_BENCHDATA_H
#define SCITORUS_BENCHDATA_H

#include <stdarg.h>
#include <stdio.h>

#include "util/file_error.h"

/* The most processes a row's node_ns column lists. */
#define BENCH_NODES_MAX 64

/* One measured point (one TSV row). */
typedef struct bench_point {
    char pattern[24];         /* "pp", "ow", or one of bench_p2p_modes */
    long src, dst;            /* node ranks */
    long hops, fwd, sw;       /* H, F, S of the request path src -> dst */
    long rhops, rfwd, rsw;    /* H', F', S' of the response path dst -> src */
    long size_bytes;
    long reps;                /* iterations per batch */
    long samples;             /* batches */
    double min_ns, median_ns, mean_ns, sd_ns, ci95_ns, max_ns;
    int noisy;                /* flag column: 1 = "noisy", 0 = "ok" */
    /* The floor beside its batches (benchdata/regime.h): their median and
     * quartiles; 0 when not measured (files without these columns). */
    double floor_ns, floor_q1_ns, floor_q3_ns;
    /* --node-times: each process's own time of the batches, the median, in
     * the row's unit, rank 0 first (docs/formats.md, node_ns); nodes of
     * them.  0: a file without the column; -1: the column says "-". */
    int nodes;
    double node_ns[BENCH_NODES_MAX];
} bench_point;

/* mpibench --p2p's modes, each a pattern column of its own (NULL-terminated):
 * ping-pongs (half a round trip), exchanges (one call), bibw and bw (a message's share of
 * a window); docs/formats.md. */
extern const char *const bench_p2p_modes[];
#define BENCH_P2P_MODE_LIST "bsend, rsend, issend, iprobe, sendrecv, sendrecv-replace, bibw or bw"

#define BENCH_HEADER_MAX 32

/* A whole file: header key/values in file order, and the points. */
typedef struct bench_data {
    int header_count;
    char header_key[BENCH_HEADER_MAX][32];
    char header_value[BENCH_HEADER_MAX][512];
    long header_line[BENCH_HEADER_MAX];   /* 1-based line in the file read; 0 if set */
    int incomplete;            /* the file ends with "# incomplete" */
    int node_times;            /* its rows have the node_ns column */
    long count;
    size_t cap;
    bench_point *points;       /* malloc'ed, count entries */
} bench_data;

/* Looks up a header value ("backend", "topology", ...); NULL if absent. */
const char *bench_data_header(const bench_data *d, const char *key);

/* The line a header key was read from (for messages); 0 when absent or
 * not read from a file. */
long bench_data_header_line(const bench_data *d, const char *key);

/* Why a data file was rejected. */
typedef file_error bench_read_error;

/* Reads a data file.  Returns 0, -1 when it cannot be opened or read, -2
 * when it is not a scitorus-bench file or a line is malformed (err->line).
 * On success the caller frees with bench_data_free. */
int bench_data_read(const char *path, bench_data *d, bench_read_error *err);
/* Reads only the header lines (up to the first row) of any bench data
 * file, whatever its pattern and columns; the same returns. */
int bench_data_read_header(const char *path, bench_data *d, bench_read_error *err);

/* A file that could not be opened or read (errno e; 0 means EIO): fills err
 * with file_strerror's words (a FIFO or device is named as such) and
 * returns -1.  Shared by the bench and LogP readers. */
int bench_read_error_sys(bench_read_error *err, int e);
void bench_data_free(bench_data *d);

/* Sets (or replaces) header key to a printf-formatted value. */
void bench_data_set_header(bench_data *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writer: the header lines (first line "# scitorus-bench 1"), then one row
 * per point as the run goes; callers write to an atomic_file's FILE.  A
 * file with d->node_times gives every point its nodes (or -1: "-"). */
void bench_data_write_header(FILE *fp, const bench_data *d);
void bench_data_write_point(FILE *fp, const bench_point *pt);
void bench_data_write_incomplete(FILE *fp);   /* "# incomplete" */
/* The whole of d written to path atomically (a reader sees the old file or
 * the new one).  Returns 0, or -1 with errno set. */
int bench_data_write_file(const char *path, const bench_data *d);
/* Points of a file with (on) or without the node_ns column, to be written
 * as such: nodes 0 becomes -1 with it, anything 0 without it. */
void bench_data_node_column(bench_data *d, int on);
/* That trailer's line, which every bench data format (pp/ow, logp, coll) ends an
 * unfinished run's file with. */
#define BENCH_DATA_INCOMPLETE "# incomplete\n"

#endif
