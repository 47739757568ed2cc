/* logp_run: the LogP pattern's entry in the table of patterns -- its help,
 * checks, header and output; bench/logp.c measures. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "util/signals.h"

void bench_logp_help(const bench_cli *c)
{
    printf("Usage: %s --pattern logp [OPTIONS]\n"
           "LogP parameters between two %s (Kielmann, Bal, Verstoep 2000,\n"
           "LogP/MPI; docs/model.md, 'LogP parameters'), per message size m:\n"
           "  os(m)  send overhead: the time a send call takes (round trips of m bytes)\n"
           "  or(m)  receive overhead: the time a receive takes when the message has\n"
           "         already arrived (round trips with a waiting time delta > RTT\n"
           "         before the receive)\n"
           "  g(m)   gap: time per message in streams of m-byte messages ended by an\n"
           "         acknowledgement, the round trip subtracted; the stream length from\n"
           "         g(0)'s saturation test (doubled until the throughput changes < 1%%)\n"
           "  L      latency, from the smallest size's round trip RTT = 2 (L + os + or)\n"
           "Each to a confidence interval; sizes A of --sizes A..B, then 2^k up to B;\n"
           "then sizes halfway between two measured ones wherever os, or or g departs\n"
           "by more than --max-diff from the line through the two sizes below\n"
           "(nonlinearity search; intervals under max(32 B, eps m) are not split).\n"
           "The sizes take turns, a pair of round trips and a stream each per round,\n"
           "so that a change of the machine's speed falls on all of them alike.\n"
           "\n"
           "Output: a scitorus-bench TSV (docs/formats.md); header lines with host,\n"
           "backend, variant, timer, confidence, g0_ns, stream_messages, L_ns, ow_ns\n"
           "(the largest sizes' one-way streams: SIZE:NS:CI_NS ...) and cpu_share (this\n"
           "process's CPU time over the run's: about 1 when it kept its core); one row\n"
           "per size:\n"
           "size os_ns os_ci_ns or_ns or_ci_ns g_ns g_ci_ns rtt_ns round_trips flag\n"
           "(ok, or os>g / or>g: g should cover both overheads, and wide: an interval\n"
           "still wider than eps at the cap).  Fit it with calibrate --logp FILE.\n"
           "Exit status: 0 success, 1 runtime failure, 2 usage error, 130 interrupted\n"
           "(SIGINT, SIGTERM, SIGHUP: the finished sizes kept).\n"
           "Example: %s\n", c->prog, c->bc->logp_between, c->bc->logp_example);
}

static int logp_check(bench_cli *c)
{
    if (c->logp.max_size < c->logp.min_size)
        return bench_cli_usage(c, "--max-size %ld: below --min-size %ld", c->logp.max_size,
                               c->logp.min_size);
    c->setup.cfg.procs = 2;
    c->setup.cfg.window = 0;   /* streams: many messages in flight */
    c->setup.cfg.max_payload_bytes = (size_t)(c->logp.extend_to > c->logp.max_size
                                                  ? c->logp.extend_to
                                                  : c->logp.max_size > 0 ? c->logp.max_size : 1);
    return 0;
}

static void logp_header(const bench_cli *c, bench_data *h)
{
    const logp_config *l = &c->logp;
    bench_cli_header_start(c, h);
    bench_data_set_header(h, "procs", "2");
    bench_data_set_header(h, "pattern", "logp");
    bench_data_set_header(h, "confidence", "%g", l->conf);
    bench_data_set_header(h, "eps", "%g", l->eps);
    bench_data_set_header(h, "max_diff", "%g", l->max_diff);
    bench_data_set_header(h, "max_rtt", "%ld", l->max_rtt);
    bench_data_set_header(h, "inject", "os_ns=%g or_ns=%g gap_ns=%g", l->inject_os_ns,
                          l->inject_or_ns, l->inject_gap_ns);
    if (l->os_fence)
        bench_data_set_header(h, "os_fence", "os_fence_ns: the send call + mfence (its"
                                             " stores drained); os_ns the call alone");
}

static int measure(bench_cli *c, int *argc, char ***argv)
{
    bench_comm *comm;
    bench_data header;
    atomic_file af = {NULL, NULL, NULL, 0, NULL};
    FILE *out = stdout;
    int rc;
    bench_signals_install_stop();
    logp_header(c, &header);
    if ((rc = c->be->init(&comm, argc, argv, &c->setup.cfg))) {
        fprintf(stderr, "%s: cannot start: %s\n", c->prog, bench_cli_error_text(rc));
        return EXIT_FAILURE;
    }
    int root = c->be->rank(comm) == 0;
    if (c->be->size(comm) != 2) {
        rc = bench_cli_usage(c, "--pattern logp: needs exactly 2 processes, not %d (mpirun"
                                " -np 2)", c->be->size(comm));
        c->be->finalize(comm, 0);
        return rc;
    }
    if (root && bench_cli_open(c, "-o", c->out_path, &af, &out)) {
        c->be->finalize(comm, 1);
        return EXIT_FAILURE;
    }
    rc = bench_logp_run(c->be, comm, &c->logp, &header, out);
    if (root && rc && af.fp && ftell(af.fp) == 0) {   /* stopped before it wrote: see grid.c */
        logp_data_write_header(out, &header);
        for (long i = 0; c->logp.done && i < c->logp.done->count; i++)
            logp_data_write_row(out, &c->logp.done->rows[i]);
    }
    int status = bench_cli_status(rc);
    if (root && bench_cli_commit(c, &af, out, c->out_path, rc, "sizes")) {
        status = EXIT_FAILURE;
        rc = rc ? rc : BENCH_ERR_SYSTEM;
    }
    int frc = c->be->finalize(comm, rc ? status : 0);
    if (!rc && frc) {
        fprintf(stderr, "%s: %s\n", c->prog, bench_cli_error_text(frc));
        status = EXIT_FAILURE;
    }
    return status;
}

static int logp_run(bench_cli *c, int *argc, char ***argv)
{
    int rc = bench_cli_prepare(c);
    if (rc)
        return rc;
    if (c->resume_path && !c->logp_done.incomplete) {
        fprintf(stderr, "%s: %s is already complete; nothing to resume\n", c->prog,
                c->resume_path);
        return 0;
    }
    return measure(c, argc, argv);
}

const bench_pattern_desc bench_pattern_logp = {"logp", BENCH_IN_LOGP, "0..65536", logp_check,
                                               logp_run, NULL};
