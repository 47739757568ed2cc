/* check_app: small MPI programs with known faults (and one without), traced
 * by tests/test_check.c and checked with `scitrace check`.  Not sanitized:
 * it runs with libscitrace.so preloaded.  Usage: check_app MODE
 *   headtohead  ranks 0 and 1 both MPI_Send 1 MiB to each other first
 *               (above any eager limit: hangs)
 *   ring        every rank MPI_Recv from its left neighbour first (hangs)
 *   skipcoll    every rank but the last calls MPI_Bcast, then all call
 *               MPI_Barrier (hangs or mismatches)
 *   isend       rank 0 MPI_Isend to rank 1, which never receives it, and
 *               never waits for it
 *   correct     ANY_SOURCE receives, Waitall, Probe, a split communicator,
 *               and one made by a call the tracer does not wrap
 *               (MPI_Comm_create_group: registered at its first use)
 *   phases      three phases (scitrace_phase, MPI_Pcontrol) with different
 *               traffic
 *   headtohead_small  as headtohead with 8 bytes: completes thanks to
 *               buffering (a potential deadlock)
 *   inter       an intercommunicator between the even and the odd ranks:
 *               rank i of each side sends to rank i of the other
 *   reqfree     ranks 0 and 1 each MPI_Isend to the other, MPI_Request_free
 *               it, then MPI_Recv (correct)
 *   cancel      every rank MPI_Irecv from no one, MPI_Cancel, MPI_Wait,
 *               then MPI_Barrier (correct)
 *   procnull    a ring exchange by MPI_Sendrecv with MPI_PROC_NULL as the
 *               source, then as the destination, then a whole one (correct)
 *   bsend       ranks 0 and 1 MPI_Bsend 100 kB to each other, then
 *               MPI_Recv (correct: buffered sends complete locally)
 *   race        rank 0 MPI_Recv from ANY_SOURCE, then from rank 1; ranks 1
 *               and 2 send to 0, rank 1 after 300 ms: clean in this order,
 *               a deadlock when rank 1's message arrives first
 *   workers     rank 0 answers 3 requests of every other rank, taken with
 *               MPI_ANY_SOURCE, each answer to the status's source (correct
 *               in every arrival order)
 *   segv        rank 1 dies of SIGSEGV while rank 0 waits in MPI_Recv
 *   nofinalize  rank 1 exits without MPI_Finalize
 *   threads     MPI_Init_thread asking for MPI_THREAD_MULTIPLE; prints
 *               "provided multiple" when granted */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libscitrace/scitrace.h"

#define BIG (1 << 20)

static char sbuf[BIG], rbuf[BIG];

