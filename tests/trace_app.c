/* trace_app: small MPI programs with a known communication pattern or a
 * known way of failing, traced by tests/test_trace.c (not sanitized: it runs
 * with libscitrace.so preloaded).  Usage: trace_app MODE [N]
 *   mix         Comm_split (reversed keys) + Sendrecv, persistent ring, Bcast
 *               on the split communicator (expected matrix: test_trace.c)
 *   many N      rank 0 sends N messages to rank 1, size i % 4096 and tag
 *               i % 1000; prints each rank's peak RSS in KiB
 *   reuse       (4 ranks) four rounds k = 1..4, each on a communicator and
 *               a datatype of its own, made and freed in the round (so their
 *               handles may be reused): split by rank % 2 (k odd) or rank / 2
 *               (k even); k ints as a contiguous type (k odd) or a vector
 *               (k even); 3 Isend/Recv/Wait to the other member, from one
 *               call site per call: the tracer's per-site memory must not
 *               outlive the handles (expected matrix: test_trace.c)
 *   abort       a message 0 -> 1, then rank 1 calls MPI_Abort
 *   kill        a ring exchange, then rank 2 kills itself (SIGKILL) while
 *               the others call MPI_Finalize
 *   nofinalize  a ring exchange, then every rank exits without MPI_Finalize
 *   crash       a ring exchange, then rank 1 dies of SIGSEGV
 *   selfcost N  each rank sends itself N 1-byte messages (MPI_Isend, MPI_Recv,
 *               MPI_Wait) and prints the median ns per message over 9 rounds:
 *               no other core involved, so the difference traced - untraced
 *               is the tracer's cost per message whatever the latency regime
 *   selfbatch N as selfcost, in N batches of 256 messages timed apart;
 *               prints the 10th percentile and the median ns per message
 *               over the batches: a batch the machine's other work or a move
 *               of the tracer's file window fell into is among the slower,
 *               so the 10th percentile is the loop's own cost under load
 *   selfhalo N  halo3d's step on one rank, N steps: 6 Irecv and 6 Isend of 64
 *               doubles to itself on a periodic 3D Cartesian communicator,
 *               a Waitall of the 12, an Allreduce of one double; prints the
 *               median ns per step over 9 rounds (as selfcost: the tracer's
 *               cost per step of halo3d's mix of calls)
 *   clockcost   (no MPI) the median ns of one TSC read and of one
 *               clock_gettime(CLOCK_MONOTONIC) over 9 rounds: what the
 *               tracer's two clock reads a call cost on this machine */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MANY_SIZES 4096
#define MANY_TAGS 1000

