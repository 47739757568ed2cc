/* bsend_attach: a PMPI shim that attaches a buffer for MPI_Bsend at MPI_Init,
 * preloaded into SKaMPI by make bench-p2p (mpibench/p2p_bench.sh), whose
 * Pingpong_Bsend_Recv attaches none and so fails.  The buffer holds
 * BSEND_ATTACH_BYTES (default 4 MiB) and two messages' overhead: a
 * ping-pong has at most one buffered message a rank outstanding. */
#include <mpi.h>
#include <stdlib.h>

static void attach(void)
{
    const char *v = getenv("BSEND_ATTACH_BYTES");
    long n = v ? atol(v) : 4L << 20;
    if (n <= 0 || n > (1L << 30))
        n = 4L << 20;
    int size = (int)n + 2 * MPI_BSEND_OVERHEAD;
    void *b = malloc((size_t)size);
    if (b)
        MPI_Buffer_attach(b, size);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        attach();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        attach();
    return rc;
}
