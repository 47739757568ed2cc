/* mode_check: `scitrace check DIR`, the replay of check.h reported: a
 * summary line per kind of finding first, then each finding with the call,
 * its arguments and where it was called from. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opt.h"
#include "trace/check.h"
#include "scitrace/modes.h"
#include "trace/tracekinds.h"

#define EXIT_DIED 5
#define EXIT_DEADLOCK 6
#define EXIT_PENDING 7
/* --eager-limit's default, 4096: Open MPI 4.1's shared-memory transport
 * (vader) sends up to 4 KiB eagerly; its TCP transport up to 64 KiB. */
#define SHOW_MAX 20   /* findings of one kind listed in full */

typedef struct check_opts {
    long eager;
    int partial;
} check_opts;

static const opt_spec check_specs[] = {
    {.name = "eager-limit", .kind = OPT_SIZE, .field = offsetof(check_opts, eager), .min = 0,
     .max = 4611686018427387904.0, .range = "0..2^62", .def = "4096", .arg = "BYTES",
     .help = "largest standard send MPI buffers (Open MPI's\nshared-memory eager limit)"},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(check_opts, partial),
     .help = "check the ranks there are when rank files are missing\n(calls to or from a missing "
     "rank then never complete)"},
};

static const opt_program check_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace check [--eager-limit BYTES] [--partial] DIR\n"
"Replay every rank's recorded calls together, with MPI's matching and\n"
"completion rules (messages of one source, communicator and tag in order,\n"
"wildcards, receives taking the source they matched in the run, standard\n"
"sends above the eager limit completing only when received, collectives\n"
"completing when every member reaches the same position), and report:\n"
"  - deadlock: every rank still running is blocked in a call that nothing\n"
"    left can complete; the cycle (or chain) of waits, each rank's call,\n"
"    its arguments and its caller (file:line where the program has debug\n"
"    information, by addr2line)\n"
"  - potential deadlock: blocking sends that completed in this run only\n"
"    because MPI buffered them (above the eager limit, the replay needs\n"
"    the receive); the program is unsafe on another MPI or transport\n"
"  - inconsistent collectives: ranks of one communicator calling different\n"
"    collectives, roots or sizes at the same position\n"
"  - pending: messages sent and never received, receives never matched,\n"
"    requests never completed by a Wait or Test (nor freed)\n"
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
"\n",
    .epilog =
"\n"
"Exit status: 0 clean; 5 a rank crashed; 6 deadlock, potential deadlock\n"
"or inconsistent collective; 7 pending messages or requests, a log that\n"
"ended early or was cut by a signal, or a rank without MPI_Finalize, only;\n"
"3 a rank file is missing (without --partial); 1 unreadable trace; 2 usage\n"
"error.\n",
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
    else if (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT)
        snprintf(args, sizeof args, "root %s, %" PRIu64 " B, %s", c->peer < 0 ? "-" : p, c->bytes,
                 cn);
    else if (cls == TRACE_WAIT || c->kind == TRACE_K_START)
        snprintf(args, sizeof args, "%zu requests", c->nlist);
    else if (cls == TRACE_COMM)
        snprintf(args, sizeof args, "%s", cn);
    snprintf(out, cap, "MPI_%c%s(%s) at %s, call %zu (line %ld of %s)", name[0] - 32, name + 1,
             args, where, ci + 1, c->line, t->path);
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
        } else if (k == CHECK_INCONSISTENT) {
            char other[2048];
            describe(&d->ranks[f->other_rank], f->other_call, other, sizeof other);
            printf("\n    but rank %d, at the same position: %s", f->other_rank, other);
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
           nofin = count(&res, CHECK_NO_FINALIZE), race = count(&res, CHECK_RACE);
    int rc = died ? EXIT_DIED : dl || pot || inc || race ? EXIT_DEADLOCK
           : ps || pr || pq || ended || nofin ? EXIT_PENDING : 0;
    char who[1024], headline[160] = "";
    for (size_t i = 0; i < res.n && !headline[0]; i++)
        if (res.f[i].kind == CHECK_DIED)
            snprintf(headline, sizeof headline, "RANK DIED (rank %d %s%s)", res.f[i].rank,
                     d.ranks[res.f[i].rank].status, died > 1 ? ", and others" : "");
    printf("scitrace check %s: %s (exit %d), eager limit %lld B\n", d.path,
           died ? headline : dl ? "DEADLOCK" : pot || race ? "POTENTIAL DEADLOCK"
           : inc ? "INCONSISTENT COLLECTIVES" : rc ? "PENDING" : "clean", rc, eager);
    ranks_of(&res, CHECK_DIED, who, sizeof who);
    printf("  ranks that crashed: %s%s\n", died ? "ranks" : "none", who);
    ranks_of(&res, CHECK_DEADLOCK, who, sizeof who);
    printf("  deadlock: %s%s%s\n", dl ? "ranks" : "none", who,
           dl && died ? " (waiting, most likely, for the rank that crashed)" : "");
    printf("  potential deadlocks (sends that needed buffering): %zu\n", pot);
    printf("  potential deadlocks (wildcard receives whose other match deadlocks): %zu\n", race);
    printf("  inconsistent collectives: %zu\n", inc);
    printf("  pending: %zu messages never received, %zu receives never matched, %zu requests "
           "never completed\n", ps, pr, pq);
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
    list(&d, &res, CHECK_POTENTIAL, "potential deadlocks: blocking sends above the eager limit");
    list(&d, &res, CHECK_INCONSISTENT, "inconsistent collectives");
    list(&d, &res, CHECK_PENDING_SEND, "messages sent and never received");
    list(&d, &res, CHECK_PENDING_RECV, "receives never matched");
    list(&d, &res, CHECK_PENDING_REQ, "requests never completed (no Wait or Test returned them)");
    list(&d, &res, CHECK_RACE, "potential deadlocks: wildcard receives with another possible match");
    list(&d, &res, CHECK_ENDED, "ranks whose log ended early or was cut by a signal");
    list(&d, &res, CHECK_NO_FINALIZE, "ranks that exited without MPI_Finalize");
    check_free(&res);
    trace_dir_free(&d);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("scitrace: check: standard output");
        return 1;
    }
    return rc;
}
