/* options: scibench's and mpibench's options as one util/opt table; the
 * backend's own (bench/backend_cli.h) are appended at run time, the
 * pattern's scope (BENCH_IN_*) is checked once --pattern is known. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "sched/collgen.h"
#include "util/opt.h"
#include "util/parse.h"

#define DEFAULT_MIN_SAMPLES 8   /* SKaMPI: the fewest batches a mean is trusted on */
#define GRID BENCH_IN_GRID
#define LOGP BENCH_IN_LOGP
#define COLL BENCH_IN_COLL
#define P2P BENCH_IN_P2P
/* --op's default: a collective's repetitions are cheap, its spread wide */
#define COLL_MIN_SAMPLES 32
#define FIELD(f) offsetof(bench_cli, f)
/* the open interval (0, 1), as doubles: 0 and 1 are refused */
#define FRACTION .min = 0x1p-1074, .max = 0x1.fffffffffffffp-1, \
    .range = "a fraction strictly between 0 and 1"

static int parse_pattern(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    c->have_pattern = 1;
    if ((c->pattern = bench_pattern_find(c->bc, arg)) &&
        (!c->have_op || c->pattern == c->bc->own_pattern) &&
        (!c->have_p2p || c->pattern == c->bc->own_p2p))
        return 0;
    if (c->pattern)
        return snprintf(why, len, "--%s times pattern %s", c->have_op ? "op" : "p2p",
                        c->have_op ? c->bc->own_pattern->name : c->bc->own_p2p->name), 1;
    snprintf(why, len, "expected pp, ow%s logp%s", c->bc->own_pattern ? "," : " or",
             c->bc->own_pattern ? ", coll or p2p" : "");
    return 1;
}

static const char *const more_ops[] = {"comm_dup", "comm_split", "master_worker"};

const char *bench_coll_op_name(int op)
{
    if (op >= 0 && op < COLL_NOPS)
        return coll_op_names[op];
    return op >= COLL_NOPS && op < COLL_ALL_OPS ? more_ops[op - COLL_NOPS] : NULL;
}

int bench_coll_op_parse(const char *name)
{
    for (int op = 0; op < COLL_ALL_OPS; op++)
        if (strcmp(bench_coll_op_name(op), name) == 0)
            return op;
    return -1;
}

int bench_coll_op_sizeless(int op)
{
    return op == COLL_BARRIER || op == COLL_COMM_DUP || op == COLL_COMM_SPLIT;
}

/* --op OP: the collective, and the pattern that times it (mpibench's own). */
static int parse_op(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    const bench_pattern_desc *coll = c->bc->own_pattern;
    if (!coll)
        return snprintf(why, len, "collectives are timed by mpibench (MPI)"), 1;
    if (c->have_pattern && c->pattern != coll)
        return snprintf(why, len, "not with --pattern %s (--op is pattern %s)",
                        c->pattern->name, coll->name), 1;
    if ((c->coll.op = bench_coll_op_parse(arg)) >= 0) {
        c->pattern = coll;
        c->have_op = 1;
        return 0;
    }
    return snprintf(why, len, "unknown value, expected barrier, bcast, reduce, allreduce,"
                    " allgather, alltoall, gather, scatter, gatherv, scatterv, allgatherv,"
                    " alltoallv, reduce_scatter, scan, exscan, comm_dup, comm_split or"
                    " master_worker"), 1;
}

/* --p2p MODE: an MPI point-to-point mode, and the pattern that times it. */
static int parse_p2p(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    const bench_pattern_desc *p2p = c->bc->own_p2p;
    if (c->have_pattern && c->pattern != p2p)
        return snprintf(why, len, "not with --pattern %s (--p2p is pattern p2p)",
                        c->pattern->name), 1;
    for (int i = 0; bench_p2p_modes[i]; i++)
        if (strcmp(arg, bench_p2p_modes[i]) == 0) {
            c->pattern = p2p;
            c->have_p2p = 1;
            c->p2p_mode = i;
            return 0;
        }
    return snprintf(why, len, "unknown mode, expected " BENCH_P2P_MODE_LIST), 1;
}

static int parse_shape(bench_cli *c, const char *opt, const char *arg, char *why, size_t len)
{
    topo_parse_error e;
    c->have_topology = 1;
    c->topology_opt = opt;
    if (topo_shape_parse(arg, &c->cfg.shape, &e))
        return snprintf(why, len, "%s at character %zu", e.what, e.pos + 1), 1;
    if (strcmp(opt, "--ring") == 0 && c->cfg.shape.dims != 1)
        return snprintf(why, len, "a ring takes one number (use --torus)"), 1;
    if (c->cfg.shape.nodes > BENCH_MAX_NODES)
        return snprintf(why, len, "more than %d nodes", BENCH_MAX_NODES), 1;
    return 0;
}

