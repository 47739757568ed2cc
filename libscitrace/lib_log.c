/* lib_log: the rank file of libscitrace.so, written through a shared
 * mapping of a window of the file: a record is in the kernel's page cache as
 * soon as it is written, so it survives SIGKILL and crashes of the process
 * (not of the machine: every SCITRACE_FLUSH_MS, default 1000, the window is
 * handed to the kernel's write-back with msync).  SIGTERM, SIGINT, SIGHUP
 * and crash signals write the closing lines first, then take their previous
 * action.  Format: trace/tracebin.h (records), trace/tracefile.h (lines). */
#include "libscitrace/lib.h"
#include "trace/tracebin.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mapped window: 4 MiB, so a window move (munmap, fallocate, mmap: some
 * microseconds) comes once per ~10^5 calls. */
#define WINDOW (4u << 20)
#define PREFETCH_AHEAD 256
#define DEFAULT_FLUSH_MS 1000

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGFPE,
                                    SIGILL, SIGABRT};
#define NSIG_CAUGHT (sizeof fatal_signals / sizeof fatal_signals[0])

static struct {
    int fd, rank, finished;
    char *win;                  /* mapped [base, base + len) of the file */
    uint64_t base, len, pos;    /* pos: committed bytes (whole records) */
    uint64_t end;               /* base + len while mapped, else 0 */
    uint64_t lines;             /* the text lines the records stand for */
    char *line;                 /* the text record being written */
    uint64_t filled;            /* the file holds blocks (zeros) up to here */
    int open_sig;               /* the open call's slot (trace_call_open) */
    uint64_t open_off, open_lo; /* its record's offset and first 8 bytes */
    char *open_p;               /* the record in the window, NULL once moved out */
    int64_t tbase;              /* the records' time base (the open call's entry) */
    int64_t flush_ns, flush_ticks, last_flush;   /* times in ticks but flush_ns */
    int64_t last_anchor, anchor_ticks, next_check;   /* next_check: the earlier of the two */
    struct sigaction old[NSIG_CAUGHT];
} lg = {.fd = -1};

int trace_enabled;

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
    lg.win = NULL, lg.end = 0;
    lg.base = lg.pos / (uint64_t)page * (uint64_t)page;
    lg.len = lg.pos - lg.base + need;
    lg.len = lg.len < WINDOW ? WINDOW : (lg.len + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
    /* blocks allocated now: a full disk is an error here, not a SIGBUS later */
    int rc = posix_fallocate(lg.fd, (off_t)lg.base, (off_t)lg.len);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* and written with zeros: a record then lands in a page of the page
     * cache, where the first write to a page the file system has only
     * reserved costs a fault of several steps (make bench-trace) */
    static char zeros[1u << 18];   /* never written: .bss, no file or memory */
    for (uint64_t at = lg.filled > lg.base ? lg.filled : lg.base; at < lg.base + lg.len;) {
        size_t n = lg.base + lg.len - at < sizeof zeros ? (size_t)(lg.base + lg.len - at) : sizeof zeros;
        ssize_t got = pwrite(lg.fd, zeros, n, (off_t)at);
        if (got <= 0)
            return -1;
        at += (uint64_t)got;
        lg.filled = at;
    }
    void *w = mmap(NULL, lg.len, PROT_READ | PROT_WRITE, MAP_SHARED, lg.fd, (off_t)lg.base);
    if (w == MAP_FAILED)
        return -1;
    /* each page's write fault taken here, not in the calls (MAP_POPULATE
     * would map the pages read-only and leave a dearer fault to the first
     * write); a kernel without it (before Linux 5.14) faults as before */
#ifdef MADV_POPULATE_WRITE
    (void)madvise(w, lg.len, MADV_POPULATE_WRITE);
#endif
    lg.win = w, lg.end = lg.base + lg.len;
    lg.open_p = trace_call_open && lg.open_off >= lg.base && lg.open_off + sizeof(tracebin_call) <= lg.base + lg.len
                    ? lg.win + (lg.open_off - lg.base) : NULL;
    return 0;
}

