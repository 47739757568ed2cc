/* Tests for mpibench under mpirun (as root in CI: --allow-run-as-root;
 * bounded by timeouts so nothing can hang). */
#include "bench/benchdata.h"
#include "tests/runcmd.h"

TestSuite(mpibench, .timeout = 120);

static run_result mpirun(const char *np, const char *out, const char *extra1, const char *extra2)
{
    return run_cmd("/usr/bin/timeout", 90, "60", "mpirun", "--allow-run-as-root",
                   "--oversubscribe", "-np", np, run_prog("mpibench", 1), "--sizes", "8,1024",
                   "--max-time", "0.3", "--rel-error", "0.05", "-q", "-o", out, extra1, extra2,
                   NULL);
}

Test(mpibench, two_ranks)
{
    char out[] = "/tmp/scitorus-mpi-XXXXXX";
    close(mkstemp(out));
    run_result r = mpirun("2", out, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(out, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(d.count, 2);
    cr_assert_str_eq(bench_data_header(&d, "backend"), "mpi");
    cr_assert_gt(d.points[0].median_ns, 0);
    cr_assert_lt(d.points[0].median_ns, d.points[1].median_ns * 10);
    bench_data_free(&d);
    run_free(&r);
    unlink(out);
}

Test(mpibench, four_rank_ring_relays_in_software)
{
    char out[] = "/tmp/scitorus-mpi-XXXXXX";
    close(mkstemp(out));
    run_result r = mpirun("4", out, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(out, &d, &e), 0, "%s", e.msg);
    cr_assert_str_eq(bench_data_header(&d, "topology"), "ring 4");
    cr_assert_eq(d.points[0].dst, 2);
    cr_assert_eq(d.points[0].hops, 2);
    cr_assert_eq(d.points[0].fwd, 1);
    bench_data_free(&d);
    run_free(&r);
    unlink(out);
}

Test(mpibench, rank_count_must_match_topology)
{
    run_result r = mpirun("2", "/tmp/never-written.tsv", "--ring", "4");
    cr_assert_neq(r.status, 0);
    cr_assert_not_null(strstr(r.err, "4 nodes but 2 MPI ranks"), "%s", r.err);
    run_free(&r);
}
