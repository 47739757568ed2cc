/* Tests for launcher placement (model/launch.h) against its oracle, Open
 * MPI's own mapper: `mpirun --hostfile F --map-by M --rank-by R
 * --bind-to none --display-map --do-not-launch` prints, for every host of
 * a hostfile, the ranks it would start there, without the hosts existing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/launch.h"
#include "tests/runcmd.h"

#define MAX_RANKS 64

/* rank_node[r] as mpirun's --display-map says; returns the ranks seen, or
 * -1 when mpirun refused the job (its message in *why). */
static long mpirun_map_with(const char *hostfile, const launch_hosts *h, long np,
                            const char *map_by, const char *rank_by, const char *rankfile,
                            long *rank_node)
{
    char np_s[32];
    snprintf(np_s, sizeof np_s, "%ld", np);
    char *argv[24];
    int n = 0;
    argv[n++] = "/usr/bin/timeout";
    argv[n++] = "20";
    argv[n++] = "mpirun";
    argv[n++] = "--allow-run-as-root";
    argv[n++] = "--oversubscribe";
    if (!rankfile) {    /* a rankfile binds, which needs the host's cores: launched */
        argv[n++] = "--bind-to";
        argv[n++] = "none";
        argv[n++] = "--do-not-launch";
    } else {
        argv[n++] = "--rankfile";
        argv[n++] = (char *)rankfile;
    }
    /* host names are not looked up: the resolver's 5 s timeout hit 2
     * calls in 5 here, before the map, for hosts that do not exist */
    argv[n++] = "--mca";
    argv[n++] = "if_base_do_not_resolve";
    argv[n++] = "1";
    argv[n++] = "--display-map";
    argv[n++] = "--hostfile";
    argv[n++] = (char *)hostfile;
    if (np > 0) {
        argv[n++] = "-np";
        argv[n++] = np_s;
    }
    if (map_by) {
        argv[n++] = "--map-by";
        argv[n++] = (char *)map_by;
    }
    if (rank_by) {
        argv[n++] = "--rank-by";
        argv[n++] = (char *)rank_by;
    }
    argv[n++] = "true";
    argv[n] = NULL;
    run_result r = run_argv(argv, 30);
    long seen = 0, node = -1;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[256];
        long rank;
        const char *p;
        if (sscanf(line, " Data for node: %255s", name) == 1) {
            node = h ? -1 : 0;    /* without h, only whether mpirun places */
            for (long i = 0; h && i < h->count; i++)
                if (!strcmp(h->host[i].name, name))
                    node = i;
            cr_assert_geq(node, 0, "mpirun names host %s, not in the hostfile", name);
        } else if ((p = strstr(line, "Process rank: ")) && sscanf(p, "Process rank: %ld", &rank) == 1) {
            cr_assert(rank >= 0 && rank < MAX_RANKS && node >= 0);
            rank_node[rank] = node;
            seen++;
        }
    }
    run_free(&r);
    return seen ? seen : -1;
}

static long mpirun_map(const char *hostfile, const launch_hosts *h, long np, const char *map_by,
                       const char *rank_by, long *rank_node)
{
    return mpirun_map_with(hostfile, h, np, map_by, rank_by, NULL, rank_node);
}

static void check_case(const char *hosts_text, long np, const char *map_by, const char *rank_by)
{
    char path[] = "/tmp/scitorus-launch-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, hosts_text, strlen(hosts_text)), (ssize_t)strlen(hosts_text));
    close(fd);
    launch_hosts h;
    file_error err;
    cr_assert_eq(launch_hostfile_read(path, &h, &err), 0, "%s", err.msg);
    long want[MAX_RANKS], got[MAX_RANKS];
    long seen = mpirun_map(path, &h, np, map_by, rank_by, want);
    launch_policy p = {0};
    cr_assert_eq(map_by ? launch_parse_map_by(map_by, &p) : 0, 0);
    cr_assert_eq(rank_by ? launch_parse_rank_by(rank_by, &p) : 0, 0);
    long ranks = np > 0 ? np : launch_default_ranks(&h, &p);
    char why[200];
    int rc = launch_map(&h, &p, ranks, got, why, sizeof why);
    if (seen < 0) {
        cr_assert_neq(rc, 0, "mpirun refuses np %ld map-by %s, we place", np, map_by);
    } else {
        cr_assert_eq(rc, 0, "%s", why);
        cr_assert_eq(seen, ranks, "np %ld map-by %s: mpirun starts %ld ranks, we %ld", np,
                     map_by ? map_by : "-", seen, ranks);
        for (long r = 0; r < ranks; r++)
            cr_assert_eq(got[r], want[r], "hosts [%s] np %ld map-by %s rank-by %s: rank %ld on %s, mpirun: %s",
                         hosts_text, np, map_by ? map_by : "-", rank_by ? rank_by : "-", r,
                         h.host[got[r]].name, h.host[want[r]].name);
    }
    launch_hosts_free(&h);
    unlink(path);
}

