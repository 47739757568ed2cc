/* options: scibench's and mpibench's options as one table (name, field,
 * parser, range, default, help), read by the parser, the defaults and
 * --help alike; the backend adds its own (bench/backend_cli.h). */
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "util/opt.h"
#include "util/parse.h"

#define DEFAULT_MIN_SAMPLES 8   /* SKaMPI: the fewest batches a mean is trusted on */
#define F_REPEAT 1u             /* may be given more than once */
#define F_RESUME 2u             /* may go with --resume (changes no measurement) */
#define F_FLOOR 4u              /* needs a backend with a floor */
#define F_ROUTE 8u              /* needs BENCH_CAP_ROUTE */
#define F_SPAWN 16u             /* needs BENCH_CAP_SPAWNS */
#define ALL (BENCH_IN_GRID | BENCH_IN_LOGP)

enum { K_FLAG, K_LONG, K_DOUBLE, K_FRACTION, K_FUNC };
enum { S_WHAT, S_STATS, S_LOGP, S_OUT, S_NSECTIONS };

typedef struct bench_option {
    const char *name;
    char letter;                   /* short form, 0 none */
    const char *arg;               /* value's name in --help; NULL: a flag */
    unsigned scope, flags;
    int kind;
    size_t off;                    /* field in bench_cli (K_FLAG/LONG/DOUBLE/FRACTION) */
    double min, max, scale;        /* range, then the unit the field holds */
    int (*set)(bench_cli *c, const char *opt, const char *arg);   /* K_FUNC */
    const char *want;              /* the value expected, for messages */
    const char *def;               /* default, parsed like a value; NULL: none */
    int section;
    const char *help;              /* continuation lines start with '\n' + text */
} bench_option;

static int set_pattern(bench_cli *c, const char *opt, const char *arg);
static int set_topology(bench_cli *c, const char *opt, const char *arg);
static int set_hops(bench_cli *c, const char *opt, const char *arg);
static int set_dst(bench_cli *c, const char *opt, const char *arg);
static int set_sizes(bench_cli *c, const char *opt, const char *arg);
static int set_min_size(bench_cli *c, const char *opt, const char *arg);
static int set_max_size(bench_cli *c, const char *opt, const char *arg);
static int set_route(bench_cli *c, const char *opt, const char *arg);
static int set_interleave(bench_cli *c, const char *opt, const char *arg);
static int set_output(bench_cli *c, const char *opt, const char *arg);
static int set_resume(bench_cli *c, const char *opt, const char *arg);

#define FIELD(f) offsetof(bench_cli, f)

