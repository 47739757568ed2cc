/* mode_check: `scitrace check DIR`, the replay of check.h reported: a
 * summary line per kind of finding first, then each finding with the call,
 * its arguments and where it was called from. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/exit.h"
#include "util/opt.h"
#include "trace/check.h"
#include "scitrace/modes.h"
#include "trace/tracekinds.h"

#define SHOW_MAX 20   /* findings of one kind listed in full */

typedef struct check_opts {
    long eager;
    int partial;
    const char *events, *timeline;
} check_opts;

static const opt_spec check_specs[] = {
    {.name = "eager-limit", .kind = OPT_SIZE, .field = offsetof(check_opts, eager), .min = 0,
     .max = 4611686018427387904.0, .range = "0..2^62", .def = "0", .arg = "BYTES",
     .help = "model an MPI that buffers standard sends up to\nBYTES (Open MPI 4.1: 4096 over shared "
             "memory,\n65536 over TCP); 0: no buffering, as the MPI\nstandard allows"},
    {.name = "events", .kind = OPT_PATH, .field = offsetof(check_opts, events), .arg = "FILE",
     .help = "also write the completed message pairs and each\nrank's last state to FILE (- for "
             "standard output)"},
    {.name = "timeline", .kind = OPT_PATH, .field = offsetof(check_opts, timeline), .arg = "FILE",
     .help = "also write the timeline figure's data to FILE (calls\nby rank and time, messages, the "
             "cycle of waits;\nscitrace/timeline.sh draws it)"},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(check_opts, partial),
     .help = "check the ranks there are when rank files are missing\n(calls to or from a missing "
     "rank then never complete)"},
};

static const opt_program check_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace check [--eager-limit BYTES] [--partial] [--events FILE]\n"
"                      [--timeline FILE] DIR\n"
"Replay every rank's recorded calls together, with MPI's matching and\n"
"completion rules (messages of one source, communicator and tag in order,\n"
"wildcards, receives taking the source they matched in the run, standard\n"
"sends completing only when received unless --eager-limit models an MPI\n"
"that buffers them, collectives completing when every member reaches the\n"
"same position), and report:\n"
"  - deadlock: every rank still running is blocked in a call that nothing\n"
"    left can complete; the cycle (or chain) of waits, each rank's call,\n"
"    its arguments and its caller (file:line where the program has debug\n"
"    information, by addr2line); a message the blocked receive does not\n"
"    match only by its tag or communicator is named\n"
"  - potential deadlock: blocking sends that completed in this run only\n"
"    because MPI buffered them: the program is unsafe, and deadlocks on an\n"
"    MPI or transport that buffers less\n"
"  - collectives: members of one communicator calling different\n"
"    collectives, roots, operations or type signatures at the same\n"
"    position, and members that reached MPI_Finalize without entering a\n"
"    collective the others entered\n"
"  - type mismatches: a matched send and receive whose type signatures\n"
"    (count x datatype, as recorded) differ\n"
"  - pending: messages sent and never received, receives never matched,\n"
"    leaked requests (never completed by a Wait or Test nor freed: the\n"
"    handle was overwritten, or the request was still active at the end)\n"
"  - potential deadlock by a wildcard race: an MPI_ANY_SOURCE receive that,\n"
"    matched with another sender's message than in the run, leads to a\n"
"    deadlock (each such receive tried with each other sender that sends to\n"
"    it, the first 64 such replays; later calls are replayed as recorded,\n"
"    so a receive whose source the rank's next send or receive names is\n"
"    taken as used by the program and not tried)\n"
"  - ranks that crashed (with their signal), whose log ended early (killed\n"
"    by SIGKILL) or was cut by a signal, or that exited without MPI_Finalize\n"
"A missing rank file is refused (exit 3) unless --partial: its rank's\n"
"calls cannot be replayed.  The summary comes first, the details after.\n"
"--events writes the messages the replay matched (send and receive, with\n"
"their calls and lines) and each rank's last state (docs/formats.md);\n"
"--timeline the data of a figure of the ranks' calls and messages by time,\n"
"the deadlock's cycle marked (scitrace/timeline.sh DIR OUT.png draws it).\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 clean; 5 a rank crashed; 6 deadlock, inconsistent or\n"
"skipped collectives, or a type mismatch; 8 potential deadlock (and none of\n"
"those); 7 pending messages or requests, a log that ended early or was cut\n"
"by a signal, or a rank without MPI_Finalize, only; 3 a rank file is\n"
"missing (without --partial); 1 unreadable trace; 2 usage error.\n",
    .specs = check_specs,
    .nspecs = sizeof check_specs / sizeof check_specs[0],
    .args_min = 1,
    .args_max = 1,
};