static int parse_ring(void *dest, const char *arg, char *why, size_t len)
{
    return parse_shape(dest, "--ring", arg, why, len);
}

static int parse_torus(void *dest, const char *arg, char *why, size_t len)
{
    return parse_shape(dest, "--torus", arg, why, len);
}

static int parse_hops(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    size_t n, pos;
    parse_status st = parse_list(arg, PARSE_RANGE_STEP1, 0, 1000000, c->hops, TOPO_MAX_DIMS, &n,
                                 &pos);
    if (st || strstr(arg, ".."))
        return snprintf(why, len, "%s, expected h1,h2,... one per dimension",
                        parse_status_text(st ? st : PARSE_SYNTAX)), 1;
    c->have_hops = (int)n;
    c->hops_text = arg;
    return 0;
}

/* Read once the pattern is known (bench_cli_sizes). */
static int parse_sizes(void *dest, const char *arg, char *why, size_t len)
{
    (void)why;
    (void)len;
    ((bench_cli *)dest)->sizes_text = arg;
    return 0;
}

static int parse_route(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    if (strcmp(arg, "software") && strcmp(arg, "network"))
        return snprintf(why, len, "expected software or network"), 1;
    c->cfg.route = arg[0] == 'n' ? BENCH_ROUTE_NETWORK : BENCH_ROUTE_SOFTWARE;
    return 0;
}

/* --interleave SHAPE=FILE */
static int parse_interleave(void *dest, const char *arg, char *why, size_t len)
{
    bench_cli *c = dest;
    const char *eq = strchr(arg, '=');
    char text[64];
    topo_parse_error e;
    if (c->nextra == BENCH_MAX_NETS - 1)
        return snprintf(why, len, "at most %d extra networks", BENCH_MAX_NETS - 1), 1;
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof text)
        return snprintf(why, len, "expected SHAPE=FILE, e.g. 8=ring8.tsv"), 1;
    memcpy(text, arg, (size_t)(eq - arg));
    text[eq - arg] = '\0';
    topo_shape *sh = &c->extra[c->nextra].shape;
    if (topo_shape_parse(text, sh, &e))
        return snprintf(why, len, "%s at character %zu", e.what, e.pos + 1), 1;
    if (sh->nodes > BENCH_MAX_NODES)
        return snprintf(why, len, "more than %d nodes", BENCH_MAX_NODES), 1;
    if (opt_is_stdio(eq + 1))
        return snprintf(why, len, "standard output is the main network's; name a file"), 1;
    c->extra[c->nextra].text = arg;
    c->extra[c->nextra++].path = eq + 1;
    return 0;
}

const char *const bench_coll_syncs[] = {"osu", "barrier", "window", NULL};

