/* backend_cli: what a backend adds to its program's command line (netgauge's
 * module usage/getopt hooks): its name, capability flags, its own options,
 * its header lines and which process speaks.  The shared command line
 * (bench/cli.h) asks these hooks and never which backend it runs. */
#ifndef SCITORUS_BACKEND_CLI_H
#define SCITORUS_BACKEND_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "bench/backend.h"

struct bench_data;
struct bench_pattern_desc;

/* Most processes (and CPUs to pin them to) of a run that starts its own. */
#define BENCH_MAX_PROCS 64

/* Capability flags. */
#define BENCH_CAP_SPAWNS 1u   /* starts its own processes (--procs P): P is known
                                 before init; else the launcher's ranks are the
                                 main network's nodes, known after init */
#define BENCH_CAP_ROUTE 2u    /* any process reaches any other in one send:
                                 --route network */

/* Which patterns an option applies to (a pattern's scope bit). */
#define BENCH_IN_GRID 1u      /* pp, ow: a ring or torus of nodes */
#define BENCH_IN_LOGP 2u      /* logp: two processes */
#define BENCH_IN_COLL 4u      /* coll (mpibench --op): an MPI collective */
#define BENCH_IN_P2P 8u       /* p2p (mpibench --p2p): MPI's other point-to-point calls */

/* One option of the backend's own. */
typedef struct bench_backend_option {
    const char *name;         /* long name, without "--"; it takes a value */
    unsigned scope;           /* BENCH_IN_* */
    const char *arg;          /* the value's name in --help */
    const char *help;         /* --help text, '\n' before a continuation line */
    const char *bad;          /* a value it refuses, for tests */
} bench_backend_option;

/* What the backend's options set; the hooks fill it, init reads cfg. */
typedef struct bench_backend_setup {
    bench_backend_config cfg;
    int cpus[BENCH_MAX_PROCS];    /* cfg.cpus points here */
    const char *value[8];         /* each own option's value as given, by index */
    int given[8];                 /* 1: the option was given */
    int logp;                     /* the pattern is logp (two processes, streams) */
} bench_backend_setup;

typedef struct bench_backend_cli {
    const char *prog;             /* "scibench", "mpibench" */
    unsigned caps;                /* BENCH_CAP_* */
    const char *intro;            /* --help's description */
    const char *examples;         /* --help's examples, pp/ow */
    const char *logp_example;     /* the one logp command line */
    const char *logp_between;     /* "processes over shared memory" */
    double batch_us;              /* --batch-time's default */
    const bench_backend_option *options;   /* NULL-name-terminated, at most 8 */
    /* Parses own option `index` (value arg, NULL for a flag) into s.
     * Returns 0, or 2 with a one-line message ("--mpi-send 'x': expected
     * ...") in err. */
    int (*parse)(bench_backend_setup *s, int index, const char *arg, char *err, size_t size);
    /* After every option (s->cfg.procs set): completes s, e.g. the CPUs to
     * pin to.  Returns 0, or 2 (usage) / 1 (runtime) with a message in err. */
    int (*prepare)(bench_backend_setup *s, char *err, size_t size);
    /* Adds the backend's lines to a data header. */
    void (*header)(const bench_backend_setup *s, struct bench_data *h);
    /* 1 in the one process that prints usage errors (all of them parse). */
    int (*speaks)(void);
    /* Where the measuring process's standard output really goes when a
     * launcher forwards it (and would swallow a write error): a stream to
     * write the data to instead, or NULL (then standard output).  NULL
     * hook: standard output is the process's own. */
    FILE *(*open_stdout)(void);
    /* A pattern only this backend runs (mpibench: coll), or NULL. */
    const struct bench_pattern_desc *own_pattern;
    /* Another pattern only this backend runs (mpibench: p2p), or NULL. */
    const struct bench_pattern_desc *own_p2p;
} bench_backend_cli;

extern const bench_backend_cli bench_shm_cli;
extern const bench_backend_cli bench_mpi_cli;

#endif