static const char *comm_name(const trace_rank *t, int comm, char *buf, size_t cap)
{
    if (comm == 0)
        return "MPI_COMM_WORLD";
    if (comm < 0 || comm >= t->ncomms)
        return "?";
    snprintf(buf, cap, "comm %016" PRIx64 "/%d (%d ranks)", t->comms[comm].hash,
             t->comms[comm].seq, t->comms[comm].n);
    return buf;
}

static void peer_text(char *buf, size_t cap, int peer)
{
    if (peer == TRACE_ANY)
        snprintf(buf, cap, "ANY");
    else if (peer == TRACE_PROC_NULL)
        snprintf(buf, cap, "PROC_NULL");
    else
        snprintf(buf, cap, "%d", peer);
}

/* "MPI_Send(dest 1, tag 0, 1048576 B, MPI_COMM_WORLD) at app.c:42 (main)" */
static void describe(const trace_rank *t, size_t ci, char *out, size_t cap)
{
    const trace_call *c = &t->calls[ci];
    char cb[96], where[1200], p[16], p2[16], tg[16];
    int cls = trace_kind_class(c->kind);
    const char *cn = comm_name(t, c->comm, cb, sizeof cb), *name = trace_kind_name(c->kind);
    peer_text(p, sizeof p, c->peer);
    peer_text(p2, sizeof p2, c->peer2);
    peer_text(tg, sizeof tg, c->tag);
    trace_where(t, c->addr, where, sizeof where);
    char args[512] = "";
    if (c->kind == TRACE_K_SENDRECV)
        snprintf(args, sizeof args, "dest %s, tag %d, %" PRIu64 " B; source %s, tag %d; %s", p,
                 c->tag, c->bytes, p2, c->tag2, cn);
    else if (cls == TRACE_SEND || (cls == TRACE_REQ && c->kind != TRACE_K_RECV_INIT &&
                                   c->kind != TRACE_K_START && c->kind != TRACE_K_REQUEST_FREE))
        snprintf(args, sizeof args, "dest %s, tag %d, %" PRIu64 " B, %s", p, c->tag, c->bytes, cn);
    else if (cls == TRACE_RECV || cls == TRACE_PROBE || c->kind == TRACE_K_RECV_INIT)
        snprintf(args, sizeof args, "source %s, tag %s, %" PRIu64 " B, %s", p, tg, c->bytes, cn);
    else if (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT || cls == TRACE_ICOLL)
        snprintf(args, sizeof args, "root %s, %" PRIu64 " B, %s", c->peer < 0 ? "-" : p, c->bytes,
                 cn);
    else if (cls == TRACE_WAIT || c->kind == TRACE_K_START)
        snprintf(args, sizeof args, "%zu requests", c->nlist);
    else if (cls == TRACE_COMM)
        snprintf(args, sizeof args, "%s", cn);
    snprintf(out, cap, "MPI_%c%s(%s) at %s, call %zu (line %ld of %s)", name[0] - 32, name + 1,
             args, where, ci + 1, c->line, t->path);
}

/* A collective's root, operation and type: "root 0, MPI_SUM, 1 x int32". */
static void coll_text(const trace_call *c, char *out, size_t cap)
{
    static const char *const ops[] = {"", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
                                      "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR",
                                      "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE",
                                      "MPI_NO_OP"};
    char ty[64];
    check_type_text(c->count, c->dtype, ty, sizeof ty);
    char root[24] = "no root";
    if (c->peer >= 0)
        snprintf(root, sizeof root, "root %d", c->peer);
    snprintf(out, cap, "%s%s%s%s%s", root, c->tag2 > 0 ? ", " : "",
             c->tag2 > 0 && c->tag2 < 15 ? ops[c->tag2] : c->tag2 > 0 ? "a user-defined operation" : "",
             ty[0] ? ", " : "", ty);
}

