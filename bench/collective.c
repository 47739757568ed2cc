/* collective: mpibench --op's command line, data file and run over the
 * process counts and sizes (bench/collective.h). */
#include "bench/collective.h"

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
#include "coll/collgen.h"
#include "coll/refine.h"
#include "util/atomicfile.h"
#include "util/file_error.h"
#include "util/opt.h"
#include "util/signals.h"

#define F(f) offsetof(coll_opts, f)
static const char *const syncs[] = {"barrier", "window", NULL};

static const opt_spec specs[] = {
    {.kind = OPT_HEADING, .help = "Collective operation:"},
    {.name = "op", .kind = OPT_ENUM, .field = F(op), .choices = coll_op_names, .arg = "OP",
     .help = "barrier, bcast, reduce, allreduce, allgather, alltoall, gather or scatter"},
    {.name = "root", .kind = OPT_LONG, .field = F(root), .min = 0, .max = 1e6, .def = "0",
     .range = "0..procs-1", .arg = "R", .help = "root of bcast, reduce, gather, scatter"},
    {.name = "sizes", .kind = OPT_LIST, .field = F(sizes), .count_field = F(nsizes),
     .cap = COLL_MAX_SIZES, .min = 0, .max = 1 << 26, .def = "8,64,512,4096,32768,65536",
     .range = "0..64 MiB", .arg = "LIST", .help = "message sizes in bytes (per rank and block)"},
    {.name = "procs", .kind = OPT_LIST, .field = F(procs), .count_field = F(nprocs),
     .cap = COLL_MAX_PROCS, .min = 1, .max = COLL_MAX_PROCS, .range = "1..64", .arg = "LIST",
     .help = "processes: sub-communicators of ranks 0..P-1, e.g. 2..4\n"
             "(default: all of mpirun's)"},
    {.name = "algorithm", .kind = OPT_STRING, .field = F(algorithm), .arg = "ALG",
     .help = "run this algorithm's point-to-point schedule instead of\n"
             "the MPI library's collective (scicoll --list)"},
    {.kind = OPT_HEADING, .help = "Timing:"},
    {.name = "sync", .kind = OPT_ENUM, .field = F(sync), .choices = syncs, .def = "barrier",
     .arg = "HOW", .help = "barrier: MPI_Barrier before each repetition (OSU, IMB);\n"
                           "window: clock offsets to rank 0, then common start times"},
    {.name = "node-times", .kind = OPT_FLAG, .field = F(node_times),
     .help = "add each rank's median (column node_ns)"},
    {.name = "cut-quantile", .kind = OPT_DOUBLE, .field = F(cut_quantile), .min = 0, .max = 0.49,
     .def = "0", .range = "0..0.49", .arg = "Q", .help = "drop the lowest and highest Q of the samples"},
    {.name = "rel-error", .kind = OPT_DOUBLE, .field = F(rel_error), .min = 1e-6, .max = 1,
     .def = "0.02", .range = "1e-6..1", .arg = "E", .help = "stop when the standard error is E of the mean"},
    {.name = "min-samples", .kind = OPT_LONG, .field = F(min_samples), .min = 2, .max = 1e6,
     .def = "32", .range = "2..1e6", .arg = "N", .help = "repetitions at least"},
    {.name = "max-samples", .kind = OPT_LONG, .field = F(max_samples), .min = 2, .max = 1e6,
     .def = "2000", .range = "2..1e6", .arg = "N", .help = "repetitions at most"},
    {.name = "batch", .kind = OPT_LONG, .field = F(batch), .min = 1, .max = 4096, .def = "32",
     .range = "1..4096", .arg = "N", .help = "repetitions between two checks of the stop rule"},
    {.name = "timeout", .kind = OPT_DOUBLE, .field = F(timeout_s), .min = 0.1, .max = 1e5,
     .def = "30", .range = "0.1..1e5", .arg = "S", .help = "at most S seconds per point"},
    {.name = "inject-os", .kind = OPT_DOUBLE, .field = F(inject_os_ns), .min = 0, .max = 1e9,
     .def = "0", .range = "0..1e9", .arg = "NS",
     .help = "with --algorithm: busy-wait NS before every send (tests)"},
    {.kind = OPT_HEADING, .help = "Sizes where the curve bends:"},
    {.name = "refine", .kind = OPT_FLAG, .field = F(refine),
     .help = "insert sizes where the curve departs from a straight line"},
    {.name = "refine-threshold", .kind = OPT_DOUBLE, .field = F(refine_threshold), .min = 1e-4,
     .max = 10, .def = "0.1", .range = "1e-4..10", .arg = "R", .help = "relative departure"},
    {.name = "refine-min-distance", .kind = OPT_SIZE, .field = F(refine_min_distance), .min = 1,
     .max = 1 << 26, .def = "8", .range = "1..64 MiB", .arg = "B", .help = "closest new size"},
    {.name = "refine-budget", .kind = OPT_DOUBLE, .field = F(refine_budget_s), .min = 0.1,
     .max = 1e5, .def = "60", .range = "0.1..1e5", .arg = "S", .help = "seconds for refining"},
    {.kind = OPT_HEADING, .help = "Output:"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = F(out), .def = "-",
     .arg = "FILE", .help = "data file (written atomically; - standard output)"},
    {.name = "resume", .kind = OPT_PATH, .field = F(resume), .arg = "FILE",
     .help = "keep FILE's rows of the same op and timing; measure the rest"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = F(quiet), .help = "no progress"},
};