static const bench_option options[] = {
    {"pattern", 0, "P", ALL, 0, K_FUNC, 0, 0, 0, 0, set_pattern, NULL, NULL, S_WHAT,
     "pp (ping-pong, default; latency = round trip / 2) | ow\n(one-way: reps messages back"
     " to back, one ack;\nlatency = time / reps; a direct link, 1 hop) | logp\n(LogP parameters"
     " os, or, g, L of two processes;\n--pattern logp --help)"},
    {"ring", 0, "N", BENCH_IN_GRID, 0, K_FUNC, 0, 0, 0, 0, set_topology, NULL, NULL, S_WHAT,
     "nodes on one unidirectional ring (default 2)"},
    {"torus", 0, "AxB[xC]", BENCH_IN_GRID, 0, K_FUNC, 0, 0, 0, 0, set_topology, NULL, NULL,
     S_WHAT, "nodes on a torus of unidirectional rings"},
    {"hops", 0, "h1,h2,..", BENCH_IN_GRID, 0, K_FUNC, 0, 0, 0, 0, set_hops, NULL, NULL, S_WHAT,
     "destination of node 0 by its hop vector"},
    {"dst", 0, "NODE", BENCH_IN_GRID, 0, K_FUNC, 0, 0, 0, 0, set_dst, NULL, NULL, S_WHAT,
     "destination of node 0 by its rank (row-major)"},
    {"all-dst", 0, NULL, BENCH_IN_GRID, 0, K_FLAG, FIELD(all_dst), 0, 0, 0, NULL, NULL, NULL,
     S_WHAT, "measure every destination of node 0\n(default: the symmetric destination n_i/2"
             " hops away in\nevery dimension, as the thesis's tests)"},
    {"sizes", 0, "LIST", ALL, 0, K_FUNC, 0, 0, 0, 0, set_sizes, NULL, NULL, S_WHAT,
     "message sizes: 1,8,64 | 1..65536 (powers of two, the\ndefault) | 64..4096:64 (linear"
     " step); logp: a range\nA..B (default 0..65536: A, the powers of two above it,\nB, then"
     " the sizes its nonlinearity search adds)"},
    {"min-size", 0, "B", BENCH_IN_LOGP, 0, K_FUNC, 0, 0, 0, 0, set_min_size, NULL, NULL, S_WHAT,
     "logp: --sizes B..(--max-size), the same field"},
    {"max-size", 0, "B", BENCH_IN_LOGP, 0, K_FUNC, 0, 0, 0, 0, set_max_size, NULL, NULL, S_WHAT,
     "logp: --sizes (--min-size)..B, the same field"},
    {"inject-forward", 0, "NS", BENCH_IN_GRID, 0, K_DOUBLE, FIELD(cfg.inject_forward_ns), 0, 1e9,
     1, NULL, "ns in 0..1e9", NULL, S_WHAT, "busy-wait NS at every forwarding node (ground truth)"},
    {"inject-switch", 0, "NS", BENCH_IN_GRID, 0, K_DOUBLE, FIELD(cfg.inject_switch_ns), 0, 1e9, 1,
     NULL, "ns in 0..1e9", NULL, S_WHAT, "busy-wait NS at every dimension switch"},
    {"echo", 0, NULL, BENCH_IN_GRID, 0, K_FLAG, FIELD(cfg.echo), 0, 0, 0, NULL, NULL, NULL,
     S_WHAT, "every node sends the bytes it has just received (the\ndestination its request's,"
             " the source its last reply's),\nas a relay does, instead of from a send buffer as"
             "\nosu_latency does (calibrate measures with it)"},
    {"route", 0, "R", BENCH_IN_GRID, F_ROUTE, K_FUNC, 0, 0, 0, 0, set_route, NULL, NULL, S_WHAT,
     "software (default: intermediate nodes relay) | network\n(send straight to the"
     " destination)"},
    {"floor", 0, NULL, BENCH_IN_GRID, F_FLOOR, K_FLAG, FIELD(floor_only), 0, 0, 0, NULL, NULL,
     NULL, S_WHAT, "only measure the bare floor (one cache-line flag bouncing\nbetween two CPUs)"
                   " and print it; with --sizes, also that\nbounce carrying each size, copied in"
                   " and out, alternately"},
    {"interleave", 0, "S=FILE", BENCH_IN_GRID, F_REPEAT, K_FUNC, 0, 0, 0, 0, set_interleave,
     NULL, NULL, S_WHAT, "also measure the ring or torus S (8, 4x4) into FILE, up\nto 7 times:"
     " the networks' points are measured batch by\nbatch in turn, so a change of the machine's"
     " speed hits\nthem alike; ping-pong, symmetric destinations or\n--all-dst; each point's"
     " --max-time is shared among them"},
    {"rel-error", 0, "E", BENCH_IN_GRID, 0, K_DOUBLE, FIELD(cfg.rel_error), 1e-6, 1, 1, NULL,
     "a fraction in 1e-6..1", "0.01", S_STATS, "target relative standard error"},
    {"batch-time", 0, "US", BENCH_IN_GRID, 0, K_DOUBLE, FIELD(cfg.min_batch_ns), 0, 1e6, 1e3,
     NULL, "microseconds in 0..1e6", NULL, S_STATS, "a batch lasts at least US microseconds"
     "\n(an MPI transport's periodic costs then fall into\nevery batch at their rate)"},
    {"max-samples", 0, "N", BENCH_IN_GRID, 0, K_LONG, FIELD(cfg.max_samples),
     DEFAULT_MIN_SAMPLES, 1e8, 1, NULL, "8..1e8", "1000", S_STATS, "at most N batches per point"},
    {"max-time", 0, "S", BENCH_IN_GRID, 0, K_DOUBLE, FIELD(cfg.max_time_s), 0.001, 86400, 1,
     NULL, "seconds in 0.001..86400", "5", S_STATS, "at most S seconds per point"},
    {"interleave-sizes", 0, NULL, BENCH_IN_GRID, 0, K_FLAG, FIELD(cfg.interleave_sizes), 0, 0,
     0, NULL, NULL, NULL, S_STATS, "measure every size (and destination) batch by batch in\n"
     "turn, so a change of the machine's speed hits every point\nalike; --max-time is shared"
     " among them"},
    {"conf", 0, "C", BENCH_IN_LOGP, 0, K_FRACTION, FIELD(logp.conf), 0, 1, 1, NULL, NULL, "0.90",
     S_LOGP, "confidence level, 0 < C < 1"},
    {"eps", 0, "E", BENCH_IN_LOGP, 0, K_FRACTION, FIELD(logp.eps), 0, 1, 1, NULL, NULL, "0.03",
     S_LOGP, "target: interval half-width under E x value"},
    {"max-diff", 0, "D", BENCH_IN_LOGP, 0, K_FRACTION, FIELD(logp.max_diff), 0, 1, 1, NULL,
     NULL, "0.03", S_LOGP, "nonlinearity threshold, a fraction"},
    {"max-rtt", 0, "N", BENCH_IN_LOGP, 0, K_LONG, FIELD(logp.max_rtt), 2, 1e7, 1, NULL,
     "round trips in 2..1e7", "250", S_LOGP, "cap on round trips per quantity and size, times 4"
     " up to\n1 KiB and 2 up to 64 KiB (LogP/MPI: 18)"},
    {"inject-os", 0, "NS", BENCH_IN_LOGP, 0, K_DOUBLE, FIELD(logp.inject_os_ns), 0, 1e9, 1, NULL,
     "ns in 0..1e9", NULL, S_LOGP, "busy-wait NS in every send (ground truth for tests)"},
    {"inject-or", 0, "NS", BENCH_IN_LOGP, 0, K_DOUBLE, FIELD(logp.inject_or_ns), 0, 1e9, 1, NULL,
     "ns in 0..1e9", NULL, S_LOGP, "busy-wait NS after every receive"},
    {"inject-gap", 0, "NS", BENCH_IN_LOGP, 0, K_DOUBLE, FIELD(logp.inject_gap_ns), 0, 1e9, 1,
     NULL, "ns in 0..1e9", NULL, S_LOGP, "start no send sooner than NS after the previous one"},
    {"os-fence", 0, NULL, BENCH_IN_LOGP, 0, K_FLAG, FIELD(logp.os_fence), 0, 0, 0, NULL, NULL,
     NULL, S_LOGP, "also time the send call followed by a store fence\n(columns os_fence_ns"
                   " os_fence_ci_ns rtt_fence_ns)"},
    {"output", 'o', "FILE", ALL, 0, K_FUNC, 0, 0, 0, 0, set_output, NULL, NULL, S_OUT,
     "write the data there (atomically: temporary name, then\nrename); - or none: standard"
     " output"},
    {"resume", 0, "FILE", ALL, 0, K_FUNC, 0, 0, 0, 0, set_resume, NULL, NULL, S_OUT,
     "continue an interrupted run (a file ending '# incomplete')\nwith its recorded options;"
     " rewrites FILE complete (only\n-q and --timeout may be given with it)"},
    {"timeout", 0, "S", ALL, F_RESUME, K_DOUBLE, FIELD(setup.cfg.timeout_s), 0.1, 86400, 1, NULL,
     "seconds in 0.1..86400", "10", S_OUT, "give up after S seconds without progress"},
    {"quiet", 'q', NULL, ALL, F_RESUME, K_FLAG, FIELD(cfg.quiet), 0, 0, 0, NULL, NULL, NULL,
     S_OUT, "no progress lines on stderr"},
    {"help", 'h', NULL, ALL, F_RESUME, K_FLAG, 0, 0, 0, 0, NULL, NULL, NULL, S_OUT,
     "this text (with --pattern logp: LogP's)"},
    {"version", 0, NULL, ALL, F_RESUME, K_FLAG, 0, 0, 0, 0, NULL, NULL, NULL, S_OUT,
     "the version"},
};
#define NOPT (sizeof options / sizeof options[0])
#define MAX_OWN 8
#define MAX_GIVEN 256

