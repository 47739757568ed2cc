/* tracebin: the binary rank file libscitrace.so writes, and its decoder into
 * the text lines of trace/tracefile.h (what `scitrace dump` prints and every
 * analyzer parses).  Layout (little-endian, every record 16-byte aligned):
 *
 *   "#scitrace-bin 4\n"                the magic, 16 bytes (line 1 of the text)
 *   L  {type, inside, 0, len} TEXT     one text line (header, comm, phase,
 *                                      map, status, end) without its newline;
 *                                      inside 1: written during the open call
 *   D  {type, 0, slot, n} W[n]         entry signature `slot` is now the words
 *                                      KIND PHASE CALLER ARG...
 *   R  {type, 0, slot, n} W[n]         result signature `slot` is RESULT...
 *   S  {type, 0, 0, 0} T0 NS0 MULT     the scale of the times after it: a
 *                                      time of t ticks is NS0 + (t - T0) *
 *                                      MULT / 2^32 ns (at the start, and at
 *                                      least once a second after it)
 *   T  {type, 0, 0, 0} T64             the time base is T64 (ticks)
 *   >  {type, f, sig, dt, dur, res}    a call entered at base + dt, base
 *                                      becomes its time; '<' once it returned
 *                                      after dur ticks with result signature res
 *                                      (f 1: defined by an R record after
 *                                      this one, written before the '<')
 *   E  {type, 0, res, 0} T64           the open call returned at T64 (a call
 *                                      of 2^32 ticks or more)
 *
 * A record's type byte is written last, so a record with type 0 is the end
 * (the zero-filled rest of the mapped window, or a rank killed while writing
 * it).  A call's arguments and results are stored once per signature in two
 * tables of TRACEBIN_SLOTS slots each (a slot is reused on a collision), so a
 * call that repeats costs one 16-byte record.  Times are ticks (the TSC's,
 * or 1 ns) that the reader scales by the last S record before the call's
 * record, never letting a time fall below the one before it; a file of
 * version 3 has no S record and its ticks are ns.  Request ids are relative to
 * the rank's request counter (tracekinds.h, trace_kind_id_words): a loop's
 * Waitall names the same signature every time.  Adding a field to a call's
 * text is adding its word where the library pushes the call's arguments. */
#ifndef SCITORUS_TRACEBIN_H
#define SCITORUS_TRACEBIN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACEBIN_MAGIC "#scitrace-bin 4\n"
#define TRACEBIN_MAGIC_V3 "#scitrace-bin 3\n"   /* read as well: times in ns */
#define TRACEBIN_MAGIC_LEN 16
#define TRACEBIN_SLOTS 4096
/* A word that says the next one is written in hex in the text form (a
 * datatype's signature code). */
#define TRACEBIN_HEX_NEXT INT64_MIN
/* the most words one signature holds (a Waitall of 2^24 requests) */
#define TRACEBIN_MAX_WORDS (1u << 26)

enum {
    TRACEBIN_TEXT = 'L', TRACEBIN_DEF = 'D', TRACEBIN_RES = 'R', TRACEBIN_TIME = 'T',
    TRACEBIN_CALL = '>', TRACEBIN_DONE = '<', TRACEBIN_EXIT = 'E', TRACEBIN_SCALE = 'S'
};

typedef struct tracebin_head {   /* L, D, R; followed by the bytes or words */
    uint8_t type, inside;
    uint16_t slot;
    uint32_t n;
} tracebin_head;

typedef struct tracebin_call {   /* > and < */
    uint8_t type, res_follows;
    uint16_t sig;
    uint32_t dt, dur;
    uint16_t res, pad2;
} tracebin_call;

typedef struct tracebin_time {   /* T and E */
    uint8_t type, pad;
    uint16_t res;
    uint32_t pad2;
    int64_t t;
} tracebin_time;

typedef struct tracebin_scale {   /* S */
    uint8_t type, pad[7];
    int64_t tsc0, ns0;
    uint64_t mult;
} tracebin_scale;

/* Bytes of a record holding `payload` bytes after an 8-byte head. */
static inline uint64_t tracebin_size(uint64_t payload)
{
    return (8 + payload + 15) / 16 * 16;
}

/* --- the decoder (trace/tracebin.c) --- */
typedef struct tracebin_slot {
    int64_t *w;
    uint32_t n, cap;
} tracebin_slot;

typedef struct tracebin {
    FILE *fp;
    uint64_t off, size;      /* of the next record; the file's size */
    int64_t base;            /* the time base (ticks) */
    int64_t tsc0, ns0;       /* the scale (an S record's) */
    uint64_t mult;
    int64_t last_ns;         /* the latest time given */
    uint64_t nreq;           /* requests made so far (the library's counter) */
    tracebin_slot *defs, *res;
    int open;                /* a call entered, its return not yet read */
    int pending;             /* it returned: its '<' line comes next */
    int res_follows;         /* once the R record after it is read */
    int open_kind;
    uint16_t pending_res;
    int64_t pending_t;       /* ns */
    int started;             /* the magic line was given */
    char why[160];           /* what is wrong at byte off */
} tracebin;

/* Whether fp (at its start) holds a binary rank file; consumes the magic
 * when it does, else rewinds. */
int tracebin_is(FILE *fp);
/* After tracebin_is: 0, or -1 out of memory. */
int tracebin_open(tracebin *b, FILE *fp);
/* The next text line (with its '\n') into *buf: its length, 0 at the end
 * of the records, -1 when a record is malformed (b->why; at byte b->off). */
ssize_t tracebin_line(tracebin *b, char **buf, size_t *cap);
void tracebin_close(tracebin *b);

#endif