/* Room for a record of `bytes` at the committed end, or NULL. */
static inline __attribute__((always_inline)) char *room(size_t bytes)
{
    if (!trace_enabled)
        return NULL;
    if (lg.pos + bytes > lg.end && move_window(bytes) != 0) {
        stop("cannot extend the rank file");
        return NULL;
    }
    return lg.win + (lg.pos - lg.base);
}

static void commit(char *p, uint8_t type, size_t bytes);

/* An S record: the scale of the times after it (trace_clk's). */
static void write_scale(void)
{
    char *p = room(sizeof(tracebin_scale));
    if (!p)
        return;
    tracebin_scale sc = {0, {0}, trace_clk.tsc0, trace_clk.ns0, trace_clk.mult};
    memcpy(p, &sc, sizeof sc);
    commit(p, TRACEBIN_SCALE, sizeof sc);
    /* a second and a flush period in ticks, by the scale just written */
    lg.anchor_ticks = trace_clock_ticks(1000000000);
    lg.flush_ticks = lg.flush_ns > 0 ? trace_clock_ticks(lg.flush_ns) : 0;
}

/* Checks, after each entry record and text line, whether the window is due
 * to the disk and the clock to a new anchor: on the time the record read,
 * not a clock read of its own (a clock read is much of a call's cost). */
static void periodic(void)
{
    int64_t now = trace_clk.now;
    if (lg.flush_ticks > 0 && now - lg.last_flush >= lg.flush_ticks) {
        msync(lg.win, lg.len, MS_ASYNC);
        lg.last_flush = now;
    }
    if (trace_clk.tsc && now - lg.last_anchor >= lg.anchor_ticks) {
        trace_clock_anchor();
        write_scale();
        lg.last_anchor = now;
    }
    lg.next_check = trace_clk.tsc ? lg.last_anchor + lg.anchor_ticks : INT64_MAX;
    if (lg.flush_ticks > 0 && lg.last_flush + lg.flush_ticks < lg.next_check)
        lg.next_check = lg.last_flush + lg.flush_ticks;
}

static inline void after_record(void)
{
    if (trace_clk.now >= lg.next_check)
        periodic();
}

/* The record at p, of `bytes`, becomes readable: its type byte last.  The
 * release stores here and below are plain stores on x86-64, which keeps
 * stores in order (TSO): the kill guarantee costs no fence there. */
static void commit(char *p, uint8_t type, size_t bytes)
{
    __atomic_store_n((uint8_t *)p, type, __ATOMIC_RELEASE);
    lg.pos += bytes;
}

char *trace_line(size_t need)
{
    char *p = room(tracebin_size(need));
    lg.line = p;
    return p ? p + sizeof(tracebin_head) : NULL;
}

void trace_line_done(char *end)
{
    char *text = lg.line + sizeof(tracebin_head);
    tracebin_head h = {0, (uint8_t)trace_call_open, 0, (uint32_t)(end - text - 1)};   /* no '\n' */
    memcpy(lg.line, &h, sizeof h);
    end[-1] = '\0';
    commit(lg.line, TRACEBIN_TEXT, tracebin_size(h.n));
    lg.lines++;
    after_record();
}

/* --- the calls' records: each signature (the words of an entry or of a
 * result) stored once in its slot, a call one 16-byte record after that */

typedef struct sig_slot {
    int64_t *w;
    uint32_t n, cap;
    int valid;
    uint32_t gen;               /* how many times the slot was defined */
} sig_slot;

static sig_slot defs[TRACEBIN_SLOTS], results[TRACEBIN_SLOTS];
/* The slot a call site's entry took last (by its caller and kind), and the
 * slot an entry signature's result took last: in a loop both repeat, and a
 * hit costs one comparison of the words, no hashing. */
#define SITE_HINTS 1024
static uint16_t site_hint[SITE_HINTS], result_hint[TRACEBIN_SLOTS];

int64_t *trace_wbuf;
size_t trace_wcap;

int trace_words_grow(size_t n)
{
    if (n <= trace_wcap)
        return 0;
    if (n > TRACEBIN_MAX_WORDS)
        return -1;
    size_t cap = n < 64 ? 64 : n;
    int64_t *g = realloc(trace_wbuf, cap * sizeof *g);
    if (!g)
        return -1;
    trace_wbuf = g, trace_wcap = cap;
    return 0;
}