enum { I_PATTERN = 0, I_SIZES = 6, I_MIN_SIZE = 7, I_MAX_SIZE = 8, I_RESUME = NOPT - 5,
       I_HELP = NOPT - 2, I_VERSION = NOPT - 1 };

typedef struct given {
    int idx;            /* < NOPT: options[]; else the backend's NOPT + i */
    const char *arg;
} given;

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
    fputs(c->context[0] ? "\n" : " (try --help)\n", stderr);
    return EXIT_USAGE;
}

/* An option as people type it: "-o", "--sizes". */
static const char *name_of(const bench_cli *c, int idx, char *buf, size_t size)
{
    if (idx < (int)NOPT && options[idx].letter)
        snprintf(buf, size, "-%c", options[idx].letter);
    else
        snprintf(buf, size, "--%s",
                 idx < (int)NOPT ? options[idx].name : c->bc->options[idx - (int)NOPT].name);
    return buf;
}

static int available(const bench_cli *c, const bench_option *o)
{
    return !((o->flags & F_FLOOR && !c->be->floor) ||
             (o->flags & F_ROUTE && !(c->bc->caps & BENCH_CAP_ROUTE)) ||
             (o->flags & F_SPAWN && !(c->bc->caps & BENCH_CAP_SPAWNS)));
}

