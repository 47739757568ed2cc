/* tracefile: reading the rank files libscitrace.so writes, one per rank,
 * and a whole trace directory.  A rank file holds binary records, written
 * as the program runs, that decode into these text lines (trace/tracebin.h),
 * or the lines themselves (`scitrace dump`, older traces):
 *
 *   # scitrace-rank 2
 *   run ID                      the run: every rank of one run has the same
 *   rank R                      this process's MPI_COMM_WORLD rank
 *   ranks P                     MPI_COMM_WORLD's size
 *   host NAME
 *   command ARGV...
 *   start_ns NS                 wall clock at MPI_Init (ns since 1970)
 *   mpi TEXT                    MPI_Get_library_version's first line (absent
 *                               in older traces)
 *   map BASE PATH               a loaded object (callers: PATH at addr-BASE)
 *   then, in program order:
 *   comm ID HASH SEQ N W0..WN-1 communicator ID, members as world ranks;
 *                               (HASH, SEQ) name it across rank files
 *   icomm ID HASH SEQ N W...    an intercommunicator (W: the remote group)
 *   phase ID NAME               phase ID is NAME from here on
 *   > T PHASE CALL CALLER ARGS  a call entered (T: ns since MPI_Init,
 *                               CALLER: return address, hex)
 *   < T RESULTS                 the last call entered returned
 *   status WORD [DETAIL]        finalized | aborted | no-finalize |
 *                               killed SIG | crashed SIG
 *   end LINES                   lines before this one
 *
 * A file without the status and end lines ended early: the rank was killed
 * by a signal no handler can catch (SIGKILL) or the machine stopped; its
 * lines up to the last whole one are read.  ARGS and RESULTS by call class
 * (trace/tracekinds.h); peers are world ranks or TRACE_ANY / PROC_NULL /
 * NO_RANK, bytes per message:
 *   SEND, RECV, PROBE,  COMM PEER TAG BYTES [TYPE]  -> (isend, irecv, *_init)
 *   *_init                                REQ; (recv, probe) SRC TAG BYTES;
 *                                         (iprobe) FLAG [SRC TAG BYTES]
 *   sendrecv            COMM DEST STAG SBYTES SRC RTAG RBYTES [TYPE COUNT2 CODE2]
 *                                         -> SRC TAG BYTES
 *   WAIT, start,        N REQ1..REQN  -> (WAIT) K (INDEX SRC TAG BYTES) x K
 *   request_free                        (SRC TRACE_CANCELLED: cancelled)
 *   COLL                COMM ROOT BYTES [TYPE OP]  (ROOT -1: none)
 *   COLL_DIRECT         COMM ROOT K (PEER BYTES) x K [TYPE OP]  (this rank's
 *                                         sends; TYPE's COUNT 0)
 *   COMM                PARENT -> NEWID (-1: MPI_COMM_NULL); comm_free: ID
 *   abort               COMM CODE
 * TYPE is "COUNT CODE CONTIG": the count argument, the datatype's signature
 * code (hex, tracekinds.h) and 1 when the items lie in one block; OP a
 * reduction's operation (tracekinds.h, TRACE_OP_*; read into tag2).  Probes
 * have no TYPE; lines without them (older traces) read with the type
 * unknown, and nothing about it is checked. */
#ifndef SCITORUS_TRACEFILE_H
#define SCITORUS_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace/tracebin.h"

/* Bytes of one call: an int count of a type of at most 2^31 bytes. */
#define TRACE_MAX_BYTES (1ull << 62)

typedef struct trace_comm {
    int n, seq, inter;
    uint64_t hash;
    int *world;
} trace_comm;

/* One recorded call. */
typedef struct trace_call {
    int kind, phase, comm, peer, tag;
    int done;                 /* it returned */
    int cancelled;            /* its request was cancelled: read as PROC_NULL */
    int buffered;             /* a buffered send: completes without the receiver */
    long line;                /* of its entry line */
    int64_t t_in, t_out;
    uint64_t bytes, addr;
    int64_t made;             /* request made (0: none), or comm made (COMM) */
    int peer2, tag2;          /* sendrecv: the receive part; tag2 of a
                                 collective: its operation (TRACE_OP_*; -1
                                 not recorded) */
    uint64_t bytes2;
    int64_t count;            /* the count argument (-1: not recorded) */
    uint32_t dtype;           /* its datatype's signature code (tracekinds.h;
                                 TRACE_DT_UNKNOWN: not recorded) */
    int contig;               /* count items lie in one block (-1: not recorded) */
    int64_t count2;           /* sendrecv: the receive part's count and code */
    uint32_t dtype2;
    int r_src, r_tag, flag;   /* a returned receive's or probe's status */
    uint64_t r_bytes;
    size_t list, nlist;       /* request ids, or (peer, bytes) pairs: in ids */
    size_t comp, ncomp;       /* WAIT: completions, in comps */
} trace_call;

typedef struct trace_completion {
    int index, src, tag;
    uint64_t bytes;
} trace_completion;

/* An aggregate: calls of one (kind, peer, comm, tag, size), for the matrix
 * and the matcher; built from the calls (trace_rank_aggregate). */
typedef struct trace_rec {
    int kind, peer, comm, tag, folded;
    uint64_t size_bytes, messages, bytes;
} trace_rec;

typedef struct trace_map {
    uint64_t base;
    char *path;
} trace_map;

/* Longest header texts kept (bytes, with the final NUL). */
#define TRACE_RUN_MAX 160
#define TRACE_STATUS_MAX 64
#define TRACE_HOST_MAX 256
#define TRACE_COMMAND_MAX 2048
#define TRACE_MPI_MAX 128