static const opt_spec common[] = {
    {.kind = OPT_HEADING, .help = "What to measure:"},
    {.name = "pattern", .kind = OPT_CUSTOM, .parse = parse_pattern, .arg = "P", .bad = "xy",
     .help = "pp (ping-pong, default; latency = round trip / 2) | ow\n(one-way: reps messages"
     " back to back, one ack;\nlatency = time / reps; a direct link, 1 hop) | logp\n(LogP"
     " parameters os, or, g, L of two processes;\n--pattern logp --help)"},
    {.name = "ring", .kind = OPT_CUSTOM, .parse = parse_ring, .arg = "N", .scope = GRID,
     .bad = "1", .help = "nodes on one unidirectional ring (default 2)"},
    {.name = "torus", .kind = OPT_CUSTOM, .parse = parse_torus, .arg = "AxB[xC]", .scope = GRID,
     .bad = "3x", .help = "nodes on a torus of unidirectional rings"},
    {.name = "hops", .kind = OPT_CUSTOM, .parse = parse_hops, .arg = "h1,h2,..", .scope = GRID,
     .bad = "1..2", .help = "destination of node 0 by its hop vector"},
    {.name = "dst", .kind = OPT_LONG, .field = FIELD(dst), .min = 0, .max = 1e6,
     .range = "a node rank", .arg = "NODE", .scope = GRID,
     .help = "destination of node 0 by its rank (row-major)"},
    {.name = "all-dst", .kind = OPT_FLAG, .field = FIELD(all_dst), .scope = GRID,
     .help = "measure every destination of node 0\n(default: the symmetric destination n_i/2"
     " hops away in\nevery dimension, as the thesis's tests)"},
    {.name = "sizes", .kind = OPT_CUSTOM, .parse = parse_sizes, .arg = "LIST", .bad = "0..x",
     .help = "message sizes: 1,8,64 | 1..65536 (powers of two, the\ndefault) | 64..4096:64"
     " (linear step); logp: a range\nA..B (default 0..65536: A, the powers of two above it,\nB,"
     " then the sizes its nonlinearity search adds)"},
    {.name = "min-size", .kind = OPT_SIZE, .field = FIELD(logp.min_size), .min = 0,
     .max = BENCH_MAX_SIZE_BYTES, .range = "bytes in 0..2^30", .arg = "B", .scope = LOGP,
     .help = "logp: --sizes B..(--max-size), the same field"},
    {.name = "max-size", .kind = OPT_SIZE, .field = FIELD(logp.max_size), .min = 0,
     .max = BENCH_MAX_SIZE_BYTES, .range = "bytes in 0..2^30", .arg = "B", .scope = LOGP,
     .help = "logp: --sizes (--min-size)..B, the same field"},
    {.name = "inject-forward", .kind = OPT_DOUBLE, .field = FIELD(cfg.inject_forward_ns),
     .min = 0, .max = 1e9, .range = "ns in 0..1e9", .arg = "NS", .scope = GRID,
     .help = "busy-wait NS at every forwarding node (ground truth)"},
    {.name = "inject-switch", .kind = OPT_DOUBLE, .field = FIELD(cfg.inject_switch_ns), .min = 0,
     .max = 1e9, .range = "ns in 0..1e9", .arg = "NS", .scope = GRID,
     .help = "busy-wait NS at every dimension switch"},
    {.name = "echo", .kind = OPT_FLAG, .field = FIELD(cfg.echo), .scope = GRID,
     .help = "every node sends the bytes it has just received (the\ndestination its request's,"
     " the source its last reply's),\nas a relay does, instead of from a send buffer as"
     "\nosu_latency does (calibrate measures with it)"},
    {.name = "route", .kind = OPT_CUSTOM, .parse = parse_route, .arg = "R", .scope = GRID,
     .bad = "x", .help = "software (default: intermediate nodes relay) | network\n(send straight"
     " to the destination)"},
    {.name = "floor", .kind = OPT_FLAG, .field = FIELD(floor_only), .scope = GRID,
     .help = "only measure the bare floor (a cache-line flag bouncing\nbetween two CPUs, through 64 places) and"
     " print it; with --sizes, also that\nbounce carrying each size, copied in and out,"
     " alternately"},
    {.name = "lines", .kind = OPT_FLAG, .field = FIELD(floor_lines), .scope = GRID,
     .help = "with --floor: that bounce on each of its 64 places alone\n(a cache line's transfer"
     " time depends on its address),\nfive passes over the places in turn; each place's median"
     "\nand how far the slowest lies from the median place"},
    {.name = "interleave", .kind = OPT_CUSTOM, .parse = parse_interleave, .arg = "S=FILE",
     .scope = GRID, .repeat = 1, .bad = "8", .help = "also measure the ring or torus S (8, 4x4)"
     " into FILE, up\nto 7 times: the networks' points are measured batch by\nbatch in turn, a"
     " new random order each round, so a\nchange of the machine's speed hits them alike;\nping-pong, symmetric destinations or --all-dst;"
     "\neach point's --max-time is shared among them"},
    {.kind = OPT_HEADING, .scope = GRID | P2P, .help = "Statistics (SKaMPI-style: warm-up, then"
     " batches of reps iterations,\na batch >= 100x timer resolution + overhead and >="
     " --batch-time,\nuntil sem/mean <= --rel-error, the median's 95% interval is\nwithin"
     " 1.96 --rel-error of it and the point has run 10 ms,\nor a cap (--max-time,"
     " --max-samples) comes first: the\npoint is then flagged noisy if its median was not"
     " known):"},
    {.name = "rel-error", .kind = OPT_DOUBLE, .field = FIELD(cfg.rel_error), .min = 1e-6,
     .max = 1, .range = "a fraction in 1e-6..1", .def = "0.01", .arg = "E",
     .scope = GRID | COLL | P2P, .help = "target relative standard error"},
    {.name = "batch-time", .kind = OPT_DOUBLE, .field = FIELD(batch_us), .min = 0, .max = 1e6,
     .range = "microseconds in 0..1e6", .arg = "US", .scope = GRID | P2P,
     .help = "a batch lasts at least US microseconds\n(an MPI transport's periodic costs then"
     " fall into\nevery batch at their rate)"},
    {.name = "max-samples", .kind = OPT_LONG, .field = FIELD(cfg.max_samples),
     .min = DEFAULT_MIN_SAMPLES, .max = 1e8, .range = "8..1e8", .def = "1000", .arg = "N",
     .scope = GRID | COLL | P2P, .help = "at most N batches per point"},
    {.name = "max-time", .kind = OPT_DOUBLE, .field = FIELD(cfg.max_time_s), .min = 0.001,
     .max = 86400, .range = "seconds in 0.001..86400", .def = "5", .arg = "S", .scope = GRID | P2P,
     .help = "at most S seconds per point"},
    {.name = "interleave-sizes", .kind = OPT_FLAG, .field = FIELD(cfg.interleave_sizes),
     .scope = GRID, .help = "measure every size (and destination) batch by batch in\nturn, a new random order each"
     " round, so a change of\nthe machine's speed hits every point alike; --max-time"
     "\nis shared among them (the default with several\ndestinations)"},
    {.name = "point-by-point", .kind = OPT_FLAG, .field = FIELD(point_by_point), .scope = GRID,
     .help = "several destinations: one point after another, each with\nits own --max-time"
     " (a drift of the machine's speed then\nbends the curve across hops)"},
    {.name = "cut-quantile", .kind = OPT_DOUBLE, .field = FIELD(coll.cut_quantile), .min = 0,
     .max = 0.49, .def = "0", .range = "0..0.49", .arg = "Q", .scope = GRID | COLL | P2P,
     .help = "drop the lowest and highest Q of the samples\n(batches; --op: repetitions) from a"
     " point's\nfigures and its stop rule"},
    {.name = "min-samples", .kind = OPT_LONG, .field = FIELD(coll.min_samples), .min = 2,
     .max = 1e6, .range = "2..1e6", .arg = "N", .scope = GRID | COLL | P2P,
     .help = "at least N batches a point (default 8; --op: repetitions,\ndefault with"
     " --sync osu osu_*'s 1000, 100 above 8 KiB,\nwhich is also --max-samples' default there;"
     " else 32,\nand 2000)"},
    {.name = "refine", .kind = OPT_FLAG, .field = FIELD(coll.refine), .scope = GRID | COLL,
     .help = "insert sizes where the curve departs from a straight line"},
    {.name = "refine-threshold", .kind = OPT_DOUBLE, .field = FIELD(coll.refine_threshold),
     .min = 1e-4, .max = 10, .def = "0.1", .range = "1e-4..10", .arg = "R", .scope = GRID | COLL,
     .help = "--refine: the relative departure"},
    {.name = "refine-min-distance", .kind = OPT_SIZE, .field = FIELD(coll.refine_min_distance),
     .min = 1, .max = COLL_MAX_SIZE_BYTES, .def = "8", .range = "1..64 MiB", .arg = "B",
     .scope = GRID | COLL, .help = "--refine: the closest new size"},
    {.name = "refine-budget", .kind = OPT_DOUBLE, .field = FIELD(coll.refine_budget_s),
     .min = 0.1, .max = 1e5, .def = "60", .range = "0.1..1e5", .arg = "S", .scope = GRID | COLL,
     .help = "--refine: seconds for refining"},
    {.kind = OPT_HEADING, .scope = LOGP, .help = "LogP (--pattern logp):"},
    {.name = "conf", .kind = OPT_DOUBLE, .field = FIELD(logp.conf), FRACTION, .def = "0.90",
     .arg = "C", .scope = LOGP, .help = "confidence level, 0 < C < 1"},
    {.name = "eps", .kind = OPT_DOUBLE, .field = FIELD(logp.eps), FRACTION, .def = "0.03",
     .arg = "E", .scope = LOGP, .help = "target: interval half-width under E x value"},
    {.name = "max-diff", .kind = OPT_DOUBLE, .field = FIELD(logp.max_diff), FRACTION,
     .def = "0.03", .arg = "D", .scope = LOGP, .help = "nonlinearity threshold, a fraction"},
    {.name = "max-rtt", .kind = OPT_LONG, .field = FIELD(logp.max_rtt), .min = 2, .max = 1e7,
     .range = "round trips in 2..1e7", .def = "250", .arg = "N", .scope = LOGP,
     .help = "cap on round trips per quantity and size, times 4 up to\n1 KiB and 2 up to 64 KiB"
     " (LogP/MPI: 18)"},
    {.name = "inject-os", .kind = OPT_DOUBLE, .field = FIELD(logp.inject_os_ns), .min = 0,
     .max = 1e9, .range = "ns in 0..1e9", .arg = "NS", .scope = LOGP | COLL,
     .help = "busy-wait NS in every send (ground truth for tests;\n--op: with --algorithm)"},
    {.name = "inject-or", .kind = OPT_DOUBLE, .field = FIELD(logp.inject_or_ns), .min = 0,
     .max = 1e9, .range = "ns in 0..1e9", .arg = "NS", .scope = LOGP,
     .help = "busy-wait NS after every receive"},
    {.name = "inject-gap", .kind = OPT_DOUBLE, .field = FIELD(logp.inject_gap_ns), .min = 0,
     .max = 1e9, .range = "ns in 0..1e9", .arg = "NS", .scope = LOGP,
     .help = "start no send sooner than NS after the previous one"},
    {.name = "flood", .kind = OPT_FLAG, .field = FIELD(logp.flood), .scope = LOGP,
     .help = "every size's streams as long as its own saturation test\nfinds (the stream doubled"
     " until g(m) changes under 1%),\nnot g(0)'s length (LogP/MPI's -flood; slower)"},
    {.name = "extend-to", .kind = OPT_SIZE, .field = FIELD(logp.extend_to), .min = 0,
     .max = BENCH_MAX_SIZE_BYTES, .range = "bytes in 0..2^30", .arg = "B", .scope = LOGP,
     .help = "after the sweep, double the largest size (up to B) while\ng there departs over"
     " --max-diff from the line through\nthe two sizes below (LogP/MPI's k_max: g(m)/m settled)"},
    {.name = "os-fence", .kind = OPT_FLAG, .field = FIELD(logp.os_fence), .scope = LOGP,
     .help = "also time the send call followed by a store fence\n(columns os_fence_ns"
     " os_fence_ci_ns rtt_fence_ns)"},
    {.kind = OPT_HEADING, .scope = COLL, .help = "Collectives (--op; docs/formats.md, 'Collective"
     " TSV'):"},
    {.name = "op", .kind = OPT_CUSTOM, .parse = parse_op, .arg = "OP", .scope = COLL, .bad = "bcst",
     .help = "time an MPI collective: barrier, bcast, reduce, allreduce,\nallgather, alltoall,"
     " gather, scatter, gatherv, scatterv,\nallgatherv, alltoallv, reduce_scatter, scan, exscan,"
     "\ncomm_dup, comm_split, master_worker (pattern coll)"},
    {.name = "root", .kind = OPT_LONG, .field = FIELD(coll.root), .min = 0, .max = 1e6, .def = "0",
     .range = "a rank in 0..procs-1", .arg = "R", .scope = COLL,
     .help = "root of bcast, reduce, gather, scatter, their\nv-variants and master_worker's"
     " master"},
    {.name = "procs", .kind = OPT_LIST, .field = FIELD(coll.procs), .count_field =
     FIELD(coll.nprocs), .cap = COLL_MAX_PROCS, .min = 1, .max = COLL_MAX_PROCS,
     .range = "1..64", .arg = "LIST", .scope = COLL,
     .help = "processes: sub-communicators of ranks 0..P-1, e.g. 2..4\n(default: all of mpirun's)"},
    {.name = "algorithm", .kind = OPT_STRING, .field = FIELD(coll.algorithm), .arg = "ALG",
     .scope = COLL, .bad = "nosuch", .help = "run this algorithm's point-to-point schedule instead"
     " of\nthe MPI library's collective (scisim --collective-list)"},
    {.name = "sync", .kind = OPT_ENUM, .field = FIELD(coll.sync), .choices = bench_coll_syncs,
     .def = "osu", .arg = "HOW", .scope = COLL,
     .help = "osu: a barrier between repetitions, each rank times the\nop alone, a repetition"
     " is the mean of its ranks' times\n(mean_ns: osu_*'s Avg Latency), --warmup and"
     " --min-samples\nare osu_*'s (200, 1000; 10, 100 above 8 KiB, 32 KiB for\nreductions);"
     " barrier: the same loop, a repetition its\nslowest rank's; window: clock offsets to"
     " rank 0, then\ncommon start times"},
    {.name = "node-times", .kind = OPT_FLAG, .field = FIELD(coll.node_times),
     .scope = GRID | COLL | P2P, .help = "each process's own time: --op, each rank's median and"
     "\nmean (columns node_ns, node_mean_ns; osu_* -f's Max\nLatency is the largest mean);"
     " pp, ow, --p2p, column node_ns\n(docs/formats.md)"},
    {.name = "batch", .kind = OPT_LONG, .field = FIELD(coll.batch), .min = 1, .max = 4096,
     .range = "1..4096", .arg = "N", .scope = COLL,
     .help = "repetitions between two checks of the stop rule\n(--rel-error, default 0.02;"
     " default: --sync osu\n--min-samples, as osu_*'s one loop; else 32)"},
    {.name = "warmup", .kind = OPT_LONG, .field = FIELD(coll.warmup), .min = 0, .max = 100000,
     .range = "0..100000", .arg = "N", .scope = COLL,
     .help = "untimed repetitions before a size's first batch, one more\nbefore every batch"
     " (default: --sync osu osu_*'s skip, 200,\n10 above 8 KiB; else 20)"},
    {.kind = OPT_HEADING, .scope = P2P,
     .help = "MPI point-to-point (--p2p; docs/formats.md, the p2p modes):"},
    {.name = "p2p", .kind = OPT_CUSTOM, .parse = parse_p2p, .arg = "MODE", .scope = P2P,
     .bad = "bsnd", .help = "time an MPI point-to-point mode between ranks 0 and 1:\nbsend, rsend,"
     " issend, iprobe (ping-pongs), sendrecv,\nsendrecv-replace (exchanges), bw (osu_bw), bibw"
     "\n(osu_bibw; pattern p2p)"},
    {.name = "window", .kind = OPT_LONG, .field = FIELD(p2p_window), .min = 1, .max = 4096,
     .def = "64", .range = "1..4096", .arg = "N", .scope = P2P,
     .help = "bw, bibw: messages each way in a window (osu_bw's and\nosu_bibw's)"},
    {.kind = OPT_HEADING, .help = "Output and behaviour:"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = FIELD(out_path),
     .arg = "FILE", .help = "write the data there (atomically: temporary name, then\nrename);"
     " - or none: standard output"},
    {.name = "resume", .kind = OPT_PATH, .field = FIELD(resume_path), .arg = "FILE",
     .help = "continue an interrupted run (a file ending '# incomplete')\nwith its recorded"
     " options; rewrites FILE complete (only\n-q and --timeout may be given with it)"},
    {.name = "timeout", .kind = OPT_DOUBLE, .field = FIELD(setup.cfg.timeout_s), .min = 0.1,
     .max = 86400, .range = "seconds in 0.1..86400", .def = "10", .arg = "S",
     .help = "give up after S seconds without progress"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = FIELD(cfg.quiet),
     .help = "no progress lines on stderr"},
};
#define NCOMMON (int)(sizeof common / sizeof common[0])
#define I_BACKEND 16   /* the backend's options go after --interleave */

