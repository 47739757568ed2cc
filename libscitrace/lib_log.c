/* lib_log: the rank file of libscitrace.so, written through a shared
 * mapping of a window of the file: a line is in the kernel's page cache as
 * soon as it is written, so it survives SIGKILL and crashes of the process
 * (not of the machine: every SCITRACE_FLUSH_MS, default 1000, the window is
 * handed to the kernel's write-back with msync).  SIGTERM, SIGINT, SIGHUP
 * and crash signals write the closing lines first, then take their previous
 * action.  Format: trace/tracefile.h. */
#include "libscitrace/lib.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Mapped window: 4 MiB, so a window move (munmap, fallocate, mmap: some
 * microseconds) comes once per ~10^5 calls. */
#define WINDOW (4u << 20)
#define DEFAULT_FLUSH_MS 1000

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGFPE,
                                    SIGILL, SIGABRT};
#define NSIG_CAUGHT (sizeof fatal_signals / sizeof fatal_signals[0])

static struct {
    int fd, rank, finished;
    char *win;                  /* mapped [base, base + len) of the file */
    uint64_t base, len, pos;    /* pos: committed bytes (whole lines) */
    uint64_t lines;
    struct timespec t0;
    int64_t flush_ns, last_flush, now;   /* now: the last time read */
    int64_t last_anchor;
    /* the TSC's time: ns = ns0 + (tsc - tsc0) * mult / 2^32 (clock.c below) */
    int tsc;
    uint64_t tsc0, mult, first_tsc;
    int64_t ns0, first_ns;
    struct sigaction old[NSIG_CAUGHT];
} lg = {.fd = -1};

int trace_enabled;

/* --- the clock: where the kernel keeps time by the TSC (clocksource "tsc"), the TSC scaled to
 * CLOCK_MONOTONIC ns and re-anchored at least once a second: cheaper than clock_gettime, read
 * twice a call (make bench-trace: the tracer's cost per call). */

static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - lg.t0.tv_sec) * 1000000000 + (t.tv_nsec - lg.t0.tv_nsec);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
static uint64_t tsc_read(void)
{
    return __rdtsc();
}

static int tsc_usable(void)
{
    char cs[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(cs, sizeof cs, f))
            cs[0] = '\0';
        fclose(f);
    }
    return strcmp(cs, "tsc\n") == 0 && !getenv("SCITRACE_NO_TSC");
}
#else
static uint64_t tsc_read(void)
{
    return 0;
}

static int tsc_usable(void)
{
    return 0;
}
#endif

/* A (tsc, ns) pair read together: the tsc in the middle of two clock reads. */
static void pair(uint64_t *tsc, int64_t *ns)
{
    int64_t a = mono_ns();
    *tsc = tsc_read();
    *ns = (a + mono_ns()) / 2;
}

/* New anchor; the slope over everything since the first pair, so its
 * error (a pair's ~50 ns over the span) shrinks as the run goes on. */
static void anchor(void)
{
    uint64_t t;
    int64_t ns;
    pair(&t, &ns);
    if (t > lg.first_tsc && ns > lg.first_ns)
        lg.mult = (uint64_t)(((unsigned __int128)(ns - lg.first_ns) << 32) / (t - lg.first_tsc));
    lg.tsc0 = t, lg.ns0 = ns;
}

static void clock_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &lg.t0);
    lg.tsc = tsc_usable();
    if (!lg.tsc)
        return;
    pair(&lg.first_tsc, &lg.first_ns);
    while (mono_ns() < 2000000)   /* a first slope over 2 ms */
        ;
    anchor();
    lg.tsc = lg.mult > 0;
}

int64_t trace_now(void)
{
    int64_t t;
    if (lg.tsc)
        t = lg.ns0 + (int64_t)(((unsigned __int128)(tsc_read() - lg.tsc0) * lg.mult) >> 32);
    else
        t = mono_ns();
    lg.now = t > lg.now ? t : lg.now;   /* a new anchor never steps back */
    return lg.now;
}