/* Pass 1: which options argv gives, in order.  Unknown options, missing
 * values, stray words and repeats are usage errors here, before any value
 * is looked at. */
static int collect(const bench_cli *c, int argc, char **argv, given *g, int *ng)
{
    struct option lo[NOPT + MAX_OWN + 1];
    int n = 0, count[NOPT + MAX_OWN] = {0};
    char shorts[16] = ":";
    for (size_t i = 0; i < NOPT; i++)
        if (available(c, &options[i])) {
            lo[n++] = (struct option){options[i].name, options[i].arg ? 1 : 0, NULL, (int)i + 1000};
            if (options[i].letter)
                snprintf(shorts + strlen(shorts), sizeof shorts - strlen(shorts), "%c%s",
                         options[i].letter, options[i].arg ? ":" : "");
        }
    for (int i = 0; c->bc->options[i].name; i++)
        lo[n++] = (struct option){c->bc->options[i].name, c->bc->options[i].has_arg, NULL,
                                  (int)NOPT + i + 1000};
    lo[n] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    opterr = 0;
    *ng = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        /* the option's own word, not its separate value */
        const char *word = optarg && optind >= 2 && argv[optind - 1] == optarg
                               ? argv[optind - 2] : argv[optind - 1];
        if (opt == '?' || opt == ':') {
            size_t len = strcspn(word, "=");
            if (opt == '?' && optopt && optopt < 256 && word[0] == '-' && word[1] != '-')
                return bench_cli_usage(c, "-%c: not an option of %s", optopt, c->prog);
            return bench_cli_usage(c, opt == ':' ? "%.*s: needs a value"
                                                 : "%.*s: not an option of %s", (int)len, word,
                                   c->prog);
        }
        int idx = -1;
        for (size_t i = 0; i < NOPT && idx < 0; i++)
            if (opt == options[i].letter && opt < 256)
                idx = (int)i;
        if (idx < 0)
            idx = opt - 1000;
        int repeat = idx < (int)NOPT && options[idx].flags & F_REPEAT;
        if (count[idx]++ && !repeat)
        {
            const char *before = "";
            for (int k = 0; k < *ng; k++)
                if (g[k].idx == idx && g[k].arg)
                    before = g[k].arg;
            char name[64];
            return bench_cli_usage(c, optarg ? "%s given twice ('%s', then '%s'); give it once"
                                             : "%s given twice%s%s; give it once",
                                   name_of(c, idx, name, sizeof name), before,
                                   optarg ? optarg : "");
        }
        if (*ng == MAX_GIVEN)
            return bench_cli_usage(c, "more than %d options", MAX_GIVEN);
        g[(*ng)++] = (given){idx, optarg};
    }
    if (optind < argc)
        return bench_cli_usage(c, "'%s': unexpected argument", argv[optind]);
    /* --sizes, --min-size and --max-size are one field */
    if (count[I_SIZES] && (count[I_MIN_SIZE] || count[I_MAX_SIZE]))
        return bench_cli_usage(c, "--sizes and --%s: the same sizes twice; give --sizes A..B",
                               count[I_MIN_SIZE] ? "min-size" : "max-size");
    return 0;
}