static inline int same(const sig_slot *s, const int64_t *w, size_t n)
{
    if (!s->valid || s->n != n)
        return 0;
    if (n > 8)   /* the library's compare goes a vector at a time */
        return memcmp(s->w, w, n * sizeof *w) == 0;
    for (size_t i = 0; i < n; i++)
        if (s->w[i] != w[i])
            return 0;
    return 1;
}

/* The slot of w[0..n) in table t by the words' hash, its definition record
 * written (*wrote set) when the slot held something else; -1 when tracing
 * stopped. */
static int intern_hashed(sig_slot *t, uint8_t type, const int64_t *w, size_t n, int *wrote)
{
    uint64_t h = n;   /* products independent of each other: they overlap */
    for (size_t i = 0; i < n; i++)
        h += ((uint64_t)w[i] ^ (i * 0xD6E8FEB86659FD93ull)) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    unsigned k = (unsigned)(h ^ (h >> 23)) & (TRACEBIN_SLOTS - 1);
    sig_slot *s = &t[k];
    if (same(s, w, n))
        return (int)k;
    s->valid = 0, s->gen++;
    if (n > s->cap) {
        int64_t *g = realloc(s->w, n * sizeof *g);
        if (!g) {
            errno = ENOMEM;
            stop("out of memory");
            return -1;
        }
        s->w = g, s->cap = (uint32_t)n;
    }
    char *p = room(tracebin_size(n * sizeof *w));
    if (!p)
        return -1;
    tracebin_head hd = {0, 0, (uint16_t)k, (uint32_t)n};
    memcpy(p, &hd, sizeof hd);
    memcpy(p + sizeof hd, w, n * sizeof *w);
    commit(p, type, tracebin_size(n * sizeof *w));
    if (n)
        memcpy(s->w, w, n * sizeof *w);
    s->n = (uint32_t)n, s->valid = 1;
    *wrote = 1;
    return (int)k;
}

/* The slot of w[0..n): the hinted one when it holds them. */
static inline __attribute__((always_inline)) int intern(sig_slot *t, uint16_t *hint, uint8_t type,
                                                        const int64_t *w, size_t n, int *wrote)
{
    *wrote = 0;
    if (same(&t[*hint], w, n))
        return *hint;
    int k = intern_hashed(t, type, w, n, wrote);
    if (k >= 0)
        *hint = (uint16_t)k;
    return k;
}

/* A T record: the time base becomes t (calls more than 2^32 ticks apart). */
static int new_base(int64_t t)
{
    char *p = room(sizeof(tracebin_time));
    if (!p)
        return -1;
    tracebin_time tt = {0, 0, 0, 0, t};
    memcpy(p, &tt, sizeof tt);
    commit(p, TRACEBIN_TIME, sizeof tt);
    lg.tbase = t;
    return 0;
}

/* The entry record, at time t, of a call whose signature is in slot sig. */
static inline __attribute__((always_inline)) void call_record(int sig, int64_t t)
{
    if (t - lg.tbase > (int64_t)UINT32_MAX && new_base(t) != 0)
        return;
    char *p = room(sizeof(tracebin_call));
    if (!p)
        return;
    /* the line 4 lines ahead is fetched now, so a record's first store to a
     * new line finds it in the cache (past the window a prefetch is dropped,
     * never faults); bench-trace's 1a times it, against BEFORE_LIB */
    __builtin_prefetch(p + PREFETCH_AHEAD, 1);
    /* {'>', 0, sig, dt} then {dur 0, res 0}: the first 8 bytes last, in one
     * store, so a reader sees the record whole or not at all */
    uint64_t lo = TRACEBIN_CALL | (uint64_t)sig << 16 | (uint64_t)(t - lg.tbase) << 32, hi = 0;
    memcpy(p + 8, &hi, sizeof hi);
    __atomic_store_n((uint64_t *)(void *)p, lo, __ATOMIC_RELEASE);
    lg.open_off = lg.pos, lg.open_lo = lo, lg.open_p = p;
    lg.pos += sizeof(tracebin_call);
    lg.tbase = t;
    trace_call_open = 1, lg.open_sig = sig;
    lg.lines++;
    after_record();
}

