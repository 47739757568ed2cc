/* Tests for scimodel's links, patterns, broadcast and load modes, and for
 * scimodel defects found by a probe of bad input, each checked to fail
 * against the scimodel before the fix. */
#include <math.h>

#include "tests/runcmd.h"

#define SCIMODEL run_prog("scimodel", 0)

/* No table of ours may show a NaN, an infinity or a negative count. */
static void assert_clean_numbers(const char *out, const char *what)
{
    cr_assert_null(strstr(out, "nan"), "%s: nan in %s", what, out);
    cr_assert_null(strstr(out, "inf"), "%s: inf in %s", what, out);
    cr_assert_null(strstr(out, "\t-0."), "%s: negative count in %s", what, out);
    cr_assert_null(strstr(out, " -0."), "%s: negative count in %s", what, out);
    cr_assert_null(strstr(out, "\t-1"), "%s: negative value in %s", what, out);
}

static char *write_params(const char *extra)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/scitorus-links-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    dprintf(fd, "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\n"
                "lf_ns = 60\nls_ns = 670\n%s", extra);
    close(fd);
    return path;
}

/* ---- bad input and bounded time ------------------------------------------------ */

/* --help states what a sweep costs; a long sweep shows progress on
 * stderr (every 2 s). */
Test(scimodel_i14, sweep_cost_documented_and_progress_on_stderr, .timeout = 120)
{
    run_result r = run_cmd(SCIMODEL, 30, "--help", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "Cost:"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "Progress goes to stderr"), "%s", r.out);
    run_free(&r);
    /* default every 2 s; --progress 0.001 makes a 1e5-line sweep report */
    r = run_cmd(SCIMODEL, 110, "--sweep", "--nodes", "100000", "--progress", "0.001", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "scimodel: sweep at N = "), "no progress: %s", r.err);
    run_free(&r);
}

/* --dims 4,1 compares 1 and 4 (crossover 30.69), --dims 3,3 one row. */
Test(scimodel_i14, dims_sorted_and_deduplicated)
{
    run_result r = run_cmd(SCIMODEL, 30, "--dims", "4,1", "--nodes", "20", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "1D -> 4D         30.69 nodes"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "lowest average latency: 1D for 2 <= N < 30.69"), "%s",
                       r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--dims", "3,3", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(run_lines(r.out), 3, "header, continuous and nearest row: %s", r.out);
    run_free(&r);
}