static const char *maps[] = {NULL, "slot", "node", "core", "socket", "ppr:1:node", "ppr:2:node",
                             "ppr:4:node", "ppr:5:node"};
static const char *ranks_by[] = {NULL, "slot", "node", "core"};
#define COUNT(a) (sizeof a / sizeof a[0])

/* The placement the docs compare: 4 nodes of 2 slots, 16 ranks. */
Test(launch, four_nodes_two_slots_sixteen_ranks_every_policy)
{
    for (size_t m = 0; m < COUNT(maps); m++)
        for (size_t r = 0; r < COUNT(ranks_by); r++)
            check_case("n0 slots=2\nn1 slots=2\nn2 slots=2\nn3 slots=2\n", 16, maps[m], ranks_by[r]);
}

/* Unequal slots, under-, fully and oversubscribed, and -np left out (rank-by
 * slot and core number within a node, as the default does: the first test
 * covers them). */
Test(launch, unequal_slots_every_count)
{
    static const long nps[] = {0, 5, 11, 20};
    static const char *some_ranks_by[] = {NULL, "node"};
    for (size_t k = 0; k < COUNT(nps); k++)
        for (size_t m = 0; m < COUNT(maps); m++)
            for (size_t r = 0; r < COUNT(some_ranks_by); r++)
                check_case("a slots=3\nb slots=1\nc slots=2 max_slots=4\nd cpu=2 # a comment\n",
                           nps[k], maps[m], some_ranks_by[r]);
}

/* Hosts without slots= take one slot a line, and a repeated line adds one. */
Test(launch, slot_counting_lines)
{
    check_case("x\ny slots=2\nx\nz\n", 7, NULL, NULL);
    check_case("x\ny slots=2\nx\nz\n", 7, "node", NULL);
    check_case("# head\n\nx\n  y  \n", 3, "slot", "node");
}

Test(launch, hostfile_errors_name_the_line)
{
    static const struct { const char *text; long line; const char *word; } bad[] = {
        {"a slots=2\na slots=3\n", 2, "twice"},
        {"a slots=-1\n", 1, "slots"},
        {"a slots=x\n", 1, "slots"},
        {"a colour=blue\n", 1, "colour"},
        {"a slots\n", 1, "slots"},
        {"# nothing\n", 0, "no host"},
    };
    for (size_t i = 0; i < COUNT(bad); i++) {
        char path[] = "/tmp/scitorus-launch-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_eq(write(fd, bad[i].text, strlen(bad[i].text)), (ssize_t)strlen(bad[i].text));
        close(fd);
        launch_hosts h;
        file_error err;
        cr_assert_eq(launch_hostfile_read(path, &h, &err), -2, "%s accepted", bad[i].text);
        cr_assert_eq(err.line, bad[i].line, "%s: line %ld", bad[i].text, err.line);
        cr_assert(strstr(err.msg, bad[i].word), "%s: '%s'", bad[i].text, err.msg);
        unlink(path);
    }
}

/* ---- placement files as mpirun 4.1 reads them: accepted or refused
 * alike, and where both accept, the same placement */

static void write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The hostfile's verdict and placement against mpirun's, for np ranks,
 * each --map-by of maps (NULL-terminated) and rank-by default and node. */