/* The message of a value out of range or malformed. */
static int bad(const bench_cli *c, const char *opt, const char *arg, parse_status st,
               const char *want)
{
    return bench_cli_usage(c, "--%s '%s': %s, expected %s", opt, arg, parse_status_text(st),
                           want);
}

/* Sets option idx from arg (NULL for a flag). */
static int apply(bench_cli *c, int idx, const char *arg)
{
    if (idx >= (int)NOPT) {
        char err[512];
        int i = idx - (int)NOPT;
        c->setup.value[i] = arg;
        c->setup.given[i] = 1;
        if (c->bc->parse(&c->setup, i, arg, err, sizeof err))
            return bench_cli_usage(c, "%s", err);
        return 0;
    }
    const bench_option *o = &options[idx];
    char *field = (char *)c + o->off;
    parse_status st;
    long v;
    double d;
    switch (o->kind) {
    case K_FLAG:
        if (o->off)
            *(int *)field = 1;
        return 0;
    case K_LONG:
        if ((st = parse_long(arg, (long)o->min, (long)o->max, &v)))
            return bad(c, o->name, arg, st, o->want);
        *(long *)field = v;
        return 0;
    case K_DOUBLE:
        if ((st = parse_double(arg, o->min, o->max, &d)))
            return bad(c, o->name, arg, st, o->want);
        *(double *)field = d * o->scale;
        return 0;
    case K_FRACTION:   /* the open interval (0, 1): parse_double takes closed ones */
        st = parse_double(arg, 0, 1, &d);
        if (!st && (d <= 0 || d >= 1))
            st = PARSE_RANGE;
        if (st)
            return bad(c, o->name, arg, st, "a fraction strictly between 0 and 1");
        *(double *)field = d;
        return 0;
    default:
        return o->set(c, o->name, arg);
    }
}

/* The pattern's defaults: every option's default from the table, then
 * what the backend and the pattern decide. */
static int set_defaults(bench_cli *c, const bench_pattern_desc *p)
{
    const bench_backend *be = c->be;
    bench_data keep = c->resume_data;
    logp_data keep_logp = c->logp_done;
    const char *resume = c->resume_path;
    char context[sizeof c->context];
    char command[sizeof c->command];
    memcpy(context, c->context, sizeof context);
    memcpy(command, c->command, sizeof command);
    memset(c, 0, sizeof *c);
    c->be = be;
    c->bc = be->cli;
    c->prog = c->bc->prog;
    c->resume_data = keep;
    c->logp_done = keep_logp;
    c->resume_path = resume;
    memcpy(c->context, context, sizeof context);
    memcpy(c->command, command, sizeof command);
    c->pattern = p;
    c->cfg.prog = c->logp.prog = c->prog;
    c->cfg.pattern = p == &bench_pattern_ow ? BENCH_OW : BENCH_PP;
    c->cfg.min_samples = DEFAULT_MIN_SAMPLES;
    c->cfg.min_batch_ns = c->bc->batch_us * 1e3;
    c->setup.cfg.procs = 2;
    c->setup.logp = p == &bench_pattern_logp;
    topo_shape_equal(1, 2, &c->cfg.shape);
    for (size_t i = 0; i < NOPT; i++)
        if (options[i].def && options[i].scope & p->scope && apply(c, (int)i, options[i].def))
            return EXIT_USAGE;
    int rc = set_sizes(c, "sizes", p->default_sizes);
    c->have_sizes = 0;
    return rc;
}