static const opt_conflict conflicts[] = {
    {"ring", "torus", "give only one of --ring and --torus"},
    {"sizes", "min-size", "the same sizes twice; give --sizes A..B"},
    {"sizes", "max-size", "the same sizes twice; give --sizes A..B"},
    {"interleave-sizes", "point-by-point", "give only one order"},
    {"op", "p2p", "give only one of --op and --p2p"},
};

/* The program's table: the common options the backend can take, its own
 * inserted after the measuring ones, the batch-time default its own. */
static void compose(const bench_cli *c, opt_program *p, opt_spec *s, char *batch, size_t len)
{
    int n = 0;
    snprintf(batch, len, "%g", c->bc->batch_us);
    for (int i = 0; i < NCOMMON; i++) {
        const opt_spec *o = &common[i];
        if (i == I_BACKEND)
            for (int k = 0; c->bc->options[k].name; k++)
                s[n++] = (opt_spec){.name = c->bc->options[k].name, .kind = OPT_STRING,
                                    .field = FIELD(setup.value) + (size_t)k * sizeof(char *),
                                    .arg = c->bc->options[k].arg, .help = c->bc->options[k].help,
                                    .scope = c->bc->options[k].scope,
                                    .bad = c->bc->options[k].bad};
        if ((o->scope == COLL && !c->bc->own_pattern) ||   /* scibench: no collectives */
            (o->scope == P2P && !c->bc->own_p2p))
            continue;
        if ((o->name && !strcmp(o->name, "floor") && !c->be->floor) ||
            (o->name && !strcmp(o->name, "lines") && !c->be->floor_lines) ||
            (o->name && !strcmp(o->name, "route") && !(c->bc->caps & BENCH_CAP_ROUTE)))
            continue;
        s[n] = *o;
        if (o->name && !strcmp(o->name, "batch-time"))
            s[n].def = batch;
        n++;
    }
    *p = (opt_program){.name = c->prog, .synopsis = "", .specs = s, .nspecs = n,
                       .conflicts = conflicts,
                       .nconflicts = (int)(sizeof conflicts / sizeof conflicts[0]), .defer_help = 1,
                       .context = c->context[0] ? c->context : NULL, .quiet = !c->bc->speaks()};
}

