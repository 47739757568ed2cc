/* check: every rank's recorded calls replayed together under MPI's
 * matching and completion rules, after the logfile analyzer of Zhang
 * (1999): a state per rank (the call it is in), messages matched in order
 * per (source, communicator, tag) with wildcards, sends above the eager
 * limit completing only when received, collectives completing when every
 * member has entered the same position on the communicator.  Receives take
 * the source and tag they actually matched in the run (from the log), so a
 * replay follows the run it was recorded from.  When no rank can move:
 *   - ranks inside calls the log says never returned: a deadlock;
 *   - ranks inside calls that did return in the run: those calls completed
 *     only thanks to buffering (a potential deadlock); the replay lets them
 *     complete and goes on. */
#ifndef SCITORUS_CHECK_H
#define SCITORUS_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/tracefile.h"

enum check_finding_kind {
    CHECK_DEADLOCK,      /* rank blocked for good (one per rank in it) */
    CHECK_POTENTIAL,     /* a call that needed buffering (one per call) */
    CHECK_INCONSISTENT,  /* a collective position where ranks disagree */
    CHECK_PENDING_SEND,  /* a message never received */
    CHECK_PENDING_RECV,  /* a receive never matched */
    CHECK_PENDING_REQ,   /* a request never completed by a Wait or Test */
    CHECK_ENDED,         /* a rank whose log ended early, was cut by a kill, or is missing */
    CHECK_DIED,          /* a rank that crashed (its signal in its status) */
    CHECK_NO_FINALIZE,   /* a rank that exited without MPI_Finalize */
    CHECK_RACE,          /* a wildcard receive whose other match deadlocks */
    CHECK_COLL_MISSING,  /* a member that never entered a collective others did */
    CHECK_TYPE_MISMATCH, /* a matched send and receive whose type signatures differ */
};

typedef struct check_finding {
    enum check_finding_kind kind;
    int rank;
    size_t call;         /* index in the rank's calls (SIZE_MAX: none) */
    int waits_for;       /* DEADLOCK: the rank it waits for (-1: several) */
    int other_rank;      /* INCONSISTENT, COLL_MISSING: a rank that entered the
                            collective; TYPE_MISMATCH: the receiver; RACE: the
                            run's source */
    size_t other_call;
} check_finding;

/* A message the replay matched: the send (or send_init) call of src and
 * the receive (or recv_init, sendrecv) call of dst, in the order matched. */
typedef struct check_pair {
    int src, dst;
    size_t send_call, recv_call;
} check_pair;

typedef struct check_result {
    check_finding *f;
    size_t n, cap;
    check_pair *pairs;   /* the run as recorded only */
    size_t npairs, cappairs;
    int *cycle;          /* DEADLOCK: a cycle of waits (or a chain) */
    int ncycle, cycle_closed;
} check_result;

/* Replays d with blocking sends above eager_limit bytes completing only
 * when received, then, when it does not deadlock, looks for wildcard races
 * (check_race.c).  Returns 0, or -1 when out of memory. */
int check_replay(const trace_dir *d, uint64_t eager_limit, check_result *res);

/* Another run: the wildcard receive (rank, call) matches src's message,
 * every other wildcard receive whatever fits first, and only buffered
 * sends complete without their receive. */
typedef struct check_alt {
    int rank, src;
    size_t call;
} check_alt;

/* One replay: the run as recorded (a NULL) or another (check_replay.c). */
int check_replay_as(const trace_dir *d, uint64_t eager_limit, const check_alt *a,
                    check_result *res);
void check_free(check_result *res);

/* check_coll.c: every collective of an intracommunicator compared across
 * its members, position by position: the same call, root, operation and
 * type signature (INCONSISTENT), and entered by every member whose log
 * reached MPI_Finalize (COLL_MISSING); one finding per communicator and
 * rank.  Returns 0, or -1 when out of memory. */
int check_collectives(const trace_dir *d, check_result *res);

/* check_types.c: the type signatures of the replay's matched pairs
 * (TYPE_MISMATCH).  Returns 0, or -1 when out of memory. */
int check_types(const trace_dir *d, check_result *res);

/* "4 x int32", "2 x double", "1 x mixed 8abc0123" ("" when unrecorded). */
void check_type_text(int64_t count, uint32_t code, char *out, size_t cap);

/* check_events.c: the matched pairs and each rank's last state after the
 * replay, as text (docs/formats.md); -1 on a write error. */
int check_events_write(const trace_dir *d, const check_result *res, FILE *fp);

/* check_timeline.c: the timeline figure's data (scitrace/timeline.gp): calls
 * by rank and time, matched messages, the cycle of waits; -1 on a write
 * error. */
int check_timeline_write(const trace_dir *d, const check_result *res, FILE *fp);

/* Appends a finding; -1 when out of memory. */
int check_add(check_result *res, check_finding f);

#endif
