/* backend: the seam between a transport and the benchmark patterns
 * (netgauge-style module: a struct of function pointers).  A backend moves
 * messages between processes; patterns (bench/pattern.c) decide what to
 * send.  Adding a transport is one file that defines one bench_backend. */
#ifndef SCITORUS_BACKEND_H
#define SCITORUS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* What a message is for; carried with every message. */
typedef enum bench_msg_kind {
    BENCH_MSG_REQUEST = 0,   /* source -> destination */
    BENCH_MSG_RESPONSE = 1,  /* destination -> source */
    BENCH_MSG_STOP = 2,      /* measuring process -> every other: shut down */
    BENCH_MSG_CONTROL = 3    /* between batches, last 0: --node-times, a process's
                                part asked for (len 0) and given (a double, ns);
                                last 1: a batch of the transport's own ping-pong
                                follows (payload: two int32, reps and size) */
} bench_msg_kind;

/* Header of a message.  Backends carry it however suits them (the shm
 * backend in the slot's first cache line, MPI packed into the tag). */
typedef struct bench_msg {
    int32_t kind;          /* bench_msg_kind */
    int32_t last;          /* 1 on the last message of a one-way burst */
    int32_t node;          /* virtual node it arrives at (this hop) */
    int32_t target;        /* virtual node at the end of its route */
    int32_t in_dim;        /* dimension of the link it arrived on */
    int32_t net;           /* which network, when several are measured
                              interleaved (scibench --interleave); else 0 */
    int64_t len;           /* payload bytes */
} bench_msg;

typedef struct bench_backend_config bench_backend_config;

/* Reasons a call gives up (besides 0 = success). */
#define BENCH_ERR_PEER (-2)       /* a peer process died */
#define BENCH_ERR_TIMEOUT (-3)    /* no progress for --timeout seconds */
#define BENCH_ERR_INTERRUPT (-4)  /* SIGINT/SIGTERM */
#define BENCH_ERR_SYSTEM (-1)     /* errno-style failure */
#define BENCH_ERR_OUTPUT (-6)     /* writing the data file failed (disk full) */
#define BENCH_ERR_OVERRUN (-5)    /* a message was overwritten unread: the
                                     patterns broke the window they declared */
#define BENCH_ERR_TAGS (-7)       /* MPI: the run's networks need more tags
                                     than MPI_TAG_UB allows (a usage error) */
/* The most places a backend's floor_lines reports. */
#define BENCH_FLOOR_PLACES_MAX 64

typedef struct bench_comm bench_comm;   /* a backend's private state */

struct bench_backend_config {
    int procs;                   /* processes wanted (shm) */
    const int *cpus;             /* CPUs to pin process i to (shm), ncpus of them */
    int ncpus;
    size_t max_payload_bytes;    /* largest message */
    double timeout_s;            /* give up after this long without progress */
    int send_mode;               /* mpi: 0 MPI_Send, 1 MPI_Ssend, 2 MPI_Isend+Wait,
                                    3 MPI_Isend alone, its MPI_Wait deferred to
                                    the next call (send, recv or complete):
                                    LogP/MPI's os of MPI_Isend times the call */
    int recv_mode;               /* mpi: 0 MPI_Recv, 1 MPI_Irecv+Wait (--mpi-recv) */
    /* The most messages the patterns ever leave unreceived between two
     * processes: 1 for ping-pong (one message in flight in the whole
     * system; a process sends to a peer only after the peer received its
     * last message), 0 for "unbounded" (one-way bursts).  shm: a window of
     * 1 is a one-slot inbox, written with no credit round. */
    int window;
    /* What a message header ranges over, for a transport that packs it into
     * a number (mpi: the tag): networks measured interleaved (0: one), the
     * most nodes of any of them (0: one per process) and the most
     * dimensions (0: TOPO_MAX_DIMS).  shm ignores them. */
    int nets;
    long max_nodes;
    int max_dims;
};

typedef struct bench_backend {
    const char *name;            /* "shm", "mpi" */
    const char *timer_name;      /* for the data header */
    /* Starts the processes (shm: forks; mpi: MPI_Init).  Returns 0 in every
     * process; *comm is that process's state. */
    int (*init)(bench_comm **comm, int *argc, char ***argv, const bench_backend_config *cfg);
    int (*rank)(const bench_comm *comm);
    int (*size)(const bench_comm *comm);
    /* Sends a message to process `to`: header and len payload bytes. */
    int (*send)(bench_comm *comm, int to, const bench_msg *msg, const void *payload);
    /* Receives the next message for this process (from any process) into
     * msg, every field of it (net 0 where the backend carries no network
     * index), and payload (room for cap bytes). */
    int (*recv)(bench_comm *comm, bench_msg *msg, void *payload, size_t cap);
    int (*barrier)(bench_comm *comm);
    double (*now_ns)(void);
    /* Timer resolution in ns as the clock reports it. */
    double (*tick_ns)(void);
    /* Bare floor of the transport (scibench --floor; NULL where there is
     * none): a cache-line flag bouncing between two processes pinned to
     * cfg->cpus[0] and [1] through the transport's places, no payload; with payload > 0, batches of the
     * same bounce carrying payload bytes (copied in and out) alternate with
     * the flag's.  Half round trips, medians of `batches` batches, in
     * *floor_ns and *copy_ns (NULL: not wanted).  0 or a BENCH_ERR_* code. */
    int (*floor)(const bench_backend_config *cfg, int batches, size_t payload, double *floor_ns,
                 double *copy_ns);
    /* The same bounce on each of the floor's places alone (scibench --floor --lines; NULL where
     * there are none): half round trips, each the median of `passes` batches taken in turn, into
     * ns[0..*places); ns holds BENCH_FLOOR_PLACES_MAX.  0 or a BENCH_ERR_* code. */
    int (*floor_lines)(const bench_backend_config *cfg, int passes, double *ns, int *places);
    /* Ends this process's part; status != 0 means abort the others too, with
     * status as the job's exit status. */
    int (*finalize)(bench_comm *comm, int status);
    /* Completes a send whose completion was deferred (mpi send_mode 3);
     * NULL where a send call always completes it. */
    int (*complete)(bench_comm *comm);
    /* Between two batches, outside the timed part, on the measuring
     * process: 1 when a stop was asked in any process (a signal to a rank
     * other than the measuring one).  NULL: the transport's send and
     * receive report BENCH_ERR_INTERRUPT themselves. */
    int (*stop_asked)(bench_comm *comm);
    /* Its program's command line (bench/backend_cli.h). */
    const struct bench_backend_cli *cli;
    /* A batch of osu_latency's loop with process peer: reps times, size bytes sent from tx
     * and received into rx, the sender first (serve 0) or the receiver first (serve 1);
     * called with reps 0, 0 when this run may use it.  NULL: the transport has none. */
    int (*pingpong)(bench_comm *comm, int peer, const void *tx, void *rx, long size, long reps,
                    int serve);
} bench_backend;

extern const bench_backend bench_backend_shm;
extern const bench_backend bench_backend_mpi;

#endif