int bench_cli_usage(const bench_cli *c, const char *fmt, ...)
{
    va_list ap;
    if (!c->bc->speaks())
        return EXIT_USAGE;
    fprintf(stderr, "%s: ", c->prog);
    if (c->context[0])
        fprintf(stderr, "%s: ", c->context);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    return EXIT_USAGE;
}

/* --help, for the pattern the line names; it must reach standard output. */
static void print_help(const bench_cli *c, opt_program *prog)
{
    char epilog[4096];
    prog->epilog = NULL;
    if (c->pattern == &bench_pattern_logp)
        bench_logp_help(c);
    else if (c->pattern->help)
        prog->epilog = c->pattern->help(c, epilog, sizeof epilog);
    else
        prog->epilog = bench_grid_help(c, epilog, sizeof epilog);
    prog->scope = c->pattern->scope;
    opt_print_help(prog, stdout);
    exit(file_close_stdout(c->prog) ? EXIT_FAILURE : EXIT_SUCCESS);
}

/* Everything but what a --resume keeps, back to the pattern-free start. */
static void reset(bench_cli *c)
{
    bench_cli keep = *c;
    memset(c, 0, sizeof *c);
    c->be = keep.be;
    c->bc = keep.bc;
    c->prog = keep.prog;
    c->resume_data = keep.resume_data;
    c->logp_done = keep.logp_done;
    memcpy(c->context, keep.context, sizeof c->context);
    memcpy(c->command, keep.command, sizeof c->command);
    c->pattern = &bench_pattern_pp;
}

