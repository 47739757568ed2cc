/* scimodel's limits: every mode at the largest --nodes it takes (1e15)
 * answers in bounded time, and 1e18 is refused with the range (tornado and complement
 * on a 1e15-node ring used to loop over the ring (706 s for --dims 1..16),
 * and the binomial broadcast's crossover walked a 4.3e7-node torus per step);
 * memory that cannot be had and a link bandwidth beyond any link are named. */
#include <criterion/criterion.h>
#include <sys/resource.h>

#include "tests/runcmd.h"

#define SCIMODEL run_prog("scimodel", 1)

/* CPU seconds the children used so far. */
static double child_cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

/* Runs scimodel with up to 12 arguments; returns its CPU seconds. */
static double timed(int want_status, const char *const *args)
{
    double before = child_cpu();
    run_result r = run_cmd(SCIMODEL, 60, args[0], args[1], args[2], args[3], args[4], args[5],
                           args[6], args[7], args[8], args[9], args[10], args[11], NULL);
    double cpu = child_cpu() - before;
    cr_assert_eq(r.status, want_status, "%s %s %s %s %s: exit %d: %s", args[0], args[1],
                 args[2], args[3] ? args[3] : "", args[4] ? args[4] : "", r.status, r.err);
    run_free(&r);
    return cpu;
}

Test(scimodel_limits, every_mode_at_1e15_nodes_in_under_a_second, .timeout = 300)
{
    static const char *const cases[][12] = {
        {"--nodes", "1e15", "--dims", "1..16", "--pattern", "tornado"},
        {"--nodes", "1e15", "--dims", "1..16", "--pattern", "complement", "--links", "bi"},
        {"--nodes", "1e10", "--dims", "1", "--pattern", "tornado"},
        {"--nodes", "1e15", "--dims", "1..16", "--pattern", "tornado", "--fill", "interpolate"},
        {"--shape", "1000000000000000", "--pattern", "complement", "--links", "bi"},
        {"--shape", "1000000000000000", "--pattern", "tornado", "--format", "tsv"},
        {"--sweep", "--nodes", "1e15", "--sweep-points", "200", "--pattern", "tornado", "--fill",
         "interpolate", "--dims", "1..16"},
        {"--sweep", "--nodes", "1e15", "--sweep-points", "200", "--pattern", "complement",
         "--dims", "1..16", "--links", "bi"},
        {"--crossover", "--pattern", "tornado", "--fill", "interpolate", "--dims", "1..16"},
        {"--crossover", "--pattern", "complement", "--dims", "1..16", "--links", "bi"},
        {"--bcast", "binomial", "--nodes", "1e15", "--dims", "1..16"},
        {"--bcast", "multicast", "--nodes", "1e15", "--dims", "1..16"},
        {"--shape", "1000000000000000", "--hops", "5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double cpu = timed(0, cases[i]);
        cr_log_info("scimodel %s %s %s %s ...: %.3f s CPU", cases[i][0], cases[i][1],
                    cases[i][2], cases[i][3], cpu);
        cr_expect(cpu < 1.0, "scimodel %s %s %s %s %s %s: %.2f s CPU", cases[i][0], cases[i][1],
                  cases[i][2], cases[i][3], cases[i][4] ? cases[i][4] : "",
                  cases[i][5] ? cases[i][5] : "", cpu);
    }
}

/* --load at 1e15 cannot hold 2 D N channel loads: it says so, at once. */
Test(scimodel_limits, load_at_1e15_nodes_says_why_not, .timeout = 60)
{
    const char *const args[12] = {"--load", "--nodes", "1e15", "--pattern", "tornado"};
    run_result r = run_cmd(SCIMODEL, 30, args[0], args[1], args[2], args[3], args[4], NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "too many links"), "%s", r.err);
    run_free(&r);
    cr_expect(timed(1, args) < 1.0);
}

/* 1e18 is beyond every mode's range (the shapes' N is a long, 1e15 leaves
 * room for D N link counts): refused, naming the range. */
Test(scimodel_limits, nodes_1e18_refused_with_the_range, .timeout = 60)
{
    static const char *const modes[][3] = {
        {"--dims", "1..16"}, {"--load"}, {"--bcast", "binomial"}, {"--sweep"}, {"--crossover"},
        {"--pattern", "tornado"},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        run_result r = run_cmd(SCIMODEL, 30, "--nodes", "1e18", modes[i][0], modes[i][1], NULL);
        cr_assert_eq(r.status, 2, "%s: exit %d", modes[i][0], r.status);
        cr_assert(strstr(r.err, "--nodes") && strstr(r.err, "out of range") &&
                      strstr(r.err, "1e15"), "%s: %s", modes[i][0], r.err);
        run_free(&r);
    }
}

/* An allocation that cannot succeed: 4096x4096 has 2^26 directed links
 * (512 MiB of channel loads) and the address space is held to 300 MB.
 * The failure is named as memory, not as a pattern that sends nothing. */
Test(scimodel_limits, load_out_of_memory_is_named, .timeout = 60)
{
    run_result r = run_cmd("/bin/sh", 30, "-c", "ulimit -v 300000 && exec \"$0\" \"$@\"",
                           SCIMODEL, "--load", "--shape", "4096x4096", NULL);
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "out of memory") && strstr(r.err, "4096x4096"), "%s", r.err);
    cr_assert_null(strstr(r.err, "sends no message"), "%s", r.err);
    run_free(&r);
}

/* A params file's link bandwidth is read within 1e-6..1e6 B/ns: 1e-300
 * gave --load tables of 1e300 ns with exit 0. */
Test(scimodel_limits, link_bandwidth_outside_its_range_refused, .timeout = 60)
{
    static const char *const values[] = {"1e-300", "1e-7", "2e6"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char path[] = "/tmp/scitorus-bw-XXXXXX", cmd[512];
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        close(fd);
        snprintf(cmd, sizeof cmd, "grep -v link_bw %s > %s && echo 'link_bw_bytes_per_ns = %s' >> %s",
                 run_root_path("tests/fixtures/plots/ring2.params"), path, values[i], path);
        cr_assert_eq(system(cmd), 0);
        run_result r = run_cmd(SCIMODEL, 30, "--params", path, "--load", "--nodes", "64", NULL);
        cr_assert_eq(r.status, 1, "%s: exit %d: %s", values[i], r.status, r.err);
        cr_assert(strstr(r.err, "link_bw_bytes_per_ns") && strstr(r.err, "out of range") &&
                      strstr(r.err, "1e-6..1e6 B/ns"), "%s: %s", values[i], r.err);
        cr_assert_eq(r.out[0], '\0', "%s: printed a table", values[i]);
        run_free(&r);
        unlink(path);
    }
}

/* The one evaluation that is not closed-form, the binomial tree walked node
 * by node (up to 2^26 nodes), reports its progress and says what it does. */
Test(scimodel_limits, binomial_sweep_reports_progress_and_its_method, .timeout = 120)
{
    run_result r = run_cmd(SCIMODEL, 100, "--sweep", "--nodes", "20000", "--sweep-points", "40",
                           "--bcast", "binomial", "--dims", "13,14", "--progress", "0.001", NULL);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "scimodel: sweep at N = ") &&
                  strstr(r.err, "binomial trees are walked node by node"), "%s", r.err);
    run_free(&r);
}
