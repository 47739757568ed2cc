/* cli: options, header, atomic output and resume for scibench/mpibench. */
#include "bench/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchdata.h"
#include "bench/logp_cli.h"
#include "bench/pattern.h"
#include "util/signals.h"
#include "util/atomicfile.h"
#include "util/parse.h"

#include "util/exit.h"
#define DEFAULT_REL_ERROR 0.01      /* issue 3 */
#define DEFAULT_MIN_SAMPLES 8       /* issue 3 */
#define DEFAULT_MAX_SAMPLES 1000
#define DEFAULT_MAX_TIME_S 5.0
/* mpibench's shortest batch (--batch-time): long enough to span the laps of
 * Open MPI's fast box, whose extra cost once per lap otherwise fell into a
 * fixed subset of a point's batches (bench/pattern.c, measure_all) */
#define DEFAULT_MPI_BATCH_US 200.0
#define DEFAULT_TIMEOUT_S 10.0      /* issue 3 */
#define MAX_SIZE_BYTES (1L << 30)
#define MAX_PROCS BENCH_CLI_MAX_CPUS
#define FLOOR_BATCHES 15
/* a benchmark places every node on a process; 65536 is far beyond that */
#define BENCH_MAX_NODES 65536

typedef struct cli {
    const bench_backend *be;
    const char *prog;
    int is_shm;
    bench_config cfg;
    bench_backend_config bcfg;
    int cpus[MAX_PROCS];
    long hops[TOPO_MAX_DIMS];
    int have_hops, have_dst, all_dst, have_topology, floor_only, have_sizes, have_pattern;
    long dst;
    const char *out_path, *resume_path, *mpi_send, *cpus_text, *hops_text, *topology_opt;
    char command[2048];
    bench_data resume_data;
    /* "FILE:LINE: recorded command" while parsing a --resume file's
     * command line, so its errors name where they come from; else "" */
    char context[PATH_MAX + 64];
    /* --interleave SHAPE=FILE: more networks, measured with the main one */
    struct {
        topo_shape shape;
        const char *text, *path;
    } extra[BENCH_MAX_NETS - 1];
    int nextra;
} cli;

static const char usage_fmt[] =
"Usage: %s [OPTIONS]\n"
"%s"
"\n"
"What to measure:\n"
"  --pattern P         pp (ping-pong, default; latency = round trip / 2) | ow\n"
"                      (one-way: reps messages back to back, one ack; latency =\n"
"                      time / reps; a direct link, 1 hop)\n"
"                      | logp (LogP parameters os, or, g, L of two processes;\n"
"                      its own options: --pattern logp --help)\n"
"  --ring N            nodes on one unidirectional ring (default 2)\n"
"  --torus AxB[xC]     nodes on a torus of unidirectional rings\n"
"  --hops h1,h2,..     destination of node 0 by its hop vector\n"
"  --dst NODE          destination of node 0 by its rank (row-major)\n"
"  --all-dst           measure every destination of node 0\n"
"                      (default: the symmetric destination n_i/2 hops away in\n"
"                      every dimension, as the thesis's tests)\n"
"  --sizes LIST        message sizes: 1,8,64 | 1..65536 (powers of two, the\n"
"                      default) | 64..4096:64 (linear step)\n"
"  --inject-forward NS busy-wait NS at every forwarding node (ground truth)\n"
"  --inject-switch NS  busy-wait NS at every dimension switch\n"
"  --echo              every node sends the bytes it has just received (the\n"
"                      destination its request's, the source its last reply's),\n"
"                      as a relay does, instead of from a send buffer as\n"
"                      osu_latency does; with a single-copy MPI transport every\n"
"                      hop then costs the same (calibrate measures with it)\n"
"\n"
"Statistics (SKaMPI-style): warm-up, then batches of reps iterations (a batch\n"
"lasts >= 100x timer resolution + overhead, and >= --batch-time) until\n"
"sem/mean <= --rel-error (and the point has run 10 ms, or --max-time if\n"
"shorter):\n"
"  --rel-error E       target relative standard error (default 0.01)\n"
"  --batch-time US     a batch lasts at least US microseconds (default:\n"
"                      mpibench 200, long enough to take an MPI transport's\n"
"                      periodic costs at their rate; scibench 0)\n"
"  --max-samples N     at most N batches per point (default 1000; at least 8)\n"
"  --max-time S        at most S seconds per point (default 5)\n"
"  --interleave-sizes  measure every size (and destination) of the run batch\n"
"                      by batch in turn instead of one after another, so a\n"
"                      change of the machine's speed hits every point alike;\n"
"                      each point keeps its stopping rule, and --max-time is\n"
"                      shared among the points measured together\n"
"\n"
"Output and behaviour:\n"
"  -o FILE             write the data there (atomically: temporary name, then\n"
"                      rename); default standard output\n"
"  --resume FILE       continue an interrupted run (a file ending '# incomplete')\n"
"                      with its recorded options; rewrites FILE complete\n"
"  --timeout S         give up after S seconds without progress (default 10)\n"
"  -q, --quiet         no progress lines on stderr\n"
"%s"
"  -h, --help          this text\n"
"\n"
"Output: SPEC.md §3 TSV (# header lines, one row per point: pattern src dst\n"
"hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns\n"
"ci95_ns max_ns flag), loads straight into gnuplot.  An interrupted run\n"
"(Ctrl-C, SIGTERM, a dead peer, --timeout) keeps its finished points and ends\n"
"'# incomplete'; it never replaces an existing FILE (which may hold a complete\n"
"run): then it writes FILE.incomplete beside it and says so.  Nothing is left\n"
"behind by a killed run (the data is a nameless temporary until the end).\n"
"Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
"\n"
"Examples:\n"
"%s";