/* --sizes for the pattern: pp, ow a list; logp the ends of its sweep, A..B
 * or one size (--min-size, --max-size set one end each). */
static int read_sizes(bench_cli *c, const opt_program *prog, const opt_state *st)
{
    const char *arg = c->sizes_text ? c->sizes_text : c->pattern->default_sizes;
    size_t pos;
    parse_status ps;
    c->have_sizes = c->sizes_text != NULL;
    if (c->pattern != &bench_pattern_logp) {
        ps = parse_list(arg, PARSE_RANGE_POW2, 0, BENCH_MAX_SIZE_BYTES, c->cfg.sizes,
                        BENCH_MAX_SIZES, &c->cfg.nsizes, &pos);
        return ps ? opt_usage_error(prog, "--sizes '%s': %s, expected 1,8,64 or 1..65536 or"
                                    " 64..4096:64 (0..2^30)", arg, parse_status_text(ps)) : 0;
    }
    long lo = c->logp.min_size, hi = c->logp.max_size;
    const char *dots = strstr(arg, "..");
    char first[32];
    if (dots && (size_t)(dots - arg) < sizeof first) {
        memcpy(first, arg, (size_t)(dots - arg));
        first[dots - arg] = '\0';
        ps = parse_long(first, 0, BENCH_MAX_SIZE_BYTES, &c->logp.min_size);
        if (!ps)
            ps = parse_long(dots + 2, 0, BENCH_MAX_SIZE_BYTES, &c->logp.max_size);
    } else {
        ps = dots ? PARSE_SYNTAX : parse_long(arg, 0, BENCH_MAX_SIZE_BYTES, &c->logp.min_size);
        c->logp.max_size = c->logp.min_size;
    }
    if (ps)
        return opt_usage_error(prog, "--sizes '%s': %s, expected A..B or one size in bytes,"
                               " 0..2^30 (logp adds the sizes between itself)", arg,
                               parse_status_text(ps));
    if (c->logp.max_size < c->logp.min_size)
        return opt_usage_error(prog, "--sizes '%s': %ld below %ld", arg, c->logp.max_size,
                               c->logp.min_size);
    if (opt_given(st, "min-size"))
        c->logp.min_size = lo;
    if (opt_given(st, "max-size"))
        c->logp.max_size = hi;
    return 0;
}

