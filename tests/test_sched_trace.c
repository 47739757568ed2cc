/* Traced equals generated: the schedule `scitrace goal` writes
 * (trace/tracegoal.h) of each collective traced under
 * Open MPI (tests/fixtures/sched/coll-P: tests/coll_app.c under scitrace run,
 * P = 2..16, root 1 mod P, 8 B to 1 MiB) names the algorithm Open MPI 4.1's
 * tuned component picks and writes the messages `scisim --collective OP
 * --algorithm tuned --emit-goal` writes for it, rank by rank; `scitrace
 * matrix` counts that schedule's sends; the algorithm --algorithm names
 * replaces that pick, and so does an MPICH library the trace recorded. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/collgen.h"
#include "sched/flows.h"
#include "tests/runcmd.h"
#include "tests/sched_compare.h"
#include "trace/build_matrix.h"
#include "trace/tracegoal.h"
#include "trace/expand.h"

static const long sizes[] = {8, 4096, 65536, 1048576};

/* What `scitrace goal [--algorithm extra] --phase OP-S DIR` writes, in
 * process (trace/tracegoal.h): the traced library's choices unless extra
 * names others.  Its text. */
static char *traced_goal(const char *dir, const char *op, long size, const char *extra,
                         size_t *len)
{
    char phase[64], why[600] = "", *text = NULL;
    snprintf(phase, sizeof phase, "%s-%ld", op, size);
    trace_dir d;
    trace_error err;
    expand_choice choice = {0};
    cr_assert_eq(trace_dir_load(dir, phase, &d, &err), 0, "%s", err.msg);
    cr_assert(!extra || expand_choice_add(&choice, extra, why, sizeof why) == 0, "%s", why);
    if (!choice.lib)
        choice.lib = expand_library_of(&d);
    FILE *mem = open_memstream(&text, len);
    cr_assert_not_null(mem);
    int rc = trace_goal_write(mem, &d, phase, &choice, why, sizeof why);
    cr_assert_eq(fclose(mem), 0);
    cr_assert_eq(rc, 0, "goal of phase %s of %s: %s", phase, dir, why);
    trace_dir_free(&d);
    return text;
}

static char *generated_goal(int op, const char *alg, int p, int root, long size, size_t *len)
{
    coll_sched s;
    char why[200], *text = NULL;
    cr_assert_eq(coll_generate(&s, op, alg, p, root, size, why, sizeof why), 0, "%s", why);
    FILE *mem = open_memstream(&text, len);
    coll_write_goal(mem, &s);
    fclose(mem);
    coll_sched_free(&s);
    return text;
}

Test(sched_trace, traced_collectives_are_what_scisim_generates, .timeout = 300)
{
    long messages = 0;
    for (int p = 2; p <= 16; p++) {
        char rel[64];
        snprintf(rel, sizeof rel, "sched/coll-%d", p);
        const char *dir = run_fixture(rel);
        for (int op = 0; op < EXPAND_NOPS; op++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                long size = op == COLL_BARRIER ? 0 : sizes[k];
                char what[128], want[64], got[64], got_gen[64];
                size_t tlen, glen;
                snprintf(what, sizeof what, "%s P=%d %ld B", coll_op_names[op], p, sizes[k]);
                char *t = traced_goal(dir, coll_op_names[op], sizes[k], NULL, &tlen);
                char *g = generated_goal(op, "tuned", p, 1 % p, size, &glen);
                coll_algorithm(op, "tuned", p, size, want, sizeof want);
                sched_header_alg(t, got, sizeof got);
                sched_header_alg(g, got_gen, sizeof got_gen);
                cr_assert_str_eq(got, want, "%s: the trace's schedule names %s", what, got);
                cr_assert_str_eq(got_gen, want, "%s", what);
                long n = sched_compare(t, tlen, g, glen, what);
                cr_assert_gt(n, 0, "%s: no message compared", what);
                messages += n;
                free(t), free(g);
            }
    }
    cr_log_info("%ld messages compared", messages);
}

/* --algorithm OP=NAME and NAME: the named family, on every rank. */
Test(sched_trace, algorithm_option_replaces_the_pick)
{
    static const struct { const char *arg, *op; int opk; const char *alg; } c[] = {
        {"allreduce=ring", "allreduce", COLL_ALLREDUCE, "ring"},
        {"binomial", "bcast", COLL_BCAST, "binomial"},
        {"alltoall=bruck", "alltoall", COLL_ALLTOALL, "bruck"},
        {"mpich", "allgather", COLL_ALLGATHER, "mpich"},
    };
    const char *dir = run_fixture("sched/coll-8");
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        size_t tlen, glen;
        char *t = traced_goal(dir, c[i].op, 65536, c[i].arg, &tlen);
        char *g = generated_goal(c[i].opk, c[i].alg, 8, 1, 65536, &glen);
        char want[64], got[64];
        coll_algorithm(c[i].opk, c[i].alg, 8, 65536, want, sizeof want);
        sched_header_alg(t, got, sizeof got);
        cr_assert_str_eq(got, want, "--algorithm %s", c[i].arg);
        cr_assert_gt(sched_compare(t, tlen, g, glen, c[i].arg), 0);
        free(t), free(g);
    }
}

