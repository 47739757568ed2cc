/* Tests for topo/: shape parsing, rank <-> coordinates, hop vectors, route
 * counts, dimension-order routing and the destination enumerator. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo/topo.h"

Test(topo, parse_valid_shapes)
{
    topo_shape s;
    cr_assert_eq(topo_shape_parse("4x4x4", &s, NULL), 0);
    cr_assert_eq(s.dims, 3);
    cr_assert_eq(s.nodes, 64);
    cr_assert_eq(topo_shape_parse("1000", &s, NULL), 0);
    cr_assert_eq(s.dims, 1);
    cr_assert_eq(s.n[0], 1000);
    cr_assert_eq(topo_shape_parse("2X7x4", &s, NULL), 0);
    cr_assert_eq(s.nodes, 56);
    cr_assert_eq(topo_shape_parse("2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2", &s, NULL), 0);
    cr_assert_eq(s.dims, 16);
    cr_assert_eq(s.nodes, 65536);
}

Test(topo, parse_errors_name_position)
{
    static const struct { const char *text; size_t pos; } cases[] = {
        {"", 0}, {"4x0", 2}, {"4x", 2}, {"x4", 0}, {"4x4y", 3}, {"1", 0},
        {"4x-4", 2}, {" 4", 0}, {"4 ", 1},
        {"99999999999999999999999", 0},
        {"1000000x1000000x1000000", 16},          /* 1e18 > 1e15 */
        {"2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2", 32}, /* 17 dimensions */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        topo_shape s;
        topo_parse_error e = {0, NULL};
        cr_assert_eq(topo_shape_parse(cases[i].text, &s, &e), -1, "'%s'", cases[i].text);
        cr_assert_not_null(e.what);
        cr_assert_eq(e.pos, cases[i].pos, "'%s': pos %zu", cases[i].text, e.pos);
    }
}

Test(topo, format_roundtrip)
{
    topo_shape s, t;
    char buf[64];
    cr_assert_eq(topo_shape_parse("3x5x7", &s, NULL), 0);
    cr_assert_eq(topo_shape_format(&s, buf, sizeof buf), 5);
    cr_assert_str_eq(buf, "3x5x7");
    cr_assert_eq(topo_shape_parse(buf, &t, NULL), 0);
    cr_assert_eq(memcmp(s.n, t.n, sizeof s.n[0] * 3), 0);
}

/* Oracle: row-major means rank = ((c0 * n1) + c1) * n2 + c2. */
Test(topo, rank_coords_roundtrip_row_major)
{
    topo_shape s;
    long c[TOPO_MAX_DIMS];
    cr_assert_eq(topo_shape_parse("2x7x4", &s, NULL), 0);
    for (long r = 0; r < s.nodes; r++) {
        topo_rank_to_coords(&s, r, c);
        cr_assert_eq((c[0] * 7 + c[1]) * 4 + c[2], r);
        cr_assert_eq(topo_coords_to_rank(&s, c), r);
    }
    c[1] = 7;
    cr_assert_eq(topo_coords_to_rank(&s, c), -1);
}

Test(topo, hops_on_unidirectional_rings)
{
    topo_shape s;
    long src[2] = {3, 1}, dst[2] = {1, 4}, h[2];
    cr_assert_eq(topo_shape_parse("5x6", &s, NULL), 0);
    topo_hops(&s, src, dst, h);
    cr_assert_eq(h[0], 3);   /* 3 -> 4 -> 0 -> 1 */
    cr_assert_eq(h[1], 3);
}

/* Route counts (docs/model.md, 'Topology and notation'): H = sum h,
 * k = #nonzero, F = H - k, S = k - 1; the response uses n_i - h_i where h_i > 0. */
