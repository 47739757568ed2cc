/* backend_mpi_cli: mpibench's side of the command line -- the MPI send and
 * receive calls timed, and which rank speaks before MPI_Init. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/backend_cli.h"
#include "bench/cli.h"
#include "benchdata/benchdata.h"

enum { OPT_SEND, OPT_RECV };

static const bench_backend_option mpi_options[] = {
    {"mpi-send", BENCH_IN_GRID | BENCH_IN_LOGP, "M", "send (MPI_Send, default) | ssend (MPI_Ssend)"
     " | isend\n(pp, ow: MPI_Isend + MPI_Wait; logp: os times MPI_Isend\nalone, as LogP/MPI, its"
     " MPI_Wait untimed with the next call)", "wait"},
    {"mpi-recv", BENCH_IN_LOGP, "M", "logp: recv (default: MPI_Irecv + MPI_Test until done, so"
     "\nCtrl-C is seen) | irecv (MPI_Irecv + MPI_Wait)", "wait"},
    {NULL, 0, NULL, NULL, NULL},
};

static int mpi_parse(bench_backend_setup *s, int index, const char *arg, char *err, size_t size)
{
    static const char *const sends[] = {"send", "ssend", "isend"};
    if (index == OPT_RECV) {
        if (strcmp(arg, "recv") && strcmp(arg, "irecv")) {
            snprintf(err, size, "--mpi-recv '%s': expected recv or irecv", arg);
            return 2;
        }
        s->cfg.recv_mode = arg[0] == 'i';
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (strcmp(arg, sends[i]) == 0) {
            /* isend: with its MPI_Wait (2), or logp's deferred wait (3) */
            s->cfg.send_mode = i < 2 ? i : s->logp ? 3 : 2;
            return 0;
        }
    snprintf(err, size, "--mpi-send '%s': expected send, ssend or isend", arg);
    return 2;
}

static int mpi_prepare(bench_backend_setup *s, char *err, size_t size)
{
    (void)err;
    (void)size;
    if (s->given[OPT_SEND])   /* logp's meaning of isend is known only now */
        return mpi_parse(s, OPT_SEND, s->value[OPT_SEND], err, size);
    return 0;
}

static void mpi_header(const bench_backend_setup *s, bench_data *h)
{
    const char *send = s->given[OPT_SEND] ? s->value[OPT_SEND] : "send";
    if (s->logp)
        bench_data_set_header(h, "variant", "%s/%s", send,
                              s->given[OPT_RECV] ? s->value[OPT_RECV] : "recv");
    else
        bench_data_set_header(h, "mpi_send", "%s", send);
}

/* Every rank parses the options before MPI_Init, so only the launcher's
 * environment says which rank this is: Open MPI's, then PMIx's. */
static int mpi_speaks(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMIX_RANK");
    return !r || strcmp(r, "0") == 0;
}

/* mpirun forwards a rank's standard output through a pipe and drops what
 * it cannot write (onto a full disk: exit 0, the data lost).  When the
 * launcher is an ancestor of this rank (rank 0 on the launching host),
 * the data goes straight to the launcher's own standard output instead,
 * where a write error is seen.  NULL otherwise: the forwarded stdout. */
static FILE *mpi_open_stdout(void)
{
    static const char *const launchers[] = {"mpirun", "mpiexec", "orterun", "prterun"};
    pid_t pid = getppid();
    for (int depth = 0; depth < 4 && pid > 1; depth++) {
        char path[64], comm[64] = "", line[512];
        snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
        FILE *fp = fopen(path, "r");
        if (fp && fgets(comm, sizeof comm, fp))
            comm[strcspn(comm, "\n")] = '\0';
        if (fp)
            fclose(fp);
        for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
            if (strcmp(comm, launchers[i]) == 0) {
                snprintf(path, sizeof path, "/proc/%d/fd/1", (int)pid);
                int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
                FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
                if (fd >= 0 && !out)
                    close(fd);
                return out;
            }
        /* the parent's parent, from /proc/PID/stat's fourth field */
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        fp = fopen(path, "r");
        const char *end = fp && fgets(line, sizeof line, fp) ? strrchr(line, ')') : NULL;
        if (fp)
            fclose(fp);
        int ppid = 0;
        if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
            return NULL;
        pid = ppid;
    }
    return NULL;
}

const bench_backend_cli bench_mpi_cli = {
    .prog = "mpibench",
    .caps = BENCH_CAP_ROUTE,
    .intro = "MPI point-to-point latency benchmark (start it with mpirun); each rank is a\n"
             "node of the ring or torus, rank 0 measures with MPI_Wtime.  A ping-pong whose\n"
             "request and reply take one hop each (2 ranks, or --route network) is timed\n"
             "as osu_latency's loop: a batch is reps times MPI_Send + MPI_Recv of exactly\n"
             "size bytes between page-aligned buffers, one tag each way, one MPI_Wtime\n"
             "pair around it, time / (2 reps); relayed routes, --echo, --node-times and\n"
             "--mpi-send/--mpi-recv go through the relays' engine (docs/VALIDATION-references.md).\n",
    .examples = "  mpirun -np 2 mpibench --sizes 1..65536 -o mpi-ring2.tsv\n"
                "  mpirun -np 2 --hostfile hosts --map-by node mpibench -o two-nodes.tsv\n"
                "  mpirun -np 8 mpibench --ring 8 --sizes 64\n"
                "  mpirun -np 2 mpibench --sizes 1..65536 --interleave-sizes -o mpi-ring2.tsv\n"
                "  mpirun -np 2 mpibench -o r2.tsv --interleave 8=r8.tsv --interleave 4x4=t.tsv\n"
                "  mpirun -np 2 mpibench --pattern logp --mpi-send isend -o mpi-logp.tsv\n"
                "  mpirun -np 4 mpibench --op bcast --procs 2..4 --sync window -o bcast.tsv\n"
                "  mpirun -np 2 mpibench --p2p bw --sizes 8..1048576 -o bw.tsv\n",
    .logp_example = "mpirun -np 2 mpibench --pattern logp --mpi-send isend --mpi-recv irecv"
                    " -o mpi-logp.tsv",
    .logp_between = "MPI ranks",
    /* long enough that an MPI transport's periodic costs (Open MPI's fast
     * box pays once per lap of its ring) fall into every batch at their rate */
    .batch_us = 200.0,
    .options = mpi_options,
    .parse = mpi_parse,
    .prepare = mpi_prepare,
    .header = mpi_header,
    .speaks = mpi_speaks,
    .open_stdout = mpi_open_stdout,
    .own_pattern = &bench_pattern_coll,
    .own_p2p = &bench_pattern_p2p,
};
