/* collective: mpibench --op, the pattern coll of bench's registry: its
 * checks, data file and run over the process counts and sizes
 * (mpibench/collective.h; the options: bench/options.c). */
#include "mpibench/collective.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli.h"
#include "coll/colldata.h"
#include "sched/collgen.h"
#include "coll/refine.h"
#include "util/atomicfile.h"
#include "util/file_error.h"
#include "util/opt.h"

static const char *const *const syncs = bench_coll_syncs;

/* --algorithm on P processes: the schedule generator's own rule for which
 * algorithm fits which P (scisim refuses by it too); 0 or EXIT_USAGE. */
static int check_algorithm(bench_cli *c, long procs)
{
    char why[160];
    if (!c->coll.algorithm || !coll_validate(c->coll.op, c->coll.algorithm, (int)procs, why,
                                             sizeof why))
        return 0;
    return bench_cli_usage(c, "--algorithm '%s' on %ld processes (--procs, or mpirun -np): %s",
                           c->coll.algorithm, procs, why);
}

/* After the options: what --op shares with the other patterns (sizes,
 * --rel-error, --max-samples, --timeout, --inject-os, -o, --resume, -q)
 * into c->coll, with --op's own defaults where they were not given. */
static int coll_check(bench_cli *c)
{
    coll_opts *o = &c->coll;
    const opt_state *st = &c->opts;
    char why[160];
    if (!c->have_op)
        return bench_cli_usage(c, "--pattern coll: --op, which collective (barrier, bcast, reduce,"
                               " allreduce, allgather, alltoall, gather, scatter, ...)");
    /* a collective's repetition is tens of microseconds: 2% in at most
     * 2000 repetitions, 30 s a point */
    o->rel_error = opt_given(st, "rel-error") ? c->cfg.rel_error : 0.02;
    /* --sync osu: exactly osu_*'s count (-1), as a longer run's mean of a
     * tailed distribution reads higher than a shorter one's */
    o->max_samples = opt_given(st, "max-samples") ? c->cfg.max_samples
                     : o->sync == COLL_SYNC_OSU ? -1 : 2000;
    o->timeout_s = opt_given(st, "timeout") ? c->setup.cfg.timeout_s : 30;
    o->inject_os_ns = c->logp.inject_os_ns;
    o->quiet = c->cfg.quiet;
    o->out = c->out_path;
    o->resume = c->resume_path;
    /* -1: osu_*'s count for each size (collective_time.c) */
    if (!opt_given(st, "warmup"))
        o->warmup = o->sync == COLL_SYNC_OSU ? -1 : 20;
    if (!opt_given(st, "min-samples") && o->sync == COLL_SYNC_OSU)
        o->min_samples = -1;
    if (!opt_given(st, "batch"))   /* 0: --sync osu's, all of --min-samples */
        o->batch = o->sync == COLL_SYNC_OSU ? 0 : 32;
    /* a barrier moves no data: one point per process count, size 0 */
    if (bench_coll_op_sizeless(o->op) && c->have_sizes)
        return bench_cli_usage(c, "--sizes '%s': --op %s moves no data (one point per"
                               " process count, size 0)", c->sizes_text, bench_coll_op_name(o->op));
    if (o->op >= COLL_NOPS && o->algorithm)
        return bench_cli_usage(c, "--algorithm '%s': --op %s has no schedule here (only the MPI"
                               " library's is timed)", o->algorithm, bench_coll_op_name(o->op));
    if (bench_coll_op_sizeless(o->op))
        c->cfg.nsizes = 1, c->cfg.sizes[0] = 0;
    if (c->cfg.nsizes > COLL_MAX_SIZES)
        return bench_cli_usage(c, "--sizes: %zu sizes, --op takes at most %d", c->cfg.nsizes,
                               COLL_MAX_SIZES);
    o->nsizes = c->cfg.nsizes;
    for (size_t i = 0; i < o->nsizes; i++)
        if ((o->sizes[i] = c->cfg.sizes[i]) > COLL_MAX_SIZE_BYTES)
            return bench_cli_usage(c, "--sizes: %ld bytes, above --op's largest, 64 MiB (an"
                                   " alltoall's buffers are P times it)", o->sizes[i]);
    if (o->max_samples > 1000000)
        return bench_cli_usage(c, "--max-samples %ld: --op keeps every repetition, at most 1e6",
                               o->max_samples);
    if (o->algorithm) {
        coll_sched s;
        int rc = coll_generate(&s, o->op, o->algorithm, 2, 0, 8, why, sizeof why);
        coll_sched_free(&s);
        if (rc)
            return bench_cli_usage(c, "--algorithm '%s': %s", o->algorithm, why);
    }
    for (size_t i = 0; i < o->nprocs; i++)
        if (check_algorithm(c, o->procs[i]))
            return EXIT_USAGE;
    if (o->inject_os_ns > 0 && !o->algorithm)
        return bench_cli_usage(c, "--inject-os: with --op needs --algorithm (an MPI library's"
                               " collective has no hook)");
    if (o->max_samples > 0 && o->min_samples > o->max_samples)   /* -1: osu_*'s, to fit */
        return bench_cli_usage(c, "--min-samples %ld: more than --max-samples %ld",
                               o->min_samples, o->max_samples);
    return 0;
}

