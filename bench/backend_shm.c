/* backend_shm: shared memory between forked processes on one host, the
 * analogue of the thesis's SCI USRAPI benchmark.  Every
 * ordered pair of processes has a channel: a ring of slots in one anonymous
 * MAP_SHARED mapping (nothing in /dev/shm, gone when the last process
 * exits).  The sender copies header and payload into the receiver's slot and
 * then publishes a sequence number with a release store; the receiver spins
 * on its own slot with acquire loads: remote write, local poll, never remote
 * polling.  Credits (the receiver's consumed count, written into a line the
 * sender polls) keep a one-way burst from overwriting unread slots.  A
 * ping-pong declares a window of one message (bench_backend_config.window):
 * its channels are one-slot inboxes, the thesis's SCI ping-pong, and the
 * sender never waits for a credit; a receiver that finds a later message
 * than the one it waits for reports the overrun instead of losing one. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/backend.h"
#include "bench/backend_cli.h"
#include "bench/backend_shm.h"
#include "util/signals.h"

/* Ring depth: the slots starting in RING_PAGES pages (a slot of a page or more starts its
 * own), MIN_SLOTS..MAX_SLOTS; fewer pages let a streaming sender's writes delay the round
 * trip's receive (make bench-shm). */
#define RING_PAGES 16
#define MIN_SLOTS 8
#define MAX_SLOTS 64
/* A place's slot of the higher rank's direction, in the lower rank's channel: the slots of a
 * place (at most the header and PLACE_BYTES) fit below it. */
#define PAIR_OFFSET (RING_PAGE_BYTES / 2)
#define PLACES_MAX_BYTES (64u << 20)   /* all channels' places; fewer places above it */

/* One slot.  The header shares the flag's cache line, and so do the first
 * CACHE_LINE - 40 payload bytes: a small message travels in one line
 * transfer, as in shared-memory MPI transports.  Slots are line-aligned and
 * written by one sender only; the two directions use different channels,
 * so they never share a line. */
typedef struct shm_slot {
    _Atomic uint64_t seq;
    bench_msg msg;
    unsigned char payload[];    /* continues into the following lines */
} shm_slot;

/* The payload after a one-slot inbox's place: the message whose bytes it holds, stamped by the
 * sender before (odd: being written) and after, so a receiver can tell an overwrite. */
typedef struct shm_tail {
    _Atomic uint64_t stamp;
    char pad[SLOT_ALIGN - sizeof(uint64_t)];
    unsigned char bytes[];
} shm_tail;

/* The sender-side line a receiver writes its consumed count into. */
typedef struct shm_credit {
    _Atomic uint64_t acked;
    char pad[CACHE_LINE - sizeof(uint64_t)];
} shm_credit;

typedef struct shm_shared {
    _Atomic int abort_flag;                 /* any process: give up */
    char pad0[CACHE_LINE - sizeof(int)];
    _Atomic int barrier_count;
    _Atomic int barrier_gen;
    char pad1[CACHE_LINE - 2 * sizeof(int)];
} shm_shared;

struct bench_comm {
    int rank, procs;
    size_t slot_bytes;               /* stride of one slot */
    uint64_t slots, ack_every;       /* ring depth; credit period (0: none,
                                        a one-slot inbox) */
    uint64_t place_mask;             /* a one-slot inbox's places - 1 (else 0) */
    size_t place_stride;             /*   and the bytes from one place to the next */
    size_t place_payload;            /* payload bytes a place holds (a ring: all) */
    size_t tail_bytes;               /* the channel's tail after its places */
    size_t map_bytes;
    unsigned char *map;
    shm_shared *shared;
    double timeout_ns;
    pid_t *children;                 /* rank 0 only */
    struct shm_peer *peer;           /* per other process, indexed by rank */
    int next_src;                    /* round-robin start for recv */
    int last_to;                     /* the process sent to last, and */
    struct shm_peer *last_peer;      /* its peer entry (see shm_send) */
};

/* This process's view of the two channels to and from one other process,
 * with the addresses worked out once: send and recv are the measured path. */
