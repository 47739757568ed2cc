/* Tests for `scitrace goal`: the schedule of a traced program keeps every
 * message (each send has its receive on the peer, with the same size and
 * tag), names labels only after defining them, and its point-to-point
 * sends are the traffic matrix's (scitrace matrix --collectives p2p-only,
 * an independent path through the same rank files). */
#include "tests/runcmd.h"

TestSuite(goal, .timeout = 300);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"
#define MAXR 64
#define MAXKEYS 8192
#define COLL_TAG_MIN 1000000000L   /* collective messages' tags (mode_goal.c) */

typedef struct key {
    long src, dst, tag, size, sends, recvs;
} key;

static key keys[MAXKEYS];
static int nkeys;

static key *find(long src, long dst, long tag, long size)
{
    for (int i = 0; i < nkeys; i++)
        if (keys[i].src == src && keys[i].dst == dst && keys[i].tag == tag && keys[i].size == size)
            return &keys[i];
    cr_assert_lt(nkeys, MAXKEYS);
    keys[nkeys] = (key){src, dst, tag, size, 0, 0};
    return &keys[nkeys++];
}

/* Parses the schedule; checks labels; counts sends and receives. */
static void read_goal(const char *path, int ranks)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    long rank = -1, maxlabel = 0;
    int blocks = 0;
    cr_assert_not_null(fp);
    nkeys = 0;
    while (fgets(line, sizeof line, fp)) {
        long l, a, b, size, peer, tag;
        if (strncmp(line, "//", 2) == 0 || strncmp(line, "num_ranks ", 10) == 0) {
            if (line[0] == 'n')
                cr_assert_eq(atol(line + 10), ranks);
            continue;
        }
        if (sscanf(line, "rank %ld {", &rank) == 1) {
            cr_assert_eq(rank, blocks++);
            maxlabel = 0;
        } else if (strcmp(line, "}\n") == 0) {
            rank = -1;
        } else if (sscanf(line, "l%ld requires l%ld", &a, &b) == 2) {
            cr_assert(a <= maxlabel && b <= maxlabel && b != a, "rank %ld: %s", rank, line);
        } else if (sscanf(line, "l%ld: send %ldb to %ld tag %ld", &l, &size, &peer, &tag) == 4) {
            find(rank, peer, tag, size)->sends++;
            maxlabel = l;
        } else if (sscanf(line, "l%ld: recv %ldb from %ld tag %ld", &l, &size, &peer, &tag) == 4) {
            find(peer, rank, tag, size)->recvs++;
            maxlabel = l;
        } else if (sscanf(line, "l%ld: calc %ld", &l, &a) == 2) {
            cr_assert_geq(a, 0);
            maxlabel = l;
        } else {
            cr_assert_fail("%s: not GOAL: %s", path, line);
        }
    }
    fclose(fp);
    cr_assert_eq(blocks, ranks);
    for (int i = 0; i < nkeys; i++)
        cr_assert_eq(keys[i].sends, keys[i].recvs, "%ld -> %ld tag %ld %ld B: %ld sends, %ld recvs",
                     keys[i].src, keys[i].dst, keys[i].tag, keys[i].size, keys[i].sends,
                     keys[i].recvs);
}

static void goal_of(const char *np, const char *prog, const char *arg)
{
    char dir[] = "/tmp/scitorus-goal-XXXXXX", out[600], mat[600];
    run_tmpdir_make(dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 250, "run", "-d", dir, "--", "/usr/bin/timeout",
                           "200", MPIRUN, "-np", np, prog, arg, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    snprintf(out, sizeof out, "%s.goal", dir);
    r = run_cmd(run_prog("scitrace", 0), 60, "goal", dir, "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    read_goal(out, atoi(np));
    snprintf(mat, sizeof mat, "%s.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 60, "matrix", "--collectives", "p2p-only", "-o", mat, dir,
                NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    FILE *fp = fopen(mat, "r");
    char line[256];
    long rows = 0;
    while (fgets(line, sizeof line, fp)) {
        long src, dst, size, n, sends = 0;
        if (line[0] == '#' || sscanf(line, "%ld %ld %ld %ld", &src, &dst, &size, &n) != 4)
            continue;
        for (int i = 0; i < nkeys; i++)
            if (keys[i].src == src && keys[i].dst == dst && keys[i].size == size &&
                keys[i].tag < COLL_TAG_MIN)
                sends += keys[i].sends;
        cr_assert_eq(sends, n, "%ld -> %ld, %ld B: schedule %ld, matrix %ld", src, dst, size, sends, n);
        rows++;
    }
    fclose(fp);
    cr_assert_gt(rows, 0);
    unlink(out), unlink(mat);
    run_tmpdir_remove(dir);
}

Test(goal, halo3d_on_8_ranks_keeps_every_message)
{
    goal_of("8", run_prog("halo3d", 1), NULL);
}

Test(goal, wildcards_requests_and_collectives_keep_every_message)
{
    goal_of("4", "bin/test/check_app", "correct");
}

/* An Irecv posted with MPI_ANY_TAG whose request no wait completed (a test
 * that found it pending): the schedule keeps the wildcard (tag -1, GOAL's
 * any), so the replay matches it with the traced send of tag 7. */
Test(goal, an_uncompleted_any_tag_irecv_keeps_its_wildcard)
{
    char dir[] = "/tmp/scitorus-goal-XXXXXX";
    run_tmpdir_make(dir);
    static const char head[] =
        "# scitrace-rank 2\nrun r1\nrank %d\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
        "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n";
    char text[1024];
    snprintf(text, sizeof text, head, 0);
    strcat(text, "> 10 0 irecv 1 0 1 -1 8\n< 20 1\n> 30 0 test 1 1 1\n< 40 0\nstatus finalized\nend 14\n");
    run_write_text(run_path(dir, "rank-00000.trace"), text);
    snprintf(text, sizeof text, head, 1);
    strcat(text, "> 10 0 send 1 0 0 7 8\n< 20\nstatus finalized\nend 12\n");
    run_write_text(run_path(dir, "rank-00001.trace"), text);
    char goal[700];
    snprintf(goal, sizeof goal, "%s", run_path(dir, "t.goal"));
    run_result r = run_cmd(run_prog("scitrace", 0), 60, "goal", "-o", goal, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *s = run_read_text(goal);
    cr_assert_not_null(strstr(s, "recv 8b from 1 tag -1\n"), "%s", s);
    free(s);
    r = run_cmd(run_prog("scisim", 0), 60, goal, "--loggp", "L=2500", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "scisim: %s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}
