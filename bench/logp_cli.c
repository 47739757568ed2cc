/* logp_cli: options, header, atomic output and resume of --pattern logp. */
#include "bench/logp_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "bench/logp.h"
#include "util/atomicfile.h"
#include "util/parse.h"

#include "util/exit.h"
#define DEFAULT_MAX_SIZE 65536      /* the sweep: 1 B..64 KiB */
#define MAX_SIZE_BYTES (1L << 30)
#define DEFAULT_TIMEOUT_S 10.0

typedef struct lcli {
    const bench_backend *be;
    const char *prog;
    int is_shm;
    logp_config cfg;
    bench_backend_config bcfg;
    int cpus[BENCH_CLI_MAX_CPUS];
    const char *out_path, *resume_path, *cpus_text;
    const char *send_name, *recv_name;
    char command[2048];
    logp_data done;
} lcli;

static const char usage_fmt[] =
"Usage: %s --pattern logp [OPTIONS]\n"
"LogP parameters between two %s (Kielmann, Bal, Verstoep 2000,\n"
"LogP/MPI; SPEC.md §11), per message size m:\n"
"  os(m)  send overhead: the time a send call takes (round trips of m bytes)\n"
"  or(m)  receive overhead: the time a receive takes when the message has\n"
"         already arrived (round trips with a waiting time delta > RTT\n"
"         before the receive)\n"
"  g(m)   gap: time per message in streams of m-byte messages ended by an\n"
"         acknowledgement, the round trip subtracted; the stream length from\n"
"         g(0)'s saturation test (doubled until the throughput changes < 1%%)\n"
"  L      latency, from the smallest size's round trip RTT = 2 (L + os + or)\n"
"Each to a confidence interval; sizes --min-size, then 2^k up to --max-size;\n"
"then sizes halfway between two measured ones wherever os, or or g departs\n"
"by more than --max-diff from the line through the two sizes below\n"
"(nonlinearity search; intervals under max(32 B, eps m) are not split).\n"
"The sizes take turns, a pair of round trips and a stream each per round,\n"
"so that a change of the machine's speed falls on all of them alike.\n"
"\n"
"Options:\n"
"  --min-size B        smallest size (default 0)\n"
"  --max-size B        largest size (default 65536)\n"
"  --conf C            confidence level, 0 < C < 1 (default 0.90)\n"
"  --eps E             target: interval half-width under E x value, i.e. a\n"
"                      relative width under 2 E (default 0.03)\n"
"  --max-diff D        nonlinearity threshold, a fraction (default 0.03)\n"
"  --max-rtt N         cap on round trips per quantity and size, times 4 up to\n"
"                      1 KiB and 2 up to 64 KiB (default %d; LogP/MPI: 18)\n"
"  --inject-os NS      busy-wait NS in every send (ground truth for tests)\n"
"  --inject-or NS      busy-wait NS after every receive\n"
"  --inject-gap NS     start no send sooner than NS after the previous one\n"
"  --os-fence          also time the send call followed by a store fence\n"
"                      (mfence): the call plus the drain of its stores to the\n"
"                      other core, in round trips of its own in the same turns\n"
"                      (columns os_fence_ns os_fence_ci_ns rtt_fence_ns; os is\n"
"                      still the call)\n"
"%s"
"  -o FILE             write there (atomically); default standard output\n"
"  --resume FILE       continue an interrupted run (file ends '# incomplete')\n"
"  --timeout S         give up after S seconds without progress (default 10)\n"
"  -q, --quiet         no progress lines on stderr\n"
"  -h, --help          this text\n"
"\n"
"Output: a scitorus-bench TSV; header lines with host, backend, variant,\n"
"timer (clock overhead), confidence, g0_ns, stream_messages, L_ns and ow_ns\n"
"(the largest sizes' one-way streams as --pattern ow times them, in the same\n"
"rounds: SIZE:NS:CI_NS ...); one row per size, sorted: size os_ns os_ci_ns\n"
"or_ns or_ci_ns g_ns g_ci_ns rtt_ns round_trips flag.  rtt_ns is the m-byte\n"
"round trip (ping-pong), round_trips the os and or round trips taken; flag\n"
"is ok, or os>g / or>g (LogP/MPI's consistency checks: g should cover both\n"
"overheads) and wide (an interval still wider than eps at the cap),\n"
"comma-separated.  Fit it with calibrate\n"
"--logp FILE.  Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
"\n"
"Example:\n"
"  %s\n";