static void check_hostfile_like_mpirun(const char *text, long np, const char *const *maps)
{
    static const char *const ranks_by_node[] = {NULL, "node"};
    char path[] = "/tmp/scitorus-launch-XXXXXX";
    write_tmp(path, text);
    launch_hosts h;
    file_error err;
    int ours = launch_hostfile_read(path, &h, &err);
    for (size_t m = 0; maps[m]; m++)
        for (size_t k = 0; k < COUNT(ranks_by_node); k++) {
            const char *rank_by = ranks_by_node[k];
            long want[MAX_RANKS], got[MAX_RANKS];
            long seen = mpirun_map_with(path, ours ? NULL : &h, np, maps[m], rank_by, NULL, want);
            launch_policy p = {0};
            cr_assert_eq(launch_parse_map_by(maps[m], &p), 0);
            cr_assert_eq(rank_by ? launch_parse_rank_by(rank_by, &p) : 0, 0);
            char why[200];
            if (seen < 0) {   /* the file or, where we read it, the policy */
                cr_assert(ours != 0 || launch_map(&h, &p, np, got, why, sizeof why) != 0,
                          "[%s] --map-by %s: mpirun refuses, we place", text, maps[m]);
                continue;
            }
            cr_assert_eq(ours, 0, "[%s]: mpirun places %ld ranks, we refuse: %s", text, seen,
                         err.msg);
            cr_assert_eq(seen, np);
            cr_assert_eq(launch_map(&h, &p, np, got, why, sizeof why), 0, "%s", why);
            for (long r = 0; r < np; r++)
                cr_assert_eq(got[r], want[r],
                             "[%s] np %ld --map-by %s --rank-by %s: rank %ld on %s, mpirun: %s",
                             text, np, maps[m], rank_by ? rank_by : "-", r, h.host[got[r]].name,
                             h.host[want[r]].name);
        }
    if (ours == 0)
        launch_hosts_free(&h);
    unlink(path);
}

Test(launch, hostfile_syntax_as_mpirun_reads_it)
{
    static const char *const maps[] = {"slot", "node", "core", "ppr:2:node", NULL};
    static const struct { const char *text; long np; } rows[] = {
        {"nodeA slots=2\nnodeB\nnodeA\n", 4},          /* a repeat adds a slot */
        {"nodeA slots = 2\nnodeB\n", 3},               /* blanks around '=' */
        {"nodeA slots=0\nnodeB\n", 3},                 /* a host without slots */
        {"nodeA slots=99999999999\nnodeB\n", 3},       /* read as an int: 1215752191 */
        {"nodeA slots=4294967298\nnodeB\n", 3},        /* ... and this as 2 */
        {"nodeA slots=2147483648\nnodeB\n", 3},        /* ... and this as negative */
        {"nodeA slots=2\r\nnodeB\r\n", 3},             /* DOS line ends */
        {"nodeA slots=4 max_slots=2\nnodeB\n", 3},     /* max below slots */
        {"nodeA max_slots=3\nnodeB\n", 4},             /* max alone sets slots */
        {"nodeA\nnodeA slots=2\n", 3},                 /* a count after a repeat */
        {"nodeA slots=2 slots=3\n", 2},
        {"nodeA foo\nnodeB // note\n", 2},             /* a word mpirun skips */
        {"nodeA colour=blue\n", 2},
        {"a slots=0\nb\nc slots=0\nd\n", 5},           /* hosts without slots go last */
        {"a slots=0\nb\nc\nd slots=0\n", 7},
        {"a slots=0\nb slots=0\n", 3},
        {"n1.x slots=2\nn1.y\nn2.z\n", 4},            /* one host without the domain */
        {"rank 0=a slot=0\nrank 1=a slot=1\nb\n", 3},  /* rankfile lines: a slot each */
        {"rank 0=a slot=0\na slots=2\n", 3},           /* ... and a given count */
        {"a # note\r\nb\n", 2},                       /* a CR in a comment is skipped */
    };
    for (size_t i = 0; i < COUNT(rows); i++)
        check_hostfile_like_mpirun(rows[i].text, rows[i].np, maps);
}

/* A rankfile binds each rank to cores, so mpirun checks it only when it
 * launches: on this host (a trivial program), with one slot, core 0. */
