/* scitrace: trace an MPI program with libscitrace.so and analyse the trace
 * (docs/traces.md, 'Trace rank files').  This file only dispatches to the modes. */
#include <stdio.h>
#include <string.h>

#include "scitrace/modes.h"
#include "util/fs.h"

static const char usage_text[] =
"Usage: scitrace run [-d DIR] [--lib FILE] -- COMMAND...\n"
"  or:  scitrace summary [--collectives C] [--top N] [--phase P] DIR\n"
"  or:  scitrace matrix [--collectives C] [--algorithm A] [--calls L]\n"
"                       [--phase P] -o FILE DIR\n"
"  or:  scitrace check [--eager-limit BYTES] [--events FILE] DIR\n"
"  or:  scitrace goal [--phase P] [--algorithm A] -o FILE DIR\n"
"  or:  scitrace map --hostfile FILE [-n N] [--map-by P] [--rank-by P]\n"
"  or:  scitrace dump [-o OUT] FILE\n"
"  or:  scitrace otf2 [--partial] -o DIR TRACE\n"
"Record every MPI call of a program through the PMPI profiling interface\n"
"(no recompilation), find what went wrong, and turn the trace into a traffic\n"
"matrix for scimodel or a schedule for scisim.\n"
"\n"
"Modes:\n"
"  run       runs COMMAND (usually `mpirun -np P ./app ARGS`) with\n"
"            libscitrace.so preloaded in every rank; each rank writes\n"
"            DIR/rank-NNNNN.trace as it runs\n"
"  summary   what the trace holds: ranks and how each ended, phases,\n"
"            communicators, messages and bytes per call, message sizes,\n"
"            busiest pairs, sends and receives left unmatched\n"
"  matrix    the traffic matrix: one row per (src, dst, size_bytes) of\n"
"            MPI_COMM_WORLD ranks with its message count\n"
"  check     replays every rank's calls with MPI's matching rules: deadlocks,\n"
"            sends that complete only thanks to buffering, collectives\n"
"            whose members disagree or that one skipped, type mismatches,\n"
"            pending messages and leaked requests\n"
"  goal      the schedule in the GOAL text format of LogGOPSim, for scisim\n"
"  map       the node and slot of every rank mpirun would start for a\n"
"            hostfile and a mapping policy, or why it would refuse\n"
"  dump      a rank file (binary, as the library writes it) as text\n"
"  otf2      the trace as an OTF2 archive (Vampir, Scalasca, otf2-print)\n"
"\n"
"`scitrace MODE --help` describes each mode's options.\n"
"\n"
"What is recorded, on entry (before the call can block) and on return:\n"
"MPI_Send, Bsend, Ssend, Rsend, their I- forms, Sendrecv(_replace), Recv,\n"
"Irecv, Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv, persistent requests (*_init, Start, Startall,\n"
"Request_free), the Wait and Test families, Bcast, Reduce, Allreduce,\n"
"Alltoall(v), Allgather(v), Gather(v), Scatter(v), Reduce_scatter(_block),\n"
"Barrier, the calls that make or free communicators, Finalize and Abort;\n"
"with each call its time, its phase, its caller's address, and its count,\n"
"datatype signature and contiguity (a reduction: its operation).\n"
"MPI_Ibarrier, Ibcast, Ireduce, Iallreduce, Ialltoall and Iallgather are\n"
"recorded and checked (not expanded into matrices or schedules); the other\n"
"nonblocking collectives and one-sided calls are not recorded.  Calls must\n"
"come from one thread at a time.\n"
"\n"
"Phases: MPI_Pcontrol(N) starts phase pcontrol-N; scitrace_phase(\"name\")\n"
"(declared weak in scitrace.h, installed in PREFIX/include: no link with\n"
"the library needed) starts phase name; scitrace_phase_begin(\"name\") and\n"
"scitrace_phase_end() a nested one (outer/name).  The first phase is main.\n"
"\n"
"Collectives become the point-to-point messages of the algorithm the MPI\n"
"library runs for the operation, the communicator's size and the message\n"
"size: Open MPI 4.1's tuned choices, or MPICH's, or the one named, with\n"
"`goal` and `matrix` --algorithm; the same schedules as scisim --collective\n"
"(its --collective-list names them).  Both say which they used.\n"
"alltoallv, allgatherv, gatherv, scatterv, reduce_scatter(_block): each\n"
"rank's per-peer blocks, sent directly.\n"
"\n"
"Environment of the traced program (set by `scitrace run`):\n"
"  SCITRACE_DIR       directory for the rank files (default: .)\n"
"  SCITRACE_RUN       the run's identity, written into every rank file\n"
"  SCITRACE_FLUSH_MS  how often the file is handed to the disk (default\n"
"                     1000; 0 never): a killed process loses nothing,\n"
"                     since every record is in the kernel's page cache once\n"
"                     written; this bounds what a machine crash loses\n"
"  SCITRACE_NO_TSC    set: times from clock_gettime, not from the CPU's\n"
"                     time stamp counter (used only where the kernel's\n"
"                     clocksource is tsc; re-anchored to it every second)\n"
"Each call is a binary record written when the call is entered and\n"
"completed when it returns (16 bytes for a call that repeats; `dump` shows\n"
"it as text).  A rank killed by SIGTERM, SIGINT or SIGHUP, or crashing,\n"
"closes its file (status killed SIG / crashed SIG); one killed by SIGKILL\n"
"leaves every record it wrote, and the analyzers say its log ended early.  A rank granted\n"
"MPI_THREAD_MULTIPLE is not traced: its file says so and is refused.\n"
"\n"
"Exit status: 0 success, 1 runtime failure (the message names the file and\n"
"line), 2 usage error, 3 an incomplete trace refused (killed, crashed or\n"
"cut-short ranks, calls that never returned, missing rank files: `matrix`\n"
"and `goal` without --partial; `check` a missing file); `run` returns\n"
"COMMAND's status (1 when no rank file was written); `check`: 5 a rank\n"
"crashed, 6 deadlock or an erroneous program, 8 potential deadlock, 7\n"
"pending only.\n"
"\n"
"Examples:\n"
"  scitrace run -d halo.trace -- mpirun -np 8 bin/halo3d\n"
"  scitrace summary halo.trace\n"
"  scitrace check halo.trace\n"
"  scitrace matrix -o halo.tsv halo.trace\n"
"  scimodel --traffic halo.tsv --dims 1..4\n"
"  scitrace goal -o halo.goal halo.trace\n"
"  scitrace dump halo.trace/rank-00000.trace\n";

static const struct {
    const char *name;
    int (*run)(int, char **);
} modes[] = {
    {"run", scitrace_run},
    {"summary", scitrace_summary},
    {"matrix", scitrace_matrix},
    {"check", scitrace_check},
    {"goal", scitrace_goal},
    {"map", scitrace_map},
    {"dump", scitrace_dump},
    {"otf2", scitrace_otf2},
};

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("scitrace");
    if (argc < 2)
        return scitrace_usage_error("a mode is needed: run, summary, matrix, check, goal, map, dump or otf2");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage_text, stdout);
        return fflush(stdout) != 0 || ferror(stdout);
    }
    if (strcmp(argv[1], "--version") == 0) {
        scitrace_version();
        return fflush(stdout) != 0 || ferror(stdout);
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            return modes[i].run(argc - 1, argv + 1);
    return scitrace_usage_error("unknown mode '%s': expected run, summary, matrix, check, goal, map, dump or otf2",
                                argv[1]);
}