static const char shm_opts[] =
"  --cpus A,B          the two CPUs to pin to (default: the first two allowed)\n";
static const char mpi_opts[] =
"  --mpi-send M        send (MPI_Send, default) | isend (os times MPI_Isend\n"
"                      alone, as LogP/MPI; its MPI_Wait comes untimed with\n"
"                      the next call) | ssend (MPI_Ssend)\n"
"  --mpi-recv M        recv (default: a blocking receive, MPI_Irecv + MPI_Test\n"
"                      until done so Ctrl-C is seen) | irecv (MPI_Irecv +\n"
"                      MPI_Wait)\n";

static int usage_error(const lcli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = bench_cli_usage(c->is_shm, c->prog, NULL, "--pattern logp --help", fmt, ap);
    va_end(ap);
    return rc;
}

static int bad(const lcli *c, const char *opt, const char *arg, parse_status st,
               const char *want)
{
    return usage_error(c, "%s '%s': %s, expected %s", opt, arg, parse_status_text(st), want);
}

enum { O_PATTERN = 256, O_MIN, O_MAX, O_CONF, O_EPS, O_DIFF, O_MAXRTT, O_INJOS, O_INJOR,
       O_INJGAP, O_CPUS, O_SEND, O_RECV, O_RESUME, O_TIMEOUT, O_FENCE };

static const struct option long_options[] = {
    {"pattern", 1, NULL, O_PATTERN}, {"min-size", 1, NULL, O_MIN}, {"max-size", 1, NULL, O_MAX},
    {"conf", 1, NULL, O_CONF}, {"eps", 1, NULL, O_EPS}, {"max-diff", 1, NULL, O_DIFF},
    {"max-rtt", 1, NULL, O_MAXRTT}, {"inject-os", 1, NULL, O_INJOS},
    {"inject-or", 1, NULL, O_INJOR}, {"inject-gap", 1, NULL, O_INJGAP},
    {"cpus", 1, NULL, O_CPUS}, {"mpi-send", 1, NULL, O_SEND}, {"mpi-recv", 1, NULL, O_RECV},
    {"resume", 1, NULL, O_RESUME}, {"timeout", 1, NULL, O_TIMEOUT},
    {"os-fence", 0, NULL, O_FENCE},
    {"quiet", 0, NULL, 'q'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0},
};

/* An open interval (0, 1) for --conf: parse_double takes closed ranges. */
static int parse_fraction(const lcli *c, const char *opt, const char *arg, double *out)
{
    parse_status st = parse_double(arg, 0, 1, out);
    if (!st && (*out <= 0 || *out >= 1))
        st = PARSE_RANGE;
    return st ? bad(c, opt, arg, st, "a fraction strictly between 0 and 1") : 0;
}

static int parse_ns(const lcli *c, const char *opt, const char *arg, double *out)
{
    parse_status st = parse_double(arg, 0, 1e9, out);
    return st ? bad(c, opt, arg, st, "ns in 0..1e9") : 0;
}

