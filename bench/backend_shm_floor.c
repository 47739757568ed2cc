/* backend_shm_floor: the shared-memory transport's bare floor, a flag
 * bouncing between two pinned processes through the transport's places
 * (scibench --floor), and the same bounce on each place alone (--lines). */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/backend_shm.h"
#include "util/signals.h"

/* Rounds per batch: 20000 small bounces (~1-5 ms); with a payload over
 * 128 bytes, as many as copy about 2.5 MB each way (at least one). */
#define FLOOR_ROUNDS 20000
/* --lines: rounds per place and pass, 64 places and 5 passes within a second */
#define LINE_ROUNDS 4000

static double median_of(double *v, int n)
{
    gsl_sort(v, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* Waits for seq in *flag, then (copy) takes len bytes out from after it.
 * The parent (child != 0) gives up when the child has ended or its batch,
 * begun at batch_ns, has lasted timeout_ns: the floor's unit of progress is
 * a batch (a few ms), so two processes that share a CPU and pass a message
 * per scheduler tick time out instead of running for hours.  The child dies
 * with the parent (PR_SET_PDEATHSIG). */
static inline int floor_wait(_Atomic uint64_t *flag, uint64_t seq, unsigned char *to, size_t len,
                             const unsigned char *tail, pid_t child, double batch_ns,
                             double timeout_ns)
{
    int polls = 0;
    while (atomic_load_explicit(flag, memory_order_acquire) != seq) {
        if (!child || ++polls < POLLS_PER_CHECK)
            continue;
        polls = 0;
        if (waitpid(child, NULL, WNOHANG) != 0)
            return BENCH_ERR_PEER;
        if (bench_interrupted())
            return BENCH_ERR_INTERRUPT;
        if (bench_shm_now_ns() - batch_ns > timeout_ns)
            return BENCH_ERR_TIMEOUT;
    }
    if (!len)
        return 0;
    size_t near = len < PLACE_BYTES ? len : PLACE_BYTES;
    if (near < CACHE_LINE)   /* as the transport copies a small message's bytes */
        piece_copy(to, (unsigned char *)flag + sizeof *flag, near);
    else
        memcpy(to, (unsigned char *)flag + sizeof *flag, near);
    if (len > near)
        memcpy(to + near, tail, len - near);
    return 0;
}

/* Puts len bytes after *flag (copy; beyond PLACE_BYTES into tail), then publishes seq. */
static inline void floor_post(_Atomic uint64_t *flag, uint64_t seq, const unsigned char *from,
                              size_t len, unsigned char *tail)
{
    size_t near = len < PLACE_BYTES ? len : PLACE_BYTES;
    if (len > near)
        memcpy(tail, from + near, len - near);
    if (near < CACHE_LINE)
        piece_copy((unsigned char *)flag + sizeof *flag, from, near);
    else
        memcpy((unsigned char *)flag + sizeof *flag, from, near);
    atomic_store_explicit(flag, seq, memory_order_release);
}

/* One run of bounces: `batches` batches of `rounds`, batch b carrying `payload` bytes when b is
 * odd and copy is set (else none).  Round i uses the ping at place i as the channels place
 * message i (PLACES), or with lines batch b's place, b mod PLACES; the pong follows its ping
 * in a 128-byte aligned area of its own (the two never share a line, nor an adjacent-line
 * prefetch pair).  Both processes follow the schedule from the round number.  Half round
 * trips into half[0..batches). */
static int bounce(const bench_backend_config *cfg, int batches, long rounds, size_t payload,
                  int copy, int lines, double *half)
{
    size_t near = payload < PLACE_BYTES ? payload : PLACE_BYTES;
    size_t area = ALIGN_UP(sizeof(uint64_t) + near, SLOT_ALIGN);
    size_t stride = ALIGN_UP(2 * area, RING_PAGE_BYTES) + RING_PAGE_BYTES + 2 * SLOT_ALIGN;
    size_t tail = ALIGN_UP(payload - near, SLOT_ALIGN);   /* the ping's tail, then the pong's */
    size_t map_bytes = PLACES * stride + 2 * tail;
    int rc = 0;
    unsigned char *map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* each process copies from and into a buffer of its own */
    unsigned char *own = malloc(payload ? payload : 1);
    if (map == MAP_FAILED || !own) {
        if (map != MAP_FAILED)
            munmap(map, map_bytes);
        free(own);
        return BENCH_ERR_SYSTEM;
    }
    memset(own, 1, payload ? payload : 1);
    unsigned char *ping_tail = map + map_bytes - 2 * tail, *pong_tail = map + map_bytes - tail;
#define PING(i) ((_Atomic uint64_t *)(map + (lines ? ((i) - 1) / (uint64_t)rounds % PLACES \
                                                  : ((i) - 1) * PLACE_STEP % PLACES) * stride))