typedef struct shm_peer {
    unsigned char *tx_slots;         /* channel rank -> peer: its first slot */
    shm_credit *tx_credit;           /*   and the credit line the peer writes */
    unsigned char *rx_slots;         /* channel peer -> rank */
    shm_credit *rx_credit;
    uint64_t sent;                   /* messages sent to the peer */
    uint64_t acked_seen;             /* last credit seen from it */
    uint64_t received;               /* messages consumed from it */
} shm_peer;

_Static_assert(sizeof(shm_slot) + PLACE_BYTES + SLOT_ALIGN <= PAIR_OFFSET,
               "a place's two slots overlap");

/* The payload bytes that share the header's line (24). */
#define HEAD_BYTES (CACHE_LINE - sizeof(shm_slot))

/* The payload after the header's line, bytes [HEAD_BYTES, n), from s to d: whole lines, then
 * the rest in powers of two (the sender's copy up to LINE_COPY_MAX). */
static void tail_copy(unsigned char *restrict d, const unsigned char *restrict s, size_t n)
{
    size_t i = HEAD_BYTES;
    for (; i + CACHE_LINE <= n; i += CACHE_LINE)
        memcpy(d + i, s + i, CACHE_LINE);
    piece_copy(d + i, s + i, n - i);
}

double bench_shm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double shm_tick_ns(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t chan_bytes(const bench_comm *c)
{
    return sizeof(shm_credit) + (c->place_mask + 1) * c->place_stride + c->tail_bytes;
}

/* Channel from -> to: its credit line, then its slots. */
static unsigned char *chan_base(const bench_comm *c, int from, int to)
{
    size_t index = (size_t)from * (size_t)c->procs + (size_t)to;
    return c->map + sizeof(shm_shared) + index * chan_bytes(c);
}

static void set_peers(bench_comm *c)
{
    for (int p = 0; p < c->procs; p++) {
        shm_peer *q = &c->peer[p];
        q->tx_credit = (shm_credit *)chan_base(c, c->rank, p);
        q->tx_slots = (unsigned char *)q->tx_credit + sizeof(shm_credit);
        q->rx_credit = (shm_credit *)chan_base(c, p, c->rank);
        q->rx_slots = (unsigned char *)q->rx_credit + sizeof(shm_credit);
        if (c->place_mask && p != c->rank) {
            /* a one-slot inbox: the two directions' places share pages, so a round trip
             * touches one page, not two (make bench-shm: the 8 B ping-pong), the lower
             * rank's channel holding both */
            unsigned char *pair = chan_base(c, c->rank < p ? c->rank : p, c->rank < p ? p : c->rank);
            q->tx_slots = pair + sizeof(shm_credit) + (c->rank > p ? PAIR_OFFSET : 0);
            q->rx_slots = pair + sizeof(shm_credit) + (p > c->rank ? PAIR_OFFSET : 0);
        }
    }
}

static shm_slot *slot_at(const bench_comm *c, unsigned char *slots, uint64_t seq)
{
    return (shm_slot *)(slots + ((seq - 1) & (c->slots - 1)) * c->slot_bytes +
                        ((seq - 1) * PLACE_STEP & c->place_mask) * c->place_stride);
}

/* A one-slot inbox's tail, after its places (off the 8 B ping-pong's path, so worked out when
 * used). */
static shm_tail *tail_of(const bench_comm *c, int from, int to)
{
    return (shm_tail *)(chan_base(c, from, to) + sizeof(shm_credit) +
                        (c->place_mask + 1) * c->place_stride);
}

/* Dead peers, Ctrl-C and timeouts, checked every POLLS_PER_CHECK spins. */
static int check_health(bench_comm *c, double *since_ns)
{
    if (bench_interrupted())
        return BENCH_ERR_INTERRUPT;
    if (atomic_load_explicit(&c->shared->abort_flag, memory_order_relaxed))
        return BENCH_ERR_PEER;
    if (c->rank == 0 && bench_child_died()) {
        atomic_store(&c->shared->abort_flag, 1);
        return BENCH_ERR_PEER;
    }
    if (c->rank != 0 && getppid() == 1)
        return BENCH_ERR_PEER;
    double now = bench_shm_now_ns();
    if (*since_ns == 0)
        *since_ns = now;
    else if (now - *since_ns > c->timeout_ns)
        return BENCH_ERR_TIMEOUT;
    return 0;
}

static int shm_send(bench_comm *c, int to, const bench_msg *msg, const void *payload)
{
    /* The last destination's peer is kept, chosen by an if: a conditional move would wait for
     * `to` on every send (make bench-shm: the 8 B ping-pong above the floor). */
    shm_peer *q;
    if (to == c->last_to) {
        q = c->last_peer;
    } else {
        q = &c->peer[to];
        c->last_to = to;
        c->last_peer = q;
    }
    uint64_t seq = ++q->sent;
    double since = 0;
    int polls = 0, rc;
    /* wait for a free slot: at most SLOTS unconsumed messages */
    while (c->ack_every && seq - q->acked_seen > c->slots) {
        q->acked_seen = atomic_load_explicit(&q->tx_credit->acked, memory_order_acquire);
        if (++polls == POLLS_PER_CHECK && (polls = 0, rc = check_health(c, &since)))
            return rc;
    }
    shm_slot *slot = slot_at(c, q->tx_slots, seq);
    size_t len = (size_t)msg->len, head = len < HEAD_BYTES ? len : HEAD_BYTES;
    size_t near = len < c->place_payload ? len : c->place_payload;
    if (len > near) {   /* the tail, stamped as a seqlock's data (shm_tail) */
        shm_tail *tail = tail_of(c, c->rank, to);
        atomic_store_explicit(&tail->stamp, 2 * seq - 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        memcpy(tail->bytes, (const unsigned char *)payload + near, len - near);
        atomic_store_explicit(&tail->stamp, 2 * seq, memory_order_release);
    }
    /* The lines after the header's, then the header's line last in one burst: the receiver
     * then finds the whole message when it sees the header (make bench-shm, ring 2).
     * The fence keeps the compiler from merging the two copies back into one. */
    if (len > LINE_COPY_MAX)
        memcpy(slot->payload + head, (const unsigned char *)payload + head, near - head);
    else if (near > head)
        tail_copy(slot->payload, payload, near);
    atomic_signal_fence(memory_order_seq_cst);
    slot->msg = *msg;
    piece_copy(slot->payload, payload, head);
    atomic_store_explicit(&slot->seq, seq, memory_order_release);
    return 0;
}

static int shm_recv(bench_comm *c, bench_msg *msg, void *payload, size_t cap)
{
    double since = 0;
    int polls = 0, rc, from = c->next_src;
    /* Poll the incoming channels round-robin, starting with the one that
     * delivered last (the only one in a ping-pong).  No division here: this
     * loop is the latency being measured. */
    for (;;) {
        if (from != c->rank) {
            shm_peer *q = &c->peer[from];
            uint64_t want = q->received + 1;
            shm_slot *slot = slot_at(c, q->rx_slots, want);
            uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
            if (seq == want) {
                *msg = slot->msg;
                if ((size_t)msg->len > cap)
                    return BENCH_ERR_SYSTEM;
                /* memcpy's wide loads at every size: a line copy here made a relay's cost
                 * depend on the machine's regime, which calibrate --full's held-out ring
                 * check catches (test_full) */
                size_t len = (size_t)msg->len;
                if (len <= c->place_payload) {
                    memcpy(payload, slot->payload, len);
                } else {   /* the tail, then its stamp: unchanged, or overwritten meanwhile */
                    shm_tail *tail = tail_of(c, from, c->rank);
                    memcpy(payload, slot->payload, c->place_payload);
                    memcpy((unsigned char *)payload + c->place_payload, tail->bytes,
                           len - c->place_payload);
                    atomic_thread_fence(memory_order_acquire);
                    if (atomic_load_explicit(&tail->stamp, memory_order_relaxed) != 2 * want)
                        return BENCH_ERR_OVERRUN;
                }
                q->received = want;
                if (c->ack_every && (want & (c->ack_every - 1)) == 0)
                    atomic_store_explicit(&q->rx_credit->acked, want,
                                          memory_order_release);
                c->next_src = from;
                return 0;
            }
            if (seq > want)
                return BENCH_ERR_OVERRUN;
        }
        if (++from == c->procs)
            from = 0;
        if (++polls == POLLS_PER_CHECK && (polls = 0, rc = check_health(c, &since)))
            return rc;
    }
}

/* A batch of a one-hop ping-pong with process peer (bench_backend.pingpong): the transport's
 * send and receive back to back, without the engine's routing between them, as
 * osu_latency's loop is MPI_Send and MPI_Recv alone (make bench-shm: against the floor). */
static int shm_pingpong(bench_comm *c, int peer, const void *tx, void *rx, long size, long reps,
                        int serve)
{
    bench_msg out = {serve ? BENCH_MSG_RESPONSE : BENCH_MSG_REQUEST, 1, peer, peer, 0, 0, size},
              in;
    int rc = 0;
    for (long i = 0; i < reps && !rc; i++) {
        if (serve && (rc = shm_recv(c, &in, rx, (size_t)size)))
            break;
        if ((rc = shm_send(c, peer, &out, tx)))
            break;
        if (!serve)
            rc = shm_recv(c, &in, rx, (size_t)size);
        if (!rc && (in.len != size || c->next_src != peer))   /* nothing else is in flight */
            rc = BENCH_ERR_SYSTEM;
    }
    return rc;
}

/* Sense-reversing barrier on two shared counters. */
static int shm_barrier(bench_comm *c)
{
    int gen = atomic_load(&c->shared->barrier_gen);
    double since = 0;
    int polls = 0, rc;
    if (atomic_fetch_add(&c->shared->barrier_count, 1) == c->procs - 1) {
        atomic_store(&c->shared->barrier_count, 0);
        atomic_fetch_add(&c->shared->barrier_gen, 1);
        return 0;
    }
    while (atomic_load(&c->shared->barrier_gen) == gen)
        if (++polls == POLLS_PER_CHECK && (polls = 0, rc = check_health(c, &since)))
            return rc;
    return 0;
}

int bench_shm_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static int alloc_counters(bench_comm *c)
{
    c->peer = calloc((size_t)c->procs, sizeof *c->peer);
    c->children = calloc((size_t)c->procs, sizeof *c->children);
    return c->peer && c->children ? 0 : -1;
}

static void free_comm(bench_comm *c)
{
    if (c->map)
        munmap(c->map, c->map_bytes);
    free(c->peer);
    free(c->children);
    free(c);
}

/* Child side of the fork: die with the parent, leave Ctrl-C to it. */
static void become_child(bench_comm *c, int rank, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);   /* the parent died before prctl took effect */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    c->rank = rank;
}

static int shm_finalize(bench_comm *c, int status);

static int shm_init(bench_comm **out, int *argc, char ***argv, const bench_backend_config *cfg)
{
    (void)argc;
    (void)argv;
    bench_comm *c = calloc(1, sizeof *c);
    if (!c)
        return BENCH_ERR_SYSTEM;
    c->procs = cfg->procs;
    c->last_to = -1;
    c->timeout_ns = cfg->timeout_s * 1e9;
    c->slot_bytes = ALIGN_UP(sizeof(shm_slot) + cfg->max_payload_bytes, SLOT_ALIGN);
    if (cfg->window == 1) {
        /* one slot, not a cycle through 64 adjacent ones (make bench-shm), moved through
         * PLACES places (see PLACES) */
        size_t near = cfg->max_payload_bytes < PLACE_BYTES ? cfg->max_payload_bytes : PLACE_BYTES;
        c->slots = 1;
        c->ack_every = 0;
        c->slot_bytes = ALIGN_UP(sizeof(shm_slot) + near, SLOT_ALIGN);
        c->place_payload = PLACE_BYTES;
        if (cfg->max_payload_bytes > PLACE_BYTES)
            c->tail_bytes = ALIGN_UP(sizeof(shm_tail) + cfg->max_payload_bytes - PLACE_BYTES, SLOT_ALIGN);
        c->place_stride = ALIGN_UP(c->slot_bytes, RING_PAGE_BYTES) + RING_PAGE_BYTES + 2 * SLOT_ALIGN;
        uint64_t places = PLACES;
        while (places > 1 &&
               (size_t)c->procs * (size_t)c->procs * places * c->place_stride > PLACES_MAX_BYTES)
            places /= 2;
        c->place_mask = places - 1;
    } else {
        c->slots = RING_PAGES * RING_PAGE_BYTES /
                   (c->slot_bytes < RING_PAGE_BYTES ? c->slot_bytes : RING_PAGE_BYTES);
        c->slots = c->slots < MIN_SLOTS ? MIN_SLOTS : c->slots > MAX_SLOTS ? MAX_SLOTS : c->slots;
        while (c->slots & (c->slots - 1))
            c->slots &= c->slots - 1;   /* a power of two: slot index by mask */
        c->ack_every = c->slots / 2;
        c->place_stride = c->slots * c->slot_bytes;
        c->place_payload = SIZE_MAX;
    }
    c->map_bytes = sizeof(shm_shared) + (size_t)c->procs * (size_t)c->procs * chan_bytes(c);
    c->map = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (c->map == MAP_FAILED) {
        c->map = NULL;
        free_comm(c);
        return BENCH_ERR_SYSTEM;
    }
    c->shared = (shm_shared *)c->map;
    if (alloc_counters(c)) {
        free_comm(c);
        return BENCH_ERR_SYSTEM;
    }
    bench_signals_install();
    pid_t parent = getpid();
    fflush(NULL);
    for (int r = 1; r < c->procs; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            atomic_store(&c->shared->abort_flag, 1);
            for (int k = 1; k < r; k++)
                kill(c->children[k], SIGKILL);
            while (wait(NULL) > 0)
                ;
            free_comm(c);
            errno = e;
            return BENCH_ERR_SYSTEM;
        }
        if (pid == 0) {
            become_child(c, r, parent);
            break;
        }
        c->children[r] = pid;
    }
    set_peers(c);
    /* A process left unpinned shares a CPU with another: its latencies are
     * scheduler ticks.  A child that cannot pin dies (rank 0 then reports a
     * dead peer); rank 0 stops its children. */
    if (cfg->ncpus > 0 && bench_shm_pin(cfg->cpus[c->rank % cfg->ncpus]) != 0) {
        fprintf(stderr, "scibench: process %d: cannot pin to CPU %d: %s\n", c->rank,
                cfg->cpus[c->rank % cfg->ncpus], strerror(errno));
        if (c->rank)
            _exit(1);
        shm_finalize(c, 1);
        return BENCH_ERR_SYSTEM;
    }
    *out = c;
    return 0;
}