static int parse_mode(lcli *c, int opt, const char *arg)
{
    /* send_mode 0, 1, 3: isend times MPI_Isend alone (LogP/MPI), its
     * MPI_Wait comes with the next call, untimed in os */
    static const char *const sends[] = {"send", "ssend", "isend"};
    static const int modes[] = {0, 1, 3};
    if (opt == O_RECV) {
        if (strcmp(arg, "recv") && strcmp(arg, "irecv"))
            return usage_error(c, "--mpi-recv '%s': expected recv or irecv", arg);
        c->bcfg.recv_mode = arg[0] == 'i';
        c->recv_name = arg;
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (strcmp(arg, sends[i]) == 0) {
            c->bcfg.send_mode = modes[i];
            c->send_name = arg;
            return 0;
        }
    return usage_error(c, "--mpi-send '%s': expected send, isend or ssend", arg);
}

static int parse_option(lcli *c, int opt, const char *arg)
{
    parse_status st;
    switch (opt) {
    case O_PATTERN:
        return strcmp(arg, "logp") ? usage_error(c, "--pattern '%s': one pattern per run", arg)
                                   : 0;
    case O_MIN:
    case O_MAX:
        st = parse_long(arg, 0, MAX_SIZE_BYTES, opt == O_MIN ? &c->cfg.min_size
                                                             : &c->cfg.max_size);
        return st ? bad(c, opt == O_MIN ? "--min-size" : "--max-size", arg, st,
                        "bytes in 0..2^30") : 0;
    case O_CONF: return parse_fraction(c, "--conf", arg, &c->cfg.conf);
    case O_EPS: return parse_fraction(c, "--eps", arg, &c->cfg.eps);
    case O_DIFF: return parse_fraction(c, "--max-diff", arg, &c->cfg.max_diff);
    case O_MAXRTT:
        st = parse_long(arg, 2, 10000000, &c->cfg.max_rtt);
        return st ? bad(c, "--max-rtt", arg, st, "round trips in 2..1e7") : 0;
    case O_INJOS: return parse_ns(c, "--inject-os", arg, &c->cfg.inject_os_ns);
    case O_INJOR: return parse_ns(c, "--inject-or", arg, &c->cfg.inject_or_ns);
    case O_INJGAP: return parse_ns(c, "--inject-gap", arg, &c->cfg.inject_gap_ns);
    case O_CPUS: c->cpus_text = arg; return 0;
    case O_SEND:
    case O_RECV: return parse_mode(c, opt, arg);
    case O_RESUME: c->resume_path = arg; return 0;
    case O_TIMEOUT:
        st = parse_double(arg, 0.1, 86400, &c->bcfg.timeout_s);
        return st ? bad(c, "--timeout", arg, st, "seconds in 0.1..86400") : 0;
    case O_FENCE: c->cfg.os_fence = 1; return 0;
    case 'o': c->out_path = arg; return 0;
    case 'q': c->cfg.quiet = 1; return 0;
    default: return EXIT_USAGE;
    }
}

static void defaults(lcli *c, const bench_backend *be)
{
    memset(c, 0, sizeof *c);
    c->be = be;
    c->is_shm = strcmp(be->name, "shm") == 0;
    c->prog = c->is_shm ? "scibench" : "mpibench";
    c->cfg = (logp_config){.min_size = 0, .max_size = DEFAULT_MAX_SIZE,
                           .conf = LOGP_DEFAULT_CONF, .eps = LOGP_DEFAULT_EPS,
                           .max_diff = LOGP_DEFAULT_MAX_DIFF, .max_rtt = LOGP_DEFAULT_MAX_RTT,
                           .prog = c->prog};
    c->bcfg.procs = 2;
    c->bcfg.timeout_s = DEFAULT_TIMEOUT_S;
    c->bcfg.cpus = c->cpus;
    c->bcfg.window = 0;   /* streams: many messages in flight */
}

static int backend_only(const lcli *c, int opt)
{
    return c->is_shm ? opt == O_SEND || opt == O_RECV : opt == O_CPUS;
}

static void print_help(const lcli *c)
{
    printf(usage_fmt, c->prog, c->is_shm ? "processes over shared memory" : "MPI ranks",
           LOGP_DEFAULT_MAX_RTT, c->is_shm ? shm_opts : mpi_opts,
           c->is_shm ? "scibench --pattern logp -o shm-logp.tsv"
                     : "mpirun -np 2 mpibench --pattern logp --mpi-send isend --mpi-recv irecv"
                       " -o mpi-logp.tsv");
}

static int parse_args(lcli *c, int argc, char **argv, int from_resume)
{
    int opt, rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        /* the option's own word, not its separate value */
        const char *word = optarg && optind >= 2 && argv[optind - 1] == optarg
                               ? argv[optind - 2] : argv[optind - 1];
        if (opt == 'h') {
            print_help(c);
            exit(EXIT_SUCCESS);
        }
        if (opt == '?')
            return usage_error(c, "'%s': not an option of --pattern logp", word);
        if (opt == ':')
            return usage_error(c, "'%s': needs a value", word);
        if (backend_only(c, opt))
            return usage_error(c, "%s: not an option of %s", word, c->prog);
        if (from_resume && opt == O_RESUME)
            return usage_error(c, "--resume: the file's command has --resume itself");
        if ((rc = parse_option(c, opt, optarg)))
            return rc;
    }
    if (optind < argc)
        return usage_error(c, "'%s': unexpected argument", argv[optind]);
    if (c->cfg.max_size < c->cfg.min_size)
        return usage_error(c, "--max-size %ld: below --min-size %ld", c->cfg.max_size,
                           c->cfg.min_size);
    return 0;
}

