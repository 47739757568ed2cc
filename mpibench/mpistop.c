/* mpistop: a stop on any rank reaches rank 0 (mpibench/mpistop.h). */
#include "mpibench/mpistop.h"

#include <time.h>

void mpistop_open(mpistop *s)
{
    bench_signals_install_stop();
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    s->sent = 0;
}

void mpistop_close(mpistop *s)
{
    MPI_Comm_free(&s->comm);
}

int mpistop_check(mpistop *s)
{
    int flag = 0;
    if (s->rank == 0) {
        if (bench_interrupted())
            return 1;
        MPI_Iprobe(MPI_ANY_SOURCE, 0, s->comm, &flag, MPI_STATUS_IGNORE);
        return flag;
    }
    if (bench_interrupted() && !s->sent) {
        MPI_Request req;
        s->sent = 1;
        if (MPI_Isend(NULL, 0, MPI_BYTE, 0, 0, s->comm, &req) == MPI_SUCCESS)
            MPI_Request_free(&req);
    }
    return 0;
}

int mpistop_wait_bcast(mpistop *s, void *buf, int count, MPI_Datatype type, MPI_Comm comm)
{
    /* a sleeping wait also leaves the CPU to the ranks that measure, where a
     * blocking MPI_Bcast would spin on it */
    const struct timespec nap = {0, 1000000};
    MPI_Request req;
    int done = 0, rc = MPI_Ibcast(buf, count, type, 0, comm, &req);
    while (rc == MPI_SUCCESS && !done) {
        mpistop_check(s);
        if ((rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
            nanosleep(&nap, NULL);
    }
    return rc;
}
