/* coll_app: every collective scitrace expands, once each at each size, for
 * the traced-equals-generated tests (tests/test_sched_trace.c, not
 * sanitized: it runs with libscitrace.so preloaded).  Usage: coll_app ROOT
 * SIZE...  Each call runs in its own phase, named OP-SIZE; the rooted ones
 * at root ROOT (mod the ranks); reductions of floats, the others of bytes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/scitrace.h"

static void phase(const char *op, long size)
{
    char name[64];
    snprintf(name, sizeof name, "%s-%ld", op, size);
    if (scitrace_phase)
        scitrace_phase(name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: coll_app ROOT SIZE...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int root = atoi(argv[1]) % p;
    for (int i = 2; i < argc; i++) {
        long m = atol(argv[i]);
        char *a = calloc((size_t)m * p + 1, 1), *b = calloc((size_t)m * p + 1, 1);
        int n = (int)m, f = (int)(m / 4);
        if (!a || !b)
            MPI_Abort(MPI_COMM_WORLD, 1);
        phase("barrier", m), MPI_Barrier(MPI_COMM_WORLD);
        phase("bcast", m), MPI_Bcast(a, n, MPI_BYTE, root, MPI_COMM_WORLD);
        phase("reduce", m), MPI_Reduce(a, b, f, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
        phase("allreduce", m), MPI_Allreduce(a, b, f, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        phase("allgather", m), MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, MPI_COMM_WORLD);
        phase("alltoall", m), MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, MPI_COMM_WORLD);
        phase("gather", m), MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        phase("scatter", m), MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        free(a), free(b);
    }
    phase("end", 0);
    MPI_Finalize();
    return 0;
}