Test(topo, request_and_response_counts)
{
    topo_shape s;
    long h[3] = {1, 0, 3};
    topo_counts q, r;
    cr_assert_eq(topo_shape_parse("4x4x4", &s, NULL), 0);
    topo_request_counts(&s, h, &q);
    cr_assert_eq(q.links, 4);
    cr_assert_eq(q.dims_used, 2);
    cr_assert_eq(q.forwards, 2);
    cr_assert_eq(q.switches, 1);
    topo_response_counts(&s, h, &r);
    cr_assert_eq(r.links, 3 + 1);
    cr_assert_eq(r.dims_used, 2);
    cr_assert_eq(r.forwards, 2);
    cr_assert_eq(r.switches, 1);
}

Test(topo, hops_check)
{
    topo_shape s;
    int bad = 99;
    long ok[2] = {0, 3}, big[2] = {5, 0}, zero[2] = {0, 0};
    cr_assert_eq(topo_shape_parse("4x4", &s, NULL), 0);
    cr_assert_eq(topo_hops_check(&s, ok, &bad), 0);
    cr_assert_eq(topo_hops_check(&s, big, &bad), -1);
    cr_assert_eq(bad, 0);
    cr_assert_eq(topo_hops_check(&s, zero, &bad), -1);
    cr_assert_eq(bad, -1);
}

/* Walking the route link by link must reproduce the counts: every node on
 * the way either forwards (same dimension as the previous link) or switches. */
Test(topo, route_walk_matches_counts)
{
    topo_shape s;
    topo_iter it;
    cr_assert_eq(topo_shape_parse("3x4x2", &s, NULL), 0);
    for (long src = 0; src < s.nodes; src++) {
        topo_iter_init(&it, &s, src);
        while (topo_iter_next(&it)) {
            long cur[TOPO_MAX_DIMS];
            topo_counts c;
            long links = 0, fwd = 0, sw = 0;
            int prev = -1, d;
            memcpy(cur, it.src, sizeof cur);
            while ((d = topo_route_step(&s, cur, it.dst)) >= 0) {
                if (prev >= 0)
                    *(d == prev ? &fwd : &sw) += 1;
                prev = d;
                links++;
            }
            topo_request_counts(&s, it.hops, &c);
            cr_assert_eq(links, c.links);
            cr_assert_eq(fwd, c.forwards);
            cr_assert_eq(sw, c.switches);
        }
    }
}

Test(topo, iterator_visits_every_other_node_once)
{
    topo_shape s;
    topo_iter it;
    char seen[30] = {0};
    long n = 0;
    cr_assert_eq(topo_shape_parse("3x5x2", &s, NULL), 0);
    topo_iter_init(&it, &s, 17);
    while (topo_iter_next(&it)) {
        cr_assert_neq(it.dst_rank, 17);
        cr_assert_eq(seen[it.dst_rank]++, 0);
        n++;
    }
    cr_assert_eq(n, 29);
}

#include <sys/stat.h>

#include "util/atomicfile.h"

/* Writing "atomically" to /dev/null must not rename a regular file over the
 * device node (a bad-input test once replaced this machine's /dev/null). */
Test(atomicfile, device_targets_are_written_in_place)
{
    atomic_file af;
    struct stat st;
    cr_assert_eq(atomic_file_open(&af, "/dev/null"), 0);
    fputs("discarded\n", af.fp);
    cr_assert_eq(atomic_file_commit(&af), 0);
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a character device");
}

Test(atomicfile, regular_files_are_replaced_whole)
{
    char dir[] = "/tmp/scitorus-af-XXXXXX", path[64];
    atomic_file af;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out", dir);
    FILE *fp = fopen(path, "w");
    fputs("old\n", fp);
    fclose(fp);
    cr_assert_eq(atomic_file_open(&af, path), 0);
    fputs("new\n", af.fp);
    fp = fopen(path, "r");   /* until commit, readers see the old file */
    char buf[16] = "";
    cr_assert_not_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    cr_assert_str_eq(buf, "old\n");
    cr_assert_eq(atomic_file_commit(&af), 0);
    fp = fopen(path, "r");
    cr_assert_not_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    cr_assert_str_eq(buf, "new\n");
    unlink(path);
    rmdir(dir);
}