static const char shm_intro[] =
"Shared-memory latency benchmark between processes on one host, the analogue\n"
"of the thesis's SCI benchmark: remote writes into the receiver's inbox, local\n"
"polling.  Virtual node i runs on process i mod P (on a torus: the sum of\n"
"its coordinates mod P, so that every hop of a 4x4 torus crosses processes).\n";
static const char shm_opts[] =
"  --procs P           processes (default 2), pinned to distinct CPUs\n"
"  --cpus LIST         CPUs to pin to, e.g. 2,3 (default: the first P allowed)\n"
"  --floor             only measure the bare floor (one cache-line flag bouncing\n"
"                      between two CPUs) and print it; with --sizes, also that\n"
"                      bounce carrying each size, copied in and out (a message\n"
"                      with no header and no benchmark around it), alternately\n"
"  --interleave S=FILE also measure the ring or torus S (8, 4x4) into FILE, up\n"
"                      to 7 times: the networks' points are measured batch by\n"
"                      batch in turn, so a change of the machine's speed during\n"
"                      the run hits them alike (compare hop counts on a noisy\n"
"                      or shared machine); ping-pong, symmetric destinations or\n"
"                      --all-dst; each point's --max-time is shared among them\n";

static const char shm_examples[] =
"  scibench --sizes 1..4096 -o ring2.tsv\n"
"  scibench --ring 8 --sizes 8,64 --inject-forward 2000\n"
"  scibench --torus 3x3 --all-dst --sizes 64\n"
"  scibench --floor --sizes 8,4096\n"
"  scibench --ring 2 -o r2.tsv --interleave 8=r8.tsv --interleave 6=r6.tsv\n";
static const char mpi_intro[] =
"MPI point-to-point latency benchmark (start it with mpirun); each rank is a\n"
"node of the ring or torus, rank 0 measures with MPI_Wtime.\n";
static const char mpi_opts[] =
"  --mpi-send M        send (MPI_Send, default) | ssend | isend (+MPI_Wait)\n"
"  --route R           software (default: intermediate ranks relay) | network\n"
"                      (send straight to the destination rank)\n"
"  --interleave S=FILE also measure the ring or torus S (8, 4x4) into FILE, up\n"
"                      to 7 times, batch by batch in turn with the main one; its\n"
"                      nodes are virtual, at least one per rank, hosted as\n"
"                      scibench hosts them (node i on rank i mod P, a torus's by\n"
"                      the sum of its coordinates mod P: on even rings and a\n"
"                      4x4 torus every hop crosses ranks, and hosts when the\n"
"                      ranks are on several); ping-pong, symmetric destinations\n"
"                      or --all-dst; each point's --max-time is shared\n";
static const char mpi_examples[] =
"  mpirun -np 2 mpibench --sizes 1..65536 -o mpi-ring2.tsv\n"
"  mpirun -np 2 --hostfile hosts --map-by node mpibench -o two-nodes.tsv\n"
"  mpirun -np 8 mpibench --ring 8 --sizes 64\n"
"  mpirun -np 2 mpibench --sizes 1..65536 --interleave-sizes -o mpi-ring2.tsv\n"
"  mpirun -np 2 mpibench -o r2.tsv --interleave 8=r8.tsv --interleave 4x4=t.tsv\n";

int bench_cli_should_print(int is_shm)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMIX_RANK");
    return is_shm || !r || strcmp(r, "0") == 0;
}

static int should_print(const cli *c)
{
    return bench_cli_should_print(c->is_shm);
}

int bench_cli_usage(int is_shm, const char *prog, const char *context, const char *hint,
                    const char *fmt, va_list ap)
{
    if (!bench_cli_should_print(is_shm))
        return EXIT_USAGE;
    fprintf(stderr, "%s: ", prog);
    if (context && context[0])
        fprintf(stderr, "%s: ", context);
    vfprintf(stderr, fmt, ap);
    if (context && context[0])
        fputc('\n', stderr);
    else
        fprintf(stderr, " (try %s)\n", hint);
    return EXIT_USAGE;
}

static int usage_error(const cli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = bench_cli_usage(c->is_shm, c->prog, c->context, "--help", fmt, ap);
    va_end(ap);
    return rc;
}

static int bad(const cli *c, const char *opt, const char *arg, parse_status st, const char *want)
{
    return usage_error(c, "%s '%s': %s, expected %s", opt, arg, parse_status_text(st), want);
}

enum { O_PATTERN = 256, O_RING, O_TORUS, O_HOPS, O_DST, O_ALL_DST, O_SIZES, O_REL, O_MAXS,
       O_MAXT, O_TIMEOUT, O_INJF, O_INJS, O_RESUME, O_PROCS, O_CPUS, O_FLOOR, O_SEND, O_ROUTE,
       O_INTERLEAVE, O_ISIZES, O_BATCH, O_ECHO };