static void check_rankfile_like_mpirun(const char *rank_text, long np)
{
    char host[256], hosts[300], rf_text[600];
    cr_assert_eq(gethostname(host, sizeof host), 0);
    snprintf(hosts, sizeof hosts, "%s slots=1\n", host);
    snprintf(rf_text, sizeof rf_text, rank_text, host, host, host);
    char hp[] = "/tmp/scitorus-launch-XXXXXX", rp[] = "/tmp/scitorus-launch-XXXXXX";
    write_tmp(hp, hosts);
    write_tmp(rp, rf_text);
    launch_hosts h;
    file_error err;
    cr_assert_eq(launch_hostfile_read(hp, &h, &err), 0, "%s", err.msg);
    long want[MAX_RANKS], got[MAX_RANKS];
    int ours = launch_rankfile_read(rp, &h, np, got, &err);
    long seen = mpirun_map_with(hp, &h, np, NULL, NULL, rp, want);
    if (seen < 0) {
        cr_assert_neq(ours, 0, "[%s] np %ld: mpirun refuses the rankfile, we read it", rf_text, np);
    } else {
        cr_assert_eq(ours, 0, "[%s] np %ld: mpirun places it, we refuse: %s", rf_text, np, err.msg);
        cr_assert_eq(seen, np);
        for (long r = 0; r < np; r++)
            cr_assert_eq(got[r], want[r], "[%s]: rank %ld", rf_text, r);
    }
    launch_hosts_free(&h);
    unlink(hp);
    unlink(rp);
}

Test(launch, rankfile_syntax_as_mpirun_reads_it)
{
    static const struct { const char *text; long np; } rows[] = {
        {"rank 0=%s slot=0\nrank 1=%s slot=0\n", 2},
        {"rank  0 =  %s   slot = 0\nrank 1=%s slot=0\n", 2},         /* blanks */
        {"rank 0=%s slot=0\nrank 1=%s slot=0\nrank 5=%s slot=0\n", 2}, /* a rank >= np */
        {"rank 0=%s slot=0\r\nrank 1=%s slot=0\r\n", 2},             /* DOS line ends */
        {"rank 0=%s\nrank 1=%s slot=0\n", 2},                        /* no slot= */
        {"rank 0=+n0 slot=0\n", 1},                                  /* relative host */
        {"rank 0=%s slot=4096\n", 1},                                /* no such core */
        {"rank +1=%s slot=0\nrank 0=%s slot=0\n", 2},                /* a signed rank */
        {"rank 0=%s slot=0\n", 2},                                   /* a rank missing */
        {"rank 0=%s slot=0\nrank 0=%s slot=0\n", 1},                 /* a rank twice */
        {"rank 0=%s slot=0:0\n", 1},                                 /* socket:core */
        {"rank 1=%s slot=0\nrank 0=%s slot=0\n", 2},                /* rank 0 not first */
        {"rank 0=%s slot=0\nrank 2=%s slot=0\nrank 1=%s slot=0\n", 3}, /* others in any order */
        {"rank 0=%s slot=9-0\n", 1},                                /* a reversed range */
        {"rank 0=%s slot=0-9\n", 1},                                /* a range past the cores */
        {"rank 0=localhost slot=0\n", 1},                           /* this host */
    };
    for (size_t i = 0; i < COUNT(rows); i++)
        check_rankfile_like_mpirun(rows[i].text, rows[i].np);
}

/* A rankfile names each rank's host outright (mpirun cannot show it for
 * hosts that do not exist: it binds to their cores); lines for ranks the
 * job does not have are skipped, as mpirun skips them. */
Test(launch, rankfile_places_each_rank_where_it_says)
{
    char hp[] = "/tmp/scitorus-launch-XXXXXX", rp[] = "/tmp/scitorus-launch-XXXXXX";
    int fd = mkstemp(hp);
    const char *hosts = "a slots=2\nb slots=2\nc slots=2\n";
    cr_assert_eq(write(fd, hosts, strlen(hosts)), (ssize_t)strlen(hosts));
    close(fd);
    fd = mkstemp(rp);
    const char *rf = "rank 0=b slot=1\nrank 2=c slot=0\n# x\nrank 1=a slot=0-1\nrank 3=b slot=0\n";
    cr_assert_eq(write(fd, rf, strlen(rf)), (ssize_t)strlen(rf));
    close(fd);
    launch_hosts h;
    file_error err;
    cr_assert_eq(launch_hostfile_read(hp, &h, &err), 0);
    long node[8];
    cr_assert_eq(launch_rankfile_read(rp, &h, 4, node, &err), 0, "%s", err.msg);
    long want[4] = {1, 0, 2, 1};   /* (rank 0 first: mpirun refuses it after others) */
    for (int r = 0; r < 4; r++)
        cr_assert_eq(node[r], want[r], "rank %d", r);
    cr_assert_eq(launch_rankfile_read(rp, &h, 5, node, &err), -2, "rank 4 missing accepted");
    cr_assert(strstr(err.msg, "rank 4"));
    cr_assert_eq(launch_rankfile_read(rp, &h, 3, node, &err), 0, "%s", err.msg);
    for (int r = 0; r < 3; r++)
        cr_assert_eq(node[r], want[r], "rank %d of 3", r);
    launch_hosts_free(&h);
    unlink(hp);
    unlink(rp);
}