static void ring(int rank, int size)
{
    int out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void mix(int rank, int size)
{
    MPI_Comm split;
    int sr, sn, buf[25] = {0}, in[25], b8[2] = {1, 2};
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    MPI_Comm_rank(split, &sr);
    MPI_Comm_size(split, &sn);
    MPI_Sendrecv(buf, 25, MPI_INT, (sr + 1) % sn, 1, in, 25, MPI_INT, (sr + sn - 1) % sn, 1,
                 split, MPI_STATUS_IGNORE);
    double pbuf[8] = {0}, pin[8];
    MPI_Request req[2];
    MPI_Send_init(pbuf, 8, MPI_DOUBLE, (rank + 1) % size, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(pin, 8, MPI_DOUBLE, (rank + size - 1) % size, 2, MPI_COMM_WORLD, &req[1]);
    for (int i = 0; i < 5; i++) {
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Bcast(b8, 2, MPI_INT, 0, split);
    MPI_Comm_free(&split);
}

static void many(int rank, long n)
{
    static char buf[MANY_SIZES];
    for (long i = 0; i < n; i++) {
        if (rank == 0)
            MPI_Send(buf, (int)(i % MANY_SIZES), MPI_CHAR, 1, (int)(i % MANY_TAGS), MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, MANY_SIZES, MPI_CHAR, 0, (int)(i % MANY_TAGS), MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("trace_app: rank %d peak RSS %ld KiB\n", rank, ru.ru_maxrss);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void reuse(int rank)
{
    int out[8] = {0}, in[16];
    for (int k = 1; k <= 4; k++) {
        MPI_Datatype t;
        MPI_Comm c;
        int cr, cn;
        if (k % 2)
            MPI_Type_contiguous(k, MPI_INT, &t);
        else
            MPI_Type_vector(k, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Comm_split(MPI_COMM_WORLD, k % 2 ? rank % 2 : rank / 2, rank, &c);
        MPI_Comm_rank(c, &cr);
        MPI_Comm_size(c, &cn);
        for (int i = 0; i < 3; i++) {
            MPI_Request req;
            MPI_Isend(out, 1, t, (cr + 1) % cn, 4, c, &req);
            MPI_Recv(in, 1, t, (cr + cn - 1) % cn, 4, c, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Comm_free(&c);
        MPI_Type_free(&t);
    }
}

/* n 1-byte messages to itself: Isend, Recv, Wait; ns per message. */
static double self_messages(int rank, long n)
{
    char out = 1, in;
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Request req;
        MPI_Isend(&out, 1, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &req);
        MPI_Recv(&in, 1, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - t0) * 1e9 / (double)n;
}

static void selfcost(int rank, long n)
{
    enum { ROUNDS = 9 };
    double ns[ROUNDS];
    for (int k = 0; k < ROUNDS; k++)
        ns[k] = self_messages(rank, n);
    qsort(ns, ROUNDS, sizeof ns[0], by_value);
    printf("trace_app: rank %d selfcost %.1f ns per message\n", rank, ns[ROUNDS / 2]);
}

static void selfbatch(int rank, long n)
{
    double *ns = malloc((size_t)(n > 0 ? n : 1) * sizeof *ns);
    if (!ns || n <= 0) {
        fprintf(stderr, "trace_app: selfbatch needs N > 0 batches and memory for them\n");
        free(ns);
        return;
    }
    for (long k = 0; k < n; k++)
        ns[k] = self_messages(rank, 256);
    qsort(ns, (size_t)n, sizeof ns[0], by_value);
    printf("trace_app: rank %d selfbatch p10 %.1f median %.1f ns per message\n", rank, ns[n / 10], ns[n / 2]);
    free(ns);
}

static void selfhalo(long n)
{
    enum { ROUNDS = 9, FACE = 64 };
    static double sbuf[6][FACE], rbuf[6][FACE];
    int dims[3] = {1, 1, 1}, periods[3] = {1, 1, 1};
    double ns[ROUNDS], res = 0;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Request req[12];
            for (int f = 0; f < 6; f++) {
                MPI_Irecv(rbuf[f], FACE, MPI_DOUBLE, 0, f, cart, &req[f]);
                MPI_Isend(sbuf[f], FACE, MPI_DOUBLE, 0, f, cart, &req[6 + f]);
            }
            MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
            double local = 1;
            MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, cart);
        }
        ns[k] = (MPI_Wtime() - t0) * 1e9 / (double)n;
    }
    MPI_Comm_free(&cart);
    qsort(ns, ROUNDS, sizeof ns[0], by_value);
    printf("trace_app: selfhalo %.1f ns per step\n", ns[ROUNDS / 2]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

static double mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void clockcost(void)
{
    enum { ROUNDS = 9, N = 1000000 };
    double tsc[ROUNDS], cgt[ROUNDS];
    volatile uint64_t sink = 0;
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = mono_ns();
        for (int i = 0; i < N; i++)
#if HAVE_TSC
            sink += __rdtsc();
#else
            sink += (uint64_t)i;
#endif
        double t1 = mono_ns();
        for (int i = 0; i < N; i++) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            sink += (uint64_t)t.tv_nsec;
        }
        tsc[k] = (t1 - t0) / N, cgt[k] = (mono_ns() - t1) / N;
    }
    qsort(tsc, ROUNDS, sizeof tsc[0], by_value);
    qsort(cgt, ROUNDS, sizeof cgt[0], by_value);
    if (HAVE_TSC)
        printf("trace_app: clockcost tsc %.1f ns clock_gettime %.1f ns\n", tsc[ROUNDS / 2], cgt[ROUNDS / 2]);
    else
        printf("trace_app: clockcost tsc - ns clock_gettime %.1f ns\n", cgt[ROUNDS / 2]);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "clockcost") == 0) {
        clockcost();
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "mix") == 0) {
        mix(rank, size);
    } else if (strcmp(mode, "many") == 0) {
        many(rank, argc > 2 ? atol(argv[2]) : 1000);
    } else if (strcmp(mode, "reuse") == 0) {
        reuse(rank);
    } else if (strcmp(mode, "selfcost") == 0) {
        selfcost(rank, argc > 2 ? atol(argv[2]) : 100000);
    } else if (strcmp(mode, "selfbatch") == 0) {
        selfbatch(rank, argc > 2 ? atol(argv[2]) : 4000);
    } else if (strcmp(mode, "selfhalo") == 0) {
        selfhalo(argc > 2 ? atol(argv[2]) : 20000);
    } else if (strcmp(mode, "abort") == 0) {
        int x = 1;
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        sleep(30);   /* killed by the abort long before */
    } else if (strcmp(mode, "kill") == 0) {
        ring(rank, size);
        if (rank == 2) {
            usleep(300000);   /* the others reach MPI_Finalize first */
            raise(SIGKILL);
        }
    } else if (strcmp(mode, "crash") == 0) {
        ring(rank, size);
        if (rank == 1)
            raise(SIGSEGV);
    } else if (strcmp(mode, "nofinalize") == 0) {
        ring(rank, size);
        return 0;
    } else {
        fprintf(stderr, "trace_app: unknown mode '%s'\n", mode);
    }
    MPI_Finalize();
    return 0;
}
