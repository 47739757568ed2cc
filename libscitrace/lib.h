/* lib: the internals of libscitrace.so, the PMPI interposition library
 * (LD_PRELOAD).  Every wrapped call writes a binary record when it is
 * entered, before it can block, and completes it when it returns (format:
 * trace/tracebin.h) in the rank file, which is a shared memory mapping
 * (lib_log.c): a record is in the kernel's page cache once written, so a
 * rank killed by any signal keeps its calls up to the one it was in.
 *
 * A PMPI library cannot avoid process-wide state: the application calls
 * MPI_Send with no handle of ours.  Calls are recorded without locks, so the
 * application must make its MPI calls from one thread at a time
 * (MPI_THREAD_SINGLE, FUNNELED or SERIALIZED); a rank granted
 * MPI_THREAD_MULTIPLE closes its file at once, marked unsupported. */
#ifndef SCITORUS_TRACE_LIB_H
#define SCITORUS_TRACE_LIB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "trace/tracebin.h"
#include "trace/tracekinds.h"

/* 1 between a successful MPI_Init and the end of the trace; the wrappers
 * pass straight through while it is 0. */
extern int trace_enabled;
extern int trace_phase;                       /* current phase id (lib_record.c) */

/* lib_clock.c: the records' clock. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>
#define TRACE_HAVE_TSC 1
static inline uint64_t trace_tsc(void)
{
    return __rdtsc();
}
#else
#define TRACE_HAVE_TSC 0
static inline uint64_t trace_tsc(void)
{
    return 0;
}
#endif
typedef struct trace_clock {
    int tsc;                  /* 1: TSC ticks; 0: clock_gettime, ticks of 1 ns */
    uint64_t start;           /* the TSC at the start: tick 0 */
    int64_t tsc0, ns0;        /* the scale, ns = ns0 + (tick - tsc0) * mult / 2^32, */
    uint64_t mult;            /* applied by the reader (an S record) */
    int64_t now;              /* the last tick read */
    struct timespec t0;       /* CLOCK_MONOTONIC at the start */
} trace_clock;
extern trace_clock trace_clk __attribute__((visibility("hidden")));
void trace_clock_start(void);
void trace_clock_anchor(void);                /* a new (tick, ns) pair and slope */
int64_t trace_clock_mono(void);               /* clock_gettime, ns since t0 */
int64_t trace_clock_ticks(int64_t ns);        /* about ns's ticks by the scale */

/* Ticks since trace_start: records hold ticks and the reader scales them,
 * keeping the multiply and the monotonic clamp off the calls (docs/traces.md,
 * 'The clock'; make bench-trace measures it). */
static inline __attribute__((always_inline)) int64_t trace_now(void)
{
    int64_t t = trace_clk.tsc ? (int64_t)(trace_tsc() - trace_clk.start) : trace_clock_mono();
    trace_clk.now = t;
    return t;
}

/* lib_log.c: the rank file. */
void trace_start(void);                       /* after PMPI_Init succeeded */
void trace_finish(const char *status);        /* writes the closing lines */
/* A text line (header, comm, phase, map) of at most `need` bytes: where to
 * write it, or NULL (tracing stopped: disk full).  trace_line_done(end)
 * commits the bytes up to end, which must hold the final '\n'. */
char *trace_line(size_t need);
void trace_line_done(char *end);

/* A call's words: KIND PHASE CALLER ARG... on entry, RESULT... on return
 * (in the order of the text line, trace/tracefile.h); w NULL when nothing is
 * to be recorded. */
typedef struct trace_words {
    int64_t *w;
    uint32_t n;               /* not size_t: a store to w[] cannot change it */
} trace_words;
/* Where a call's words are put (lib_log.c), and its growth: -1 when it
 * cannot hold n. */
extern int64_t *trace_wbuf __attribute__((visibility("hidden")));
extern size_t trace_wcap __attribute__((visibility("hidden")));
int trace_words_grow(size_t n);
/* Room for `more` arguments after KIND PHASE CALLER. */
static inline trace_words trace_enter(enum trace_kind kind, const void *caller, size_t more)
{
    trace_words a = {NULL, 0};
    if (!trace_enabled || (3 + more > trace_wcap && trace_words_grow(3 + more) != 0))
        return a;
    a.w = trace_wbuf;
    a.w[0] = kind, a.w[1] = trace_phase, a.w[2] = (int64_t)(uintptr_t)caller;
    a.n = 3;
    return a;
}
void trace_enter_done(trace_words *a);        /* writes the entry record */
/* A call site's fast entry: when the call repeats its site's last raw
 * arguments (key[0..TRACE_KEY_N)) and nothing they stand for changed,
 * writes its entry record at time t, sets *comm_id and returns 1; else 0,
 * and the caller builds the words and ends with trace_enter_site_done,
 * which also remembers the key.  t is read first, before the lookup, so
 * the clock's latency overlaps it. */