/* The message a blocked receive does not match only by its tag or
 * communicator: a pending send of the rank it waits for, to it. */
static void near_miss(const trace_dir *d, const check_result *res, const check_finding *f)
{
    const trace_rank *t = &d->ranks[f->rank];
    const trace_call *c = &t->calls[f->call];
    int cls = trace_kind_class(c->kind), rtag = c->kind == TRACE_K_SENDRECV ? c->tag2 : c->tag;
    if (f->waits_for < 0 || !(cls == TRACE_RECV || c->kind == TRACE_K_SENDRECV) ||
        !d->loaded[f->waits_for])
        return;
    const trace_rank *o = &d->ranks[f->waits_for];
    for (size_t i = 0; i < res->n; i++) {
        const check_finding *g = &res->f[i];
        if (g->kind != CHECK_PENDING_SEND || g->rank != f->waits_for || g->waits_for != f->rank)
            continue;
        const trace_call *s = &o->calls[g->call];
        int same_comm = s->comm >= 0 && c->comm >= 0 && o->comms[s->comm].hash == t->comms[c->comm].hash &&
                        o->comms[s->comm].seq == t->comms[c->comm].seq;
        char buf[2048];
        describe(o, g->call, buf, sizeof buf);
        if (!same_comm)
            printf("\n    rank %d's message to it differs by its communicator: %s", g->rank, buf);
        else if (rtag != TRACE_ANY && s->tag != rtag)
            printf("\n    rank %d's message to it differs by its tag (%d, the receive wants %d): %s",
                   g->rank, s->tag, rtag, buf);
        else
            continue;
        return;
    }
}

static size_t count(const check_result *res, enum check_finding_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n; i++)
        n += res->f[i].kind == k;
    return n;
}

static void list(const trace_dir *d, const check_result *res, enum check_finding_kind k,
                 const char *title)
{
    size_t n = count(res, k), shown = 0;
    char buf[2048];
    if (!n)
        return;
    printf("\n%s (%zu)\n", title, n);
    for (size_t i = 0; i < res->n && shown < SHOW_MAX; i++) {
        const check_finding *f = &res->f[i];
        if (f->kind != k)
            continue;
        shown++;
        const trace_rank *t = d->loaded[f->rank] ? &d->ranks[f->rank] : NULL;
        if (k == CHECK_ENDED || k == CHECK_DIED || k == CHECK_NO_FINALIZE) {
            if (!t)
                printf("  rank %d: no rank file at all\n", f->rank);
            else {
                if (f->call != SIZE_MAX)
                    describe(t, f->call, buf, sizeof buf);
                printf("  rank %d: %s; its last call: %s%s\n", f->rank,
                       t->ended_early ? "log ended early, without closing lines (killed by "
                                        "SIGKILL, or the machine stopped)"
                                      : t->status,
                       f->call == SIZE_MAX ? "none" : buf,
                       f->call != SIZE_MAX && !t->calls[f->call].done ? ", never returned" : "");
            }
            continue;
        }
        describe(t, f->call, buf, sizeof buf);
        printf("  rank %d: %s", f->rank, buf);
        if (k == CHECK_DEADLOCK) {
            if (f->waits_for >= 0)
                printf("; waits for rank %d", f->waits_for);
            else if (f->waits_for == -1)
                printf("; waits for any of several ranks");
            printf("%s", t->calls[f->call].done ? "" : "; never returned in the run");
            near_miss(d, res, f);
        } else if (k == CHECK_INCONSISTENT) {
            char other[2048], x[160], y[160];
            const trace_rank *o = &d->ranks[f->other_rank];
            describe(o, f->other_call, other, sizeof other);
            printf("\n    but rank %d, at the same position: %s", f->other_rank, other);
            coll_text(&t->calls[f->call], x, sizeof x);
            coll_text(&o->calls[f->other_call], y, sizeof y);
            printf("\n    (rank %d: %s; rank %d: %s)", f->rank, x, f->other_rank, y);
        } else if (k == CHECK_COLL_MISSING) {
            char other[2048];
            describe(&d->ranks[f->other_rank], f->other_call, other, sizeof other);
            printf("\n    ended (%s) without entering the collective that rank %d (and the other "
                   "members at that position) entered: %s", t->status, f->other_rank, other);
        } else if (k == CHECK_TYPE_MISMATCH) {
            char other[2048], x[64], y[64];
            const trace_rank *o = &d->ranks[f->other_rank];
            const trace_call *rc = &o->calls[f->other_call], *sc = &t->calls[f->call];
            describe(o, f->other_call, other, sizeof other);
            check_type_text(sc->count, sc->dtype, x, sizeof x);
            if (rc->kind == TRACE_K_SENDRECV)
                check_type_text(rc->count2, rc->dtype2, y, sizeof y);
            else
                check_type_text(rc->count, rc->dtype, y, sizeof y);
            printf("\n    sends %s, but rank %d receives it as %s: %s", x, f->other_rank, y, other);
        } else if (k == CHECK_POTENTIAL) {
            printf("; completed only because MPI buffered it");
        } else if (k == CHECK_RACE) {
            printf("; matched rank %d's message in the run, but rank %d's fits it too: matched "
                   "with that one, the replay deadlocks", f->other_rank, f->waits_for);
        }
        printf("\n");
    }
    if (n > shown)
        printf("  ... and %zu more\n", n - shown);
}