/* Does the file's header (before its first row) say pattern logp? */
static int file_is_logp(const char *path)
{
    FILE *fp = file_open_input(path);
    char line[600];
    int yes = 0;
    while (fp && !yes && fgets(line, sizeof line, fp) && line[0] == '#')
        yes = strcmp(line, "# pattern: logp\n") == 0;
    if (fp)
        fclose(fp);
    return yes;
}

int bench_logp_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pattern=logp") == 0 ||
            (strcmp(argv[i], "--pattern") == 0 && i + 1 < argc && !strcmp(argv[i + 1], "logp")))
            return 1;
        if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc && file_is_logp(argv[i + 1]))
            return 1;
        if (strncmp(argv[i], "--resume=", 9) == 0 && file_is_logp(argv[i] + 9))
            return 1;
    }
    return 0;
}

/* --resume FILE: its recorded command line, then its finished sizes. */
static int load_resume(lcli *c)
{
    bench_read_error err;
    const char *path = c->resume_path;
    int rc = logp_data_read(path, &c->done, &err);
    if (rc) {
        if (err.line > 0)
            return file_error_report(EXIT_FAILURE, c->prog, path, &err);
        else
            fprintf(stderr, "%s: --resume '%s': %s\n", c->prog, path, err.msg);
        return EXIT_FAILURE;
    }
    const char *cmd = bench_data_header(&c->done.hdr, "command");
    if (!cmd) {
        fprintf(stderr, "%s: %s: no '# command:' header to resume from\n", c->prog, path);
        return EXIT_FAILURE;
    }
    char copy[2048], *args[128];
    int n = bench_cli_split_command(cmd, copy, sizeof copy, args, 128);
    logp_data keep = c->done;
    const bench_backend *be = c->be;
    defaults(c, be);
    c->done = keep;
    c->resume_path = path;
    if ((rc = parse_args(c, n, args, 1)))
        return rc;
    c->out_path = path;
    c->cfg.done = &c->done;
    snprintf(c->command, sizeof c->command, "%s", cmd);
    return 0;
}

/* shm: --cpus, else the first two CPUs this process may run on. */
static int choose_cpus(lcli *c)
{
    char err[512];
    if (bench_cli_cpus(c->cpus_text, 2, NULL, c->cpus, &c->bcfg.ncpus, err, sizeof err))
        return usage_error(c, "%s", err);
    return 0;
}

