/* testbed_util: helpers of the scitestbed tests (header-only, tests only):
 * running it under a test's own testbed name, what the host had before,
 * the namespaces' inodes (a process left in a deleted namespace still
 * points at its inode), and the kernel's next hops and link counters. */
#ifndef SCITORUS_TESTS_TESTBED_UTIL_H
#define SCITORUS_TESTS_TESTBED_UTIL_H

#include <sys/stat.h>
#include <time.h>

#include "tests/runcmd.h"

/* Skips the test, with scitestbed's reason, where namespaces may not be made. */
static inline void tb_require(void)
{
    run_result r = run_cmd(run_prog("scitestbed", 0), 30, "check", NULL);
    if (r.status == 3) {
        char why[512];
        snprintf(why, sizeof why, "%s", r.err);
        why[strcspn(why, "\n")] = '\0';
        run_free(&r);
        cr_skip_test("%s", why);
    }
    cr_assert_eq(r.status, 0, "scitestbed check: %d %s", r.status, r.err);
    run_free(&r);
}

/* A name of the test's own (tests run in processes of their own). */
static inline void tb_name(char *buf, char tag)
{
    snprintf(buf, 16, "t%c%d", tag, (int)(getpid() % 100000));
}

/* Takes down the testbed of tb_name(tag) (a test's .fini: a failed
 * assertion leaves the test before its own down). */
static inline void tb_down_tag(char tag)
{
    char name[16], cmd[600];
    tb_name(name, tag);
    snprintf(cmd, sizeof cmd, "'%s' --name %s down >/dev/null 2>&1", run_prog("scitestbed", 0), name);
    if (system(cmd) != 0) { /* nothing was up */ }
}

/* scitestbed --name NAME ARGS... (NULL-terminated) */
static inline run_result tb_cmd(int timeout_s, const char *name, ...)
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)run_prog("scitestbed", 0);
    argv[n++] = "--name";
    argv[n++] = (char *)name;
    va_list ap;
    va_start(ap, name);
    while (n < 39 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv, timeout_s);
}

/* stdout of a command found on PATH (NULL-terminated arguments). */
static inline char *tb_capture(const char *prog, ...)
{
    char *argv[40], path[256];
    int n = 0;
    snprintf(path, sizeof path, "/usr/sbin/%s", prog);
    if (access(path, X_OK) != 0)
        snprintf(path, sizeof path, "/usr/bin/%s", prog);
    argv[n++] = path;
    va_list ap;
    va_start(ap, prog);
    while (n < 39 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    run_result r = run_argv(argv, 30);
    free(r.err);
    return r.out;
}

/* The host's links and routes, to compare after. */
typedef struct tb_host {
    char *links, *routes;
} tb_host;

static inline char *tb_link_names(void)
{
    char *s = tb_capture("ip", "-o", "link", "show", NULL), *out = calloc(1, strlen(s) + 1);
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        char *name = strchr(line, ' ');
        if (name) {
            size_t len = strcspn(name + 1, ":@");
            strncat(out, name + 1, len);
            strcat(out, " ");
        }
    }
    free(s);
    return out;
}

static inline tb_host tb_host_snapshot(void)
{
    return (tb_host){tb_link_names(), tb_capture("ip", "-4", "route", "show", "table", "all", NULL)};
}

typedef struct tb_inodes {
    int n;
    ino_t ino[80];
} tb_inodes;

/* Adds the inodes of NAME's namespaces not yet in *t; returns how many exist. */
static inline int tb_inodes_add(const char *name, tb_inodes *t)
{
    char prefix[32];
    int len = snprintf(prefix, sizeof prefix, "sct-%s-", name), seen = 0;
    DIR *d = opendir("/run/netns");
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        struct stat st;
        char path[300];
        if (strncmp(e->d_name, prefix, (size_t)len) != 0)
            continue;
        snprintf(path, sizeof path, "/run/netns/%s", e->d_name);
        if (stat(path, &st) != 0)
            continue;
        seen++;
        int known = 0;
        for (int i = 0; i < t->n; i++)
            known |= t->ino[i] == st.st_ino;
        if (!known && t->n < 80)
            t->ino[t->n++] = st.st_ino;
    }
    closedir(d);
    return seen;
}

static inline tb_inodes tb_inodes_of(const char *name)
{
    tb_inodes t = {0};
    tb_inodes_add(name, &t);
    return t;
}

/* No namespace, state, process, host link or host route of NAME remains. */
static inline void tb_assert_nothing_left(const char *name, const tb_inodes *ino, tb_host *before)
{
    tb_inodes now = {0};
    cr_assert_eq(tb_inodes_add(name, &now), 0, "namespaces of %s remain", name);
    char state[300];
    struct stat st;
    snprintf(state, sizeof state, "/run/scitestbed/%s", name);
    cr_assert_neq(stat(state, &st), 0, "%s remains", state);
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[300], link[64];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/ns/net", e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        unsigned long x = 0;
        if (sscanf(link, "net:[%lu]", &x) != 1)
            continue;
        for (int i = 0; i < ino->n; i++)
            cr_assert_neq(x, (unsigned long)ino->ino[i], "process %s is left in a namespace of %s",
                          e->d_name, name);
    }
    closedir(d);
    char *links = tb_link_names(), *routes = tb_capture("ip", "-4", "route", "show", "table", "all", NULL);
    cr_assert_str_eq(links, before->links, "the host's links changed");
    cr_assert_str_eq(routes, before->routes, "the host's routes changed");
    free(links);
    free(routes);
    free(before->links);
    free(before->routes);
    before->links = before->routes = NULL;
}