static const struct option long_options[] = {
    {"pattern", required_argument, NULL, O_PATTERN}, {"ring", required_argument, NULL, O_RING},
    {"torus", required_argument, NULL, O_TORUS}, {"hops", required_argument, NULL, O_HOPS},
    {"dst", required_argument, NULL, O_DST}, {"all-dst", no_argument, NULL, O_ALL_DST},
    {"sizes", required_argument, NULL, O_SIZES}, {"rel-error", required_argument, NULL, O_REL},
    {"max-samples", required_argument, NULL, O_MAXS},
    {"max-time", required_argument, NULL, O_MAXT},
    {"batch-time", required_argument, NULL, O_BATCH},
    {"echo", no_argument, NULL, O_ECHO},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"inject-forward", required_argument, NULL, O_INJF},
    {"inject-switch", required_argument, NULL, O_INJS},
    {"resume", required_argument, NULL, O_RESUME}, {"procs", required_argument, NULL, O_PROCS},
    {"cpus", required_argument, NULL, O_CPUS}, {"floor", no_argument, NULL, O_FLOOR},
    {"mpi-send", required_argument, NULL, O_SEND}, {"route", required_argument, NULL, O_ROUTE},
    {"interleave", required_argument, NULL, O_INTERLEAVE},
    {"interleave-sizes", no_argument, NULL, O_ISIZES},
    {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int set_topology(cli *c, const char *opt, const char *arg)
{
    topo_parse_error e;
    if (c->have_topology)
        return usage_error(c, "%s '%s': give only one of --ring and --torus", opt, arg);
    c->have_topology = 1;
    c->topology_opt = opt;
    if (topo_shape_parse(arg, &c->cfg.shape, &e))
        return usage_error(c, "%s '%s': %s at character %zu", opt, arg, e.what, e.pos + 1);
    if (strcmp(opt, "--ring") == 0 && c->cfg.shape.dims != 1)
        return usage_error(c, "--ring '%s': a ring takes one number (use --torus)", arg);
    if (c->cfg.shape.nodes > BENCH_MAX_NODES)
        return usage_error(c, "%s '%s': more than %d nodes", opt, arg, BENCH_MAX_NODES);
    return 0;
}

/* --interleave SHAPE=FILE */
static int add_interleave(cli *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char text[64];
    topo_parse_error e;
    if (c->nextra == BENCH_MAX_NETS - 1)
        return usage_error(c, "--interleave '%s': at most %d extra networks", arg,
                           BENCH_MAX_NETS - 1);
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof text)
        return usage_error(c, "--interleave '%s': expected SHAPE=FILE, e.g. 8=ring8.tsv", arg);
    memcpy(text, arg, (size_t)(eq - arg));
    text[eq - arg] = '\0';
    topo_shape *sh = &c->extra[c->nextra].shape;
    if (topo_shape_parse(text, sh, &e))
        return usage_error(c, "--interleave '%s': %s at character %zu", arg, e.what, e.pos + 1);
    if (sh->nodes > BENCH_MAX_NODES)
        return usage_error(c, "--interleave '%s': more than %d nodes", arg, BENCH_MAX_NODES);
    c->extra[c->nextra].text = arg;
    c->extra[c->nextra].path = eq + 1;
    c->nextra++;
    return 0;
}