/* Checks that need the world size; 0 or EXIT_USAGE. */
static int check_world(bench_cli *c, int world)
{
    coll_opts *o = &c->coll;
    if (!o->nprocs)
        o->procs[o->nprocs++] = world;
    for (size_t i = 0; i < o->nprocs; i++) {
        if (o->procs[i] > world)
            return bench_cli_usage(c, "--procs %ld: more processes than mpirun started (%d)",
                                   o->procs[i], world);
        if (o->root >= o->procs[i])
            return bench_cli_usage(c, "--root %ld: outside the communicator of %ld processes"
                                   " (ranks 0..%ld)", o->root, o->procs[i], o->procs[i] - 1);
        if (check_algorithm(c, o->procs[i]))
            return EXIT_USAGE;
    }
    return 0;
}

static const char *coll_help(const bench_cli *c, char *epilog, size_t size)
{
    (void)c;
    printf("Usage: mpirun -np P mpibench --op OP [OPTIONS]\n"
           "Times an MPI collective.  By default as osu_<op> does (--sync osu): the\n"
           "mean over ranks of each rank's mean is osu_<op>'s Avg Latency, mean_ns.\n\n");
    snprintf(epilog, size, "Columns: docs/formats.md, 'Collective TSV'.  --resume FILE keeps"
             " FILE's rows\nof the same op and timing and measures the rest (mpibench --resume"
             " FILE\nalone: with FILE's recorded options).  A stop (SIGINT, SIGTERM, SIGHUP)"
             " to any\nrank ends the run with the points that finished; a point cut short is"
             " dropped.\nExit status: 0 success, 1 runtime failure, 2 usage error, 130"
             " interrupted.\n\nExample:\n"
             "  mpirun -np 4 mpibench --op bcast --procs 2..4 -o bcast.tsv\n"
             "  mpirun -np 2 mpibench --op allreduce --sync window -o allreduce.tsv\n");
    return epilog;
}

typedef struct run {
    bench_cli *c;
    coll_opts *o;
    FILE *out;
    coll_data done;            /* --resume's rows */
    mpistop stop;
    long measured, noisy;      /* points measured by this run, and of them flagged noisy */
} run;

