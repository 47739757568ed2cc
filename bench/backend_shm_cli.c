/* backend_shm_cli: scibench's side of the command line -- the processes it
 * forks (--procs), the CPUs it pins them to (--cpus) and the checks that
 * keep two of them off one CPU. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bench/backend_cli.h"
#include "benchdata/benchdata.h"
#include "util/parse.h"

enum { OPT_PROCS, OPT_CPUS };

#define STR(x) #x
#define XSTR(x) STR(x)

static const bench_backend_option shm_options[] = {
    {"procs", BENCH_IN_GRID, "P", "processes (default 2, at most " XSTR(BENCH_MAX_PROCS) "), each"
     " pinned\nto a CPU of its own", "1"},
    {"cpus", BENCH_IN_GRID | BENCH_IN_LOGP, "LIST", "CPUs to pin to, one per process, e.g. 2,3"
     " (default: the\nfirst P this process may run on)", "x"},
    {NULL, 0, NULL, NULL, NULL},
};

static int shm_parse(bench_backend_setup *s, int index, const char *arg, char *err, size_t size)
{
    long v;
    parse_status st;
    if (index == OPT_PROCS && (st = parse_long(arg, 2, BENCH_MAX_PROCS, &v))) {
        snprintf(err, size, "--procs '%s': %s, expected 2..%d", arg, parse_status_text(st),
                 BENCH_MAX_PROCS);
        return 2;
    }
    if (index == OPT_PROCS)
        s->cfg.procs = (int)v;
    return 0;
}

/* "0-1,3": the CPUs of set, for messages. */
static void format_set(const cpu_set_t *set, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < CPU_SETSIZE && len + 16 < size; i++) {
        if (!CPU_ISSET(i, set) || (i > 0 && CPU_ISSET(i - 1, set)))
            continue;
        int j = i;
        while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
            j++;
        len += (size_t)snprintf(buf + len, size - len, j > i ? "%s%d-%d" : "%s%d",
                                len ? "," : "", i, j);
    }
}

/* The CPUs: --cpus, else the first P this process may run on, one each or refused: two spinning
 * on one CPU pass a message per scheduler tick, not per transfer. */
static int shm_prepare(bench_backend_setup *s, char *err, size_t size)
{
    const char *text = s->value[OPT_CPUS];
    long list[BENCH_MAX_PROCS];
    size_t n = 0, pos;
    int procs = s->logp ? 2 : s->cfg.procs;
    cpu_set_t allowed;
    char set_text[256];
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(err, size, "cannot read the CPUs this process may run on: %s", strerror(errno));
        return 1;
    }
    format_set(&allowed, set_text, sizeof set_text);
    if (text) {
        parse_status st = parse_list(text, PARSE_RANGE_STEP1, 0, CPU_SETSIZE - 1, list,
                                     BENCH_MAX_PROCS, &n, &pos);
        if (st) {
            snprintf(err, size, "--cpus '%s': %s, expected CPU numbers like 0,1 or 2..3", text,
                     parse_status_text(st));
            return 2;
        }
        if (n != (size_t)procs) {
            if (s->logp)
                snprintf(err, size, "--cpus '%s': %zu CPUs for the 2 processes of --pattern logp"
                                    " (one each)", text, n);
            else
                snprintf(err, size, "--cpus '%s' and --procs %d: %zu CPUs for %d processes (one"
                                    " each)", text, procs, n, procs);
            return 2;
        }
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < i; j++)
                if (list[i] == list[j]) {
                    snprintf(err, size, "--cpus '%s': CPU %ld twice (each process needs a CPU"
                                        " of its own)", text, list[i]);
                    return 2;
                }
            if (!CPU_ISSET((int)list[i], &allowed)) {
                snprintf(err, size, "--cpus '%s': this process may not run on CPU %ld (it may"
                                    " on %s)", text, list[i], set_text);
                return 2;
            }
        }
    } else {
        for (int i = 0; i < CPU_SETSIZE && n < BENCH_MAX_PROCS; i++)
            if (CPU_ISSET(i, &allowed))
                list[n++] = i;
        if (n < (size_t)procs) {
            char opt[32] = "";
            if (s->given[OPT_PROCS])
                snprintf(opt, sizeof opt, "--procs %d: ", procs);
            snprintf(err, size, "%s%d processes but this process may run on %zu CPU%s (%s):"
                                " each needs one of its own", opt, procs, n, n == 1 ? "" : "s",
                     set_text);
            return 2;
        }
        n = (size_t)procs;
    }
    for (size_t i = 0; i < n; i++)
        s->cpus[i] = (int)list[i];
    s->cfg.cpus = s->cpus;
    s->cfg.ncpus = (int)n;
    return 0;
}

static void shm_header(const bench_backend_setup *s, bench_data *h)
{
    char cpus[256] = "";
    size_t len = 0;
    for (int i = 0; i < s->cfg.ncpus; i++)
        len += (size_t)snprintf(cpus + len, sizeof cpus - len, "%s%d", i ? "," : "", s->cpus[i]);
    bench_data_set_header(h, "cpus", "%s", s->cfg.ncpus ? cpus : "unpinned");
    if (s->logp)
        bench_data_set_header(h, "variant", "store/poll");
}

static int shm_speaks(void) { return 1; }   /* one process parses */

const bench_backend_cli bench_shm_cli = {
    .prog = "scibench",
    .caps = BENCH_CAP_SPAWNS,
    .intro = "Shared-memory latency benchmark between processes on one host, the analogue\n"
             "of the thesis's SCI benchmark: remote writes into the receiver's inbox, local\n"
             "polling.  Virtual node i runs on process i mod P (on a torus: the sum of\n"
             "its coordinates mod P, so that every hop of a 4x4 torus crosses processes).\n",
    .examples = "  scibench --sizes 1..4096 -o ring2.tsv\n"
                "  scibench --ring 8 --sizes 8,64 --inject-forward 2000\n"
                "  scibench --torus 3x3 --all-dst --sizes 64\n"
                "  scibench --floor --sizes 8,4096\n"
                "  scibench --ring 2 -o r2.tsv --interleave 8=r8.tsv --interleave 6=r6.tsv\n"
                "  scibench --pattern logp --sizes 1..65536 -o shm-logp.tsv\n",
    .logp_example = "scibench --pattern logp -o shm-logp.tsv",
    .logp_between = "processes over shared memory",
    .batch_us = 0,
    .options = shm_options,
    .parse = shm_parse,
    .prepare = shm_prepare,
    .header = shm_header,
    .speaks = shm_speaks,
};