static const opt_program prog = {
    .name = "mpibench",
    .synopsis = "Usage: mpirun -np P mpibench --op OP [OPTIONS]\n"
                "Times an MPI collective; a repetition takes as long as its slowest rank.\n",
    .epilog = "Columns: docs/coll-notes.md.  Exit status: 0 success, 1 runtime failure,\n"
              "2 usage error.\n\nExample:\n"
              "  mpirun -np 4 mpibench --op bcast --procs 2..4 --sync window -o bcast.tsv\n",
    .specs = specs,
    .nspecs = (int)(sizeof specs / sizeof *specs),
};

static int me_rank;

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...)
{
    if (me_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "mpibench: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (try --help)\n");
        va_end(ap);
    }
    return EXIT_USAGE;
}

/* Checks that need the world size; 0 or EXIT_USAGE. */
static int check(coll_opts *o, int world)
{
    char why[160];
    if (!o->nprocs)
        o->procs[o->nprocs++] = world;
    for (size_t i = 0; i < o->nprocs; i++) {
        if (o->procs[i] > world)
            return usage("--procs %ld: more processes than mpirun started (%d)", o->procs[i], world);
        if (o->root >= o->procs[i])
            return usage("--root %ld: outside the communicator of %ld processes (ranks 0..%ld)",
                         o->root, o->procs[i], o->procs[i] - 1);
    }
    if (o->algorithm) {
        coll_sched s;
        int rc = coll_generate(&s, o->op, o->algorithm, 2, 0, 8, why, sizeof why);
        coll_sched_free(&s);
        if (rc)
            return usage("--algorithm '%s': %s", o->algorithm, why);
    }
    if (o->inject_os_ns > 0 && !o->algorithm)
        return usage("--inject-os: needs --algorithm (an MPI library's collective has no hook)");
    if (o->min_samples > o->max_samples)
        return usage("--min-samples %ld: more than --max-samples %ld", o->min_samples,
                     o->max_samples);
    return 0;
}

/* Parses on every rank, rank 0 alone speaking. */
static int parse(coll_opts *o, int argc, char **argv, int world)
{
    opt_state st;
    int saved = -1;
    memset(o, 0, sizeof *o);
    if (me_rank != 0) {
        int devnull = open("/dev/null", O_WRONLY);
        saved = dup(1);
        fflush(stdout), fflush(stderr);
        dup2(devnull, 1), dup2(devnull, 2);
        close(devnull);
    }
    int rc = opt_parse(&prog, argc, argv, o, &st);
    if (saved >= 0) {
        fflush(stdout), fflush(stderr);
        dup2(saved, 1);
        close(saved);
    }
    if (rc)
        return rc;
    if (!opt_given(&st, "op"))
        return usage("--op: which collective (barrier, bcast, reduce, allreduce, allgather,"
                     " alltoall, gather, scatter)");
    return check(o, world);
}

typedef struct run {
    coll_opts *o;
    FILE *out;
    coll_data done;            /* --resume's rows */
} run;