static int shm_rank(const bench_comm *c) { return c->rank; }
static int shm_size(const bench_comm *c) { return c->procs; }

/* Children leave with _exit (no atexit handlers or stdio buffers of the
 * parent).  The parent reaps them, killing any that do not stop in time. */
static int shm_finalize(bench_comm *c, int status)
{
    if (c->rank != 0) {
        if (status)
            atomic_store(&c->shared->abort_flag, 1);
        _exit(status);
    }
    if (status)
        atomic_store(&c->shared->abort_flag, 1);
    int failed = 0;
    double deadline = bench_shm_now_ns() + 2e9;
    for (int r = 1; r < c->procs; r++) {
        int st;
        while (waitpid(c->children[r], &st, WNOHANG) == 0) {
            if (bench_shm_now_ns() > deadline) {
                kill(c->children[r], SIGKILL);
                waitpid(c->children[r], &st, 0);
                break;
            }
            usleep(1000);
        }
        failed |= !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    free_comm(c);
    return failed && !status ? BENCH_ERR_PEER : 0;
}

const bench_backend bench_backend_shm = {
    .name = "shm",
    .timer_name = "clock_gettime(CLOCK_MONOTONIC)",
    .init = shm_init,
    .rank = shm_rank,
    .size = shm_size,
    .send = shm_send,
    .recv = shm_recv,
    .barrier = shm_barrier,
    .now_ns = bench_shm_now_ns,
    .tick_ns = shm_tick_ns,
    .floor = bench_shm_floor,
    .floor_lines = bench_shm_floor_lines,
    .finalize = shm_finalize,
    .cli = &bench_shm_cli,
    .pingpong = shm_pingpong,
};