#define TRACE_KEY_N 5
int trace_enter_site(enum trace_kind kind, const void *caller, const int64_t *key, int *comm_id,
                     int64_t t);
void trace_enter_site_done(trace_words *a, const int64_t *key, int comm_id, int64_t t);
/* Bumped whenever a communicator or datatype handle may name another. */
extern uint32_t trace_epoch __attribute__((visibility("hidden")));
/* 1 from a call's entry record to its return; the time it returned. */
extern int trace_call_open __attribute__((visibility("hidden")));
extern int64_t trace_exit_t __attribute__((visibility("hidden")));
/* Reads the return time; room for `more` results (w NULL when the call's
 * entry was not recorded). */
static inline trace_words trace_exit(size_t more)
{
    trace_words r = {NULL, 0};
    if (!trace_call_open || !trace_enabled || (more > trace_wcap && trace_words_grow(more) != 0))
        return r;
    trace_exit_t = trace_now();
    r.w = trace_wbuf;
    return r;
}
void trace_exit_done(trace_words *r);         /* completes the call's record */

/* lib_record.c: communicators, requests, phases. */
typedef struct trace_comm_rec {
    int n, inter;
    int *world;               /* world rank of each rank (of the remote group if inter) */
} trace_comm_rec;
extern trace_comm_rec *trace_comms __attribute__((visibility("hidden")));
extern int trace_ncomms __attribute__((visibility("hidden")));
int trace_comm_id(MPI_Comm comm);             /* registering it if new; -1 */
int trace_comm_created(MPI_Comm comm);        /* registers; writes its line */
void trace_comm_forget(void);                 /* a communicator is freed */
/* World rank of rank r of communicator comm_id, or TRACE_NO_RANK. */
static inline int trace_world(int comm_id, int r)
{
    if (comm_id < 0 || comm_id >= trace_ncomms || r < 0 || r >= trace_comms[comm_id].n)
        return TRACE_NO_RANK;
    return trace_comms[comm_id].world[r];
}
/* A fresh request id for handle req, stored by the program at home. */
int trace_req_new(MPI_Request req, int comm_id, const MPI_Request *home);
/* Id of the live request with handle req that was stored at `at` (the
 * newest), else, when nth >= 0, of the nth with that handle (nth > 0 when
 * one array holds the handle more than once; an MPI may give several live
 * requests one handle); 0: not ours.  *slot: where it is kept, for
 * trace_req_done (-1: nowhere). */
int64_t trace_req_id(MPI_Request req, const MPI_Request *at, int nth, int *comm_id, int *slot);
extern int trace_next_req __attribute__((visibility("hidden")));   /* requests made so far */
static inline uint64_t trace_req_made(void)
{
    return (uint64_t)trace_next_req;
}
/* Request id completed or freed; slot: trace_req_id's, or -1. */
void trace_req_done(MPI_Request req, int64_t id, int slot);
void trace_phases_start(void);                /* phase 0, "main" */

/* lib_dtype.c: datatypes and operations. */
typedef struct trace_dt_info {
    MPI_Datatype dt;
    int size, contig;         /* contig: items abut, with no holes */
    uint32_t code;            /* signature code (tracekinds.h) */
} trace_dt_info;
const trace_dt_info *trace_dt(MPI_Datatype dt);   /* NULL: no type, or not known */
uint64_t trace_bytes(int count, MPI_Datatype dt);
/* COUNT CODE [CONTIG]: the count, the signature code (tracekinds.h; 3
 * words, written in hex) and (when contig) whether count items of dt lie
 * in one block. */
void tw_dtype(trace_words *a, int count, MPI_Datatype dt, int contig);
uint32_t trace_op_code(MPI_Op op);            /* tracekinds.h, TRACE_OP_* */

/* --- text lines (no stdio: safe in a signal handler); calls are words --- */

static inline char *tl_digits(char *p, uint64_t v)
{
    /* two digits per division */
    static const char pairs[201] =
        "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
        "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
    char tmp[20];
    int n = 20;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--n] = pairs[2 * r + 1];
        tmp[--n] = pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--n] = pairs[2 * v + 1];
        tmp[--n] = pairs[2 * v];
    } else {
        tmp[--n] = (char)('0' + v);
    }
    while (n < 20)
        *p++ = tmp[n++];
    return p;
}

static inline char *tl_u(char *p, uint64_t v)
{
    *p++ = ' ';
    return tl_digits(p, v);
}