static void header(const run *r, int world)
{
    bench_data h;
    const coll_opts *o = r->o;
    bench_cli_header_start(r->c, &h);
    bench_data_set_header(&h, "procs", "%d", world);
    bench_data_set_header(&h, "pattern", "coll");
    bench_data_set_header(&h, "op", "%s", bench_coll_op_name(o->op));
    bench_data_set_header(&h, "algorithm", "%s", o->algorithm ? o->algorithm : "library");
    bench_data_set_header(&h, "sync", "%s", syncs[o->sync]);
    bench_data_set_header(&h, "timing", "%s",
                          o->sync == COLL_SYNC_WINDOW
                              ? "offsets to rank 0 from the fastest of 32 ping-pongs; rank r"
                                " starts repetition i at t0 + i*window on its clock; a"
                                " repetition a rank started late is dropped; time = end - start"
                              : "MPI_Barrier between repetitions, each rank times the operation"
                                " alone");
    bench_data_set_header(&h, "time", "%s", o->sync == COLL_SYNC_OSU
                                                ? "per repetition the mean over ranks (mean_ns:"
                                                  " osu_*'s Avg Latency)"
                                                : "per repetition the slowest rank's");
    bench_data_set_header(&h, "cut_quantile", "%g", o->cut_quantile);
    if (o->warmup < 0)
        bench_data_set_header(&h, "warmup", "osu_*'s: 200, 10 above 8192 elements and for"
                              " barrier");
    else
        bench_data_set_header(&h, "warmup", "%ld", o->warmup);
    if (o->min_samples < 0 && o->max_samples < 0)
        bench_data_set_header(&h, "stop", "osu_*'s 1000 repetitions, 100 above 8192 elements"
                              " and for barrier");
    else if (o->min_samples < 0)
        bench_data_set_header(&h, "stop", "standard error <= %g of the mean, osu_*'s 1000 (100"
                              " above 8192 elements)..%ld repetitions", o->rel_error,
                              o->max_samples);
    else if (o->max_samples < 0)
        bench_data_set_header(&h, "stop", "standard error <= %g of the mean, %ld..osu_*'s 1000"
                              " (100 above 8192 elements) repetitions", o->rel_error,
                              o->min_samples);
    else
        bench_data_set_header(&h, "stop", "standard error <= %g of the mean, %ld..%ld"
                              " repetitions", o->rel_error, o->min_samples, o->max_samples);
    if (o->inject_os_ns > 0)
        bench_data_set_header(&h, "inject", "os_ns=%g", o->inject_os_ns);
    if (o->refine)
        bench_data_set_header(&h, "refine", "threshold=%g min_distance=%ld budget_s=%g",
                              o->refine_threshold, o->refine_min_distance, o->refine_budget_s);
    fprintf(r->out, "# scitorus-bench 1\n");
    for (int k = 0; k < h.header_count; k++)
        fprintf(r->out, "# %s: %s\n", h.header_key[k], h.header_value[k]);
    fprintf(r->out, "# columns: %s%s\n", COLL_COLUMNS, o->node_times ? " " COLL_NODE_COLUMN : "");
    fflush(r->out);
}

static void write_point(const run *r, long procs, const coll_point *pt)
{
    coll_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.op, sizeof row.op, "%s", bench_coll_op_name(r->o->op));
    snprintf(row.sync, sizeof row.sync, "%s", syncs[r->o->sync]);
    row.procs = procs, row.root = r->o->root, row.size = pt->size, row.reps = pt->reps;
    row.dropped = pt->dropped, row.min_ns = pt->min_ns, row.median_ns = pt->median_ns;
    row.mean_ns = pt->mean_ns, row.sd_ns = pt->sd_ns, row.ci95_ns = pt->ci95_ns;
    row.max_ns = pt->max_ns, row.noisy = pt->noisy;
    for (long k = 0, len = 0; k < procs && len < (long)sizeof row.node_ns - 16; k++)
        len += snprintf(row.node_ns + len, sizeof row.node_ns - (size_t)len, "%s%.1f",
                        k ? "," : "", pt->node_ns[k]);
    for (long k = 0, len = 0; k < procs && len < (long)sizeof row.node_mean_ns - 16; k++)
        len += snprintf(row.node_mean_ns + len, sizeof row.node_mean_ns - (size_t)len, "%s%.1f",
                        k ? "," : "", pt->node_mean_ns[k]);
    coll_data_write_row(r->out, &row, r->o->node_times);
    fflush(r->out);
}

/* A resumed file's rows of procs that an earlier --refine added (the listed
 * sizes were copied already): written again and put on the curve, so the
 * refinement goes on from them rather than dropping them.  Returns n. */
static int resumed_refinement(const run *r, long procs, long *x, double *y, int n)
{
    for (long i = 0; i < r->done.count && n < COLL_MAX_SIZES * 2 - 1; i++) {
        const coll_row *d = &r->done.rows[i];
        int seen = d->procs != procs;
        for (int k = 0; k < n && !seen; k++)
            seen = x[k] == d->size;
        if (seen)
            continue;
        coll_row copy = *d;
        coll_data_write_row(r->out, &copy, r->o->node_times);
        refine_insert(x, y, &n, d->size, d->median_ns);
    }
    return n;
}

/* Rank 0 of the sub-communicator picks each size (the listed ones, then
 * --refine's) and tells the others; -1 ends the process count. */
