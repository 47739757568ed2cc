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
#include "topo/topo.h"

#define BENCH_MAX_SIZES 4096
/* Networks measured interleaved in one run (scibench --interleave). */
#define BENCH_MAX_NETS 8

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
    long min_samples;             /* at least this many batches (8) */
    long max_samples;             /* at most this many batches */
    double max_time_s;            /* per point */
    /* --batch-time: a timed batch's minimum besides the timer's; mpibench's default spans
     * several of Open MPI's fast-box laps (every few tens of messages), so they fall into every
     * batch at their rate; scibench 0 */
    double min_batch_ns;
    /* --echo: every node sends the bytes it last received (the source its
     * last reply's), as a relay does, not a send buffer (engine.echo) */
    int echo;
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

/* A page-aligned, zero-touched buffer of at least bytes (rounded up to whole
 * pages, as osu_latency's); free() it.  NULL when out of memory. */
unsigned char *bench_page_alloc(size_t bytes);

#endif
