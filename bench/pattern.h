/* pattern: what the benchmarks measure, on top of any backend: ping-pong
 * (pp) and one-way (ow) between a source and a destination node of a ring
 * or torus, with store-and-forward relays and dimension switches at the
 * intermediate nodes (thesis ch. 5.2-5.3), timed in batches with SKaMPI's
 * standard-error control, written as bench TSV data (docs/formats.md). */
#ifndef SCITORUS_PATTERN_H
#define SCITORUS_PATTERN_H

#include <stdio.h>

#include "bench/backend.h"
#include "benchdata/benchdata.h"
#include "benchdata/stats.h"
#include "topo/topo.h"

#define BENCH_MAX_SIZES 4096
/* Networks measured interleaved in one run (scibench --interleave). */
#define BENCH_MAX_NETS 8

/* The measuring rules every timed point follows (pattern.c, and mpibench's p2p.c). */
/* A batch lasts at least this many times (timer resolution + overhead),
 * so reading the clock costs under 1% of a sample. */
#define BATCH_TIMER_FACTOR 100
/* Warm-up per point: caches, page faults, CPU frequency. */
#define WARMUP_ITERATIONS 200
/* One-way: the batch's single acknowledgement costs about one round trip,
 * so at least 100 messages per batch keep it near 1% of OW = time / reps. */
#define OW_MIN_REPS 100
#define WARMUP_MIN_NS 5e6
/* warm-up iterations timed together (see point_start) */
#define WARMUP_CHUNK 8
/* A converged point still takes batches until it has spanned this long (or its --max-time),
 * so interleaved points sample the same stretch of the machine's time, not a short point
 * beside a long one. */
#define POINT_MIN_SPAN_NS 10e6

typedef enum bench_pattern { BENCH_PP = 0, BENCH_OW = 1 } bench_pattern;
typedef enum bench_route { BENCH_ROUTE_SOFTWARE = 0, BENCH_ROUTE_NETWORK = 1 } bench_route;

typedef struct bench_config {
    bench_pattern pattern;
    topo_shape shape;             /* ring N or torus AxB */
    long src;                     /* source node (0) */
    long *dsts;                   /* destinations to measure, ndst of them */
    long ndst;
    long sizes[BENCH_MAX_SIZES];  /* message sizes in bytes */
    size_t nsizes;
    double rel_error;             /* stop when sem/mean <= this */
    long min_samples;             /* at least this many batches (8; --min-samples) */
    /* --refine: sizes added where a destination's curve bends (coll/refine.h), within
     * refine_budget_s after the listed ones */
    int refine;
    double refine_threshold, refine_budget_s;
    long refine_min_distance;
    double cut_quantile;          /* --cut-quantile: the figures of a point, and its stop
                                     rule, leave out its lowest and highest batches' share */
    long max_samples;             /* at most this many batches */
    double max_time_s;            /* per point */
    /* --batch-time: a timed batch's minimum besides the timer's; mpibench's default spans
     * several of Open MPI's fast-box laps (every few tens of messages), so they fall into every
     * batch at their rate; scibench 0 */
    double min_batch_ns;
    /* --echo: every node sends the bytes it last received (the source its
     * last reply's), as a relay does, not a send buffer (engine.echo) */
    int echo;
    /* --node-times: each process's part of every batch, the medians in the rows' node_ns
     * column (bench/control.h) */
    int node_times;
    double inject_forward_ns;     /* busy-wait at every forward */
    double inject_switch_ns;      /* busy-wait at every switch */
    bench_route route;            /* mpi: relay in software or send direct */
    int quiet;                    /* no progress lines */
    /* --interleave-sizes: every point of the run takes its batches in turn
     * (as the networks of --interleave do), not one point after another */
    int interleave_sizes;
    const char *prog;             /* "scibench" / "mpibench", for messages */
    /* points already measured (resume): skipped, copied to the output */
    const bench_data *done;
} bench_config;

/* Virtual node -> process that hosts it (node i on process i mod P): the
 * source node 0's process.  The engine places a torus's nodes by the sum of
 * their coordinates mod P (network_init; the same on rings). */
static inline int bench_host(long node, int procs)
{
    return (int)(node < procs ? node : node % procs);  /* no division on a 2-ring */
}

/* Runs the benchmark in every process, on nnets (1..BENCH_MAX_NETS)
 * networks at once: cfgs[k] is measured into outs[k] with headers[k].  The
 * networks share the processes and their source node's host; their points
 * are measured interleaved, batch by batch.  Process 0 (the host of the
 * source node) measures, writes each header and every point as it
 * finishes; the other processes serve their nodes until told to stop.
 * Returns 0, or a BENCH_ERR_* code (then each out holds its finished points
 * only, and the caller marks the files incomplete). */
int bench_run(const bench_backend *be, bench_comm *comm, const bench_config *cfgs, int nnets,
              bench_data *headers, FILE **outs);

/* Measures the timer: resolution (smallest observed step, at least the
 * clock's reported tick) and overhead (mean cost of one reading), in ns. */
void bench_timer_measure(const bench_backend *be, double *resolution_ns, double *overhead_ns);

/* The route's counts of a row from cfg->src to dst and back (bench/grid.c). */
void bench_fill_counts(const bench_config *cfg, long dst, bench_point *pt);

/* A finished point's progress line on stderr (none with cfg->quiet), and the run's
 * share of noisy points at its cfg->rel_error (benchdata/stats.h) and, spanning >= 0
 * (a floor was measured), of points that spanned regimes (bench/output.c). */
void bench_progress(const bench_config *cfg, const bench_point *pt, const bench_stats *st,
                    long index, long total);
void bench_noisy_report(const bench_config *cfg, long measured, long noisy, long spanning);

/* A page-aligned, zero-touched buffer of at least bytes (rounded up to whole
 * pages, as osu_latency's); free() it.  NULL when out of memory. */
unsigned char *bench_page_alloc(size_t bytes);

#endif