static int parse_option(cli *c, int opt, const char *arg)
{
    parse_status st;
    size_t n, pos;
    long v;
    switch (opt) {
    case O_PATTERN:
        if (strcmp(arg, "pp") && strcmp(arg, "ow"))
            return usage_error(c, "--pattern '%s': expected pp, ow or logp", arg);
        c->cfg.pattern = arg[0] == 'o' ? BENCH_OW : BENCH_PP;
        c->have_pattern = 1;
        return 0;
    case O_RING:
    case O_TORUS:
        return set_topology(c, opt == O_RING ? "--ring" : "--torus", arg);
    case O_HOPS:
        st = parse_list(arg, PARSE_RANGE_STEP1, 0, 1000000, c->hops, TOPO_MAX_DIMS, &n, &pos);
        if (st || strstr(arg, ".."))
            return bad(c, "--hops", arg, st ? st : PARSE_SYNTAX, "h1,h2,... one per dimension");
        c->have_hops = (int)n;
        c->hops_text = arg;
        return 0;
    case O_DST:
        if ((st = parse_long(arg, 0, 1000000, &c->dst)))
            return bad(c, "--dst", arg, st, "a node rank");
        c->have_dst = 1;
        return 0;
    case O_ALL_DST:
        c->all_dst = 1;
        return 0;
    case O_SIZES:
        c->have_sizes = 1;
        st = parse_list(arg, PARSE_RANGE_POW2, 0, MAX_SIZE_BYTES, c->cfg.sizes, BENCH_MAX_SIZES,
                        &c->cfg.nsizes, &pos);
        return st ? bad(c, "--sizes", arg, st, "1,8,64 or 1..65536 or 64..4096:64 (0..2^30)") : 0;
    case O_REL:
        st = parse_double(arg, 1e-6, 1, &c->cfg.rel_error);
        return st ? bad(c, "--rel-error", arg, st, "a fraction in 1e-6..1") : 0;
    case O_MAXS:
        st = parse_long(arg, DEFAULT_MIN_SAMPLES, 100000000, &c->cfg.max_samples);
        return st ? bad(c, "--max-samples", arg, st, "8..1e8") : 0;
    case O_MAXT:
        st = parse_double(arg, 0.001, 86400, &c->cfg.max_time_s);
        return st ? bad(c, "--max-time", arg, st, "seconds in 0.001..86400") : 0;
    case O_BATCH:
        st = parse_double(arg, 0, 1e6, &c->cfg.min_batch_ns);
        c->cfg.min_batch_ns *= 1e3;
        return st ? bad(c, "--batch-time", arg, st, "microseconds in 0..1e6") : 0;
    case O_TIMEOUT:
        st = parse_double(arg, 0.1, 86400, &c->bcfg.timeout_s);
        return st ? bad(c, "--timeout", arg, st, "seconds in 0.1..86400") : 0;
    case O_INJF:
    case O_INJS:
        st = parse_double(arg, 0, 1e9, opt == O_INJF ? &c->cfg.inject_forward_ns
                                                     : &c->cfg.inject_switch_ns);
        return st ? bad(c, opt == O_INJF ? "--inject-forward" : "--inject-switch", arg, st,
                        "ns in 0..1e9") : 0;
    case O_RESUME:
        c->resume_path = arg;
        return 0;
    case O_PROCS:
        if ((st = parse_long(arg, 2, MAX_PROCS, &v)))
            return bad(c, "--procs", arg, st, "2..64");
        c->bcfg.procs = (int)v;
        return 0;
    case O_CPUS:
        c->cpus_text = arg;
        return 0;
    case O_FLOOR:
        c->floor_only = 1;
        return 0;
    case O_SEND:
        if (strcmp(arg, "send") && strcmp(arg, "ssend") && strcmp(arg, "isend"))
            return usage_error(c, "--mpi-send '%s': expected send, ssend or isend", arg);
        c->bcfg.send_mode = arg[0] == 'i' ? 2 : arg[1] == 's' ? 1 : 0;
        c->mpi_send = arg;
        return 0;
    case O_ROUTE:
        if (strcmp(arg, "software") && strcmp(arg, "network"))
            return usage_error(c, "--route '%s': expected software or network", arg);
        c->cfg.route = arg[0] == 'n' ? BENCH_ROUTE_NETWORK : BENCH_ROUTE_SOFTWARE;
        return 0;
    case 'q':
        c->cfg.quiet = 1;
        return 0;
    case O_INTERLEAVE:
        return add_interleave(c, arg);
    case O_ISIZES:
        c->cfg.interleave_sizes = 1;
        return 0;
    case O_ECHO:
        c->cfg.echo = 1;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

static int backend_only(cli *c, int opt)
{
    static const int shm_only[] = {O_PROCS, O_CPUS, O_FLOOR};
    static const int mpi_only[] = {O_SEND, O_ROUTE};
    const int *list = c->is_shm ? mpi_only : shm_only;
    int n = c->is_shm ? 2 : 3;
    for (int i = 0; i < n; i++)
        if (list[i] == opt)
            return 1;
    return 0;
}

int bench_cli_cpus(const char *text, int procs, const char *procs_opt, int *cpus, int *ncpus,
                   char *err, size_t err_size)
{
    long list[BENCH_CLI_MAX_CPUS];
    size_t n = 0, pos;
    err[0] = '\0';
    if (text) {
        parse_status st = parse_list(text, PARSE_RANGE_STEP1, 0, CPU_SETSIZE - 1, list,
                                     BENCH_CLI_MAX_CPUS, &n, &pos);
        if (st) {
            snprintf(err, err_size, "--cpus '%s': %s, expected CPU numbers like 0,1 or 2..3",
                     text, parse_status_text(st));
            return EXIT_USAGE;
        }
    } else {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int i = 0; i < CPU_SETSIZE && n < BENCH_CLI_MAX_CPUS; i++)
                if (CPU_ISSET(i, &set))
                    list[n++] = i;
    }
    for (size_t i = 0; i < n; i++)
        cpus[i] = (int)list[i];
    *ncpus = (int)(n < (size_t)procs ? n : (size_t)procs);
    if (text && n != (size_t)procs) {
        if (procs_opt)
            snprintf(err, err_size, "--cpus '%s' and %s %d: %zu CPUs for %d processes (one"
                                    " each)", text, procs_opt, procs, n, procs);
        else
            snprintf(err, err_size, "--cpus '%s': %zu CPUs for %d processes (one each)", text,
                     n, procs);
        return EXIT_USAGE;
    }
    /* two processes spinning on one CPU pass a message per scheduler tick */
    for (size_t i = 0; text && i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (list[i] == list[j]) {
                snprintf(err, err_size, "--cpus '%s': CPU %ld twice (each process needs a CPU"
                                        " of its own)", text, list[i]);
                return EXIT_USAGE;
            }
    return 0;
}

/* CPUs: --cpus, else the first P CPUs this process may run on. */
static int choose_cpus(cli *c)
{
    char err[512];
    if (bench_cli_cpus(c->cpus_text, c->bcfg.procs, "--procs", c->cpus, &c->bcfg.ncpus, err,
                       sizeof err))
        return usage_error(c, "%s", err);
    return 0;
}

/* Every destination of node 0 (all), or the symmetric one, n_i/2 hops away
 * in every dimension; or the one of the hop vector h when given.  NULL when
 * out of memory. */
static long *destinations(const topo_shape *s, int all, const long *h, long *ndst)
{
    long sym[TOPO_MAX_DIMS];
    *ndst = all ? s->nodes - 1 : 1;
    long *d = malloc((size_t)*ndst * sizeof *d);
    if (!d || all) {
        for (long i = 1; d && i < s->nodes; i++)
            d[i - 1] = i;
        return d;
    }
    if (!h) {
        for (int i = 0; i < s->dims; i++)
            sym[i] = s->n[i] / 2;
        h = sym;
    }
    d[0] = topo_coords_to_rank(s, h);   /* node 0 is the source: coordinates = hops */
    return d;
}

/* Destinations: --hops, --dst, --all-dst, or the symmetric one. */
static int choose_destinations(cli *c)
{
    topo_shape *s = &c->cfg.shape;
    int badd;
    if ((c->have_hops > 0) + c->have_dst + c->all_dst > 1)
        return usage_error(c, "--hops/--dst/--all-dst: give only one of them");
    if (c->have_dst && (c->dst <= 0 || c->dst >= s->nodes))
        return usage_error(c, "--dst '%ld': expected a node 1..%ld", c->dst, s->nodes - 1);
    if (c->have_hops) {
        if (c->have_hops != s->dims)
            return usage_error(c, "--hops '%s': %d values for %d dimensions", c->hops_text,
                               c->have_hops, s->dims);
        if (topo_hops_check(s, c->hops, &badd))
            return usage_error(c, "--hops '%s': %s", c->hops_text,
                               badd < 0 ? "all zero (source = destination)"
                                        : "a hop count is not below n_i");
    }
    c->cfg.dsts = destinations(s, c->all_dst, c->have_hops ? c->hops : NULL, &c->cfg.ndst);
    if (!c->cfg.dsts)
        return EXIT_FAILURE;
    if (c->have_dst)
        c->cfg.dsts[0] = c->dst;
    return 0;
}

void bench_cli_record_command(char *buf, size_t size, const char *prog, int argc, char **argv)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && len + 2 < size; i++) {
        const char *a = i == 0 ? prog : argv[i];
        int quote = strpbrk(a, " \t'\"") != NULL;
        len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s", i ? " " : "",
                                quote ? "'" : "", a, quote ? "'" : "");
    }
}