static inline char *tl_i(char *p, int64_t v)
{
    *p++ = ' ';
    if (v < 0)
        *p++ = '-';
    return tl_digits(p, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

static inline char *tl_x(char *p, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    *p++ = ' ';
    do
        tmp[n++] = hex[v & 15];
    while ((v >>= 4) != 0);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *tl_s(char *p, const char *s)
{
    *p++ = ' ';
    while (*s)
        *p++ = *s++;
    return p;
}

/* Commits a text line ending at p (NULL: nothing to commit). */
static inline void trace_end(char *p)
{
    if (p) {
        *p++ = '\n';
        trace_line_done(p);
    }
}

static inline void tw(trace_words *a, int64_t v)
{
    if (a->w)
        a->w[a->n++] = v;
}

/* A word the text form writes in hex (2 words). */
static inline void tw_x(trace_words *a, uint64_t v)
{
    tw(a, TRACEBIN_HEX_NEXT);
    tw(a, (int64_t)v);
}

/* A call that returns nothing worth recording. */
static inline void trace_returned(void)
{
    trace_words r = trace_exit(0);
    trace_exit_done(&r);
}

/* Source, tag and bytes of a completed receive, the source a world rank. */
static inline void tw_status(trace_words *a, int comm_id, const MPI_Status *s)
{
#ifdef OPEN_MPI
    uint64_t bytes = s->_ucount;   /* Open MPI keeps the bytes received */
#else
    int n = 0;
    PMPI_Get_count(s, MPI_BYTE, &n);
    uint64_t bytes = n == MPI_UNDEFINED ? 0 : (uint64_t)n;
#endif
    tw(a, s->MPI_SOURCE == MPI_PROC_NULL ? TRACE_PROC_NULL : trace_world(comm_id, s->MPI_SOURCE));
    tw(a, s->MPI_TAG);
    tw(a, (int64_t)bytes);
}

/* A peer (comm-relative) as recorded: a world rank, or TRACE_*. */
static inline int64_t trace_peer(int comm_id, int r)
{
    return r == MPI_PROC_NULL ? TRACE_PROC_NULL : r == MPI_ANY_SOURCE ? TRACE_ANY : trace_world(comm_id, r);
}

/* "peer tag bytes" (peer comm-relative, recorded as a world rank). */
static inline void tw_peer(trace_words *a, int comm_id, int r, int tag, int count, MPI_Datatype dt)
{
    tw(a, trace_peer(comm_id, r));
    tw(a, tag == MPI_ANY_TAG ? TRACE_ANY : tag);
    tw(a, (int64_t)trace_bytes(count, dt));
}

/* "comm peer tag bytes" of a point-to-point call. */
static inline void tw_p2p(trace_words *a, int comm_id, int r, int tag, int count, MPI_Datatype dt)
{
    tw(a, comm_id);
    tw_peer(a, comm_id, r, tag, count, dt);
}

/* "comm peer tag bytes count code contig" of a point-to-point call with
 * its data: the type looked up once. */
static inline void tw_p2p_typed(trace_words *a, int comm_id, int r, int tag, int count,
                                MPI_Datatype dt)
{
    const trace_dt_info *x = trace_dt(dt);
    tw(a, comm_id);
    tw(a, trace_peer(comm_id, r));
    tw(a, tag == MPI_ANY_TAG ? TRACE_ANY : tag);
    tw(a, count > 0 && x ? (int64_t)count * x->size : 0);
    tw(a, count > 0 ? count : 0);
    tw_x(a, x ? x->code : TRACE_DT_UNKNOWN);
    tw(a, x ? x->contig != 0 : 0);
}

/* The entry of a point-to-point call with data, through its call site
 * when it repeats the site's last arguments: its communicator's id. */
static inline int p2p_enter(enum trace_kind kind, const void *caller, MPI_Comm comm, int peer,
                            int tag, int count, MPI_Datatype dt)
{
    int64_t key[TRACE_KEY_N] = {(int64_t)(intptr_t)comm, peer, tag, count, (int64_t)(intptr_t)dt};
    int id;
    int64_t t = trace_now();
    if (trace_enter_site(kind, caller, key, &id, t))
        return id;
    id = trace_comm_id(comm);   /* first: it may write a line */
    trace_words a = trace_enter(kind, caller, 8);
    tw_p2p_typed(&a, id, peer, tag, count, dt);
    trace_enter_site_done(&a, key, id, t);
    return id;
}

/* A request id, stored relative to the requests made so far (tracekinds.h,
 * trace_id_encode): a loop's calls repeat their signatures. */
static inline void tw_req(trace_words *a, int64_t id)
{
    tw(a, trace_id_encode((uint64_t)id, trace_req_made()));
}

#define CALLER __builtin_return_address(0)

#endif