/* --resume FILE: only -q and --timeout beside it; they win over the file's. */
static int resume(bench_cli *c, const opt_program *prog, const opt_state *st)
{
    static const char *const allowed[] = {"resume", "quiet", "timeout"};
    if (c->context[0])
        return opt_usage_error(prog, "--resume: the file's command has --resume itself");
    for (int i = 0; i < prog->nspecs; i++) {
        const opt_spec *s = &prog->specs[i];
        int ok = 0;
        for (int k = 0; k < 3; k++)
            ok |= s->name && !strcmp(s->name, allowed[k]);
        if (st->value[i] && !ok)
            return opt_usage_error(prog, "--resume '%s' and %s%s: a resumed run takes its"
                                   " options from the file's recorded command (only -q and"
                                   " --timeout may be added)", c->resume_path,
                                   s->short_name ? "-" : "--", s->short_name ? (char[]){
                                   (char)s->short_name, 0} : s->name);
    }
    /* what the user gave, read before the file's command is parsed into c and
     * its options table (whose state st then describes) */
    int quiet = c->cfg.quiet, timeout_given = opt_given(st, "timeout"), rc;
    double timeout = c->setup.cfg.timeout_s;
    if ((rc = bench_cli_load_resume(c, 0, NULL)))
        return rc;
    c->cfg.quiet |= quiet;
    if (timeout_given)
        c->setup.cfg.timeout_s = timeout;
    c->logp.quiet = c->cfg.quiet;
    return 0;
}