/* Starts `scitestbed up --ring N` and kills it with sig once `at` of its
 * namespaces exist; returns the inodes of all it had made, and its exit
 * status (128 + signal when killed) and stderr in *status and *err (NULL:
 * not wanted; *err is the caller's to free). */
static inline tb_inodes tb_kill_while_building(const char *name, const char *n, int sig, int at,
                                               int *status, char **err)
{
    tb_inodes t = {0};
    FILE *errf = tmpfile();
    cr_assert_not_null(errf);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fileno(errf), 2);
        execl(run_prog("scitestbed", 0), "scitestbed", "--name", name, "up", "--ring", n, (char *)NULL);
        _exit(127);
    }
    int seen = 0;
    for (int k = 0; k < 3000 && seen < at; k++) {
        seen = tb_inodes_add(name, &t);
        usleep(2000);
    }
    cr_assert_geq(seen, at, "up made %d namespaces in 6 s", seen);
    kill(pid, sig);
    int st;
    waitpid(pid, &st, 0);
    tb_inodes_add(name, &t);
    cr_assert(WIFSIGNALED(st) || WEXITSTATUS(st) != 0, "up was not interrupted");
    if (status)
        *status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    char *text = run_slurp(errf);
    fclose(errf);
    if (err)
        *err = text;
    else
        free(text);
    return t;
}

/* `scitestbed up --ring N -- scitestbed run -- sleep 300`, killed with
 * SIGTERM once a sleep runs in every node; its exit status in *status. */
static inline tb_inodes tb_kill_while_running(const char *name, const char *n, int *status)
{
    tb_inodes t = {0};
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        setpgid(0, 0);
        execl(run_prog("scitestbed", 0), "scitestbed", "--name", name, "up", "--ring", n, "--",
              run_prog("scitestbed", 0), "run", "--", "sleep", "300", (char *)NULL);
        _exit(127);
    }
    int sleeping = 0, want = atoi(n);
    for (int k = 0; k < 300 && sleeping < want; k++) {
        usleep(100000);
        tb_inodes_add(name, &t);
        char *ps = tb_capture("ps", "-eo", "comm", NULL);
        sleeping = 0;
        for (char *p = ps; (p = strstr(p, "\nsleep\n")) != NULL; p++)
            sleeping++;
        free(ps);
    }
    cr_assert_geq(sleeping, want, "the command did not start on every node");
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st) || WEXITSTATUS(st) != 0);
    *status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    return t;
}

/* How many processes named comm run in NAME's nodes 0..nodes-1. */
static inline int tb_running_in_nodes(const char *name, int nodes, const char *comm)
{
    int found = 0;
    for (int i = 0; i < nodes; i++) {
        char ns[64];
        snprintf(ns, sizeof ns, "sct-%s-%d", name, i);
        char *pids = tb_capture("ip", "netns", "pids", ns, NULL);
        for (char *p = strtok(pids, "\n"); p; p = strtok(NULL, "\n")) {
            char path[64], c[64] = "";
            snprintf(path, sizeof path, "/proc/%s/comm", p);
            FILE *fp = fopen(path, "r");
            if (fp && fgets(c, sizeof c, fp))
                c[strcspn(c, "\n")] = '\0';
            if (fp)
                fclose(fp);
            found += strcmp(c, comm) == 0;
        }
        free(pids);
    }
    return found;
}

/* next[i][j]: the node to which node i's kernel sends packets for node j
 * (from its /32 route's gateway, 198.19.0.(k+1) for node k). */
static inline void tb_read_next_hops(const char *name, long nodes, long next[64][64])
{
    for (long i = 0; i < nodes; i++) {
        char ns[64];
        snprintf(ns, sizeof ns, "sct-%s-%ld", name, i);
        for (long j = 0; j < nodes; j++)
            next[i][j] = -1;
        char *s = tb_capture("ip", "-n", ns, "-4", "route", "show", NULL);
        for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
            int dst, via;
            if (sscanf(line, "198.19.0.%d via 198.19.0.%d", &dst, &via) == 2 && dst >= 1 &&
                dst <= nodes && via >= 1 && via <= nodes)
                next[i][dst - 1] = via - 1;
        }
        free(s);
    }
}

/* Packets sent on node i's link dev so far (the kernel's counter). */
static inline long tb_tx_packets(const char *name, int i, const char *dev)
{
    char ns[64], file[128];
    snprintf(ns, sizeof ns, "sct-%s-%d", name, i);
    snprintf(file, sizeof file, "/sys/class/net/%s/statistics/tx_packets", dev);
    char *s = tb_capture("ip", "netns", "exec", ns, "cat", file, NULL);
    long v = atol(s);
    free(s);
    return v;
}

#endif