/* N below 2^D: '-' and a note, never negative forwards or nan. */
Test(scimodel_i14, tiny_systems_print_dashes)
{
    run_result r = run_cmd(SCIMODEL, 30, "--nodes", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_clean_numbers(r.out, "--nodes 2");
    cr_assert_not_null(strstr(r.out, "no D-dimensional torus"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--nodes", "3", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_clean_numbers(r.out, "--nodes 3 tsv");
    cr_assert_not_null(strstr(r.out, "\n2\t3\t1.7321^2\t-\t-\t-\t-\t-\n"), "%s", r.out);
    run_free(&r);
}

/* Node counts in TSV are exact integers. */
Test(scimodel_i14, tsv_integers_exact)
{
    run_result r = run_cmd(SCIMODEL, 30, "--shape", "5623x5623x5623x5623", "--format", "tsv",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\n4\t999706081460641\t5623x5623x5623x5623\t"), "%s",
                       r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--nodes", "999999999999999", "--dims", "5", "--format", "tsv",
                NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\n5\t999999999999999\t"), "%s", r.out);
    run_free(&r);
}

/* Conflicting or repeated options: exit 2 naming both. */
Test(scimodel_i14, conflicting_and_repeated_options)
{
    static const struct { const char *a[6]; const char *w1, *w2; } cases[] = {
        {{"--shape", "4x4", "--nodes", "16"}, "--shape '4x4'", "--nodes '16'"},
        {{"--shape", "4x4", "--dims", "2"}, "--shape '4x4'", "--dims '2'"},
        {{"--crossover", "--nodes", "1000"}, "--crossover", "--nodes '1000'"},
        {{"--nodes", "5", "--nodes", "6"}, "--nodes '5'", "--nodes '6'"},
        {{"--format", "tsv", "--format", "table"}, "--format 'tsv'", "--format 'table'"},
        {{"--shape", "4x4", "--hops", "1,0", "--hops", "0,1"}, "--hops '1,0'", "--hops '0,1'"},
        {{"--sweep", "--crossover"}, "--sweep", "--crossover"},
        {{"--links", "bi", "--links", "uni"}, "--links 'bi'", "--links 'uni'"},
        {{"--bcast", "binomial", "--metric", "avg"}, "--bcast 'binomial'", "--metric 'avg'"},
        {{"--rates", "0.1", "--utilisation", "0.5", "--load"}, "--rates '0.1'",
         "--utilisation '0.5'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].a;
        run_result r = run_cmd(SCIMODEL, 30, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
        run_assert_error(&r, 2, cases[i].w1, cases[i].w1);
        cr_assert_not_null(strstr(r.err, cases[i].w2), "'%s' not in: %s", cases[i].w2, r.err);
        run_free(&r);
    }
}

/* ---- links ------------------------------------------------------------------- */

Test(scimodel_links, bidirectional_everywhere_named)
{
    run_result r = run_cmd(SCIMODEL, 30, "--links", "bi", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "uniform traffic, bi links"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "37.84 nodes"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--links", "bi", "--format", "tsv", "--dims", "3", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "dims\tnodes\tshape\tpattern\tlinks\tavg_hops\t"
                                     "avg_forwards\tavg_switches\tavg_ns\n"), "%s", r.out);
    /* 10x10x10 bi: a(10) = 2.5 per dimension, avg_hops = 1000/999 * 7.5 */
    cr_assert_not_null(strstr(r.out, "\n3\t1000\t10x10x10\tuniform\tbi\t7.507508\t"), "%s",
                       r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--links", "bi", "--crossover", "--metric", "avg", "--format",
                "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "avg\tuniform\tbi\t1\t2\t37.84"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--links", "bi", "--sweep", "--nodes", "8", "--dims", "1", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strncmp(r.out, "nodes\tuniform_bi_1d_ns\tmulticast_bi_1d_ns\n", 41), 0, "%s",
                 r.out);
    run_free(&r);
    /* ring of 8, 6 hops the positive way = 2 back: request = response */
    r = run_cmd(SCIMODEL, 30, "--links", "bi", "--shape", "8", "--hops", "6", "--format", "tsv",
                NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "links\tdirection\thops\tforwards\tswitches\tlatency_ns\n"
                            "bi\trequest\t2\t1\t0\t4244.000\n"
                            "bi\tresponse\t2\t1\t0\t4244.000\n"
                            "bi\ttransaction\t4\t2\t0\t8488.000\n");
    run_free(&r);
}

Test(scimodel_links, params_file_links)
{
    char *f = write_params("links = \"bi\"\nlink_bw_bytes_per_ns = 2\n");
    run_result r = run_cmd(SCIMODEL, 30, "--params", f, "--shape", "8", "--hops", "6",
                           "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "bi\trequest\t2\t"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--params", f, "--links", "uni", "--shape", "8", "--hops", "6",
                "--format", "tsv", NULL);
    cr_assert_not_null(strstr(r.out, "uni\trequest\t6\t"), "--links overrides: %s", r.out);
    run_free(&r);
    unlink(f);
    static const struct { const char *text, *word; } bad[] = {
        {"links = \"bi\n", ":7: 'links' must be"},
        {"links = \"sideways\"\n", ":7: 'links' must be"},
        {"links = bi\n", ":7: 'links' must be"},
        {"link_bw_bytes_per_ns = -1\n", ":7: 'link_bw_bytes_per_ns = -1' is out of range"},
        {"link_bw_bytes_per_ns = 0\n", ":7: 'link_bw_bytes_per_ns = 0' is out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = write_params(bad[i].text);
        r = run_cmd(SCIMODEL, 30, "--params", f, NULL);
        run_assert_error(&r, 1, bad[i].word, bad[i].text);
        cr_assert_str_empty(r.out);
        run_free(&r);
        unlink(f);
    }
    r = run_cmd(SCIMODEL, 30, "--links", "sideways", NULL);
    run_assert_error(&r, 2, "--links 'sideways'", "--links sideways");
    run_free(&r);
}

/* ---- patterns, broadcast, load ----------------------------------------------- */

Test(scimodel_patterns, pattern_rows_and_errors)
{
    run_result r = run_cmd(SCIMODEL, 30, "--pattern", "neighbor", "--shape", "8x8x8",
                           "--links", "bi", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* every halo message is one link: 2 o + lp = 4177 */
    cr_assert_not_null(strstr(r.out, "\n3\t512\t8x8x8\tneighbor\tbi\t1.000000\t0.000000\t"
                                     "0.000000\t4177.000\n"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--pattern", "tornado", "--crossover", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_clean_numbers(r.out, "tornado crossover");
    run_free(&r);
    static const struct { const char *a[6]; const char *word; } bad[] = {
        {{"--pattern", "transpose", "--shape", "4x5"}, "--pattern 'transpose' on --shape '4x5'"},
        {{"--pattern", "transpose", "--shape", "4x4x4"}, "--pattern 'transpose' on"},
        {{"--pattern", "transpose", "--dims", "1..3"}, "--pattern 'transpose'"},
        {{"--pattern", "zigzag"}, "--pattern 'zigzag'"},
        {{"--pattern", "neighbor", "--metric", "multicast"}, "--metric 'multicast'"},
        {{"--pattern", "neighbor", "--shape", "4x4", "--hops", "1,0"}, "--hops '1,0'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const *a = bad[i].a;
        r = run_cmd(SCIMODEL, 30, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
        run_assert_error(&r, 2, bad[i].word, bad[i].word);
        run_free(&r);
    }
}

Test(scimodel_bcast, binomial_shape_and_report)
{
    /* docs/model.md, 'Broadcast', on a 4-ring: max(o + L(2 hops), L(1) + L(2)) = 8421 */
    run_result r = run_cmd(SCIMODEL, 30, "--bcast", "binomial", "--shape", "4", "--format",
                           "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\n1\t4\t4\tuni\tbinomial\t8421.000\t3\t-\n"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--bcast", "binomial", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "cross more than once"), "%s", r.out);
    assert_clean_numbers(r.out, "--bcast binomial");
    run_free(&r);
}

Test(scimodel_load, table_and_bad_rates)
{
    run_result r = run_cmd(SCIMODEL, 60, "--load", "--format", "tsv", "--shape", "4x4",
                           "--utilisation", "0.1..0.9", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strncmp(r.out, "dims\tshape\tpattern\tlinks\trate_per_ns\tutilisation\t"
                                "latency_ns\t", 58), 0, "%s", r.out);
    cr_assert_eq(run_lines(r.out), 10, "%s", r.out);
    assert_clean_numbers(r.out, "--load");
    run_free(&r);
    /* 4x4 uni uniform: c = 16/15 * 3/2 = 1.6, t = 64 ns: sat = 1/102.4 */
    r = run_cmd(SCIMODEL, 30, "--load", "--shape", "4x4", "--rates", "0.001,0.009765625",
                NULL);
    run_assert_error(&r, 2, "--rates '0.001,0.009765625'", "at saturation");
    cr_assert_not_null(strstr(r.err, "saturation rate 0.00976562"), "%s", r.err);
    cr_assert_str_empty(r.out);
    run_free(&r);
    static const char *const bad[] = {"0", "1", "1.5", "-0.2", "0.9..0.1", "x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_cmd(SCIMODEL, 30, "--load", "--utilisation", bad[i], NULL);
        run_assert_error(&r, 2, "--utilisation", bad[i]);
        run_free(&r);
    }
    r = run_cmd(SCIMODEL, 30, "--rates", "0.001", NULL);
    run_assert_error(&r, 2, "needs --load", "--rates without --load");
    run_free(&r);
}

/* ---- --routes ------------------------------------------------------------------ */

/* Hops from src to every node of a torus by breadth-first search over its
 * links (+1 in each dimension; bi links also -1): the oracle of a route's
 * length.  n: the ring sizes, row-major with the last dimension fastest. */
static void bfs_hops(const long *n, int dims, int bi, long src, long *dist)
{
    long nodes = 1, queue[512], head = 0, tail = 0;
    for (int d = 0; d < dims; d++)
        nodes *= n[d];
    for (long v = 0; v < nodes; v++)
        dist[v] = -1;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        long v = queue[head++], stride = 1;
        for (int d = dims - 1; d >= 0; stride *= n[d], d--)
            for (int way = 1; way >= (bi ? -1 : 1); way -= 2) {
                long c = v / stride % n[d], w = v + (((c + way + n[d]) % n[d]) - c) * stride;
                if (dist[w] < 0)
                    dist[w] = dist[v] + 1, queue[tail++] = w;
            }
    }
}

/* Following --routes' next hops from every node to every other takes a
 * shortest path (breadth-first search's length), each hop over a link of
 * the dimension and way the row names, the dimensions in ascending order;
 * the row's counts are the walk's: hops, relays that keep the dimension
 * (forwards) and relays that change it (switches). */
Test(scimodel_routes, next_hops_walk_shortest_dimension_ordered_paths)
{
    static const struct { const char *shape; long n[3]; int dims; } shapes[] = {
        {"2", {2}, 1}, {"7", {7}, 1}, {"2x3", {2, 3}, 2}, {"4x4", {4, 4}, 2},
        {"3x4x2", {3, 4, 2}, 3}, {"5x2x6", {5, 2, 6}, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int bi = 0; bi < 2; bi++) {
            run_result r = run_cmd(SCIMODEL, 30, "--shape", shapes[s].shape, "--links",
                                   bi ? "bi" : "uni", "--routes", NULL);
            cr_assert_eq(r.status, 0, "%s: %s", shapes[s].shape, r.err);
            long nodes = 1, next[64][64], dim[64][64], way[64][64], dist[64], rows = 0;
            long count[64][64][3];
            for (int d = 0; d < shapes[s].dims; d++)
                nodes *= shapes[s].n[d];
            const char *line = strstr(r.out, "src\tdst\tdim\tway\tnext\thops\tforwards\tswitches\n");
            cr_assert_not_null(line, "%s", r.out);
            for (line = strchr(line, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
                long a, b, k, w, x, *c;
                cr_assert_eq(sscanf(line, "%ld\t%ld\t%ld\t%ld\t%ld", &a, &b, &k, &w, &x), 5, "%s",
                             line);
                c = count[a][b];
                cr_assert_eq(sscanf(line, "%*d\t%*d\t%*d\t%*d\t%*d\t%ld\t%ld\t%ld", &c[0], &c[1],
                                    &c[2]), 3, "%s", line);
                next[a][b] = x, dim[a][b] = k, way[a][b] = w, rows++;
            }
            cr_assert_eq(rows, nodes * (nodes - 1), "%s: %ld rows", shapes[s].shape, rows);
            for (long a = 0; a < nodes; a++) {
                bfs_hops(shapes[s].n, shapes[s].dims, bi, a, dist);
                for (long b = 0; b < nodes; b++) {
                    long v = a, hops = 0, last_dim = 0, forwards = 0, switches = 0;
                    while (v != b && hops <= nodes) {
                        long k = dim[v][b], stride = 1;
                        for (int d = shapes[s].dims - 1; d > k; d--)
                            stride *= shapes[s].n[d];
                        long c = v / stride % shapes[s].n[k];
                        long want = v + (((c + way[v][b] + shapes[s].n[k]) % shapes[s].n[k]) - c) *
                                            stride;
                        cr_assert_eq(next[v][b], want, "%s: %ld->%ld at %ld", shapes[s].shape, a,
                                     b, v);
                        cr_assert(bi || way[v][b] == 1, "uni links go one way");
                        cr_assert_geq(k, last_dim, "%s: %ld->%ld not in dimension order",
                                      shapes[s].shape, a, b);
                        if (hops > 0)
                            k == last_dim ? forwards++ : switches++;
                        last_dim = k, v = next[v][b], hops++;
                    }
                    cr_assert_eq(hops, dist[b], "%s %s: %ld->%ld in %ld hops, shortest %ld",
                                 shapes[s].shape, bi ? "bi" : "uni", a, b, hops, dist[b]);
                    if (a != b)
                        cr_assert(count[a][b][0] == hops && count[a][b][1] == forwards &&
                                      count[a][b][2] == switches,
                                  "%s: %ld->%ld counts %ld %ld %ld, walked %ld %ld %ld",
                                  shapes[s].shape, a, b, count[a][b][0], count[a][b][1],
                                  count[a][b][2], hops, forwards, switches);
                }
            }
            run_free(&r);
        }
}

Test(scimodel_routes, needs_a_shape_and_a_mode_of_its_own)
{
    run_result r = run_cmd(SCIMODEL, 30, "--routes", NULL);
    run_assert_error(&r, 2, "--routes: needs --shape", "--routes alone");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--routes", "--shape", "100x100", NULL);
    run_assert_error(&r, 2, "at most 4096 nodes", "a pair a line");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--shape", "4x4", "--hops", "1,1", "--routes", NULL);
    run_assert_error(&r, 2, "--routes is a mode of its own", "--routes with --hops");
    run_free(&r);
}