static void print_help(const bench_cli *c, const bench_pattern_desc *p)
{
    static const char *const titles[] = {"What to measure", "Statistics (SKaMPI-style: warm-up,"
        " then batches of reps iterations,\na batch >= 100x timer resolution + overhead and >="
        " --batch-time,\nuntil sem/mean <= --rel-error and the point has run 10 ms or\n"
        "--max-time)", "LogP (--pattern logp)", "Output and behaviour"};
    if (p == &bench_pattern_logp)
        bench_logp_help(c);
    else
        printf("Usage: %s [OPTIONS]\n%s", c->prog, c->bc->intro);
    for (int s = 0; s < S_NSECTIONS; s++) {
        if (!(s == S_LOGP ? p->scope & BENCH_IN_LOGP : 1) || (s == S_STATS && p == &bench_pattern_logp))
            continue;
        printf("\n%s:\n", titles[s]);
        for (size_t i = 0; i < NOPT; i++) {
            const bench_option *o = &options[i];
            if (o->section != s || !(o->scope & p->scope) || !available(c, o))
                continue;
            char head[64];
            int len = o->letter ? snprintf(head, sizeof head, "  -%c, --%s", o->letter, o->name)
                                : snprintf(head, sizeof head, "  --%s", o->name);
            if (o->arg)
                len += snprintf(head + len, sizeof head - (size_t)len, " %s", o->arg);
            printf("%s%*s", head, len < 22 ? 22 - len : 1, "");
            for (const char *h = o->help; *h; h++)
                if (*h == '\n')
                    printf("\n%22s", "");
                else
                    putchar(*h);
            if (o->off == FIELD(cfg.min_batch_ns))   /* the backend's */
                printf(" (default %g)\n", c->bc->batch_us);
            else
                printf(o->def ? " (default %s)\n" : "\n", o->def);
        }
        for (int i = 0; s == S_WHAT && c->bc->options[i].name; i++)
            if (c->bc->options[i].scope & p->scope)
                fputs(c->bc->options[i].help, stdout);
    }
    if (p != &bench_pattern_logp)
        printf("\nOutput: a scitorus-bench TSV (docs/formats.md): '#' header lines, one row per"
               "\npoint: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns\n"
               "median_ns mean_ns sd_ns ci95_ns max_ns flag; loads straight into gnuplot.  An\n"
               "interrupted run (Ctrl-C, SIGTERM to any process, a dead peer, --timeout) keeps"
               "\nits finished points and ends '# incomplete'; it never replaces an existing"
               " FILE\n(which may hold a complete run): then it writes FILE.incomplete beside it"
               "\nand says so.  Nothing is left behind by a killed run.\n"
               "Exit status: 0 success, 1 runtime failure, 2 usage error.\n\nExamples:\n%s",
               c->bc->examples);
}

/* --help and --version print to standard output, which must get there. */
static int print_and_exit(const bench_cli *c, const bench_pattern_desc *p, int version)
{
    if (version)
        printf("%s (scitorus) %s\n", c->prog, opt_version());
    else
        print_help(c, p);
    exit(file_close_stdout(c->prog) ? EXIT_FAILURE : EXIT_SUCCESS);
}

