/* fault_app: one small MPI program per class of error `scitrace check`
 * finds (and correct ones around what MPI defines), traced by
 * tests/test_check_faults.c.  Not sanitized: it runs with libscitrace.so
 * preloaded.  Usage: fault_app MODE (at least 2 ranks)
 *   deadlock     ranks 0 and 1 MPI_Ssend 4 B to each other first (hangs)
 *   unsafe       a ring of blocking 2 KiB MPI_Sends before the MPI_Recvs:
 *                ends on an MPI that buffers 2 KiB, hangs on one that does not
 *   rootskip     every rank but the root (0) calls MPI_Reduce; rank 0 goes
 *                on to MPI_Finalize (small contributions: Open MPI ends)
 *   opmismatch   MPI_Allreduce of one int: MPI_MAX on rank 1, MPI_SUM elsewhere
 *   leak         rank 0 MPI_Isends twice into one request handle and waits
 *                for the second only; rank 1 receives both
 *   typemismatch rank 0 sends 4 MPI_INT, rank 1 receives 2 MPI_DOUBLE
 *   pending      rank 0 MPI_Bsends 4 B that rank 1 never receives (buffered:
 *                the send completes)
 *   tagmismatch  rank 0 MPI_Ssends with tag 1, rank 1 receives tag 2 (hangs)
 *   manyreqs     128 MPI_Isends and then 128 MPI_Irsends of 8 B, each batch
 *                completed by one MPI_Waitall (correct)
 *   types        derived datatypes, MPI_BOTTOM, zero counts, MPI_PROC_NULL,
 *                an inactive persistent request, a generalized request, a
 *                cancelled receive (correct)
 *   mprobe       rank 0 sends two messages to rank 1, which takes them with
 *                MPI_Mprobe + MPI_Mrecv and MPI_Improbe + MPI_Imrecv (correct)
 *   allany       every rank MPI_Isends to every rank, itself included, then
 *                receives as many messages from MPI_ANY_SOURCE, 3 times
 *                (correct in every arrival order)
 *   ileak        two MPI_Ibcasts (root 0) store into one request handle and
 *                only the second is waited for
 *   icoll        MPI_Ibarrier, MPI_Iallreduce, MPI_Ibcast, each waited (correct)
 *   phases       nested phases: begin solve (Barrier), begin halo (Sendrecv),
 *                end (Allreduce), end (Bcast), one end too many (Barrier) */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "libscitrace/scitrace.h"