static void stop(const char *why)
{
    fprintf(stderr, "scitrace: rank %d: %s: %s; tracing stops here\n", lg.rank, why,
            strerror(errno));
    trace_enabled = 0;
}

/* Maps a window holding [pos, pos + need). */
static int move_window(size_t need)
{
    long page = sysconf(_SC_PAGESIZE);
    if (lg.win)
        munmap(lg.win, lg.len);
    lg.win = NULL;
    lg.base = lg.pos / (uint64_t)page * (uint64_t)page;
    lg.len = lg.pos - lg.base + need;
    lg.len = lg.len < WINDOW ? WINDOW : (lg.len + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
    /* blocks allocated now: a full disk is an error here, not a SIGBUS later */
    int rc = posix_fallocate(lg.fd, (off_t)lg.base, (off_t)lg.len);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    void *w = mmap(NULL, lg.len, PROT_READ | PROT_WRITE, MAP_SHARED, lg.fd, (off_t)lg.base);
    if (w == MAP_FAILED)
        return -1;
    lg.win = w;
    return 0;
}

char *trace_line(size_t need)
{
    if (!trace_enabled)
        return NULL;
    if (lg.pos + need > lg.base + lg.len && move_window(need) != 0) {
        stop("cannot extend the rank file");
        return NULL;
    }
    return lg.win + (lg.pos - lg.base);
}

void trace_line_done(char *end)
{
    lg.pos = lg.base + (uint64_t)(end - lg.win);
    lg.lines++;
    /* the time the line's own record read: a second clock read per line
     * would be a large share of a call's cost (make bench-trace) */
    if (lg.flush_ns > 0 && lg.now - lg.last_flush >= lg.flush_ns) {
        msync(lg.win, lg.len, MS_ASYNC);
        lg.last_flush = lg.now;
    }
    if (lg.tsc && lg.now - lg.last_anchor >= 1000000000) {
        anchor();
        lg.last_anchor = lg.now;
    }
}

/* Writes "status WORDS\nend LINES\n" at the committed end and cuts the file
 * there: only write(2)-level calls, as a signal handler may be the caller. */
static void write_closing(const char *status, const char *detail)
{
    char buf[160], *p = buf;
    memcpy(p, "status", 6), p += 6;
    p = tl_s(p, status);
    if (detail)
        p = tl_s(p, detail);
    *p++ = '\n';
    memcpy(p, "end", 3), p += 3;
    p = tl_u(p, lg.lines + 1);
    *p++ = '\n';
    if (pwrite(lg.fd, buf, (size_t)(p - buf), (off_t)lg.pos) == p - buf)
        lg.pos += (uint64_t)(p - buf);
    if (lg.win)
        munmap(lg.win, lg.len);
    lg.win = NULL;
    if (ftruncate(lg.fd, (off_t)lg.pos) != 0)
        lg.pos = 0;   /* nothing to do about it here: the reader sees the tail */
    close(lg.fd);
    lg.fd = -1;
}

static const char *signal_word(int sig)
{
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "SIGABRT";
    }
}

static void on_signal(int sig)
{
    if (trace_enabled && !lg.finished) {
        lg.finished = 1;
        trace_enabled = 0;
        write_closing(sig == SIGTERM || sig == SIGINT || sig == SIGHUP ? "killed" : "crashed",
                      signal_word(sig));
    }
    for (size_t i = 0; i < NSIG_CAUGHT; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &lg.old[i], NULL);
    raise(sig);
}

static void at_exit(void)
{
    trace_finish("no-finalize");
}

/* One "map BASE PATH" line per loaded object: scitrace turns a caller's
 * address into file:line with addr2line on PATH at address - BASE. */