int bench_cli_parse(bench_cli *c, int argc, char **argv)
{
    given g[MAX_GIVEN];
    char name[64];
    int n, rc;
    const bench_pattern_desc *p = &bench_pattern_pp;
    const char *resume = NULL;
    if ((rc = collect(c, argc, argv, g, &n)))
        return rc;
    for (int i = 0; i < n; i++) {
        if (g[i].idx == I_PATTERN && !(p = bench_pattern_find(g[i].arg)))
            return bench_cli_usage(c, "--pattern '%s': expected pp, ow or logp", g[i].arg);
        if (g[i].idx == I_RESUME)
            resume = g[i].arg;
    }
    for (int i = 0; i < n && !c->context[0]; i++)
        if (g[i].idx == I_HELP || g[i].idx == I_VERSION)
            print_and_exit(c, p, g[i].idx == I_VERSION);
    if (resume && c->context[0])
        return bench_cli_usage(c, "--resume: the file's command has --resume itself");
    if (resume) {
        for (int i = 0; i < n; i++)
            if (g[i].idx != I_RESUME && !(g[i].idx < (int)NOPT && options[g[i].idx].flags & F_RESUME))
                return bench_cli_usage(c, "--resume '%s' and %s: a resumed run takes its options"
                                          " from the file's recorded command (only -q and"
                                          " --timeout may be added)", resume,
                                       name_of(c, g[i].idx, name, sizeof name));
        c->resume_path = resume;
        if ((rc = bench_cli_load_resume(c, argc, argv)))
            return rc;
        for (int i = 0; i < n; i++)   /* -q, --timeout on top of the recorded ones */
            if (g[i].idx != I_RESUME && (rc = apply(c, g[i].idx, g[i].arg)))
                return rc;
        c->logp.quiet = c->cfg.quiet;
        return 0;
    }
    if ((rc = set_defaults(c, p)))
        return rc;
    for (int i = 0; i < n; i++) {
        if (!(p->scope & (g[i].idx < (int)NOPT ? options[g[i].idx].scope
                                                : c->bc->options[g[i].idx - NOPT].scope)))
            return bench_cli_usage(c, "'%s': not an option of --pattern %s",
                                   name_of(c, g[i].idx, name, sizeof name), p->name);
        if ((rc = apply(c, g[i].idx, g[i].arg)))
            return rc;
    }
    c->logp.quiet = c->cfg.quiet;
    return 0;
}

/* ---- the options that are more than a field ---- */

static int set_pattern(bench_cli *c, const char *opt, const char *arg)
{
    (void)opt;
    (void)arg;   /* chosen in bench_cli_parse, before the defaults */
    c->have_pattern = 1;
    return 0;
}

static int set_topology(bench_cli *c, const char *opt, const char *arg)
{
    topo_parse_error e;
    if (c->have_topology)
        return bench_cli_usage(c, "--%s '%s': give only one of --ring and --torus", opt, arg);
    c->have_topology = 1;
    c->topology_opt = opt;
    if (topo_shape_parse(arg, &c->cfg.shape, &e))
        return bench_cli_usage(c, "--%s '%s': %s at character %zu", opt, arg, e.what, e.pos + 1);
    if (strcmp(opt, "ring") == 0 && c->cfg.shape.dims != 1)
        return bench_cli_usage(c, "--ring '%s': a ring takes one number (use --torus)", arg);
    if (c->cfg.shape.nodes > BENCH_MAX_NODES)
        return bench_cli_usage(c, "--%s '%s': more than %d nodes", opt, arg, BENCH_MAX_NODES);
    return 0;
}

static int set_hops(bench_cli *c, const char *opt, const char *arg)
{
    size_t n, pos;
    parse_status st = parse_list(arg, PARSE_RANGE_STEP1, 0, 1000000, c->hops, TOPO_MAX_DIMS, &n,
                                 &pos);
    if (st || strstr(arg, ".."))
        return bad(c, opt, arg, st ? st : PARSE_SYNTAX, "h1,h2,... one per dimension");
    c->have_hops = (int)n;
    c->hops_text = arg;
    return 0;
}

static int set_dst(bench_cli *c, const char *opt, const char *arg)
{
    parse_status st = parse_long(arg, 0, 1000000, &c->dst);
    c->have_dst = 1;
    return st ? bad(c, opt, arg, st, "a node rank") : 0;
}