static void ranks_of(const check_result *res, enum check_finding_kind k, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < res->n && len + 16 < cap; i++)
        if (res->f[i].kind == k)
            len += (size_t)snprintf(out + len, cap - len, " %d", res->f[i].rank);
}

/* --events or --timeline FILE: written whole or not at all ("-": standard
 * output). */
static int events(const trace_dir *d, const check_result *res, const char *path, const char *opt,
                  int (*write)(const trace_dir *, const check_result *, FILE *))
{
    if (strcmp(path, "-") == 0)
        return write(d, res, stdout);
    atomic_file af;
    if (atomic_file_open(&af, path) != 0 || write(d, res, af.fp) != 0) {
        fprintf(stderr, "scitrace: check: %s %s: %s\n", opt, path, strerror(errno));
        if (af.fp)
            atomic_file_abort(&af);
        return -1;
    }
    if (atomic_file_commit(&af) != 0) {
        fprintf(stderr, "scitrace: check: %s %s: %s\n", opt, path, strerror(errno));
        return -1;
    }
    return 0;
}

int scitrace_check(int argc, char **argv)
{
    check_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&check_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    long long eager = o.eager;
    int first = st.first_arg;
    trace_dir d;
    trace_error err;
    check_result res;
    if (trace_dir_load(argv[first], NULL, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    for (int r = 0; r < d.nranks && !o.partial; r++)
        if (!d.loaded[r]) {   /* the replay would blame the ranks that wait for it */
            fprintf(stderr, "scitrace: check: %s: rank %d left no rank file (rank-%05d.trace): "
                    "no verdict without it; --partial to check the others\n", d.path, r, r);
            trace_dir_free(&d);
            return TRACE_EXIT_INCOMPLETE;
        }
    if (check_replay(&d, (uint64_t)eager, &res) != 0) {
        fprintf(stderr, "scitrace: %s: out of memory\n", d.path);
        trace_dir_free(&d);
        return 1;
    }
    size_t dl = count(&res, CHECK_DEADLOCK), pot = count(&res, CHECK_POTENTIAL),
           inc = count(&res, CHECK_INCONSISTENT), ps = count(&res, CHECK_PENDING_SEND),
           pr = count(&res, CHECK_PENDING_RECV), pq = count(&res, CHECK_PENDING_REQ),
           ended = count(&res, CHECK_ENDED), died = count(&res, CHECK_DIED),
           nofin = count(&res, CHECK_NO_FINALIZE), race = count(&res, CHECK_RACE),
           skip = count(&res, CHECK_COLL_MISSING), tym = count(&res, CHECK_TYPE_MISMATCH);
    int rc = died ? EXIT_CHECK_DIED : dl || inc || skip || tym ? EXIT_CHECK_ERROR
           : pot || race ? EXIT_CHECK_POTENTIAL
           : ps || pr || pq || ended || nofin ? EXIT_CHECK_PENDING : 0;
    char who[1024], headline[160] = "";
    for (size_t i = 0; i < res.n && !headline[0]; i++)
        if (res.f[i].kind == CHECK_DIED)
            snprintf(headline, sizeof headline, "RANK DIED (rank %d %s%s)", res.f[i].rank,
                     d.ranks[res.f[i].rank].status, died > 1 ? ", and others" : "");
    printf("scitrace check %s: %s (exit %d), ", d.path,
           died ? headline : dl ? "DEADLOCK" : inc ? "INCONSISTENT COLLECTIVES"
           : skip ? "COLLECTIVE NOT ENTERED BY EVERY MEMBER" : tym ? "TYPE MISMATCH"
           : pot || race ? "POTENTIAL DEADLOCK" : rc ? "PENDING" : "clean", rc);
    if (eager)
        printf("modelling an MPI that buffers standard sends up to %lld B (--eager-limit)\n", eager);
    else
        printf("no send buffered (the MPI standard's safe program)\n");
    ranks_of(&res, CHECK_DIED, who, sizeof who);
    printf("  ranks that crashed: %s%s\n", died ? "ranks" : "none", who);
    ranks_of(&res, CHECK_DEADLOCK, who, sizeof who);
    printf("  deadlock: %s%s%s\n", dl ? "ranks" : "none", who,
           dl && died ? " (waiting, most likely, for the rank that crashed)" : "");
    printf("  potential deadlocks (sends that needed buffering): %zu\n", pot);
    printf("  potential deadlocks (wildcard receives whose other match deadlocks): %zu\n", race);
    printf("  inconsistent collectives: %zu\n", inc);
    printf("  collectives a member skipped: %zu\n", skip);
    printf("  type mismatches: %zu\n", tym);
    printf("  pending: %zu messages never received, %zu receives never matched, %zu requests "
           "never completed (leaked)\n", ps, pr, pq);
    ranks_of(&res, CHECK_ENDED, who, sizeof who);
    printf("  logs that ended early or were cut by a signal: %s%s\n", ended ? "ranks" : "none", who);
    ranks_of(&res, CHECK_NO_FINALIZE, who, sizeof who);
    printf("  ranks that exited without MPI_Finalize: %s%s\n", nofin ? "ranks" : "none", who);
    if (dl) {
        printf("\ndeadlock: every rank still running is blocked in a call nothing left can "
               "complete\n  %s:", res.cycle_closed ? "cycle of waits" : "chain of waits");
        for (int i = 0; i < res.ncycle; i++)
            printf(" %srank %d", i ? "-> " : "", res.cycle[i]);
        if (res.cycle_closed && res.ncycle)
            printf(" -> rank %d", res.cycle[0]);
        else if (res.ncycle)
            printf(" (%s)", d.loaded[res.cycle[res.ncycle - 1]]
                                ? "which ran out of calls: it finished or its log ended"
                                : "which left no rank file");
        printf("\n");
    }
    list(&d, &res, CHECK_DIED, "ranks that crashed");
    list(&d, &res, CHECK_DEADLOCK, "blocked ranks");
    list(&d, &res, CHECK_POTENTIAL, eager ? "potential deadlocks: blocking sends above the eager limit"
                                          : "potential deadlocks: blocking sends that needed buffering");
    list(&d, &res, CHECK_INCONSISTENT, "inconsistent collectives");
    list(&d, &res, CHECK_COLL_MISSING, "collectives a member skipped");
    list(&d, &res, CHECK_TYPE_MISMATCH, "type mismatches (send and receive type signatures differ)");
    list(&d, &res, CHECK_PENDING_SEND, "messages sent and never received");
    list(&d, &res, CHECK_PENDING_RECV, "receives never matched");
    list(&d, &res, CHECK_PENDING_REQ, "leaked requests: never completed by a Wait or Test nor freed "
                                      "(handle overwritten, or still active at the end)");
    list(&d, &res, CHECK_RACE, "potential deadlocks: wildcard receives with another possible match");
    list(&d, &res, CHECK_ENDED, "ranks whose log ended early or was cut by a signal");
    list(&d, &res, CHECK_NO_FINALIZE, "ranks that exited without MPI_Finalize");
    if (o.events && events(&d, &res, o.events, "--events", check_events_write) != 0)
        rc = 1;
    if (o.timeline && events(&d, &res, o.timeline, "--timeline", check_timeline_write) != 0)
        rc = 1;
    check_free(&res);
    trace_dir_free(&d);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("scitrace: check: standard output");
        return 1;
    }
    return rc;
}