#define LEN(i) (copy && ((i) - 1) / (uint64_t)rounds % 2 ? payload : 0)
    uint64_t total = (uint64_t)batches * (uint64_t)rounds;
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        if (cfg->ncpus > 1)
            bench_shm_pin(cfg->cpus[1]);
        for (uint64_t i = 1; i <= total; i++) {
            _Atomic uint64_t *ping = PING(i);
            floor_wait(ping, i, own, LEN(i), ping_tail, 0, 0, 0);
            floor_post(ping + area / sizeof *ping, i, own, LEN(i), pong_tail);
        }
        _exit(0);
    }
    if (pid < 0) {
        munmap(map, map_bytes);
        free(own);
        return BENCH_ERR_SYSTEM;
    }
    if (cfg->ncpus > 0)
        bench_shm_pin(cfg->cpus[0]);
    uint64_t i = 0;
    for (int b = 0; b < batches && !rc; b++) {
        double t0 = bench_shm_now_ns();
        for (long r = 0; r < rounds && !rc; r++) {
            ++i;
            _Atomic uint64_t *ping = PING(i);
            floor_post(ping, i, own, LEN(i), ping_tail);
            rc = floor_wait(ping + area / sizeof *ping, i, own, LEN(i), pong_tail, pid, t0,
                            cfg->timeout_s * 1e9);
        }
        half[b] = (bench_shm_now_ns() - t0) / (double)rounds / 2;
    }
#undef PING
#undef LEN
    int st = 0;
    if (rc == BENCH_ERR_TIMEOUT || rc == BENCH_ERR_INTERRUPT)
        kill(pid, SIGKILL);
    if (rc != BENCH_ERR_PEER)   /* (that one has reaped the child) */
        waitpid(pid, &st, 0);
    if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        rc = BENCH_ERR_PEER;
    free(own);
    munmap(map, map_bytes);
    return rc;
}

/* Flag batches (even) and, with a payload, copy batches (odd) alternate. */
int bench_shm_floor(const bench_backend_config *cfg, int batches, size_t payload,
                    double *floor_ns, double *copy_ns)
{
    long rounds = payload > 128 ? (long)(FLOOR_ROUNDS * 128 / payload) : FLOOR_ROUNDS;
    int kinds = payload ? 2 : 1;
    double *half = malloc((size_t)(kinds * batches) * sizeof *half);
    double *by_kind = malloc((size_t)(kinds * batches) * sizeof *by_kind);
    int rc = half && by_kind ? bounce(cfg, kinds * batches, rounds < 1 ? 1 : rounds, payload, 1,
                                      0, half)
                             : BENCH_ERR_SYSTEM;
    if (!rc) {
        for (int b = 0; b < kinds * batches; b++)   /* the flag's batches, then the copy's */
            by_kind[b % kinds * batches + b / kinds] = half[b];
        *floor_ns = median_of(by_kind, batches);
        if (copy_ns)
            *copy_ns = payload ? median_of(by_kind + batches, batches) : *floor_ns;
    }
    free(half);
    free(by_kind);
    return rc;
}

/* Passes over the places in turn, each place a batch of its own. */
int bench_shm_floor_lines(const bench_backend_config *cfg, int passes, double *ns, int *places)
{
    double *half = malloc((size_t)(passes * PLACES) * sizeof *half), v[passes];
    if (!half)
        return BENCH_ERR_SYSTEM;
    int rc = bounce(cfg, passes * PLACES, LINE_ROUNDS, 0, 0, 1, half);
    for (int k = 0; !rc && k < PLACES; k++) {
        for (int p = 0; p < passes; p++)
            v[p] = half[p * PLACES + k];
        ns[k] = median_of(v, passes);
    }
    *places = PLACES;
    free(half);
    return rc;
}
