/* `scitrace map` against its oracle, Open MPI's own mapper: `mpirun
 * --display-map --do-not-launch` prints, for every host of a hostfile, the
 * ranks it would start there, without the hosts existing; and mpirun's
 * refusal of an oversubscribed job under --nooversubscribe. */
#include "tests/runcmd.h"

TestSuite(trace_map, .timeout = 300);

#define MAX_RANKS 64

/* The host of each rank as mpirun --display-map says (names into host[]);
 * returns the ranks seen, or -1 when mpirun refused the job. */
static long mpirun_map(const char *hostfile, const char *np, const char *map_by, int noover,
                       char host[][64])
{
    char *argv[24];
    int n = 0;
    argv[n++] = "/usr/bin/timeout";
    argv[n++] = "20";
    argv[n++] = "mpirun";
    argv[n++] = "--allow-run-as-root";
    argv[n++] = noover ? "--nooversubscribe" : "--oversubscribe";
    argv[n++] = "--bind-to";
    argv[n++] = "none";
    argv[n++] = "--do-not-launch";
    argv[n++] = "--mca";   /* hosts that do not exist: not looked up */
    argv[n++] = "if_base_do_not_resolve";
    argv[n++] = "1";
    argv[n++] = "--display-map";
    argv[n++] = "--hostfile";
    argv[n++] = (char *)hostfile;
    argv[n++] = "-np";
    argv[n++] = (char *)np;
    if (map_by) {
        argv[n++] = "--map-by";
        argv[n++] = (char *)map_by;
    }
    argv[n++] = "true";
    argv[n] = NULL;
    run_result r = run_argv(argv, 30);
    long seen = 0;
    char name[64] = "";
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        long rank;
        const char *p;
        if (sscanf(line, " Data for node: %63s", name) == 1)
            continue;
        if ((p = strstr(line, "Process rank: ")) && sscanf(p, "Process rank: %ld", &rank) == 1 &&
            rank >= 0 && rank < MAX_RANKS) {
            snprintf(host[rank], 64, "%s", name);
            seen++;
        }
    }
    run_free(&r);
    return seen ? seen : -1;
}

/* Compares scitrace map with mpirun for one hostfile text, np and policy. */
static void compare(const char *hosts, const char *np, const char *map_by, int noover)
{
    char path[] = "/tmp/scitorus-map-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, hosts, strlen(hosts)), (ssize_t)strlen(hosts));
    close(fd);
    char want[MAX_RANKS][64];
    long seen = mpirun_map(path, np, map_by, noover, want);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)run_prog("scitrace", 0);
    argv[n++] = "map";
    argv[n++] = "--hostfile";
    argv[n++] = path;
    argv[n++] = "-n";
    argv[n++] = (char *)np;
    if (map_by) {
        argv[n++] = "--map-by";
        argv[n++] = (char *)map_by;
    }
    if (noover)
        argv[n++] = "--nooversubscribe";
    argv[n] = NULL;
    run_result r = run_argv(argv, 30);
    if (seen < 0) {
        cr_assert_eq(r.status, 1, "[%s] np %s map-by %s%s: mpirun refuses, scitrace map: %s",
                     hosts, np, map_by ? map_by : "-", noover ? " nooversubscribe" : "", r.out);
        cr_assert_not_null(strstr(r.err, "mpirun"), "%s", r.err);
        cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
    } else {
        cr_assert_eq(r.status, 0, "[%s] np %s map-by %s: %s", hosts, np, map_by ? map_by : "-",
                     r.err);
        long got = 0;
        for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
            long rank, node, slot;
            char host[64];
            if (line[0] == '#')
                continue;
            cr_assert_eq(sscanf(line, "%ld\t%ld\t%63s\t%ld", &rank, &node, host, &slot), 4, "%s",
                         line);
            cr_assert(rank >= 0 && rank < seen);
            cr_assert_str_eq(host, want[rank], "[%s] np %s map-by %s: rank %ld on %s, mpirun: %s",
                             hosts, np, map_by ? map_by : "-", rank, host, want[rank]);
            got++;
        }
        cr_assert_eq(got, seen, "[%s] np %s: %ld ranks, mpirun %ld", hosts, np, got, seen);
    }
    run_free(&r);
    unlink(path);
}

Test(trace_map, every_rank_on_the_host_mpirun_puts_it)
{
    static const char *const hosts[] = {"a slots=2\nb slots=2\nc\n", "n1 slots=4\nn2 slots=1\n",
                                        "x slots=0\ny slots=3\n"};
    static const char *const maps[] = {NULL, "node", "ppr:2:node"};
    static const char *const nps[] = {"3", "5", "8"};
    for (size_t h = 0; h < 3; h++)
        for (size_t m = 0; m < 3; m++)
            for (size_t k = 0; k < 3; k++)
                compare(hosts[h], nps[k], maps[m], 0);
}

Test(trace_map, nooversubscribe_refuses_what_mpirun_refuses)
{
    static const char *const nps[] = {"4", "5", "6"};
    for (size_t k = 0; k < 3; k++) {
        compare("a slots=2\nb slots=2\nc\n", nps[k], NULL, 1);
        compare("a slots=2\nb slots=2\nc\n", nps[k], "node", 1);
    }
}

Test(trace_map, usage_and_a_bad_hostfile_are_one_line)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "map", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "--hostfile"), "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "map", "--hostfile", "/nonexistent/hosts", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "/nonexistent/hosts"), "%s", r.err);
    run_free(&r);
}