/* The entry signature's slot (written when new), or -1. */
static int entry_slot(trace_words *a)
{
    if (!a->w || !trace_enabled)
        return -1;
    uint64_t site = ((uint64_t)a->w[2] ^ ((uint64_t)a->w[0] << 52)) * 0x9E3779B97F4A7C15ull;
    int wrote;
    return intern(defs, &site_hint[site >> 54], TRACEBIN_DEF, a->w, a->n, &wrote);
}

void trace_enter_done(trace_words *a)
{
    int sig = entry_slot(a);
    if (sig >= 0)
        call_record(sig, trace_now());
}

/* --- call sites: the raw arguments (handles and numbers) of a site's last
 * call and the slot its words took; a call that repeats them, with no
 * communicator or datatype registered or freed since (trace_epoch) and
 * the slot not redefined, takes the slot without building its words. */

/* Direct-mapped: two live sites in one entry take the slow path by turns.
 * By the birthday bound, 14 sites (halo3d's) meet in 1024 entries with odds
 * of 8%, in 4096 of 2%; entries never touched cost no memory. */
#define SITES_BITS 12
#define SITES (1u << SITES_BITS)
typedef struct site {
    const void *caller;
    uint32_t kind, phase, epoch, gen;
    int slot, comm_id;
    int64_t key[TRACE_KEY_N];
} site;
static site sites[SITES];
uint32_t trace_epoch;

/* By caller and kind, and the key's next two words (a peer and a tag): a
 * loop over neighbours from one call site keeps a site per neighbour. */
static inline site *site_of(enum trace_kind kind, const void *caller, const int64_t *key)
{
    uint64_t h = (uint64_t)(uintptr_t)caller ^ ((uint64_t)kind << 52);
    h ^= (uint64_t)key[1] << 20 ^ (uint64_t)key[2] << 38;
    return &sites[(h * 0x9E3779B97F4A7C15ull) >> (64 - SITES_BITS)];
}

/* One test of every word: a repeated call passes all of them (a slot's gen
 * changes whenever it is redefined or left invalid). */
int trace_enter_site(enum trace_kind kind, const void *caller, const int64_t *key, int *comm_id,
                     int64_t t)
{
    const site *s = site_of(kind, caller, key);
    uint64_t d = ((uint64_t)(uintptr_t)s->caller ^ (uint64_t)(uintptr_t)caller) |
                 (s->kind ^ (uint32_t)kind) | (s->phase ^ (uint32_t)trace_phase) |
                 (s->epoch ^ trace_epoch) | (s->gen ^ defs[s->slot].gen);
    d |= (uint64_t)((s->key[0] ^ key[0]) | (s->key[1] ^ key[1]) | (s->key[2] ^ key[2]) |
                    (s->key[3] ^ key[3]) | (s->key[4] ^ key[4]));
    if (d)
        return 0;
    *comm_id = s->comm_id;
    call_record(s->slot, t);
    return 1;
}

void trace_enter_site_done(trace_words *a, const int64_t *key, int comm_id, int64_t t)
{
    int sig = entry_slot(a);
    if (sig < 0)
        return;
    site *s = site_of((enum trace_kind)a->w[0], (const void *)(uintptr_t)a->w[2], key);
    *s = (site){(const void *)(uintptr_t)a->w[2], (uint32_t)a->w[0], (uint32_t)a->w[1],
                trace_epoch, defs[sig].gen, sig, comm_id, {0}};
    memcpy(s->key, key, sizeof s->key);
    call_record(sig, t);
}

int trace_call_open;
int64_t trace_exit_t;

/* The call's record at the offset it was written at, in a window that
 * moved on since (a long definition came between): through the file. */
static void complete_in_file(uint64_t lo, uint64_t hi)
{
    char c[16];
    memcpy(c, &lo, 8), memcpy(c + 8, &hi, 8);
    if (pwrite(lg.fd, c, sizeof c, (off_t)lg.open_off) != (ssize_t)sizeof c)
        stop("cannot complete a call's record");
}

/* The first 8 bytes and the last 8 of a completed call's record:
 * {'<', wrote, sig, dt, dur, res}. */