/* A trace whose ranks recorded an MPICH library expands with MPICH's
 * choices: the fixture with its "mpi" lines rewritten, every collective at
 * 64 KiB on 8 ranks, against scisim's --algorithm mpich. */
Test(sched_trace, recorded_mpich_library_expands_as_mpich)
{
    char dir[] = "/tmp/test_sched_trace-mpich-XXXXXX", cmd[2400];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "for f in '%s'/rank-*.trace; do sed 's/^mpi .*/mpi MPICH Version: 4.0.2/' \"$f\" "
             "> '%s'/\"${f##*/}\" || exit 1; done",
             run_fixture("sched/coll-8"), dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    int differs = 0;
    for (int op = 0; op < EXPAND_NOPS; op++) {
        long size = op == COLL_BARRIER ? 0 : 65536;
        size_t tlen, glen;
        char want[64], got[64], tuned[64];
        char *t = traced_goal(dir, coll_op_names[op], 65536, NULL, &tlen);
        char *g = generated_goal(op, "mpich", 8, 1, size, &glen);
        coll_algorithm(op, "mpich", 8, size, want, sizeof want);
        coll_algorithm(op, "tuned", 8, size, tuned, sizeof tuned);
        differs += strcmp(want + 6, tuned + 6) != 0;
        sched_header_alg(t, got, sizeof got);
        cr_assert_str_eq(got, want, "%s", coll_op_names[op]);
        cr_assert(strstr(t, "// collective: traced MPI: MPICH Version: 4.0.2\n"), "%.300s", t);
        cr_assert_gt(sched_compare(t, tlen, g, glen, coll_op_names[op]), 0);
        free(t), free(g);
    }
    cr_assert_geq(differs, 3, "MPICH and Open MPI pick alike here: the check sees nothing");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The matrix `scitrace matrix --phase OP-S` writes of a traced call
 * (trace/build_matrix.h, in process): its rows are the sends of scisim's
 * schedule for it, summed by (sender, receiver, size), and its header
 * names the algorithm. */
Test(sched_trace, traced_matrix_is_the_schedules_sends)
{
    for (int p = 2; p <= 16; p += 7) {
        char rel[64];
        snprintf(rel, sizeof rel, "sched/coll-%d", p);
        const char *dir = run_fixture(rel);
        for (int op = 1; op < EXPAND_NOPS; op++) {
            char phase[64], out[] = "/tmp/test_sched_trace-mx-XXXXXX", want[64], line[512];
            int fd = mkstemp(out);
            cr_assert_geq(fd, 0);
            close(fd);
            snprintf(phase, sizeof phase, "%s-65536", coll_op_names[op]);
            trace_dir d;
            trace_error err;
            trace_matrix mx;
            cr_assert_eq(trace_dir_load(dir, phase, &d, &err), 0, "%s", err.msg);
            expand_choice choice = {.lib = expand_library_of(&d)};
            cr_assert_eq(trace_matrix_build_with(&d, &choice, 0, &mx, &err), 0, "%s", err.msg);
            cr_assert_eq(trace_matrix_write(&mx, out, d.ranks[0].command, d.ranks[0].host, d.date,
                                            &d, &choice, phase), 0);
            trace_matrix_free(&mx);
            trace_dir_free(&d);
            coll_sched s;
            char why[200];
            cr_assert_eq(coll_generate(&s, op, "tuned", p, 1 % p, 65536, why, sizeof why), 0);
            sched_flow f[4096];
            size_t n = 0;
            for (long k = 0; k < s.count; k++)
                if (s.msgs[k].send) {
                    cr_assert_lt(n, 4096);
                    f[n++] = (sched_flow){s.msgs[k].rank, s.msgs[k].peer,
                                          (uint64_t)s.msgs[k].bytes, 1};
                }
            sched_flows_merge(f, &n);
            snprintf(want, sizeof want, ": %s (", s.alg);
            FILE *fp = fopen(out, "r");
            cr_assert_not_null(fp);
            size_t row = 0;
            int named = 0;
            while (fgets(line, sizeof line, fp)) {
                long a, b;
                unsigned long long size, count;
                if (!strncmp(line, "# collective: ", 14) && strstr(line, want))
                    named = 1;
                if (line[0] == '#')
                    continue;
                cr_assert_eq(sscanf(line, "%ld\t%ld\t%llu\t%llu", &a, &b, &size, &count), 4, "%s",
                             line);
                cr_assert_lt(row, n, "%s P=%d: more rows than the schedule's", phase, p);
                cr_assert(a == f[row].src && b == f[row].dst && size == f[row].size_bytes &&
                              count == f[row].messages,
                          "%s P=%d row %zu: %ld %ld %llu %llu, schedule %d %d %llu %llu", phase,
                          p, row, a, b, size, count, f[row].src, f[row].dst,
                          (unsigned long long)f[row].size_bytes,
                          (unsigned long long)f[row].messages);
                row++;
            }
            fclose(fp);
            unlink(out);
            cr_assert_eq(row, n, "%s P=%d: %zu rows, the schedule %zu", phase, p, row, n);
            cr_assert(named, "%s P=%d: no '# collective:' line naming %s", phase, p, s.alg);
            coll_sched_free(&s);
        }
    }
}