typedef struct trace_rank {
    int rank, ranks;
    char *run, *status, *host, *command;   /* malloc'ed: a directory holds a
                                               trace_rank for every rank */
    char *mpi;                /* the "mpi" line (malloc'ed), NULL when absent */
    int ended_early;          /* no closing lines */
    int64_t start_ns;
    trace_comm *comms;
    int ncomms;
    char (*phases)[64];
    int nphases;
    trace_map *maps;
    int nmaps;
    /* The first MPI_Cart_create's grid ("cart" line): its dimensions (0
     * when none was made), their sizes (malloc'ed: a directory holds a
     * trace_rank for every rank) and which are periodic (bit i) */
    int cart_dims;
    int *cart_n;
    unsigned cart_periodic;
    trace_call *calls;
    size_t ncalls;
    int64_t *ids;
    size_t nids;
    trace_completion *comps;
    size_t ncomps;
    trace_rec *recs;          /* after trace_rank_aggregate */
    size_t nrecs;
    const char *path;         /* set by trace_dir_load */
} trace_rank;

/* A failure: "FILE:LINE: what" (LINE omitted when the file as a whole is
 * at fault). */
typedef struct trace_error {
    char msg[4352];
} trace_error;

/* "path:line: msg" (line 0: "path: msg") into err->msg; returns -1. */
int trace_error_set(trace_error *err, const char *path, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reads one rank file.  Returns 0, or -1 with err filled (nothing to free).
 * Operations that move nothing are read as such for every analyzer: a
 * cancelled request's call gets peer PROC_NULL, and a Sendrecv with
 * PROC_NULL on one side (or an untranslated destination) is read as the
 * Send or Recv of its other side; a receive from an untranslated rank is
 * read as from any source.  What MPI refuses (a send to MPI_ANY_SOURCE, a
 * negative send tag) is malformed. */
int trace_rank_read(const char *path, trace_rank *r, trace_error *err);
void trace_rank_free(trace_rank *r);

/* The text lines of a rank file, binary (decoded) or text, one at a time:
 * trace_lines_next puts the next line (with its '\n') in *buf and returns
 * its length, 0 at the end, -1 (err filled) when unreadable. */
typedef struct trace_lines {
    const char *path;
    FILE *fp;
    int binary;
    struct tracebin bin;
    long line;
} trace_lines;
int trace_lines_open(trace_lines *l, const char *path, trace_error *err);
ssize_t trace_lines_next(void *src, char **buf, size_t *cap, trace_error *err);
void trace_lines_close(trace_lines *l);

/* trace_rank_read from any source of lines (an OTF2 archive's locations):
 * path names the source in messages. */
typedef ssize_t (*trace_line_fn)(void *src, char **buf, size_t *cap, trace_error *err);
int trace_rank_parse(const char *path, trace_line_fn next, void *src, trace_rank *r,
                     trace_error *err);

/* OTF2 archives (trace/otf2_read.c): whether path is one (an anchor file
 * *.otf2, or a directory holding traces.otf2; anchor gets its path), and
 * the text lines of each of its ranks' files: read back exactly from an
 * archive `scitrace otf2` wrote, rebuilt from the MPI events of another
 * writer's.  -1 with err when it cannot be read, or when scitrace was
 * built without the OTF2 library. */
typedef struct trace_otf2_text {
    int n;
    char **text;
} trace_otf2_text;
int trace_otf2_anchor(const char *path, char *anchor, size_t cap);
int trace_otf2_read(const char *anchor, trace_otf2_text *t, trace_error *err);
/* Another writer's archive, from its MPI events (trace/otf2_mpi.c). */
int trace_otf2_read_mpi(const char *anchor, trace_otf2_text *t, trace_error *err);
void trace_otf2_free(trace_otf2_text *t);

/* Builds r->recs from the calls of phase `phase` (a name; NULL: all).
 * Returns 0, or -1 (err: a count that overflows, or out of memory). */
int trace_rank_aggregate(trace_rank *r, const char *phase, trace_error *err);

/* A trace directory: ranks[i] is rank i's file (loaded[i] != 0), or
 * missing, when that rank left none. */
typedef struct trace_dir {
    char *path;
    int nranks;              /* from the files' "ranks" lines */
    trace_rank *ranks;
    unsigned char *loaded;
    int nloaded;
    char date[32];           /* newest rank file's mtime, UTC */
} trace_dir;

/* Loads every rank-NNNNN.trace in dir (or the ranks of an OTF2 archive)
 * and aggregates phase (NULL: all).
 * Fails (-1, err names the file) on an unreadable directory, a directory
 * with no rank file, a malformed file, files of different runs, or files
 * that disagree on the number of ranks; also when no rank has a call in
 * `phase` (a misspelt name). */
int trace_dir_load(const char *dir, const char *phase, trace_dir *d, trace_error *err);
void trace_dir_free(trace_dir *d);

/* Records that never completed, one rule for every analyzer: a rank's
 * records are whole when its file is there, closed, not by a kill or a
 * crash, and every call in it returned (MPI_Abort excepted).  Returns how
 * many ranks are not, `why` naming the first ("FILE:LINE: ..."). */
int trace_dir_incomplete(const trace_dir *d, char *why, size_t cap);

/* The exit status of an analyzer refusing an incomplete trace. */
#define TRACE_EXIT_INCOMPLETE 3

/* Whether every call's times (ns) and sizes (bytes) are at most limit:
 * 0, or -1 with err naming the first that is not. */
int trace_dir_within(const trace_dir *d, uint64_t limit, trace_error *err);

/* Index of world rank w in communicator c, or -1. */
int trace_comm_index(const trace_comm *c, int w);

/* "file:line (function)" of a caller's address in r, by addr2line on the
 * object that holds it; "0x..." when there is no debug information. */
void trace_where(const trace_rank *r, uint64_t addr, char *out, size_t cap);

#endif
