/* backend_mpi: MPI point-to-point (MPI_Send/MPI_Recv by default, as
 * osu_latency times them; a direct ping-pong's batch is osu_latency's loop itself,
 * mpi_pingpong).  A rank hosts one node, or several virtual nodes of an interleaved
 * network (bench_host, network_init).  The message header travels in the
 * tag, so the payload is sent as is (no packing copy that osu_latency would
 * not make). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/backend.h"
#include "bench/backend_cli.h"
#include "mpibench/mpistop.h"
#include "mpibench/watchdog.h"
#include "topo/topo.h"

#define KINDS 4

/* How a header is packed into a tag: mixed radix, from the least
 * significant digit kind (KINDS), last (2), in_dim + 1 (dims1), target
 * (nodes), node (nodes, only when some network has more nodes than there
 * are ranks: else the node a message arrives at is the receiving rank) and
 * net (nets).  --full's four networks on 2 ranks (16 nodes at most, two
 * dimensions) need 4 x 2 x 3 x 16 x 16 x 4 = 24576 tags, within the 32767
 * that MPI guarantees (MPI_TAG_UB); Open MPI offers 2^31 - 1. */
typedef struct tag_layout {
    long nodes, dims1, nets;
    int node_in_tag;
} tag_layout;
struct bench_comm {
    int rank, size;
    int send_mode;          /* 0 MPI_Send, 1 MPI_Ssend, 2 MPI_Isend + MPI_Wait,
                               3 MPI_Isend, its MPI_Wait deferred (mpi_complete) */
    int recv_mode;          /* 0 MPI_Recv, 1 MPI_Irecv + MPI_Wait */
    MPI_Request pending;    /* send_mode 3: the last MPI_Isend, not yet waited on */
    tag_layout tags;
    MPI_Comm pp;            /* mpi_pingpong's: its two tags taken from no pattern's */
    mpistop stop;           /* a rank's stop request to rank 0 */
    int from;               /* the source named in receives: the peer of 2 ranks */
    int last_tag;           /* the last tag received and its decoding (mpi_recv) */
    bench_msg last_msg;
};