static void deadlock(int rank)
{
    int x = rank, y;
    if (rank > 1)
        return;
    MPI_Ssend(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void unsafe(int rank, int size)
{
    static char s[2048], r[2048];
    MPI_Send(s, sizeof s, MPI_CHAR, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(r, sizeof r, MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

static void leak(int rank)
{
    int a = 1, b = 2, x, y;
    MPI_Request req;
    if (rank == 0) {
        MPI_Isend(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
        MPI_Isend(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);   /* overwrites the first */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void typemismatch(int rank)
{
    int v[4] = {1, 2, 3, 4};
    double d[2];
    if (rank == 0)
        MPI_Send(v, 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(d, 2, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void manyreqs(int rank)
{
    enum { N = 128 };
    static double s[N], r[N];
    MPI_Request req[N];
    for (int pass = 0; pass < 2; pass++) {
        if (rank == 0) {
            if (pass == 1)
                MPI_Barrier(MPI_COMM_WORLD);   /* the receives are posted: Irsend is legal */
            for (int i = 0; i < N; i++) {
                if (pass == 0)
                    MPI_Isend(&s[i], 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req[i]);
                else
                    MPI_Irsend(&s[i], 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req[i]);
            }
        } else if (rank == 1) {
            for (int i = 0; i < N; i++)
                MPI_Irecv(&r[i], 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &req[i]);
            if (pass == 1)
                MPI_Barrier(MPI_COMM_WORLD);
        } else if (pass == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (rank < 2)
            MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
    }
}

static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void types(int rank)
{
    struct item {
        int i;
        double d;
    } items[4] = {{0, 0}}, got[4];
    double grid[16] = {0}, col[4];
    int peer = 1 - rank;
    if (rank > 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    /* a column of a 4x4 grid (a vector of doubles) received as 4 doubles */
    MPI_Datatype vec, st, two;
    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv(grid, 1, vec, peer, 1, col, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* 4 structs received as 2 of a type of two structs */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct item, i), offsetof(struct item, d)};
    MPI_Datatype mem[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, mem, &st);
    MPI_Type_commit(&st);
    MPI_Type_contiguous(2, st, &two);
    MPI_Type_commit(&two);
    MPI_Sendrecv(items, 4, st, peer, 2, got, 2, two, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* MPI_BOTTOM with absolute addresses */
    MPI_Datatype abs;
    MPI_Aint a[2];
    MPI_Get_address(&items[0].i, &a[0]);
    MPI_Get_address(&items[0].d, &a[1]);
    MPI_Type_create_struct(2, bl, a, mem, &abs);
    MPI_Type_commit(&abs);
    MPI_Sendrecv(MPI_BOTTOM, 1, abs, peer, 3, got, 1, st, peer, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* zero counts, MPI_PROC_NULL */
    MPI_Sendrecv(col, 0, MPI_DOUBLE, peer, 4, grid, 0, MPI_INT, peer, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Send(col, 4, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
    MPI_Recv(col, 4, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* a persistent request waited while inactive, started, waited, freed */
    MPI_Request p, g, c;
    MPI_Recv_init(col, 4, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    MPI_Start(&p);
    MPI_Send(grid, 4, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    MPI_Request_free(&p);
    /* a generalized request, completed and waited */
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &g);
    MPI_Grequest_complete(g);
    MPI_Wait(&g, MPI_STATUS_IGNORE);
    /* a receive no one sends to, cancelled */
    MPI_Irecv(col, 4, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &c);
    MPI_Cancel(&c);
    MPI_Wait(&c, MPI_STATUS_IGNORE);
    MPI_Type_free(&two), MPI_Type_free(&st), MPI_Type_free(&abs), MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mprobe(int rank)
{
    int a = 1, b = 2, x, flag = 0;
    MPI_Message m;
    MPI_Request req;
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        while (!flag)
            MPI_Improbe(0, 2, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        MPI_Imrecv(&x, 1, MPI_INT, &m, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

static void allany(int rank, int size)
{
    int x = rank, y;
    MPI_Request req[64];
    for (int it = 0; it < 3 && size <= 64; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < size; i++)
            MPI_Isend(&x, 1, MPI_INT, i, 0, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < size; i++)
            MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Waitall(size, req, MPI_STATUSES_IGNORE);
    }
}

static void phases(int rank, int size)
{
    int x = rank, y = 0;
    if (!scitrace_phase_begin || !scitrace_phase_end)
        return;   /* not traced */
    scitrace_phase_begin("solve");
    MPI_Barrier(MPI_COMM_WORLD);
    scitrace_phase_begin("halo");
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, (rank + size - 1) % size,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scitrace_phase_end();
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    scitrace_phase_end();
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    scitrace_phase_end();
    MPI_Barrier(MPI_COMM_WORLD);
}

static void ileak(void)
{
    int a = 1, b = 2;
    MPI_Request req;
    MPI_Ibcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);   /* overwrites the first */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void icoll(int rank)
{
    int x = rank, y = 0;
    MPI_Request req[2];
    MPI_Ibarrier(MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Ibcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "deadlock") == 0) {
        deadlock(rank);
    } else if (strcmp(mode, "unsafe") == 0) {
        unsafe(rank, size);
    } else if (strcmp(mode, "rootskip") == 0) {
        if (rank != 0)
            MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (strcmp(mode, "opmismatch") == 0) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, rank == 1 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(mode, "leak") == 0) {
        leak(rank);
    } else if (strcmp(mode, "typemismatch") == 0) {
        typemismatch(rank);
    } else if (strcmp(mode, "pending") == 0) {
        static char buf[1024];
        void *back;
        int n = sizeof buf;
        MPI_Buffer_attach(buf, n);
        if (rank == 0)
            MPI_Bsend(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Buffer_detach(&back, &n);
    } else if (strcmp(mode, "tagmismatch") == 0) {
        if (rank == 0)
            MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "manyreqs") == 0) {
        manyreqs(rank);
    } else if (strcmp(mode, "ileak") == 0) {
        ileak();
    } else if (strcmp(mode, "icoll") == 0) {
        icoll(rank);
    } else if (strcmp(mode, "phases") == 0) {
        phases(rank, size);
    } else if (strcmp(mode, "allany") == 0) {
        allany(rank, size);
    } else if (strcmp(mode, "mprobe") == 0) {
        mprobe(rank);
    } else if (strcmp(mode, "types") == 0) {
        types(rank);
    } else {
        fprintf(stderr, "fault_app: unknown mode '%s'\n", mode);
    }
    MPI_Finalize();
    return 0;
}
