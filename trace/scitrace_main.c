/* scitrace: trace an MPI program with libscitrace.so and analyse the trace
 * (SPEC.md section 10).  This file only dispatches to the modes. */
#include <stdio.h>
#include <string.h>

#include "trace/modes.h"
#include "util/fs.h"

static const char usage_text[] =
"Usage: scitrace run [-d DIR] [--events] -- COMMAND...\n"
"       scitrace summary [--collectives C] [--top N] DIR\n"
"       scitrace matrix [--collectives C] [--allow-missing] -o FILE DIR\n"
"Record the messages of an MPI program through the PMPI profiling interface\n"
"(no recompilation) and turn them into a traffic matrix for scimodel.\n"
"\n"
"Modes:\n"
"  run       runs COMMAND (usually `mpirun -np P ./app ARGS`) with\n"
"            libscitrace.so preloaded in every rank (mpirun -x LD_PRELOAD=...)\n"
"            and writes one rank file per rank into DIR at MPI_Finalize\n"
"  summary   what the trace holds: ranks, messages and bytes per call,\n"
"            message-size histogram, busiest pairs, and sends and receives\n"
"            left unmatched when each (source, destination, communicator,\n"
"            tag) stream is matched in order; names missing ranks\n"
"  matrix    the traffic matrix (SPEC.md section 10): one row per (src, dst,\n"
"            size_bytes) of MPI_COMM_WORLD ranks with its message count\n"
"\n"
"`scitrace MODE --help` describes each mode's options.\n"
"\n"
"What is recorded: MPI_Send, Bsend, Ssend, Rsend, their I- forms, Sendrecv,\n"
"Sendrecv_replace and persistent requests (Send_init ... Start/Startall);\n"
"Recv, Irecv, Recv_init (for matching only); Bcast, Reduce, Allreduce,\n"
"Alltoall, Alltoallv, Allgather, Allgatherv, Gather, Gatherv, Scatter,\n"
"Scatterv, Reduce_scatter, Reduce_scatter_block and Barrier.  Ranks of any\n"
"communicator (Comm_dup, Comm_split, Comm_create, Cart_create ...) are\n"
"translated to MPI_COMM_WORLD ranks; bytes are count x the datatype's size.\n"
"Nonblocking collectives, one-sided calls and intercommunicator collectives\n"
"are not recorded.  Calls must come from one thread at a time.\n"
"\n"
"Collectives become the point-to-point messages of a named algorithm (each\n"
"rank's own sends; n ranks, root rt, block m bytes):\n"
"  bcast       binomial tree; reduce: binomial tree towards the root\n"
"  allreduce   recursive doubling (MPICH; non-powers of two fold the\n"
"              extra ranks in first and out last)\n"
"  alltoall    pairwise, m to every other rank\n"
"  allgather   ring, n - 1 messages of m to the next rank\n"
"  gather, scatter   linear, to or from the root\n"
"  barrier     dissemination, 0 bytes to me + 2^k\n"
"  alltoallv, allgatherv, gatherv, scatterv, reduce_scatter(_block):\n"
"              each rank's per-peer blocks, sent directly\n"
"\n"
"Environment of the traced program (set by `scitrace run`):\n"
"  SCITRACE_DIR      directory for the rank files (default: scitrace-<job id>\n"
"                    in the working directory)\n"
"  SCITRACE_EVENTS   1: also write rank-NNNNN.events, one timestamped line per\n"
"                    call (t_ns call peer comm tag size_bytes count)\n"
"Rank files: DIR/rank-NNNNN.trace, written under a temporary name and\n"
"renamed; a rank that dies before MPI_Finalize leaves no rank file (or a\n"
"rank-NNNNN.trace.tmp.* one), and the analyzer names it.  A rank that exits\n"
"without MPI_Finalize still writes its file (status no-finalize), as does\n"
"one that calls MPI_Abort (status aborted).  Each rank keeps at most 65536\n"
"aggregates (3 MiB) whatever the number of messages; see trace/lib_record.c.\n"
"\n"
"Exit status: 0 success, 1 runtime failure (the message names the file and\n"
"line), 2 usage error; `run` returns COMMAND's status.\n"
"\n"
"Examples:\n"
"  scitrace run -d halo.trace -- mpirun -np 8 bin/halo3d\n"
"  scitrace summary halo.trace\n"
"  scitrace matrix -o halo.tsv halo.trace\n"
"  scimodel --traffic halo.tsv --dims 1..4\n";

static const struct {
    const char *name;
    int (*run)(int, char **);
} modes[] = {
    {"run", scitrace_run},
    {"summary", scitrace_summary},
    {"matrix", scitrace_matrix},
};

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("scitrace");
    if (argc < 2)
        return scitrace_usage_error("a mode is needed: run, summary or matrix");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            return modes[i].run(argc - 1, argv + 1);
    return scitrace_usage_error("unknown mode '%s': expected run, summary or matrix", argv[1]);
}