static void fill_header(const lcli *c, bench_data *h)
{
    bench_cli_header_start(h, c->be, c->command);
    bench_data_set_header(h, "timer", "%s", c->be->timer_name);   /* completed by the run */
    if (c->is_shm) {
        if (c->bcfg.ncpus == 2)
            bench_data_set_header(h, "cpus", "%d,%d", c->cpus[0], c->cpus[1]);
        bench_data_set_header(h, "variant", "store/poll");
    } else {
        bench_data_set_header(h, "variant", "%s/%s", c->send_name ? c->send_name : "send",
                              c->recv_name ? c->recv_name : "recv");
    }
    bench_data_set_header(h, "procs", "2");
    bench_data_set_header(h, "pattern", "logp");
    bench_data_set_header(h, "confidence", "%g", c->cfg.conf);
    bench_data_set_header(h, "eps", "%g", c->cfg.eps);
    bench_data_set_header(h, "max_diff", "%g", c->cfg.max_diff);
    bench_data_set_header(h, "max_rtt", "%ld", c->cfg.max_rtt);
    bench_data_set_header(h, "inject", "os_ns=%g or_ns=%g gap_ns=%g", c->cfg.inject_os_ns,
                          c->cfg.inject_or_ns, c->cfg.inject_gap_ns);
    if (c->cfg.os_fence)
        bench_data_set_header(h, "os_fence", "os_fence_ns: the send call + mfence (its"
                                             " stores drained); os_ns the call alone");
}

static int measure(lcli *c, int *argc, char ***argv)
{
    bench_comm *comm;
    bench_data header;
    atomic_file af = {NULL, NULL, NULL, 0};
    FILE *out = stdout;
    int rc;
    c->bcfg.max_payload_bytes = (size_t)(c->cfg.max_size > 0 ? c->cfg.max_size : 1);
    fill_header(c, &header);
    if ((rc = c->be->init(&comm, argc, argv, &c->bcfg))) {
        fprintf(stderr, "%s: cannot start: %s\n", c->prog, bench_cli_error_text(rc));
        return EXIT_FAILURE;
    }
    int root = c->be->rank(comm) == 0;
    if (c->be->size(comm) != 2) {
        rc = usage_error(c, "--pattern logp: needs exactly 2 processes, not %d (mpirun -np 2)",
                         c->be->size(comm));
        c->be->finalize(comm, 0);
        return rc;
    }
    if (root && c->out_path && atomic_file_open(&af, c->out_path)) {
        fprintf(stderr, "%s: -o '%s': %s\n", c->prog, c->out_path, strerror(errno));
        c->be->finalize(comm, 1);
        return EXIT_FAILURE;
    }
    if (af.fp)
        out = af.fp;
    rc = bench_logp_run(c->be, comm, &c->cfg, &header, out);
    if (root && bench_cli_commit(c->prog, c->resume_path, &af, out, c->out_path, rc, "sizes") &&
        !rc)
        rc = BENCH_ERR_SYSTEM;
    int frc = c->be->finalize(comm, rc != 0);
    if (!rc && frc)
        fprintf(stderr, "%s: %s\n", c->prog, bench_cli_error_text(frc));
    return rc || frc ? EXIT_FAILURE : 0;
}

int bench_logp_main(int argc, char **argv, const bench_backend *be)
{
    lcli c;
    int rc;
    defaults(&c, be);
    bench_cli_record_command(c.command, sizeof c.command, c.prog, argc, argv);
    if ((rc = parse_args(&c, argc, argv, 0)) == 0 && c.resume_path)
        rc = load_resume(&c);
    if (!rc && c.is_shm)
        rc = choose_cpus(&c);
    if (!rc && c.resume_path && !c.done.incomplete) {
        fprintf(stderr, "%s: %s is already complete; nothing to resume\n", c.prog,
                c.resume_path);
    } else if (!rc) {
        rc = measure(&c, &argc, &argv);
    }
    logp_data_free(&c.done);
    return rc;
}
