/* Tests for scitestbed: the namespaces, links and routes it makes, that it
 * leaves nothing behind (down, killed halfway, a failing command), that the
 * kernel's routes are the model's (topo/), and that MPI traffic takes them.
 * Where namespaces may not be made, every test is skipped with the reason
 * scitestbed gives (never passed). */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tests/runcmd.h"
#include "tests/testbed_util.h"
#include "topo/topo.h"

TestSuite(testbed, .timeout = 240);

Test(testbed, up_then_down_leaves_nothing)
{
    tb_require();
    tb_host before = tb_host_snapshot();
    char name[16];
    tb_name(name, 'a');
    run_result r = tb_cmd(60, name, "up", "--torus", "2x3", "--rate", "1gbit", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    tb_inodes ino = tb_inodes_of(name);
    cr_assert_eq(ino.n, 7, "2x3 torus: 6 nodes and the management namespace, found %d", ino.n);
    /* the links and the rate are there: node 0 has both dimensions' links, shaped */
    char ns[64];
    snprintf(ns, sizeof ns, "sct-%s-0", name);
    char *q = tb_capture("ip", "-n", ns, "-o", "link", "show", NULL);
    cr_assert(strstr(q, "d0p") && strstr(q, "d1p") && strstr(q, "d0m") && strstr(q, "d1m"), "%s", q);
    free(q);
    q = tb_capture("tc", "-n", ns, "qdisc", "show", "dev", "d1p", NULL);
    cr_assert_not_null(strstr(q, "tbf"), "%s", q);
    cr_assert_not_null(strstr(q, "1Gbit"), "%s", q);
    free(q);
    r = tb_cmd(60, name, "down", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    tb_assert_nothing_left(name, &ino, &before);
}

Test(testbed, killed_halfway_leaves_nothing)
{
    tb_require();
    tb_host before = tb_host_snapshot();
    char name[16];
    tb_name(name, 'b');
    /* SIGTERM while the links are being made: its trap removes what was made */
    int status;
    tb_inodes ino = tb_kill_while_building(name, "24", SIGTERM, 6, &status, NULL);
    cr_assert_eq(status, 130);
    tb_assert_nothing_left(name, &ino, &before);
    before = tb_host_snapshot();
    /* SIGKILL cannot be trapped: down removes the rest */
    ino = tb_kill_while_building(name, "24", SIGKILL, 6, NULL, NULL);
    cr_assert_gt(ino.n, 0);
    run_result r = tb_cmd(60, name, "down", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    tb_assert_nothing_left(name, &ino, &before);
}

Test(testbed, failing_or_killed_command_leaves_nothing)
{
    tb_require();
    tb_host before = tb_host_snapshot();
    char name[16];
    tb_name(name, 'c');
    /* up -- CMD: the testbed lives while CMD runs; CMD fails on every rank */
    run_result r = tb_cmd(120, name, "up", "--ring", "3", "--", run_prog("scitestbed", 0), "run",
                          "--", "false", NULL);
    cr_assert_neq(r.status, 0, "a failing command's status is passed on");
    cr_assert_neq(r.status, 124, "timed out: %s", r.err);
    run_free(&r);
    tb_assert_nothing_left(name, &(tb_inodes){0}, &before);
    before = tb_host_snapshot();
    /* a command still running on every node when scitestbed is killed */
    int status;
    tb_inodes ino = tb_kill_while_running(name, "3", &status);
    cr_assert_eq(status, 130, "up -- CMD killed with SIGTERM: exit %d", status);
    tb_assert_nothing_left(name, &ino, &before);
}

/* An interrupted run or up says so in one line and exits 130 whichever stop
 * signal it was (a terminal's Ctrl-C goes to the process group), as the C
 * programs do; run stops its command on every node first. */
static void down_i(void) { tb_down_tag('i'); }
Test(testbed, interrupted_says_so_with_the_signals_status, .fini = down_i)
{
    tb_require();
    char name[16];
    tb_name(name, 'i');
    run_result r = tb_cmd(60, name, "up", "--ring", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    struct { int sig, group, status; const char *word; } cases[] = {
        {SIGINT, 1, 130, "run: interrupted by SIGINT"},
        {SIGTERM, 0, 130, "run: interrupted by SIGTERM"},
        {SIGHUP, 0, 130, "run: interrupted by SIGHUP"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[] = "/tmp/scitorus-tb-err-XXXXXX";
        close(mkstemp(err));
        char *argv[] = {(char *)run_prog("scitestbed", 0), "--name", name, "run", "--timeout", "100",
                        "--", "sleep", "60", NULL};
        pid_t pid = run_spawn(argv, err);
        int k;
        for (k = 0; k < 300 && tb_running_in_nodes(name, 2, "sleep") < 2; k++)
            usleep(100000);
        cr_assert_lt(k, 300, "the command did not start on both nodes");
        kill(cases[i].group ? -pid : pid, cases[i].sig);
        int status = run_wait_exit(pid, 40);
        char *text = run_read_text(err);
        cr_assert_eq(status, cases[i].status, "%s: exit %d: %s", cases[i].word, status, text);
        cr_assert_not_null(strstr(text, cases[i].word), "%s", text);
        int ours = 0;
        for (char *p = text; (p = strstr(p, "scitestbed:")) != NULL; p++)
            ours++;
        cr_assert_eq(ours, 1, "one line of scitestbed's: %s", text);
        int left = tb_running_in_nodes(name, 2, "sleep");
        cr_assert_eq(left, 0, "%s: %d ranks left running: %s", cases[i].word, left, text);
        free(text);
        unlink(err);
    }
    r = tb_cmd(60, name, "down", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    /* up, Ctrl-C while building: removes what it made, says so, 130 */
    tb_host before = tb_host_snapshot();
    int status;
    char *err;
    tb_inodes ino = tb_kill_while_building(name, "24", SIGINT, 6, &status, &err);
    cr_assert_eq(status, 130, "up: exit %d: %s", status, err);
    cr_assert_eq(run_lines(err), 1, "%s", err);
    cr_assert_not_null(strstr(err, "up: interrupted by SIGINT"), "%s", err);
    free(err);
    tb_assert_nothing_left(name, &ino, &before);
}

/* The kernel's next hop at every node, walked from every source to every
 * destination, against topo's routes: dimension order, one-way or the
 * shorter way (ties forward). */
static void check_routes(const char *shape_text, const char *links)
{
    tb_require();
    char name[16];
    tb_name(name, links[0]);
    const char *opt = strchr(shape_text, 'x') ? "--torus" : "--ring";
    run_result r = tb_cmd(60, name, "up", opt, shape_text, "--links", links, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    topo_shape shape;
    topo_parse_error pe;
    cr_assert_eq(topo_shape_parse(shape_text, &shape, &pe), 0);
    topo_links tl = links[0] == 'b' ? TOPO_LINKS_BI : TOPO_LINKS_UNI;
    long next[64][64];
    tb_read_next_hops(name, shape.nodes, next);
    for (long s = 0; s < shape.nodes; s++)
        for (long d = 0; d < shape.nodes; d++) {
            if (s == d)
                continue;
            long cs[TOPO_MAX_DIMS], cd[TOPO_MAX_DIMS], hops[TOPO_MAX_DIMS], dist[TOPO_MAX_DIMS];
            int dir[TOPO_MAX_DIMS];
            topo_rank_to_coords(&shape, s, cs);
            topo_rank_to_coords(&shape, d, cd);
            topo_hops(&shape, cs, cd, hops);
            topo_route_dist(&shape, tl, hops, dist, dir);
            long cur = s, steps = 0;
            for (int i = 0; i < shape.dims; i++)   /* dimension order */
                for (long k = 0; k < dist[i]; k++) {
                    long c[TOPO_MAX_DIMS];
                    topo_rank_to_coords(&shape, cur, c);
                    c[i] = (c[i] + dir[i] + shape.n[i]) % shape.n[i];
                    long want = topo_coords_to_rank(&shape, c);
                    cr_assert_eq(next[cur][d], want, "%s %s: %ld -> %ld, at node %ld: kernel next hop %ld, route %ld",
                                 shape_text, links, s, d, cur, next[cur][d], want);
                    cur = want;
                    steps++;
                }
            cr_assert_eq(cur, d);
            cr_assert_gt(steps, 0);
        }
    r = tb_cmd(60, name, "down", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
}

Test(testbed, ring_routes_one_way) { check_routes("5", "one"); }
Test(testbed, ring_routes_shortest_way) { check_routes("6", "bi"); }
Test(testbed, torus_routes_dimension_ordered) { check_routes("2x3", "one"); }
Test(testbed, torus_3d_routes_shortest_way) { check_routes("3x2x3", "bi"); }

/* MPI traffic takes the routes: a ping-pong from node 0 to node 1 of a
 * 4-node ring crosses link 2 -> 3 on one-way routes (the reply goes on
 * round) and almost never on shortest-way ones (the kernel's counters). */
static long ring4_link23_share(const char *links, char tag)
{
    char name[16];
    tb_name(name, tag);
    run_result r = tb_cmd(60, name, "up", "--ring", "4", "--links", links, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    long a0 = tb_tx_packets(name, 0, "d0p"), a2 = tb_tx_packets(name, 2, "d0p");
    r = tb_cmd(120, name, "run", "--timeout", "100", "--", run_prog("mpibench", 1), "--ring", "4",
               "--route", "network", "--dst", "1", "--sizes", "8", "--max-time", "0.3", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    long b0 = tb_tx_packets(name, 0, "d0p") - a0, b2 = tb_tx_packets(name, 2, "d0p") - a2;
    r = tb_cmd(60, name, "down", NULL);
    run_free(&r);
    cr_assert_gt(b0, 200, "link 0 -> 1 carried %ld packets", b0);
    return 100 * b2 / b0;
}

Test(testbed, mpi_traffic_takes_the_routes)
{
    tb_require();
    long one = ring4_link23_share("one", 'p'), bi = ring4_link23_share("bi", 'q');
    cr_assert_geq(one, 90, "one-way: link 2 -> 3 carried %ld%% of link 0 -> 1's packets", one);
    cr_assert_leq(bi, 5, "shortest-way: link 2 -> 3 carried %ld%% of link 0 -> 1's packets", bi);
}

Test(testbed, hostfile_and_launcher)
{
    tb_require();
    char name[16];
    tb_name(name, 'h');
    run_result r = tb_cmd(60, name, "up", "--ring", "3", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = tb_cmd(20, name, "hostfile", NULL);
    cr_assert_str_eq(r.out, "198.18.0.1 slots=1\n198.18.0.2 slots=1\n198.18.0.3 slots=1\n");
    run_free(&r);
    r = tb_cmd(20, name, "launcher", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *need[] = {"--allow-run-as-root", "--oversubscribe", "plm_rsh_agent", "btl\ntcp,self",
                          "btl_tcp_if_include\nnode", "oob_tcp_if_include\n198.18.0.0/24",
                          "mpi_yield_when_idle\n1"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        cr_assert_not_null(strstr(r.out, need[i]), "'%s' not in: %s", need[i], r.out);
    run_free(&r);
    /* run prefixes mpirun -np 3: one rank per node, each in its own namespace */
    r = tb_cmd(60, name, "run", "--timeout", "50", "--", "/bin/sh", "-c",
               "readlink /proc/self/ns/net", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(run_lines(r.out), 3, "%s", r.out);
    tb_inodes ino = tb_inodes_of(name);
    int seen = 0;
    for (int i = 0; i < ino.n; i++) {
        char want[48];
        snprintf(want, sizeof want, "net:[%lu]", (unsigned long)ino.ino[i]);
        seen += strstr(r.out, want) != NULL;
    }
    cr_assert_eq(seen, 3, "ranks' namespaces: %s", r.out);
    run_free(&r);
    r = tb_cmd(60, name, "down", NULL);
    run_free(&r);
}

/* hostfile -o writes a file atomically, and a device in place, reporting
 * its errors (the rule of util/atomicfile): a full device stays a device
 * and its error is reported, a null device stays a device.  The devices are
 * the test's own nodes where it may make them, so a failure spares /dev. */
static void down_o(void) { tb_down_tag('o'); }
Test(testbed, hostfile_writes_devices_in_place, .fini = down_o)
{
    tb_require();
    char name[16];
    tb_name(name, 'o');
    run_result r = tb_cmd(60, name, "up", "--ring", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *want = "198.18.0.1 slots=1\n198.18.0.2 slots=1\n";
    char dir[] = "/tmp/scitorus-tb-XXXXXX";
    run_tmpdir_make(dir);
    const char *file = run_path(dir, "hosts");
    r = tb_cmd(20, name, "hostfile", "-o", file, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *got = run_read_text(file);
    cr_assert_str_eq(got, want);
    free(got);
    const char *full = run_path(dir, "full"), *null = run_path(dir, "null");
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0 || mknod(null, S_IFCHR | 0666, makedev(1, 3)) != 0)
        full = "/dev/full", null = "/dev/null";
    char word[300];
    snprintf(word, sizeof word, "'%s': No space left on device", full);
    r = tb_cmd(20, name, "hostfile", "-o", full, NULL);
    run_assert_error(&r, 1, word, "hostfile -o FULL");
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(full, &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "%s was replaced", full);
    r = tb_cmd(20, name, "hostfile", "-o", null, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert_eq(stat(null, &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "%s was replaced", null);
    /* a FIFO nobody reads: an error at once, not a hang */
    const char *fifo = run_path(dir, "fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    r = tb_cmd(20, name, "hostfile", "-o", fifo, NULL);
    run_assert_error(&r, 1, "no process is reading this FIFO", "hostfile -o FIFO");
    run_free(&r);
    cr_assert_eq(stat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    /* standard output on a full device */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "exec '%s' --name %s hostfile >/dev/full", run_prog("scitestbed", 0), name);
    r = run_cmd("/bin/sh", 20, "-c", cmd, NULL);
    run_assert_error(&r, 1, "standard output: No space left on device", "hostfile >/dev/full");
    run_free(&r);
    r = tb_cmd(60, name, "down", NULL);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(testbed, bad_input_named)
{
    char name[16];
    tb_name(name, 'x');
    struct { const char *a[6]; const char *word; int status; } cases[] = {
        {{"up", "--ring", "1"}, "--ring '1'", 2},
        {{"up", "--torus", "2x"}, "--torus '2x'", 2},
        {{"up", "--torus", "4"}, "--torus '4'", 2},
        {{"up", "--ring", "4", "--rate", "fast"}, "--rate 'fast'", 2},
        {{"up", "--ring", "4", "--links", "two"}, "--links 'two'", 2},
        {{"up", "--ring", "80"}, "at most 64", 2},
        {{"up", "--ring", "4", "--ring", "5"}, "already given", 2},
        {{"up"}, "--ring N", 2},
        {{"frob"}, "'frob'", 2},
        {{"run", "--timeout", "0", "--", "true"}, "--timeout '0'", 2},
        {{"run", "--nodes", "0,0", "--", "true"}, "--nodes '0,0'", 2},
        {{"run", "--nodes", "1,2,01", "--", "true"}, "node 1 is named twice", 2},
        {{"hostfile"}, "is not up", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char **a = cases[i].a;
        run_result r = tb_cmd(20, name, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
        run_assert_error(&r, cases[i].status, cases[i].word, cases[i].word);
        run_free(&r);
    }
    run_result r = run_cmd(run_prog("scitestbed", 0), 20, "--name", "Bad_Name", "down", NULL);
    run_assert_error(&r, 2, "--name 'Bad_Name'", "name");
    run_free(&r);
}

/* Without CAP_NET_ADMIN scitestbed says why, with its own exit status. */
Test(testbed, not_permitted_says_why)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to drop to an unprivileged user");
    run_result r = run_cmd("/usr/bin/setpriv", 30, "--reuid=65534", "--regid=65534", "--clear-groups",
                           "--inh-caps=-all", "--bounding-set=-all", run_prog("scitestbed", 0),
                           "check", NULL);
    cr_assert_eq(r.status, 3, "status %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, "not permitted"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "CAP_NET_ADMIN"), "%s", r.err);
    run_free(&r);
}

/* relabel.sh gives a 2-rank file the testbed's route: the oracle is
 * mpibench's own labelling of the same destinations, measured with a rank
 * on every node (fixtures: mpibench --route network --all-dst on a testbed
 * ring of 5 and 6 and a 2x2 torus).  Each destination's rows are turned
 * into what a 2-rank run writes (ring 2, destination 1, one hop each way),
 * relabelled as one file, and every row compared with the fixture's. */
static void relabel_matches(const char *fixture, const char *shape)
{
    char *text = run_read_text(run_fixture(fixture));
    int rows = 0, dsts = 0;
    for (int dst = 1; dst < 64; dst++) {
        char tmp[] = "/tmp/scitorus-relabel-XXXXXX", dst_arg[16];
        size_t cap = strlen(text) + 64, n_two = 0, n_want = 0;
        char *two = malloc(cap), *want = malloc(cap), *copy = strdup(text);
        n_two += (size_t)snprintf(two, cap, "# topology: ring 2\n# procs: 2\n");
        int here = 0;
        for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#')
                continue;
            char pat[8], rest[512];
            int src, d, h, f, s, rh, rf, rs;
            cr_assert_eq(sscanf(line, "%7s %d %d %d %d %d %d %d %d %511[^\n]", pat, &src, &d, &h,
                                &f, &s, &rh, &rf, &rs, rest), 10, "%s", line);
            if (d != dst)
                continue;
            n_two += (size_t)snprintf(two + n_two, cap - n_two, "pp\t0\t1\t1\t0\t0\t1\t0\t0\t%s\n", rest);
            n_want += (size_t)snprintf(want + n_want, cap - n_want, "pp\t0\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n",
                                       d, h, f, s, rh, rf, rs, rest);
            cr_assert_lt(n_two, cap);
            cr_assert_lt(n_want, cap);
            here++;
        }
        free(copy);
        if (here) {
            close(mkstemp(tmp));
            run_write_text(tmp, two);
            snprintf(dst_arg, sizeof dst_arg, "%d", dst);
            run_result r = run_cmd(run_root_path("testbed/relabel.sh"), 30, shape, "one", dst_arg,
                                   tmp, NULL);
            cr_assert_eq(r.status, 0, "%s", r.err);
            run_free(&r);
            char *got = run_read_text(tmp);
            /* every row as the fixture has it, whole lines, in its order, and no other */
            const char *at = got;
            int got_rows = 0;
            for (const char *p = got; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
                got_rows += *p != '#' && *p != '\n';
            cr_assert_eq(got_rows, here, "%s dst %d: %d rows, %d given", shape, dst, got_rows, here);
            for (char *line = want, *end; *line; line = end + 1) {
                end = strchr(line, '\n');
                char keep = end[1];
                end[1] = '\0';
                const char *hit = strstr(at, line);
                cr_assert_not_null(hit, "%s dst %d: got\n%s\nwant %s", shape, dst, got, line);
                at = hit + strlen(line);
                end[1] = keep;
            }
            cr_assert_not_null(strstr(got, strchr(shape, 'x') ? "# topology: torus " : "# topology: ring "), "%s", got);
            free(got);
            unlink(tmp);
            rows += here;
            dsts++;
        }
        free(two), free(want);
    }
    cr_assert_gt(rows, 10);
    cr_assert_geq(dsts, 3, "%s: %d destinations", fixture, dsts);
    free(text);
}

Test(testbed, relabel_gives_mpibench_routes)
{
    relabel_matches("testbed/all-dst-r5.tsv", "5");
    relabel_matches("testbed/all-dst-r6.tsv", "6");
    relabel_matches("testbed/all-dst-t22.tsv", "2x2");
}
