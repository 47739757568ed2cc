/* Tests for interleaved measurement: a batch that follows another point's starts cold, and
 * that must not be timed.  Oracle: an injected delay, COLD_NS busy-waited by the wrapped shm
 * backend whenever a process sends another size than its last. */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>

#include "bench/backend.h"
#include "bench/benchdata.h"
#include "bench/cli.h"
#include "tests/runcmd.h"

#define COLD_NS 200e3

static char dir[] = "/tmp/scitorus-il-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(interleave, .init = setup, .fini = teardown, .timeout = 120);

static long last_len = -1;   /* per process: each forked process has its own */

static int cold_send(bench_comm *c, int to, const bench_msg *msg, const void *payload)
{
    if (msg->len != last_len) {
        double end = bench_backend_shm.now_ns() + COLD_NS;
        while (bench_backend_shm.now_ns() < end)
            ;
        last_len = msg->len;
    }
    return bench_backend_shm.send(c, to, msg, payload);
}

/* Runs scibench's main on the wrapped backend; returns the 8 B point. */
static bench_point measure(const char *name, int interleaved)
{
    bench_backend cold = bench_backend_shm;
    cold.send = cold_send;
    char *argv[] = {"scibench", "--ring", "2", "--sizes", "8,64", "--max-time", "0.3",
                    "--rel-error", "0.01", "-q", "-o", (char *)run_path(dir, name),
                    interleaved ? "--interleave-sizes" : NULL, NULL};
    int argc = interleaved ? 13 : 12, status;
    /* in a process of its own: a run pins its process and keeps its children's deaths */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(bench_main(argc, argv, &cold));
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scibench %s: status %d",
              interleaved ? "--interleave-sizes" : "", status);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(run_path(dir, name), &d, &e), 0, "%s:%ld: %s", name, e.line,
                 e.msg);
    cr_assert_eq(d.count, 2);
    bench_point p = d.points[d.points[0].size_bytes == 8 ? 0 : 1];
    bench_data_free(&d);
    return p;
}

/* Interleaved, each batch would time one size change (COLD_NS in each process: COLD_NS / reps
 * on a half round trip); the median stays within a quarter of that of the point measured
 * alone, whose size changes only in the warm-up. */
Test(interleave, a_batch_does_not_time_the_change_from_the_last_point)
{
    bench_point alone = measure("alone.tsv", 0), mixed = measure("mixed.tsv", 1);
    double bias = COLD_NS / (double)mixed.reps;
    cr_assert(mixed.median_ns < alone.median_ns + bias / 4,
              "8 B interleaved %.1f ns against %.1f alone: a batch timed the size change "
              "(%.0f ns a half round trip with %ld reps)", mixed.median_ns, alone.median_ns,
              bias, mixed.reps);
}