/* pp, ow: a list of sizes; logp: the ends of its sweep, A..B (or one size). */
static int set_sizes(bench_cli *c, const char *opt, const char *arg)
{
    size_t pos;
    parse_status st;
    c->have_sizes = 1;
    if (c->pattern != &bench_pattern_logp) {
        st = parse_list(arg, PARSE_RANGE_POW2, 0, BENCH_MAX_SIZE_BYTES, c->cfg.sizes,
                        BENCH_MAX_SIZES, &c->cfg.nsizes, &pos);
        return st ? bad(c, opt, arg, st, "1,8,64 or 1..65536 or 64..4096:64 (0..2^30)") : 0;
    }
    const char *dots = strstr(arg, "..");
    char first[32];
    if (dots && (size_t)(dots - arg) < sizeof first) {
        memcpy(first, arg, (size_t)(dots - arg));
        first[dots - arg] = '\0';
        st = parse_long(first, 0, BENCH_MAX_SIZE_BYTES, &c->logp.min_size);
        if (!st)
            st = parse_long(dots + 2, 0, BENCH_MAX_SIZE_BYTES, &c->logp.max_size);
    } else {
        st = dots ? PARSE_SYNTAX : parse_long(arg, 0, BENCH_MAX_SIZE_BYTES, &c->logp.min_size);
        c->logp.max_size = c->logp.min_size;
    }
    if (st)
        return bad(c, opt, arg, st, "A..B or one size in bytes, 0..2^30 (logp adds the sizes"
                                    " between itself)");
    if (c->logp.max_size < c->logp.min_size)
        return bench_cli_usage(c, "--%s '%s': %ld below %ld", opt, arg, c->logp.max_size,
                               c->logp.min_size);
    return 0;
}

/* --min-size, --max-size: one end of logp's --sizes each; checked together
 * by the logp pattern (either may come first). */
static int set_min_size(bench_cli *c, const char *opt, const char *arg)
{
    parse_status st = parse_long(arg, 0, BENCH_MAX_SIZE_BYTES, &c->logp.min_size);
    return st ? bad(c, opt, arg, st, "bytes in 0..2^30") : 0;
}

static int set_max_size(bench_cli *c, const char *opt, const char *arg)
{
    parse_status st = parse_long(arg, 0, BENCH_MAX_SIZE_BYTES, &c->logp.max_size);
    return st ? bad(c, opt, arg, st, "bytes in 0..2^30") : 0;
}

static int set_route(bench_cli *c, const char *opt, const char *arg)
{
    if (strcmp(arg, "software") && strcmp(arg, "network"))
        return bench_cli_usage(c, "--%s '%s': expected software or network", opt, arg);
    c->cfg.route = arg[0] == 'n' ? BENCH_ROUTE_NETWORK : BENCH_ROUTE_SOFTWARE;
    return 0;
}

/* --interleave SHAPE=FILE */
static int set_interleave(bench_cli *c, const char *opt, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char text[64];
    topo_parse_error e;
    (void)opt;
    if (c->nextra == BENCH_MAX_NETS - 1)
        return bench_cli_usage(c, "--interleave '%s': at most %d extra networks", arg,
                               BENCH_MAX_NETS - 1);
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof text)
        return bench_cli_usage(c, "--interleave '%s': expected SHAPE=FILE, e.g. 8=ring8.tsv",
                               arg);
    memcpy(text, arg, (size_t)(eq - arg));
    text[eq - arg] = '\0';
    topo_shape *sh = &c->extra[c->nextra].shape;
    if (topo_shape_parse(text, sh, &e))
        return bench_cli_usage(c, "--interleave '%s': %s at character %zu", arg, e.what,
                               e.pos + 1);
    if (sh->nodes > BENCH_MAX_NODES)
        return bench_cli_usage(c, "--interleave '%s': more than %d nodes", arg, BENCH_MAX_NODES);
    c->extra[c->nextra].text = arg;
    c->extra[c->nextra].path = strcmp(eq + 1, "-") ? eq + 1 : NULL;
    if (!c->extra[c->nextra].path)
        return bench_cli_usage(c, "--interleave '%s': standard output is the main network's;"
                                  " name a file", arg);
    c->nextra++;
    return 0;
}

/* -o FILE; "-" is standard output. */
static int set_output(bench_cli *c, const char *opt, const char *arg)
{
    (void)opt;
    c->out_path = strcmp(arg, "-") ? arg : NULL;
    return 0;
}

static int set_resume(bench_cli *c, const char *opt, const char *arg)
{
    (void)opt;
    c->resume_path = arg;
    return 0;
}