int bench_cli_split_command(const char *cmd, char *copy, size_t size, char **args, int max)
{
    char *save = NULL;
    int n = 0;
    snprintf(copy, size, "%s", cmd);
    for (char *t = strtok_r(copy, " ", &save); t && n < max - 1; t = strtok_r(NULL, " ", &save)) {
        size_t l = strlen(t);
        if (l >= 2 && t[0] == '\'' && t[l - 1] == '\'')
            t[l - 1] = '\0', t++;
        args[n++] = t;
    }
    args[n] = NULL;
    return n;
}

static void defaults(cli *c, const bench_backend *be)
{
    memset(c, 0, sizeof *c);
    c->be = be;
    c->is_shm = strcmp(be->name, "shm") == 0;
    c->prog = c->is_shm ? "scibench" : "mpibench";
    c->cfg.prog = c->prog;
    c->cfg.rel_error = DEFAULT_REL_ERROR;
    c->cfg.min_samples = DEFAULT_MIN_SAMPLES;
    c->cfg.max_samples = DEFAULT_MAX_SAMPLES;
    c->cfg.max_time_s = DEFAULT_MAX_TIME_S;
    c->cfg.min_batch_ns = c->is_shm ? 0 : DEFAULT_MPI_BATCH_US * 1e3;
    c->bcfg.procs = 2;
    c->bcfg.timeout_s = DEFAULT_TIMEOUT_S;
    c->bcfg.cpus = c->cpus;
    topo_shape_equal(1, 2, &c->cfg.shape);
    parse_list("1..65536", PARSE_RANGE_POW2, 0, MAX_SIZE_BYTES, c->cfg.sizes, BENCH_MAX_SIZES,
               &c->cfg.nsizes, NULL);
}

static int parse_args(cli *c, int argc, char **argv, int from_resume)
{
    int opt, rc;
    optind = 1;
    opterr = should_print(c) && !c->context[0];   /* a recorded command: our message */
    while ((opt = getopt_long(argc, argv, "o:qh", long_options, NULL)) != -1) {
        if (opt == '?' && c->context[0])
            return usage_error(c, "'%s': not an option of %s, or its value is missing",
                               argv[optind - 1], c->prog);
        if (opt == 'h') {
            printf(usage_fmt, c->prog, c->is_shm ? shm_intro : mpi_intro,
                   c->is_shm ? shm_opts : mpi_opts, c->is_shm ? shm_examples : mpi_examples);
            exit(EXIT_SUCCESS);
        }
        if (opt == 'o') {
            c->out_path = optarg;
            continue;
        }
        if (opt != '?' && backend_only(c, opt))
            return usage_error(c, "%s: not an option of %s", argv[optind - 1], c->prog);
        if ((rc = parse_option(c, opt, optarg)))
            return rc;
        if (from_resume && opt == O_RESUME)
            return usage_error(c, "--resume: the file's command has --resume itself");
    }
    if (optind < argc)
        return usage_error(c, "'%s': unexpected argument", argv[optind]);
    return 0;
}

/* --resume FILE: the file's recorded command line, then its points. */
static int load_resume(cli *c)
{
    bench_read_error err;
    const char *path = c->resume_path;
    int rc = bench_data_read(path, &c->resume_data, &err);
    if (rc == -1) {
        fprintf(stderr, "%s: --resume '%s': %s\n", c->prog, path, err.msg);
        return EXIT_FAILURE;
    }
    if (rc) {
        return file_error_report(EXIT_FAILURE, c->prog, path, &err);
    }
    const char *cmd = bench_data_header(&c->resume_data, "command");
    const char *backend = bench_data_header(&c->resume_data, "backend");
    if (!cmd) {
        fprintf(stderr, "%s: %s: no '# command:' header to resume from\n", c->prog, path);
        return EXIT_FAILURE;
    }
    /* one file, one backend: an mpibench run must not continue a scibench
     * file (their points are not the same measurement), nor the reverse */
    if (!backend || strcmp(backend, c->be->name) != 0) {
        fprintf(stderr, "%s: %s: --resume: the file was written by the %s backend%s; %s"
                        " resumes %s files only\n", c->prog, path, backend ? backend : "(none)",
                backend && strcmp(backend, "shm") == 0 ? " (scibench)"
                : backend && strcmp(backend, "mpi") == 0 ? " (mpibench)" : "",
                c->prog, c->be->name);
        return EXIT_FAILURE;
    }
    char copy[2048], *args[128];
    int n = bench_cli_split_command(cmd, copy, sizeof copy, args, 128);
    bench_data keep = c->resume_data;
    const bench_backend *be = c->be;
    defaults(c, be);
    c->resume_data = keep;
    c->resume_path = path;
    snprintf(c->context, sizeof c->context, "%s:%ld: recorded command", path,
             bench_data_header_line(&c->resume_data, "command"));
    rc = parse_args(c, n, args, 1);
    c->context[0] = '\0';
    if (rc)
        return rc;
    c->out_path = path;
    c->cfg.done = &c->resume_data;
    snprintf(c->command, sizeof c->command, "%s", cmd);
    return 0;
}

/* topology line of the header (mpibench knows its shape only after init) */
static void set_shape_header(const topo_shape *sh, bench_data *h)
{
    char shape[TOPO_MAX_DIMS * 21];
    topo_shape_format(sh, shape, sizeof shape);
    bench_data_set_header(h, "topology", "%s %s", sh->dims == 1 ? "ring" : "torus", shape);
}