static void header(const run *r, int argc, char **argv, int world)
{
    char command[4096];
    bench_data h;
    const coll_opts *o = r->o;
    bench_cli_record_command(command, sizeof command, "mpibench", argc, argv);
    bench_cli_header_start(&h, &bench_backend_mpi, command);
    bench_data_set_header(&h, "timer", "%s", bench_backend_mpi.timer_name);
    bench_data_set_header(&h, "procs", "%d", world);
    bench_data_set_header(&h, "pattern", "coll");
    bench_data_set_header(&h, "op", "%s", coll_op_names[o->op]);
    bench_data_set_header(&h, "algorithm", "%s", o->algorithm ? o->algorithm : "library");
    bench_data_set_header(&h, "sync", "%s", syncs[o->sync]);
    bench_data_set_header(&h, "timing", "%s",
                          o->sync ? "offsets to rank 0 from the fastest of 32 ping-pongs; rank r"
                                    " starts repetition i at t0 + i*window on its clock; a"
                                    " repetition a rank started late is dropped; time = end - start"
                                  : "MPI_Barrier, then each rank times the operation alone");
    bench_data_set_header(&h, "time", "per repetition the slowest rank's");
    bench_data_set_header(&h, "cut_quantile", "%g", o->cut_quantile);
    bench_data_set_header(&h, "stop", "standard error <= %g of the mean, %ld..%ld repetitions",
                          o->rel_error, o->min_samples, o->max_samples);
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
    snprintf(row.op, sizeof row.op, "%s", coll_op_names[r->o->op]);
    snprintf(row.sync, sizeof row.sync, "%s", syncs[r->o->sync]);
    row.procs = procs, row.root = r->o->root, row.size = pt->size, row.reps = pt->reps;
    row.dropped = pt->dropped, row.min_ns = pt->min_ns, row.median_ns = pt->median_ns;
    row.mean_ns = pt->mean_ns, row.sd_ns = pt->sd_ns, row.ci95_ns = pt->ci95_ns;
    row.max_ns = pt->max_ns, row.noisy = pt->noisy;
    for (long k = 0, len = 0; k < procs && len < (long)sizeof row.node_ns - 16; k++)
        len += snprintf(row.node_ns + len, sizeof row.node_ns - (size_t)len, "%s%.1f",
                        k ? "," : "", pt->node_ns[k]);
    coll_data_write_row(r->out, &row, r->o->node_times);
    fflush(r->out);
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
        rc = coll_measure(o, sub, size, &pt);
        if (rc)
            break;
        if (me == 0) {
            write_point(r, procs, &pt);
            refine_insert(x, y, &n, size, pt.median_ns);
            if (!o->quiet)
                fprintf(stderr, "mpibench: %s P=%ld %ld B: %.1f ns\n", coll_op_names[o->op],
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
    if (strcmp(r->done.op, coll_op_names[r->o->op]) || strcmp(r->done.sync, syncs[r->o->sync])) {
        fprintf(stderr, "mpibench: %s: --resume: the file holds %s timed by %s, not --op %s"
                        " --sync %s\n", r->o->resume, r->done.op, r->done.sync,
                coll_op_names[r->o->op], syncs[r->o->sync]);
        return EXIT_USAGE;
    }
    return 0;
}

int coll_main(int argc, char **argv)
{
    int world, rc;
    coll_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    rc = parse(&o, argc, argv, world);
    run r = {&o, stdout, {.count = 0}};
    atomic_file af = {0};
    if (!rc && me_rank == 0 && o.resume)
        rc = load_resume(&r);
    if (!rc && me_rank == 0 && !opt_is_stdio(o.out)) {
        if (atomic_file_open(&af, o.out)) {
            fprintf(stderr, "mpibench: -o '%s': %s\n", o.out, file_strerror(errno));
            rc = 1;
        } else {
            r.out = af.fp;
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc) {
        coll_data_free(&r.done);
        if (af.fp)
            atomic_file_abort(&af);
        MPI_Finalize();
        return rc == OPT_DONE ? 0 : rc;
    }
    bench_signals_install_stop();
    if (me_rank == 0)
        header(&r, argc, argv, world);
    for (size_t i = 0; i < o.nprocs && !rc; i++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, me_rank < o.procs[i] ? 0 : MPI_UNDEFINED, me_rank, &sub);
        if (sub != MPI_COMM_NULL) {
            rc = run_procs(&r, sub, o.procs[i], me_rank);
            MPI_Comm_free(&sub);
        }
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (me_rank == 0 && !rc && bench_interrupted())
        rc = BENCH_ERR_INTERRUPT;
    int status = rc ? 1 : 0;
    if (me_rank == 0 &&
        bench_cli_commit("mpibench", o.resume, &af, r.out, af.fp ? o.out : NULL, rc, "sizes"))
        status = 1;
    coll_data_free(&r.done);
    MPI_Finalize();
    return status;
}