Test(launch, policy_words)
{
    launch_policy p = {0};
    cr_assert_eq(launch_parse_map_by("ppr:3:node", &p), 0);
    cr_assert_eq(p.map, LAUNCH_MAP_PPR);
    cr_assert_eq(p.ppr, 3);
    static const char *bad[] = {"ppr:0:node", "ppr::node", "ppr:2:socket", "ppr:2", "nodes", "", "ppr:x:node"};
    for (size_t i = 0; i < COUNT(bad); i++)
        cr_assert_eq(launch_parse_map_by(bad[i], &p), -1, "'%s' accepted", bad[i]);
    cr_assert_eq(launch_parse_rank_by("fill", &p), -1);
}

/* ---- the programs: scimodel --traffic and scisim place ranks the same way */

/* mpirun's own map for a hostfile and policy, written as a rankfile. */
static void rankfile_from_mpirun(const char *hostfile, const char *hosts_text, long np,
                                 const char *map_by, const char *rank_by, const char *rankfile)
{
    launch_hosts h;
    file_error err;
    cr_assert_eq(launch_hostfile_read(hostfile, &h, &err), 0);
    long node[MAX_RANKS];
    cr_assert_eq(mpirun_map(hostfile, &h, np, map_by, rank_by, node), np, "%s", hosts_text);
    FILE *fp = fopen(rankfile, "w");
    for (long r = 0; r < np; r++)
        fprintf(fp, "rank %ld=%s slot=0\n", r, h.host[node[r]].name);
    fclose(fp);
    launch_hosts_free(&h);
}

static char *run_out(const char *prog, char *const args[])
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)run_prog(prog, 0);
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    run_result r = run_argv(argv, 120);
    cr_assert_eq(r.status, 0, "%s: %s", prog, r.err);
    free(r.err);
    return r.out;
}

/* The oracle is mpirun: its map for (hostfile, --map-by, --rank-by), handed
 * to the program as a rankfile, must give the very output the program
 * computes from the policy itself. */
Test(launch, programs_place_as_mpirun_does)
{
    static const char *hosts = "a slots=4\nb slots=2\nc slots=6\nd cpu=4\n";
    static const struct { const char *map, *rank; } pol[] = {
        {"slot", NULL}, {"node", NULL}, {"slot", "node"}, {"ppr:4:node", NULL}, {"ppr:4:node", "node"},
    };
    char hf[] = "/tmp/scitorus-launch-XXXXXX", rf[] = "/tmp/scitorus-launch-XXXXXX";
    close(mkstemp(rf));
    int fd = mkstemp(hf);
    cr_assert_eq(write(fd, hosts, strlen(hosts)), (ssize_t)strlen(hosts));
    close(fd);
    const char *matrix = run_fixture("traffic/halo3d-64.tsv");
    const char *goal = run_fixture("sim/gather-16.goal");
    for (size_t i = 0; i < COUNT(pol); i++) {
        for (int prog = 0; prog < 2; prog++) {
            long np = prog ? 16 : 64;
            if (!strcmp(pol[i].map, "ppr:4:node") && np > 16)
                continue;
            rankfile_from_mpirun(hf, hosts, np, pol[i].map, pol[i].rank, rf);
            char *pa[24] = {0}, *pb[24] = {0};
            int n = 0;
            if (prog) {
                pa[n++] = (char *)goal;
                pa[n++] = "-q";
            } else {
                pa[n++] = "--traffic";
                pa[n++] = (char *)matrix;
            }
            pa[n++] = "--dims";
            pa[n++] = "1..3";
            pa[n++] = "--format";
            pa[n++] = "tsv";
            pa[n++] = "--hostfile";
            pa[n++] = hf;
            memcpy(pb, pa, sizeof pa);
            int m = n;
            pa[n++] = "--map-by";
            pa[n++] = (char *)pol[i].map;
            if (pol[i].rank) {
                pa[n++] = "--rank-by";
                pa[n++] = (char *)pol[i].rank;
            }
            pb[m++] = "--rankfile";
            pb[m++] = rf;
            char *a = run_out(prog ? "scisim" : "scimodel", pa);
            char *b = run_out(prog ? "scisim" : "scimodel", pb);
            cr_assert_str_eq(a, b, "%s --map-by %s --rank-by %s: policy\n%s\nrankfile\n%s",
                             prog ? "scisim" : "scimodel", pol[i].map, pol[i].rank ? pol[i].rank : "-",
                             a, b);
            free(a);
            free(b);
        }
    }
    unlink(hf);
    unlink(rf);
}