static void headtohead(int rank, int n)
{
    int peer = 1 - rank;
    if (rank > 1)
        return;
    MPI_Send(sbuf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(rbuf, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void ring(int rank, int size)
{
    int x = rank;
    MPI_Recv(&x, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
}

static void correct(int rank, int size)
{
    MPI_Comm half;
    int v = rank, got = -1, flag = 0;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {   /* ANY_SOURCE, after a Probe */
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    int hr, hn, in[2], out[2] = {rank, rank};
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    MPI_Request req[4];
    MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, half, &req[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, (hr + hn - 1) % hn, 2, half, &req[1]);
    MPI_Isend(&out[0], 1, MPI_INT, (hr + 1) % hn, 1, half, &req[2]);
    MPI_Isend(&out[1], 1, MPI_INT, (hr + 1) % hn, 2, half, &req[3]);
    do
        MPI_Testall(4, req, &flag, MPI_STATUSES_IGNORE);
    while (!flag && 0);
    if (!flag)
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&v, &got, 1, MPI_INT, MPI_SUM, half);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    MPI_Group wg;
    MPI_Comm cg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &cg);
    MPI_Group_free(&wg);
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 4, &got, 1, MPI_INT, (rank + size - 1) % size,
                 4, cg, MPI_STATUS_IGNORE);
    MPI_Barrier(cg);
    MPI_Comm_free(&cg);
}

static void phases(int rank, int size)
{
    int x[64] = {0};
    if (scitrace_phase)
        scitrace_phase("setup");
    MPI_Bcast(x, 4, MPI_INT, 0, MPI_COMM_WORLD);
    if (scitrace_phase)
        scitrace_phase("exchange");
    MPI_Sendrecv(x, 16, MPI_INT, (rank + 1) % size, 0, x + 16, 16, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pcontrol(3);
    MPI_Allreduce(x, x + 32, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Send(x, 8, MPI_INT, size - 1, 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        MPI_Recv(x, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void inter(int rank)
{
    MPI_Comm half, ic;
    int hr, x = rank, y = -1;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &hr);
    /* leaders: world ranks 0 (evens) and 1 (odds) */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &ic);
    MPI_Sendrecv(&x, 1, MPI_INT, hr, 3, &y, 1, MPI_INT, hr, 3, ic, MPI_STATUS_IGNORE);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

static void reqfree(int rank)
{
    int x = rank, y = -1;
    MPI_Request req;
    if (rank < 2) {
        MPI_Isend(&x, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Recv(&y, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void cancel(void)
{
    int y;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    int flag = 0;
    MPI_Test_cancelled(&st, &flag);
    if (!flag)
        fprintf(stderr, "check_app: the receive was not cancelled\n");
    MPI_Barrier(MPI_COMM_WORLD);
}

static void procnull(int rank, int size)
{
    int x[2] = {rank, rank}, y[2];
    MPI_Sendrecv(x, 2, MPI_INT, (rank + 1) % size, 1, y, 2, MPI_INT, MPI_PROC_NULL, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* a send (eager) */
    MPI_Sendrecv(x, 2, MPI_INT, MPI_PROC_NULL, 1, y, 2, MPI_INT, (rank + size - 1) % size, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* its receive */
    MPI_Sendrecv(x, 2, MPI_INT, (rank + 1) % size, 2, y, 2, MPI_INT, (rank + size - 1) % size, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

#define BSEND_BYTES 100000

static void bsend(int rank)
{
    static char bs[BSEND_BYTES], br[BSEND_BYTES];
    int size = BSEND_BYTES + MPI_BSEND_OVERHEAD;
    void *buf = malloc((size_t)size), *back;
    MPI_Buffer_attach(buf, size);
    if (rank < 2) {
        MPI_Bsend(bs, BSEND_BYTES, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
        MPI_Recv(br, BSEND_BYTES, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Buffer_detach(&back, &size);
    free(buf);
}

static void race(int rank)
{
    int x = rank, y;
    if (rank == 0) {
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank <= 2) {
        if (rank == 1)
            nanosleep(&(struct timespec){0, 300000000}, NULL);
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

static void workers(int rank, int size)
{
    int x = rank;
    for (int i = 0; i < 3 * (size - 1) && rank == 0; i++) {
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 3 && rank > 0; i++) {
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size, x = 0, provided = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "threads") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            printf("provided %s\n", provided == MPI_THREAD_MULTIPLE ? "multiple" : "less");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "headtohead") == 0) {
        headtohead(rank, BIG);
    } else if (strcmp(mode, "headtohead_small") == 0) {
        headtohead(rank, 8);
    } else if (strcmp(mode, "ring") == 0) {
        ring(rank, size);
    } else if (strcmp(mode, "skipcoll") == 0) {
        if (rank != size - 1)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "isend") == 0) {
        MPI_Request req;
        if (rank == 0)
            MPI_Isend(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "correct") == 0) {
        correct(rank, size);
    } else if (strcmp(mode, "inter") == 0) {
        inter(rank);
    } else if (strcmp(mode, "phases") == 0) {
        phases(rank, size);
    } else if (strcmp(mode, "reqfree") == 0) {
        reqfree(rank);
    } else if (strcmp(mode, "cancel") == 0) {
        cancel();
    } else if (strcmp(mode, "procnull") == 0) {
        procnull(rank, size);
    } else if (strcmp(mode, "bsend") == 0) {
        bsend(rank);
    } else if (strcmp(mode, "race") == 0) {
        race(rank);
    } else if (strcmp(mode, "workers") == 0) {
        workers(rank, size);
    } else if (strcmp(mode, "segv") == 0) {
        if (rank == 1)
            raise(SIGSEGV);
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "nofinalize") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            exit(0);
    } else {
        fprintf(stderr, "check_app: unknown mode '%s'\n", mode);
    }
    MPI_Finalize();
    return 0;
}