/* send_mode 3: completes the last send (MPI_REQUEST_NULL: nothing to do). */
static int mpi_complete(bench_comm *c)
{
    if (c->pending == MPI_REQUEST_NULL)
        return 0;
    return MPI_Wait(&c->pending, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : BENCH_ERR_SYSTEM;
}

static void tag_layout_make(tag_layout *t, const bench_backend_config *cfg, int ranks)
{
    t->nets = cfg->nets > 1 ? cfg->nets : 1;
    t->nodes = cfg->max_nodes > ranks ? cfg->max_nodes : ranks;
    t->node_in_tag = cfg->max_nodes > ranks;
    t->dims1 = (cfg->max_dims > 0 ? cfg->max_dims : TOPO_MAX_DIMS) + 1;
}

/* The largest tag the layout can make, +1 (in double: it may overflow). */
static double tag_count(const tag_layout *t)
{
    return (double)KINDS * 2 * (double)t->dims1 * (double)t->nodes *
           (t->node_in_tag ? (double)t->nodes : 1) * (double)t->nets;
}

static int tag_encode(const tag_layout *t, const bench_msg *m)
{
    long tag = m->net;
    if (t->node_in_tag)
        tag = tag * t->nodes + m->node;
    tag = tag * t->nodes + m->target;
    tag = tag * t->dims1 + m->in_dim + 1;
    return (int)((tag * 2 + m->last) * KINDS + m->kind);
}

static void tag_decode(const tag_layout *t, int tag, int rank, bench_msg *m)
{
    m->kind = tag % KINDS;
    tag /= KINDS;
    m->last = tag % 2;
    tag /= 2;
    m->in_dim = (int32_t)(tag % t->dims1) - 1;
    tag /= (int)t->dims1;
    m->target = (int32_t)(tag % t->nodes);
    tag /= (int)t->nodes;
    m->node = rank;
    if (t->node_in_tag) {
        m->node = (int32_t)(tag % t->nodes);
        tag /= (int)t->nodes;
    }
    m->net = tag;
}

static double mpi_now_ns(void) { return MPI_Wtime() * 1e9; }
static double mpi_tick_ns(void) { return MPI_Wtick() * 1e9; }

static int mpi_init(bench_comm **out, int *argc, char ***argv, const bench_backend_config *cfg)
{
    int flag, *ub;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return BENCH_ERR_SYSTEM;
    bench_comm *c = calloc(1, sizeof *c);
    if (!c)
        return BENCH_ERR_SYSTEM;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    c->send_mode = cfg->send_mode;
    c->pending = MPI_REQUEST_NULL;
    c->last_tag = -1;
    c->recv_mode = cfg->recv_mode;
    c->from = c->size == 2 ? 1 - c->rank : MPI_ANY_SOURCE;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    tag_layout_make(&c->tags, cfg, c->size);
    double need = tag_count(&c->tags) - 1;
    if (flag && need > *ub) {
        if (c->rank == 0)
            fprintf(stderr, "mpibench: %d ranks, %ld nodes and %ld networks need tags up to"
                            " %.0f, MPI_TAG_UB is %d\n", c->size, c->tags.nodes, c->tags.nets,
                    need, *ub);
        MPI_Finalize();
        free(c);
        return BENCH_ERR_TAGS;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &c->pp);
    watchdog_start(cfg->timeout_s, c->rank == 0);
    /* Ctrl-C or mpirun's SIGTERM (it sends SIGKILL 1 s later): rank 0
     * stops after the batch and keeps its finished points; the other
     * ranks serve on until it ends the job (a rank that left could strand
     * rank 0 in a rendezvous send) */
    mpistop_open(&c->stop);
    *out = c;
    return 0;
}

/* Between batches, rank 0: a stop asked in any rank (mpibench/mpistop.h). */
static int mpi_stop_asked(bench_comm *c)
{
    return c->rank == 0 && mpistop_check(&c->stop);
}

static int mpi_rank(const bench_comm *c) { return c->rank; }
static int mpi_size(const bench_comm *c) { return c->size; }

static int mpi_send(bench_comm *c, int to, const bench_msg *msg, const void *payload)
{
    int tag = tag_encode(&c->tags, msg);
    int n = (int)msg->len, rc;
    MPI_Request req;
    void *buf = (void *)payload;
    if (mpi_complete(c))
        return BENCH_ERR_SYSTEM;
    if (c->send_mode == 3)
        rc = MPI_Isend(buf, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &c->pending);
    else if (c->send_mode == 1)
        rc = MPI_Ssend(buf, n, MPI_BYTE, to, tag, MPI_COMM_WORLD);
    else if (c->send_mode == 2) {
        rc = MPI_Isend(buf, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else
        rc = MPI_Send(buf, n, MPI_BYTE, to, tag, MPI_COMM_WORLD);
    watchdog_progress++;
    return rc == MPI_SUCCESS ? 0 : BENCH_ERR_SYSTEM;
}

/* The timed receive is osu_latency's: MPI_Recv (--mpi-recv irecv: MPI_Irecv
 * + MPI_Wait) from the one peer when there is one, of any tag (the tag is
 * the header).  No stop polling here: stops are seen between batches, a
 * stuck peer by the watchdog, so the timed path is osu_latency's (make bench-mpi). */
static __attribute__((noinline)) int recv_plain(bench_comm *c, bench_msg *msg, void *payload,
                                                size_t cap)
{
    MPI_Status st;
    MPI_Request req;
    int count, rc;
    if (c->recv_mode == 1) {
        rc = MPI_Irecv(payload, (int)cap, MPI_BYTE, c->from, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, &st);
    } else
        rc = MPI_Recv(payload, (int)cap, MPI_BYTE, c->from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    watchdog_armed = 0;
    if (rc != MPI_SUCCESS)
        return BENCH_ERR_SYSTEM;
    watchdog_progress++;
    if (c->rank != 0)
        mpistop_poll(&c->stop);   /* passes a stop on to rank 0: one flag read otherwise */
    MPI_Get_count(&st, MPI_BYTE, &count);
    /* A ping-pong's tags repeat: decoded once, not with divisions on every
     * receive in the timed path. */
    if (st.MPI_TAG != c->last_tag) {
        memset(&c->last_msg, 0, sizeof c->last_msg);
        tag_decode(&c->tags, st.MPI_TAG, c->rank, &c->last_msg);
        c->last_tag = st.MPI_TAG;
    }
    *msg = c->last_msg;
    msg->len = count;
    return 0;
}

/* Rank 0's receive, which the watchdog may leave by a jump: sigsetjmp in a frame of its own,
 * so the receive (not inlined) is not compiled as one that returns twice, with its locals kept
 * in memory on every message. */
static __attribute__((noinline)) int recv_guarded(bench_comm *c, bench_msg *msg, void *payload,
                                                  size_t cap)
{
    if (sigsetjmp(watchdog_jump, 0))
        return BENCH_ERR_TIMEOUT;
    watchdog_armed = 1;
    return recv_plain(c, msg, payload, cap);
}

static int mpi_recv(bench_comm *c, bench_msg *msg, void *payload, size_t cap)
{
    if (mpi_complete(c))
        return BENCH_ERR_SYSTEM;
    if (c->rank == 0)
        return recv_guarded(c, msg, payload, cap);
    watchdog_armed = 1;
    return recv_plain(c, msg, payload, cap);
}

/* osu_latency's loop, as it is: MPI_Send and MPI_Recv of exactly size bytes, one tag
 * each way, nothing else per iteration (make bench-mpi, make validate's osu claim). */
static __attribute__((noinline)) void pp_loop(bench_comm *c, int peer, const void *tx, void *rx,
                                              int n, long reps, int serve)
{
    for (long i = 0; i < reps; i++)
        if (serve) {
            MPI_Recv(rx, n, MPI_BYTE, peer, 1, c->pp, MPI_STATUS_IGNORE);
            MPI_Send(tx, n, MPI_BYTE, peer, 2, c->pp);
        } else {
            MPI_Send(tx, n, MPI_BYTE, peer, 1, c->pp);
            MPI_Recv(rx, n, MPI_BYTE, peer, 2, c->pp, MPI_STATUS_IGNORE);
        }
}

/* Rank 0's batch, which the watchdog may leave by a jump (as recv_guarded). */
static __attribute__((noinline)) int pp_guarded(bench_comm *c, int peer, const void *tx,
                                                void *rx, int n, long reps)
{
    if (sigsetjmp(watchdog_jump, 0))
        return BENCH_ERR_TIMEOUT;
    watchdog_armed = 1;
    pp_loop(c, peer, tx, rx, n, reps, 0);
    watchdog_armed = 0;
    return 0;
}

static int mpi_pingpong(bench_comm *c, int peer, const void *tx, void *rx, long size, long reps,
                        int serve)
{
    int rc = 0;
    if (reps == 0)   /* MPI_Send and MPI_Recv only: --mpi-send and --mpi-recv time others */
        return c->send_mode == 0 && c->recv_mode == 0 ? 0 : BENCH_ERR_SYSTEM;
    if (mpi_complete(c))
        return BENCH_ERR_SYSTEM;
    if (serve) {
        watchdog_armed = 1;   /* waiting for rank 0 */
        pp_loop(c, peer, tx, rx, (int)size, reps, 1);
        watchdog_armed = 0;
    } else
        rc = pp_guarded(c, peer, tx, rx, (int)size, reps);
    watchdog_progress++;
    return rc;
}

static int mpi_barrier(bench_comm *c)
{
    (void)c;
    return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : BENCH_ERR_SYSTEM;
}

static int mpi_finalize(bench_comm *c, int status)
{
    if (!status)
        mpi_complete(c);
    watchdog_stop();
    if (!status) {
        mpistop_close(&c->stop);
        MPI_Comm_free(&c->pp);
    }
    free(c);
    if (status)
        MPI_Abort(MPI_COMM_WORLD, status);
    MPI_Finalize();
    return 0;
}

const bench_backend bench_backend_mpi = {
    .name = "mpi",
    .timer_name = "MPI_Wtime",
    .init = mpi_init,
    .rank = mpi_rank,
    .size = mpi_size,
    .send = mpi_send,
    .recv = mpi_recv,
    .barrier = mpi_barrier,
    .now_ns = mpi_now_ns,
    .tick_ns = mpi_tick_ns,
    .finalize = mpi_finalize,
    .complete = mpi_complete,
    .stop_asked = mpi_stop_asked,
    .cli = &bench_mpi_cli,
    .pingpong = mpi_pingpong,
};