static int write_map(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    char exe[4096];
    const char *path = info->dlpi_name;
    if (!path || !*path) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return 0;
        exe[n] = '\0';
        path = exe;
    }
    /* the system's libraries (MPI's among them) would be most of the lines */
    if (path[0] != '/' || strchr(path, '\n') || strlen(path) > 4000 ||
        (path != exe && (strncmp(path, "/lib", 4) == 0 || strncmp(path, "/usr/lib", 8) == 0)))
        return 0;
    char *p = trace_line(strlen(path) + 40);
    if (p) {
        memcpy(p, "map", 3);
        p = tl_x(p + 3, (uint64_t)info->dlpi_addr);
        trace_end(tl_s(p, path));
    }
    return 0;
}

/* "key VALUE" with newlines and control characters made spaces. */
static void write_text(const char *key, const char *value, size_t cap)
{
    char *p = trace_line(strlen(key) + cap + 4);
    if (!p)
        return;
    memcpy(p, key, strlen(key));
    p += strlen(key);
    *p++ = ' ';
    for (size_t i = 0; value[i] && i < cap; i++)
        *p++ = (unsigned char)value[i] < ' ' ? ' ' : value[i];
    trace_end(p);
}

static void write_header(int size)
{
    char buf[2048], host[256] = "?";
    const char *run = getenv("SCITRACE_RUN"), *ns = getenv("PMIX_NAMESPACE");
    char own[64];
    if (!run || !*run) {
        if (ns && *ns)   /* one per mpirun job: the ranks agree */
            snprintf(own, sizeof own, "%.60s", ns);
        else
            snprintf(own, sizeof own, "pid-%ld", (long)getpid());
        run = own;
    }
    write_text("# scitrace-rank", "2", 4);
    write_text("run", run, 128);
    snprintf(buf, sizeof buf, "%d", lg.rank);
    write_text("rank", buf, 16);
    snprintf(buf, sizeof buf, "%d", size);
    write_text("ranks", buf, 16);
    gethostname(host, sizeof host - 1);
    write_text("host", host, 255);
    FILE *cl = fopen("/proc/self/cmdline", "r");
    size_t n = cl ? fread(buf, 1, sizeof buf - 1, cl) : 0;
    if (cl)
        fclose(cl);
    for (size_t i = 0; i + 1 < n; i++)
        buf[i] = buf[i] ? buf[i] : ' ';
    buf[n] = '\0';
    write_text("command", n ? buf : "?", sizeof buf);
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    snprintf(buf, sizeof buf, "%lld%09ld", (long long)wall.tv_sec, wall.tv_nsec);
    write_text("start_ns", buf, 32);
    int len = 0;   /* the analyzers expand collectives as this library does */
    if (PMPI_Get_library_version(buf, &len) == MPI_SUCCESS && len > 0)
        buf[strcspn(buf, "\n")] = '\0', write_text("mpi", buf, 120);
    dl_iterate_phdr(write_map, NULL);
}

void trace_start(void)
{
    char dir[4096], path[4200];
    const char *env = getenv("SCITRACE_DIR"), *fl = getenv("SCITRACE_FLUSH_MS");
    int size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &lg.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    clock_start();
    snprintf(dir, sizeof dir, "%s", env && *env ? env : ".");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "scitrace: rank %d: cannot create trace directory '%s': %s; not traced\n", lg.rank, dir,
                strerror(errno));
        return;
    }
    snprintf(path, sizeof path, TRACE_FILE_PATTERN, dir, lg.rank);
    lg.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (lg.fd < 0) {
        fprintf(stderr, "scitrace: rank %d: cannot create '%s': %s; not traced\n", lg.rank, path,
                strerror(errno));
        return;
    }
    long ms = fl && *fl ? atol(fl) : DEFAULT_FLUSH_MS;
    lg.flush_ns = ms > 0 ? ms * 1000000L : 0;
    trace_enabled = 1;
    write_header(size);
    trace_comm_created(MPI_COMM_WORLD);
    trace_phases_start();
    for (size_t i = 0; i < NSIG_CAUGHT; i++) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, &lg.old[i]);
    }
    atexit(at_exit);
}

void trace_finish(const char *status)
{
    if (!trace_enabled || lg.finished)
        return;
    lg.finished = 1;
    trace_enabled = 0;
    write_closing(status, NULL);
}