void bench_cli_header_start(bench_data *h, const bench_backend *be, const char *command)
{
    char host[256] = "unknown", when[64];
    time_t now = time(NULL);
    struct tm tm;
    gethostname(host, sizeof host - 1);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    memset(h, 0, sizeof *h);
    bench_data_set_header(h, "backend", "%s", be->name);
    bench_data_set_header(h, "host", "%s", host);
    bench_data_set_header(h, "date", "%s", when);
    bench_data_set_header(h, "command", "%s", command);
}

static void fill_header(cli *c, bench_data *h)
{
    bench_cli_header_start(h, c->be, c->command);
    bench_data_set_header(h, "timer", "%s", c->be->timer_name);   /* completed by bench_run */
    if (c->is_shm) {
        char cpus[256] = "";
        size_t len = 0;
        for (int i = 0; i < c->bcfg.ncpus; i++)
            len += (size_t)snprintf(cpus + len, sizeof cpus - len, "%s%d", i ? "," : "", c->cpus[i]);
        bench_data_set_header(h, "cpus", "%s", c->bcfg.ncpus ? cpus : "unpinned");
    } else {
        bench_data_set_header(h, "mpi_send", "%s", c->mpi_send ? c->mpi_send : "send");
        bench_data_set_header(h, "route", "%s",
                              c->cfg.route == BENCH_ROUTE_NETWORK ? "network" : "software");
    }
    bench_data_set_header(h, "procs", "%d", c->bcfg.procs);
    set_shape_header(&c->cfg.shape, h);
    bench_data_set_header(h, "pattern", "%s", c->cfg.pattern == BENCH_PP ? "pp" : "ow");
    bench_data_set_header(h, "inject", "forward_ns=%g switch_ns=%g", c->cfg.inject_forward_ns,
                          c->cfg.inject_switch_ns);
    bench_data_set_header(h, "send_from", "%s", c->cfg.echo ? "received bytes (--echo)"
                                                            : "send buffer");
}

const char *bench_cli_error_text(int rc)
{
    switch (rc) {
    case BENCH_ERR_PEER: return "a peer process died";
    case BENCH_ERR_TIMEOUT: return "no progress within --timeout";
    case BENCH_ERR_INTERRUPT: return "interrupted";
    case BENCH_ERR_OUTPUT: return "writing the output failed (a full disk?)";
    case BENCH_ERR_OVERRUN: return "a message was overwritten before it was read (internal"
                                   " error: please report it)";
    case BENCH_ERR_TAGS: return "the networks need more MPI tags than this MPI allows (fewer"
                                " nodes or fewer --interleave networks)";
    default: return strerror(errno ? errno : EIO);
    }
}

static int check_config(cli *c)
{
    long max = 1;
    if (c->is_shm && c->cfg.shape.nodes < c->bcfg.procs)
        return usage_error(c, "--procs %d: more processes than the %ld nodes", c->bcfg.procs,
                           c->cfg.shape.nodes);
    for (size_t i = 0; i < c->cfg.nsizes; i++)
        if (c->cfg.sizes[i] > max)
            max = c->cfg.sizes[i];
    c->bcfg.max_payload_bytes = (size_t)max;
    c->bcfg.window = c->cfg.pattern == BENCH_PP;   /* see bench_backend_config */
    if (c->cfg.pattern == BENCH_OW) {
        for (long d = 0; d < c->cfg.ndst; d++) {
            long h[TOPO_MAX_DIMS], z[TOPO_MAX_DIMS] = {0};
            topo_counts q;
            topo_rank_to_coords(&c->cfg.shape, c->cfg.dsts[d], h);
            topo_hops(&c->cfg.shape, z, h, h);
            topo_request_counts(&c->cfg.shape, h, &q);
            if (q.links != 1)
                return usage_error(c, "--pattern ow: measures a direct link; destination %ld is"
                                      " %ld hops away (use --hops with one 1)", c->cfg.dsts[d],
                                   q.links);
        }
    }
    return 0;
}

/* --floor measures the bare transport, between two CPUs, into standard
 * output: an option that shapes a benchmark run would be silently ignored,
 * so it is refused, naming both. */