static inline void done_words(int res, int wrote, int64_t dur, uint64_t *lo, uint64_t *hi)
{
    *lo = (lg.open_lo & ~(uint64_t)0xffff) | TRACEBIN_DONE | (uint64_t)wrote << 8;
    *hi = (uint64_t)(uint32_t)dur | (uint64_t)res << 32;
}

/* The result's slot when it is not the hinted one; -1 when tracing stopped.
 * Out of line, as the completions below: the repeated return then needs
 * fewer registers. */
static __attribute__((noinline)) int result_slot(const trace_words *r, int *wrote)
{
    int k = intern_hashed(results, TRACEBIN_RES, r->w, r->n, wrote);
    if (k >= 0)
        result_hint[lg.open_sig] = (uint16_t)k;
    return k;
}

/* A call of 2^32 ticks or more, whose record cannot say it: an E record of
 * its own; or a record the window moved past: through the file.  -1 when
 * tracing stopped. */
static __attribute__((noinline, cold)) int complete_rare(int res, int wrote, int64_t dur)
{
    if (dur > (int64_t)UINT32_MAX) {
        char *p = room(sizeof(tracebin_time));
        if (!p)
            return -1;
        tracebin_time e = {0, 0, (uint16_t)res, 0, trace_exit_t};
        memcpy(p, &e, sizeof e);
        commit(p, TRACEBIN_EXIT, sizeof e);
        return 0;
    }
    uint64_t lo, hi;
    done_words(res, wrote, dur, &lo, &hi);
    complete_in_file(lo, hi);
    return 0;
}

void trace_exit_done(trace_words *r)
{
    if (!r->w || !trace_enabled)   /* r->w: the call is open (trace_exit) */
        return;
    int wrote = 0, res = result_hint[lg.open_sig];
    if (!same(&results[res], r->w, r->n) && (res = result_slot(r, &wrote)) < 0)
        return;
    int64_t dur = trace_exit_t - lg.tbase;
    if (dur <= (int64_t)UINT32_MAX && lg.open_p) {
        /* the duration and result first, which a reader of a '>' record ignores */
        uint64_t lo, hi;
        done_words(res, wrote, dur, &lo, &hi);
        memcpy(lg.open_p + 8, &hi, sizeof hi);
        __atomic_store_n((uint64_t *)(void *)lg.open_p, lo, __ATOMIC_RELEASE);
    } else if (complete_rare(res, wrote, dur) != 0) {
        return;
    }
    trace_call_open = 0;
    lg.tbase = trace_exit_t;
    lg.lines++;   /* the periodic work waits for the next entry: never inside a call's exit */
}

/* One text record "TEXT" into buf: its bytes. */
static size_t text_record(char *buf, const char *text, size_t n)
{
    tracebin_head h = {TRACEBIN_TEXT, 0, 0, (uint32_t)n};
    size_t size = tracebin_size(n);
    memset(buf, 0, size);
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, text, n);
    return size;
}

/* Writes the records "status WORDS" and "end LINES" at the committed end
 * and cuts the file there: only write(2)-level calls, as a signal handler
 * may be the caller. */
static void write_closing(const char *status, const char *detail)
{
    char line[160], buf[400], *p = line;
    memcpy(p, "status", 6), p += 6;
    p = tl_s(p, status);
    if (detail)
        p = tl_s(p, detail);
    size_t n = text_record(buf, line, (size_t)(p - line));
    p = line;
    memcpy(p, "end", 3), p += 3;
    p = tl_u(p, lg.lines + 1);
    n += text_record(buf + n, line, (size_t)(p - line));
    if (pwrite(lg.fd, buf, n, (off_t)lg.pos) == (ssize_t)n)
        lg.pos += n;
    if (lg.win)
        munmap(lg.win, lg.len);
    lg.win = NULL, lg.end = 0;
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
    char *m = room(TRACEBIN_MAGIC_LEN);   /* the file's first line: its version */
    if (!m)
        return;
    memcpy(m, TRACEBIN_MAGIC, TRACEBIN_MAGIC_LEN);
    lg.pos += TRACEBIN_MAGIC_LEN;
    lg.lines++;
    write_scale();   /* before any time */
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
    trace_clock_start();
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