/* K slots on every host, filled by slot, is the block placement --slots K. */
Test(launch, equal_slots_by_slot_is_blocks)
{
    char hf[] = "/tmp/scitorus-launch-XXXXXX";
    int fd = mkstemp(hf);
    const char *hosts = "h0 slots=4\nh1 slots=4\nh2 slots=4\nh3 slots=4\n"
                        "h4 slots=4\nh5 slots=4\nh6 slots=4\nh7 slots=4\n"
                        "h8 slots=4\nh9 slots=4\nh10 slots=4\nh11 slots=4\n"
                        "h12 slots=4\nh13 slots=4\nh14 slots=4\nh15 slots=4\n";
    cr_assert_eq(write(fd, hosts, strlen(hosts)), (ssize_t)strlen(hosts));
    close(fd);
    const char *matrix = run_fixture("traffic/halo3d-64.tsv");
    char *a = run_out("scimodel", (char *[]){"--traffic", (char *)matrix, "--hostfile", hf,
                                             "--format", "tsv", "--links", "bi", NULL});
    char *b = run_out("scimodel", (char *[]){"--traffic", (char *)matrix, "--slots", "4",
                                             "--format", "tsv", "--links", "bi", NULL});
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    unlink(hf);
}

Test(launch, placement_usage_errors)
{
    const char *matrix = run_fixture("traffic/halo3d-64.tsv");
    static const struct { const char *opt, *val, *word; } bad[] = {
        {"--map-by", "node", "needs --hostfile"},
        {"--rank-by", "node", "needs --hostfile"},
        {"--rankfile", "/dev/null", "needs --hostfile"},
    };
    for (size_t i = 0; i < COUNT(bad); i++) {
        run_result r = run_cmd(run_prog("scimodel", 0), 30, "--traffic", matrix, bad[i].opt,
                               bad[i].val, NULL);
        run_assert_error(&r, 2, bad[i].word, bad[i].opt);
        run_free(&r);
    }
    run_result r = run_cmd(run_prog("scimodel", 0), 30, "--traffic", matrix, "--hostfile",
                           "/dev/null", "--slots", "2", NULL);
    run_assert_error(&r, 2, "conflicts", "--slots");
    run_free(&r);
}

/* A rankfile line of one word ("rank", "node0") is refused at its line:
 * "rank" alone read the host from an unset word (found by fuzz_launch,
 * tests/fuzz/regressions/launch-rank-without-host). */
Test(launch, rankfile_line_without_host_refused)
{
    static const char *const bad[] = {"rank\n", "rank \n", "rank 0=a slot=0\nrank\n", "node0\n"};
    char hp[] = "/tmp/scitorus-launch-XXXXXX";
    int fd = mkstemp(hp);
    cr_assert_eq(write(fd, "a slots=2\n", 10), 10);
    close(fd);
    launch_hosts h;
    file_error err;
    cr_assert_eq(launch_hostfile_read(hp, &h, &err), 0);
    for (size_t i = 0; i < COUNT(bad); i++) {
        char rp[] = "/tmp/scitorus-launch-XXXXXX";
        long node[2];
        fd = mkstemp(rp);
        cr_assert_eq(write(fd, bad[i], strlen(bad[i])), (ssize_t)strlen(bad[i]));
        close(fd);
        cr_assert_eq(launch_rankfile_read(rp, &h, 2, node, &err), -2, "'%s' accepted", bad[i]);
        cr_assert(strstr(err.msg, "expected 'rank R=HOST"), "'%s': %s", bad[i], err.msg);
        cr_assert_eq(err.line, i == 2 ? 2 : 1, "'%s'", bad[i]);
        unlink(rp);
    }
    launch_hosts_free(&h);
    unlink(hp);
}