int bench_cli_parse(bench_cli *c, int argc, char **argv)
{
    opt_spec specs[OPT_MAX];
    opt_program prog;
    opt_state *st = &c->opts;
    char batch[32], err[512], what[64];
    reset(c);
    compose(c, &prog, specs, batch, sizeof batch);
    int rc = opt_parse(&prog, argc, argv, c, st);
    if (rc == OPT_HELP && !prog.quiet)
        print_help(c, &prog);
    if (rc == OPT_HELP)
        exit(EXIT_SUCCESS);
    if (rc == OPT_DONE)
        exit(file_close_stdout(c->prog) ? EXIT_FAILURE : EXIT_SUCCESS);
    if (rc)
        return rc;
    if (opt_is_stdio(c->out_path))
        c->out_path = NULL;
    if (c->resume_path && c->pattern != c->bc->own_pattern)   /* coll: its own --resume */
        return resume(c, &prog, st);
    snprintf(what, sizeof what, "--pattern %s", c->pattern->name);
    if ((rc = opt_check_scope(st, c->pattern->scope, what)) || (rc = read_sizes(c, &prog, st)))
        return rc;
    c->have_dst = opt_given(st, "dst");
    c->cfg.prog = c->logp.prog = c->prog;
    c->cfg.pattern = c->pattern == &bench_pattern_ow ? BENCH_OW : BENCH_PP;
    c->cfg.min_samples = opt_given(st, "min-samples") ? c->coll.min_samples : DEFAULT_MIN_SAMPLES;
    c->cfg.cut_quantile = c->coll.cut_quantile;
    c->cfg.refine = c->coll.refine;
    c->cfg.refine_threshold = c->coll.refine_threshold;
    c->cfg.refine_budget_s = c->coll.refine_budget_s;
    c->cfg.refine_min_distance = c->coll.refine_min_distance;
    if (!opt_given(st, "min-samples"))
        c->coll.min_samples = COLL_MIN_SAMPLES;
    c->cfg.min_batch_ns = c->batch_us * 1e3;
    c->setup.cfg.procs = 2;
    c->setup.logp = c->pattern == &bench_pattern_logp;
    if (!c->have_topology)
        topo_shape_equal(1, 2, &c->cfg.shape);
    for (int i = 0; c->bc->options[i].name; i++)
        if ((c->setup.given[i] = c->setup.value[i] != NULL) &&
            c->bc->parse(&c->setup, i, c->setup.value[i], err, sizeof err))
            return opt_usage_error(&prog, "%s", err);
    c->logp.quiet = c->cfg.quiet;
    return 0;
}

int bench_cli_bad_cases(const bench_cli *c, opt_bad_case *out, int cap)
{
    opt_spec specs[OPT_MAX];
    opt_program prog;
    char batch[32];
    compose(c, &prog, specs, batch, sizeof batch);
    return opt_bad_cases(&prog, out, cap);
}