static int check_floor(cli *c)
{
    const struct { int given; const char *name; } other[] = {
        {c->have_topology, c->topology_opt}, {c->have_pattern, "--pattern"},
        {c->all_dst, "--all-dst"}, {c->have_hops > 0, "--hops"}, {c->have_dst, "--dst"},
        {c->nextra > 0, "--interleave"}, {c->resume_path != NULL, "--resume"},
        {c->out_path != NULL, "-o (--floor prints to standard output)"},
        {c->cfg.inject_forward_ns > 0, "--inject-forward"},
        {c->cfg.inject_switch_ns > 0, "--inject-switch"},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (other[i].given)
            return usage_error(c, "--floor and %s: --floor measures only the bare flag bounce"
                                  " (and --sizes copies) between two CPUs", other[i].name);
    return 0;
}

/* --floor: the flag alone; with --sizes, for each size the flag and the
 * same bounce carrying that many bytes, measured alternately. */
static int run_floor(cli *c)
{
    double floor_ns, copy_ns;
    if (c->have_sizes)
        printf("# copy: the floor's bounce carrying size bytes, copied in by the sender and"
               " out by the receiver; half round trips, medians of %d batches, alternating\n"
               "# columns: size_bytes floor_ns copy_ns\n", FLOOR_BATCHES);
    for (size_t i = 0; i < (c->have_sizes ? c->cfg.nsizes : 1); i++) {
        size_t size = c->have_sizes ? (size_t)c->cfg.sizes[i] : 0;
        int rc = c->be->floor(&c->bcfg, FLOOR_BATCHES, size, &floor_ns, &copy_ns);
        if (rc) {
            fprintf(stderr, "scibench: --floor: %s\n", bench_cli_error_text(rc));
            return EXIT_FAILURE;
        }
        if (c->have_sizes)
            printf("%zu\t%.1f\t%.1f\n", size, floor_ns, copy_ns);
        else
            printf("floor_ns\t%.1f\n", floor_ns);
        fflush(stdout);
    }
    return 0;
}

/* mpibench: each rank is a node of the main network; without --ring/--torus
 * the ranks form a ring.  The destinations are chosen once the world size
 * is known, and the main network's configuration becomes cfgs[0].  An
 * --interleave network hosts its virtual nodes on the ranks (at least one
 * node per rank, as scibench's processes). */
static int mpi_topology(cli *c, int ranks, bench_data *header, bench_config *cfgs)
{
    int rc;
    if (ranks < 2)
        return usage_error(c, "needs at least 2 MPI ranks (mpirun -np 2 %s ...)", c->prog);
    if (!c->have_topology)
        topo_shape_equal(1, ranks, &c->cfg.shape);
    if (c->cfg.shape.nodes != ranks)
        return usage_error(c, "%ld nodes but %d MPI ranks: each rank is one node",
                           c->cfg.shape.nodes, ranks);
    set_shape_header(&c->cfg.shape, header);
    if ((rc = choose_destinations(c)) || (rc = check_config(c)))
        return rc;
    for (int k = 0; k < c->nextra; k++)
        if (c->extra[k].shape.nodes < ranks)
            return usage_error(c, "--interleave '%s': more MPI ranks (%d) than its %ld nodes",
                               c->extra[k].text, ranks, c->extra[k].shape.nodes);
    cfgs[0] = c->cfg;
    return 0;
}

/* What a message header ranges over (bench_backend_config): mpibench packs
 * it into the MPI tag.  The main network's nodes are the ranks when no
 * --ring/--torus names them (0: one per process). */
static void header_ranges(cli *c)
{
    c->bcfg.nets = 1 + c->nextra;
    c->bcfg.max_nodes = c->have_topology || c->is_shm ? c->cfg.shape.nodes : 0;
    c->bcfg.max_dims = c->cfg.shape.dims;
    for (int k = 0; k < c->nextra; k++) {
        const topo_shape *sh = &c->extra[k].shape;
        if (sh->nodes > c->bcfg.max_nodes)
            c->bcfg.max_nodes = sh->nodes;
        if (sh->dims > c->bcfg.max_dims)
            c->bcfg.max_dims = sh->dims;
    }
}

/* The networks of a run: the main one, then each --interleave network, a
 * copy of the main configuration on its own shape with its symmetric
 * destination (or every destination).  Returns how many, or -(exit status)
 * on a usage error. */
static int interleave_configs(cli *c, bench_config *cfgs, const char **paths)
{
    cfgs[0] = c->cfg;
    paths[0] = c->out_path;
    if (!c->nextra)
        return 1;
    if (c->cfg.done)
        return -usage_error(c, "--resume: a run with --interleave cannot be resumed; run it"
                               " again");
    if (c->have_dst || c->have_hops)
        return -usage_error(c, "--interleave: --dst and --hops name one network's node; the"
                               " networks take their symmetric destinations or --all-dst");
    if (c->cfg.pattern == BENCH_OW)
        return -usage_error(c, "--interleave: measures ping-pong only (--pattern pp)");
    for (int k = 0; k < c->nextra; k++) {
        const topo_shape *sh = &c->extra[k].shape;
        bench_config *g = &cfgs[k + 1];
        if (c->is_shm && sh->nodes < c->bcfg.procs) {   /* mpibench: mpi_topology */
            for (int i = 1; i <= k; i++)
                free(cfgs[i].dsts);
            return -usage_error(c, "--interleave '%s': more processes (%d) than its %ld nodes",
                                c->extra[k].text, c->bcfg.procs, sh->nodes);
        }
        /* the same file under two names (./a.tsv, a link) is the same file */
        for (int j = 0; j <= k; j++)
            if (paths[j] && file_same(paths[j], c->extra[k].path)) {
                for (int i = 1; i <= k; i++)
                    free(cfgs[i].dsts);
                return -usage_error(c, "--interleave '%s': '%s' is the same file as '%s', "
                                       "already an output of this run", c->extra[k].text,
                                    c->extra[k].path, paths[j]);
            }
        paths[k + 1] = c->extra[k].path;
        *g = c->cfg;
        g->shape = *sh;
        if (!(g->dsts = destinations(sh, c->all_dst, NULL, &g->ndst))) {
            fprintf(stderr, "%s: out of memory\n", c->prog);
            for (int j = 1; j <= k; j++)
                free(cfgs[j].dsts);
            return -EXIT_FAILURE;
        }
    }
    return 1 + c->nextra;
}

/* Ends one output (cli.h). */
int bench_cli_commit(const char *prog, const char *resume_path, atomic_file *af, FILE *out,
                     const char *path, int rc, const char *what)
{
    char where[PATH_MAX + 16];
    int resumed = resume_path && path && file_same(path, resume_path);
    if (rc)
        bench_data_write_incomplete(out);
    if (af->fp && (fflush(af->fp) != 0 || ferror(af->fp))) {
        /* rows were lost on the way (a full disk): keep nothing, as the
         * file could end in the middle of a row */
        int e = errno;
        atomic_file_abort(af);
        fprintf(stderr, "%s: '%s': writing failed (%s); nothing written, any previous file"
                        " left as it was\n", prog, path, file_strerror(e ? e : EIO));
        return -1;
    }
    if (!af->fp) {
        if (rc)
            fprintf(stderr, "%s: %s%s\n", prog, bench_cli_error_text(rc),
                    rc == BENCH_ERR_OUTPUT ? "" : "; output marked '# incomplete'");
        return 0;
    }
    if (rc && !resumed ? atomic_file_commit_partial(af, where, sizeof where)
                       : atomic_file_commit(af)) {
        fprintf(stderr, "%s: '%s': %s\n", prog, path, file_strerror(errno));
        return -1;
    }
    if (rc && !resumed && strcmp(where, path) != 0)
        fprintf(stderr, "%s: %s; finished %s kept in '%s', marked '# incomplete' ('%s'"
                        " exists and is left as it was; continue with --resume %s)\n",
                prog, bench_cli_error_text(rc), what, where, path, where);
    else if (rc)
        fprintf(stderr, "%s: %s; finished %s kept in '%s', marked '# incomplete'\n",
                prog, bench_cli_error_text(rc), what, path);
    return 0;
}

/* Output goes to atomic files (or stdout); on failure the finished points
 * are kept and each file is marked incomplete. */
static int measure(cli *c, int *argc, char ***argv, bench_config *cfgs,
                   const char *const *paths, int nnets)
{
    bench_comm *comm;
    bench_data header[BENCH_MAX_NETS];
    atomic_file af[BENCH_MAX_NETS];
    FILE *out[BENCH_MAX_NETS];
    double floor_ns = 0;
    int rc = 0;

    /* from here on Ctrl-C or SIGTERM ends the run with its finished points */
    bench_signals_install_stop();
    fill_header(c, &header[0]);
    if (c->be->floor && c->be->floor(&c->bcfg, FLOOR_BATCHES, 0, &floor_ns, NULL) == 0)
        bench_data_set_header(&header[0], "floor_ns", "%.1f", floor_ns);
    header_ranges(c);
    if ((rc = c->be->init(&comm, argc, argv, &c->bcfg))) {
        fprintf(stderr, "%s: cannot start: %s\n", c->prog, bench_cli_error_text(rc));
        return rc == BENCH_ERR_TAGS ? EXIT_USAGE : EXIT_FAILURE;
    }
    if (!c->is_shm && (rc = mpi_topology(c, c->be->size(comm), &header[0], cfgs))) {
        c->be->finalize(comm, 0);
        return rc;
    }
    bench_data_set_header(&header[0], "procs", "%d", c->be->size(comm));
    const bench_config *cfg = cfgs;
    int root = c->be->rank(comm) == bench_host(cfg[0].src, c->be->size(comm));
    for (int k = 0; k < nnets; k++) {
        af[k] = (atomic_file){NULL, NULL, NULL, 0};
        out[k] = stdout;
        if (k > 0) {
            header[k] = header[0];
            set_shape_header(&cfg[k].shape, &header[k]);
        }
    }
    for (int k = 0; root && k < nnets && !rc; k++) {
        if (paths[k] && atomic_file_open(&af[k], paths[k])) {
            fprintf(stderr, "%s: %s '%s': %s\n", c->prog, k ? "--interleave" : "-o", paths[k],
                    file_strerror(errno));
            rc = BENCH_ERR_SYSTEM;
        } else if (af[k].fp) {
            out[k] = af[k].fp;
        }
    }
    if (rc) {
        for (int k = 0; k < nnets; k++)
            atomic_file_abort(&af[k]);   /* nothing to do where none was opened */
        c->be->finalize(comm, 1);
        return EXIT_FAILURE;
    }
    rc = bench_run(c->be, comm, cfg, nnets, header, out);
    for (int k = 0; root && k < nnets; k++)
        if (bench_cli_commit(c->prog, c->resume_path, &af[k], out[k], paths[k], rc, "points") &&
            !rc)
            rc = BENCH_ERR_SYSTEM;
    /* An interrupted rank other than the root leaves the ending to the
     * root, which writes its '# incomplete' file first and then aborts the
     * job (an abort from here could kill the root before it has written). */
    int frc = c->be->finalize(comm, rc != 0 && (root || rc != BENCH_ERR_INTERRUPT));
    if (!rc && frc)
        fprintf(stderr, "%s: %s\n", c->prog, bench_cli_error_text(frc));
    return rc || frc ? EXIT_FAILURE : 0;
}

int bench_main(int argc, char **argv, const bench_backend *be)
{
    cli c;
    int rc, nnets = 0;
    bench_config cfgs[BENCH_MAX_NETS];
    const char *paths[BENCH_MAX_NETS];
    if (bench_logp_wanted(argc, argv))   /* a pattern with its own options */
        return bench_logp_main(argc, argv, be);
    defaults(&c, be);
    bench_cli_record_command(c.command, sizeof c.command, c.prog, argc, argv);
    if ((rc = parse_args(&c, argc, argv, 0)))
        return rc;
    if (c.floor_only && (rc = check_floor(&c)))
        return rc;
    if ((c.resume_path && (rc = load_resume(&c))) || (c.is_shm && (rc = choose_cpus(&c))))
        goto out;
    if (c.floor_only) {
        rc = run_floor(&c);
        goto out;
    }
    if (c.is_shm && ((rc = choose_destinations(&c)) || (rc = check_config(&c))))
        goto out;
    nnets = interleave_configs(&c, cfgs, paths);
    if (nnets < 0) {
        rc = -nnets;
    } else if (c.resume_path && !c.resume_data.incomplete) {
        fprintf(stderr, "%s: %s is already complete; nothing to resume\n", c.prog, c.resume_path);
        rc = 0;
    } else {
        rc = measure(&c, &argc, &argv, cfgs, paths, nnets);
    }
    for (int k = 1; k < nnets; k++)
        free(cfgs[k].dsts);
out:
    free(c.cfg.dsts);
    bench_data_free(&c.resume_data);
    /* what went to standard output must all be there: a full disk is an error */
    int wrc = file_close_stdout(c.prog);
    return rc ? rc : wrc;
}
