/* runcmd: test helper that runs a program of ours with a time limit and
 * captures its exit status, stdout and stderr (header-only, tests only). */
#ifndef SCITORUS_TESTS_RUNCMD_H
#define SCITORUS_TESTS_RUNCMD_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

/* The programs a test runs get the signals a terminal's user gives them:
 * a test binary started from a background job or under nohup inherits
 * SIGINT or SIGHUP ignored, which its children would inherit in turn and a
 * shell script cannot trap; so every test binary starts with the defaults. */
__attribute__((constructor)) static void run_signals_default(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

typedef struct run_result {
    int status;      /* exit status, or 128 + signal, or 124 on timeout */
    char *out;       /* captured stdout (malloc'ed, NUL-terminated) */
    char *err;       /* captured stderr */
} run_result;

/* Path of one of our programs: $SCITORUS_BIN/<name> (sanitized build), or
 * $SCITORUS_BIN_REL/<name> when rel != 0 (optimised build, for timing). */
/* Serializes the tests that time real message passing with busy-waits of
 * known length (a 2-core machine): an exclusive lock on one file in /tmp,
 * held until the test's process ends.  Criterion runs tests in parallel
 * unless told --jobs 1 (bin/test/test_logp run by hand), and two such runs
 * at once share each core between two spinning processes: the injected
 * 160 us gap came out at 402-520 us, with a narrow interval. */
static inline void run_timing_lock(void)
{
    int fd = open("/tmp/scitorus-timing-tests.lock", O_RDWR | O_CREAT, 0666);
    if (fd >= 0)
        while (flock(fd, LOCK_EX) != 0)
            ;
}

static inline const char *run_prog(const char *name, int rel)
{
    static char path[4][512];
    static int slot;
    const char *dir = getenv(rel ? "SCITORUS_BIN_REL" : "SCITORUS_BIN");
    char *p = path[slot++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir ? dir : (rel ? "bin" : "bin/san"), name);
    return p;
}

static inline char *run_slurp(FILE *fp)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    size_t n;
    rewind(fp);
    while ((n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    return buf;
}

/* Runs argv (argv[0] a path) with stdin from /dev/null, killing it after
 * timeout_s seconds. */
static inline run_result run_argv(char *const argv[], int timeout_s)
{
    run_result r = {0, NULL, NULL};
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        FILE *in = freopen("/dev/null", "r", stdin);
        (void)in;
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        setpgid(0, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0, waited = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (waited >= timeout_s * 100) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            r.status = 124;
            goto done;
        }
        usleep(10000);
        waited++;
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
done:
    r.out = run_slurp(out);
    r.err = run_slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

/* Runs a NULL-terminated list of arguments after the program path. */
static inline run_result run_cmd(const char *prog, int timeout_s, ...)
{
    char *argv[64];
    int n = 0;
    va_list ap;
    argv[n++] = (char *)prog;
    va_start(ap, timeout_s);
    while (n < 63 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv, timeout_s);
}

static inline void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

/* Number of lines in s. */
static inline int run_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A usage/file error: the expected status, exactly one stderr line that
 * contains `word`, and no sanitizer report. */
static inline void run_assert_error(const run_result *r, int status, const char *word,
                                    const char *what)
{
    cr_assert_eq(r->status, status, "%s: status %d, stderr: %s", what, r->status, r->err);
    cr_assert_eq(run_lines(r->err), 1, "%s: stderr not one line: %s", what, r->err);
    cr_assert_not_null(strstr(r->err, word), "%s: '%s' not in: %s", what, word, r->err);
    cr_assert_null(strstr(r->err, "Sanitizer"), "%s", what);
    cr_assert_null(strstr(r->err, "runtime error"), "%s", what);
}

/* dir/name in a static buffer, one of 32 that the calls take in turn, so
 * an expression may hold up to 32 such paths at once. */
static inline const char *run_path(const char *dir, const char *name)
{
    static char path[32][1200];
    static int slot;
    char *p = path[slot++ % 32];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

/* rel (a path in the repository, e.g. data/sample/x.tsv) under
 * $SCITORUS_ROOT (default: the current directory); see run_path. */
static inline const char *run_root_path(const char *rel)
{
    const char *root = getenv("SCITORUS_ROOT");
    return run_path(root ? root : ".", rel);
}

/* Path of tests/fixtures/<rel> under $SCITORUS_ROOT; see run_path. */
static inline const char *run_fixture(const char *rel)
{
    char in_repo[600];
    snprintf(in_repo, sizeof in_repo, "tests/fixtures/%s", rel);
    return run_root_path(in_repo);
}

/* Writes len bytes of data (NUL bytes included) to path, asserting that
 * every byte reached the file. */
static inline void run_write_data(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, fp), len, "%s", path);
    cr_assert_eq(fclose(fp), 0, "%s", path);
}

/* Writes the string text to path. */
static inline void run_write_text(const char *path, const char *text)
{
    run_write_data(path, text, strlen(text));
}

/* The whole content of path (malloc'ed, NUL-terminated). */
static inline char *run_read_text(const char *path)
{
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp, "%s", path);
    char *s = run_slurp(fp);
    fclose(fp);
    return s;
}

/* A private temporary directory for one test: tmpl is "/tmp/...-XXXXXX". */
static inline void run_tmpdir_make(char *tmpl)
{
    cr_assert_not_null(mkdtemp(tmpl), "mkdtemp %s", tmpl);
}

static inline void run_tmpdir_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Waits up to limit_s for pid (started by the test) to end; returns its exit
 * status or 128 + signal, or -1 after killing its process group on timeout. */
static inline int run_wait_exit(pid_t pid, int limit_s)
{
    int st;
    for (int i = 0; i < limit_s * 100; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* Starts argv (argv[0] a path) in a process group of its own, so that a
 * test can signal the whole group as a terminal's Ctrl-C does (set on both
 * sides of the fork: no race with an early kill(-pid)); stdin and stdout
 * are /dev/null, stderr goes to err_path (created or truncated; NULL:
 * /dev/null).  Not waited for: run_wait_exit. */
static inline pid_t run_spawn(char *const argv[], const char *err_path)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        int err = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : nul;
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(err, 2);
        setpgid(0, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

/* Whether process pid exists and is not a zombie. */
static inline int run_alive(pid_t pid)
{
    char path[64], state = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    if (fscanf(fp, "%*d %*s %c", &state) != 1)
        state = 0;
    fclose(fp);
    return state && state != 'Z';
}

/* Live processes other than the test's own whose command line (arguments
 * joined by spaces) contains needle and not avoid (NULL: no exclusion).
 * Stores up to cap pids in out (NULL: only counts); returns the count. */
static inline int run_pids_with(const char *needle, const char *avoid, pid_t *out, int cap)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) && (!out || n < cap)) {
        char path[300], buf[4096];
        pid_t pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        for (size_t i = 0; i < len; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[len] = '\0';
        if (!strstr(buf, needle) || (avoid && strstr(buf, avoid)) || !run_alive(pid))
            continue;
        if (out)
            out[n] = pid;
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Files under directory d that processes running prog (and not mpirun) hold
 * open: an MPI benchmark's rank 0 opens its outputs, nameless temporaries
 * ("d/#123 (deleted)"), past MPI_Init and holds them until the end. */
static inline int run_files_open_under(const char *prog, const char *d)
{
    pid_t ranks[64];
    int nr = run_pids_with(prog, "mpirun", ranks, 64), n = 0;
    for (int r = 0; r < nr; r++) {
        char path[300];
        snprintf(path, sizeof path, "/proc/%d/fd", (int)ranks[r]);
        DIR *fds = opendir(path);
        struct dirent *f;
        while (fds && (f = readdir(fds))) {
            char link[600], target[600];
            snprintf(link, sizeof link, "%s/%s", path, f->d_name);
            ssize_t k = readlink(link, target, sizeof target - 1);
            target[k > 0 ? k : 0] = '\0';
            n += strncmp(target, d, strlen(d)) == 0 && target[strlen(d)] == '/';
        }
        if (fds)
            closedir(fds);
    }
    return n;
}

/* Waits up to limit_s for the file at path to contain needle (a progress
 * line of a program started by run_spawn); returns whether it did. */
static inline int run_wait_text(const char *path, const char *needle, int limit_s)
{
    for (int i = 0; i < limit_s * 100; i++, usleep(10000)) {
        FILE *fp = fopen(path, "r");   /* not there yet: not started */
        if (!fp)
            continue;
        char *text = run_slurp(fp);
        fclose(fp);
        int found = strstr(text, needle) != NULL;
        free(text);
        if (found)
            return 1;
    }
    return 0;
}

#endif