static int run_procs(run *r, MPI_Comm sub, long procs, int me)
{
    const coll_opts *o = r->o;
    long x[COLL_MAX_SIZES * 2];
    double y[COLL_MAX_SIZES * 2];
    int n = 0, rc = 0;
    size_t next = 0;
    refine_cfg rc_cfg = {o->refine_threshold, o->refine_min_distance, 1};
    double refine_start = -1;
    for (;;) {
        long size = -1;
        if (me == 0) {
            while (next < o->nsizes && size < 0) {
                long s = o->sizes[next++];
                const coll_row *d = coll_data_find(&r->done, procs, s);
                int seen = 0;
                for (int k = 0; k < n; k++)
                    seen |= x[k] == s;
                if (seen)
                    continue;
                if (d) {
                    coll_row copy = *d;
                    coll_data_write_row(r->out, &copy, o->node_times);
                    refine_insert(x, y, &n, s, d->median_ns);
                } else {
                    size = s;
                }
            }
            if (size < 0 && o->refine && refine_start < 0)
                n = resumed_refinement(r, procs, x, y, n);
            if (size < 0 && o->refine && n < COLL_MAX_SIZES * 2 - 1) {
                if (refine_start < 0)
                    refine_start = MPI_Wtime();
                if (MPI_Wtime() - refine_start < o->refine_budget_s)
                    size = refine_next(&rc_cfg, x, y, n);
            }
        }
        MPI_Bcast(&size, 1, MPI_LONG, 0, sub);
        if (size < 0)
            break;
        coll_point pt;
        rc = coll_measure(o, &r->stop, sub, size, &pt);
        if (rc)
            break;
        if (me == 0) {
            write_point(r, procs, &pt);
            r->measured++, r->noisy += pt.noisy;
            refine_insert(x, y, &n, size, pt.median_ns);
            if (!o->quiet)
                fprintf(stderr, "mpibench: %s P=%ld %ld B: %.1f ns\n", bench_coll_op_name(o->op),
                        procs, size, pt.median_ns);
        }
    }
    return rc;
}

static int load_resume(run *r)
{
    file_error err;
    int rc = coll_data_read(r->o->resume, &r->done, &err);
    if (rc)
        return file_error_report(1, "mpibench", r->o->resume, &err);
    if (strcmp(r->done.op, bench_coll_op_name(r->o->op)) ||
        strcmp(r->done.sync, syncs[r->o->sync])) {
        fprintf(stderr, "mpibench: %s: --resume: the file holds %s timed by %s, not --op %s"
                        " --sync %s\n", r->o->resume, r->done.op, r->done.sync,
                bench_coll_op_name(r->o->op), syncs[r->o->sync]);
        return EXIT_USAGE;
    }
    return 0;
}

/* The whole run: MPI_Init .. MPI_Finalize (the collectives are MPI's
 * own, so this pattern talks to MPI rather than through the backend). */
static int coll_run(bench_cli *c, int *argc, char ***argv)
{
    int world, me, rc;
    coll_opts *o = &c->coll;
    MPI_Init(argc, argv);
    run r = {c, o, stdout, {.count = 0}, {0}, 0, 0};
    mpistop_open(&r.stop);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    rc = check_world(c, world);
    atomic_file af = {0};
    if (!rc && me == 0 && o->resume)
        rc = load_resume(&r);
    if (!rc && me == 0 && bench_cli_open(c, "-o", o->out, &af, &r.out))
        rc = 1;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc) {
        coll_data_free(&r.done);
        if (af.fp)
            atomic_file_abort(&af);
        mpistop_close(&r.stop);
        MPI_Finalize();
        return rc;
    }
    if (me == 0)
        header(&r, world);
    for (size_t i = 0; i < o->nprocs && !rc; i++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, me < o->procs[i] ? 0 : MPI_UNDEFINED, me, &sub);
        if (sub != MPI_COMM_NULL) {
            rc = run_procs(&r, sub, o->procs[i], me);
            MPI_Comm_free(&sub);
        }
        /* the ranks outside sub wait here the whole time, and a stop they
         * get must still reach rank 0 */
        mpistop_wait_bcast(&r.stop, &rc, 1, MPI_INT, MPI_COMM_WORLD);
    }
    bench_config said = c->cfg;   /* the report names the collectives' own target */
    said.rel_error = o->rel_error;
    if (me == 0)
        bench_noisy_report(&said, r.measured, r.noisy, -1);
    int status = bench_cli_status(rc);
    if (me == 0 && bench_cli_commit(c, &af, r.out, o->out, rc, "sizes"))
        status = EXIT_FAILURE;
    coll_data_free(&r.done);
    mpistop_close(&r.stop);
    MPI_Finalize();
    return status;
}

const bench_pattern_desc bench_pattern_coll = {
    .name = "coll", .scope = BENCH_IN_COLL, .default_sizes = "8,64,512,4096,32768,65536",
    .check = coll_check, .run = coll_run, .help = coll_help,
};
