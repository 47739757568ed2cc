/* mode_summary: `scitrace summary DIR`, what a trace holds, for people:
 * ranks and their status, calls, size histogram, busiest pairs, unmatched
 * sends and receives, missing ranks. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opt.h"
#include "trace/build_matrix.h"
#include "trace/match.h"
#include "scitrace/modes.h"
#include "trace/tracekinds.h"

#define MAX_TOP 100000
#define SHOW_UNMATCHED 10       /* unmatched streams listed by name */
#define SIZE_CLASSES 65         /* 0, then [2^k, 2^(k+1)) for k = 0..63 */

typedef struct summary_opts {
    int collectives;          /* 0 expand, 1 p2p-only */
    long top;
    const char *phase;
} summary_opts;

static const opt_spec summary_specs[] = {
    {.name = "collectives", .kind = OPT_ENUM, .field = offsetof(summary_opts, collectives),
     .choices = (const char *const[]){"expand", "p2p-only", NULL}, .def = "expand", .arg = "C",
     .help = "as for `scitrace matrix`"},
    {.name = "top", .kind = OPT_LONG, .field = offsetof(summary_opts, top), .min = 0,
     .max = MAX_TOP, .range = "0..100000", .def = "10", .arg = "N", .help = "busiest pairs shown"},
    {.name = "phase", .kind = OPT_STRING, .field = offsetof(summary_opts, phase), .arg = "NAME",
     .help = "only the calls of phase NAME (all: every phase)"},
};

static const opt_program summary_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace summary [OPTIONS] DIR\n"
"Describe the trace in DIR (rank files written by libscitrace.so):\n"
"  - ranks, rank files found, and each rank's status when it is not\n"
"    'finalized' (aborted, no-finalize, killed SIG, crashed SIG, or\n"
"    ended-early: killed by SIGKILL); ranks that left no rank file\n"
"  - the phases, with each one's calls, and the communicators, with their\n"
"    size and members (world ranks)\n"
"  - per call: records, messages (calls for a collective) and bytes\n"
"  - message-size histogram by power-of-two class, busiest rank pairs by\n"
"    bytes: both over the traffic matrix (collectives expanded unless\n"
"    --collectives p2p-only)\n"
"  - matching: the point-to-point sends and receives of each (source,\n"
"    destination, communicator, tag) stream matched in order; sends left\n"
"    without a receive and receives left without a send, the first named\n"
"\n",
    .epilog =
"\n"
"An incomplete trace (missing rank files, ranks killed, crashed or cut\n"
"short, calls that never returned) is described, with one warning line on\n"
"stderr, and does not make the summary fail.  Exit status: 0, 1 a rank\n"
"file is malformed (the message names the file and line), 2 usage error.\n",
    .specs = summary_specs,
    .nspecs = sizeof summary_specs / sizeof summary_specs[0],
    .args_min = 1,
    .args_max = 1,
};

static void print_ranks(const trace_dir *d)
{
    int done = 0;
    printf("trace %s: %d ranks, %d rank files\n", d->path, d->nranks, d->nloaded);
    for (int r = 0; r < d->nranks; r++) {
        if (!d->loaded[r]) {
            printf("  rank %d: no rank file (it never reached MPI_Init, or the file was removed)\n",
                   r);
            fprintf(stderr, "scitrace: %s: rank %d left no rank file\n", d->path, r);
        } else if (strcmp(d->ranks[r].status, "finalized") != 0) {
            printf("  rank %d: status %s\n", r, d->ranks[r].status);
        } else {
            done++;
        }
    }
    for (int r = 0; r < d->nranks; r++)
        if (d->loaded[r]) {
            printf("command: %s (%s, %s); %d of %d ranks finalized\n", d->ranks[r].command,
                   d->ranks[r].host, d->date, done, d->nranks);
            break;
        }
}

/* Phases by name with their calls over all ranks, and the communicators
 * (one line per (hash, seq), the name every member's file gives it). */
static void print_phases_comms(const trace_dir *d)
{
    printf("\nphases (calls over all ranks)\n");
    for (int r = 0; r < d->nranks; r++)
        for (int p = 0; d->loaded[r] && p < d->ranks[r].nphases; p++) {
            int first = 1;
            for (int q = 0; q < r && first; q++)
                for (int k = 0; d->loaded[q] && k < d->ranks[q].nphases; k++)
                    first &= strcmp(d->ranks[q].phases[k], d->ranks[r].phases[p]) != 0;
            for (int k = 0; k < p && first; k++)
                first &= strcmp(d->ranks[r].phases[k], d->ranks[r].phases[p]) != 0;
            if (!first)
                continue;
            unsigned long long calls = 0;
            for (int q = 0; q < d->nranks; q++)
                for (size_t i = 0; d->loaded[q] && i < d->ranks[q].ncalls; i++) {
                    const trace_rank *t = &d->ranks[q];
                    calls += strcmp(t->phases[t->calls[i].phase], d->ranks[r].phases[p]) == 0;
                }
            printf("  %-24s %12llu calls\n", d->ranks[r].phases[p], calls);
        }
    printf("\ncommunicators (size: members as world ranks)\n");
    for (int r = 0; r < d->nranks; r++)
        for (int i = 0; d->loaded[r] && i < d->ranks[r].ncomms; i++) {
            const trace_comm *c = &d->ranks[r].comms[i];
            int first = 1;
            for (int q = 0; q < r && first; q++)
                for (int k = 0; d->loaded[q] && k < d->ranks[q].ncomms; k++)
                    first &= !(d->ranks[q].comms[k].hash == c->hash &&
                               d->ranks[q].comms[k].seq == c->seq);
            for (int k = 0; k < i && first; k++)
                first &= !(d->ranks[r].comms[k].hash == c->hash && d->ranks[r].comms[k].seq == c->seq);
            if (!first)
                continue;
            printf("  %016llx/%d %s%d:", (unsigned long long)c->hash, c->seq,
                   c->inter ? "inter, remote group " : "", c->n);
            for (int k = 0; k < c->n && k < 32; k++)
                printf(" %d", c->world[k]);
            printf("%s\n", c->n > 32 ? " ..." : "");
        }
}

static void print_calls(const trace_dir *d)
{
    uint64_t recs[TRACE_NKINDS] = {0}, msgs[TRACE_NKINDS] = {0}, bytes[TRACE_NKINDS] = {0};
    for (int r = 0; r < d->nranks; r++)
        for (size_t i = 0; d->loaded[r] && i < d->ranks[r].nrecs; i++) {
            const trace_rec *x = &d->ranks[r].recs[i];
            recs[x->kind]++;
            msgs[x->kind] += x->messages;
            bytes[x->kind] += x->bytes;
        }
    printf("\n%-22s %8s %14s %18s\n", "call", "records", "messages", "bytes");
    for (int k = 0; k < TRACE_NKINDS; k++)
        if (recs[k])
            printf("%-22s %8llu %14llu %18llu%s\n", trace_kind_name(k),
                   (unsigned long long)recs[k], (unsigned long long)msgs[k],
                   (unsigned long long)bytes[k],
                   trace_kind_class(k) == TRACE_COLL ? "  (calls; bytes per block x calls)" : "");
}

static int size_class(uint64_t size)
{
    return size ? 64 - __builtin_clzll(size) : 0;
}

static void print_histogram(const trace_matrix *m)
{
    uint64_t msgs[SIZE_CLASSES] = {0}, bytes[SIZE_CLASSES] = {0};
    for (size_t i = 0; i < m->nrows; i++) {
        int c = size_class(m->rows[i].size_bytes);
        msgs[c] += m->rows[i].messages;
        bytes[c] += m->rows[i].messages * m->rows[i].size_bytes;
    }
    printf("\nmessage sizes (traffic matrix)\n%-24s %14s %18s\n", "size_bytes", "messages", "bytes");
    for (int c = 0; c < SIZE_CLASSES; c++) {
        char label[48];
        if (!msgs[c])
            continue;
        if (c == 0)
            snprintf(label, sizeof label, "0");
        else
            snprintf(label, sizeof label, "%llu..%llu", 1ull << (c - 1),
                     c == 64 ? ~0ull : (1ull << c) - 1);
        printf("%-24s %14llu %18llu\n", label, (unsigned long long)msgs[c],
               (unsigned long long)bytes[c]);
    }
}

typedef struct pair {
    int src, dst;
    uint64_t messages, bytes;
} pair;

static int by_bytes_desc(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    return a->src != b->src ? a->src - b->src : a->dst - b->dst;
}

static int print_pairs(const trace_matrix *m, long top)
{
    pair *p = malloc((m->nrows + 1) * sizeof *p);
    size_t n = 0;
    if (!p)
        return -1;
    for (size_t i = 0; i < m->nrows; i++) {   /* rows are sorted by src, dst */
        const trace_matrix_row *r = &m->rows[i];
        if (!n || p[n - 1].src != r->src || p[n - 1].dst != r->dst)
            p[n++] = (pair){r->src, r->dst, 0, 0};
        p[n - 1].messages += r->messages;
        p[n - 1].bytes += r->messages * r->size_bytes;
    }
    qsort(p, n, sizeof *p, by_bytes_desc);
    printf("\nbusiest pairs (%zu pairs exchange messages)\n%6s %6s %14s %18s\n", n, "src", "dst",
           "messages", "bytes");
    for (size_t i = 0; i < n && i < (size_t)top; i++)
        printf("%6d %6d %14llu %18llu\n", p[i].src, p[i].dst, (unsigned long long)p[i].messages,
               (unsigned long long)p[i].bytes);
    free(p);
    return 0;
}

static void print_matching(const match_result *m)
{
    printf("\nmatching (point-to-point, per source/destination/communicator/tag stream, in order)\n");
    printf("  %zu streams, %llu messages matched, %llu sends unmatched, %llu receives unmatched\n",
           m->nstreams, (unsigned long long)m->matched, (unsigned long long)m->unmatched_sends,
           (unsigned long long)m->unmatched_recvs);
    if (m->skipped)
        printf("  %llu sends or receives with a rank that left no file were not matched\n",
               (unsigned long long)m->skipped);
    int shown = 0;
    for (size_t i = 0; i < m->nstreams && shown < SHOW_UNMATCHED; i++) {
        const match_stream *s = &m->streams[i];
        if (s->sends == s->recvs)
            continue;
        printf("  unmatched: %d -> %d, communicator %016llx/%d, tag %d: %llu sends, %llu receives\n",
               s->src, s->dst, (unsigned long long)s->comm_hash, s->comm_seq, s->tag,
               (unsigned long long)s->sends, (unsigned long long)s->recvs);
        shown++;
    }
}

int scitrace_summary(int argc, char **argv)
{
    summary_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&summary_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    int with = o.collectives == 0;
    long top = o.top;
    const char *phase = o.phase;
    trace_dir d;
    trace_error err;
    trace_matrix m;
    match_result mr;
    if (trace_dir_load(argv[st.first_arg], phase, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    if (trace_matrix_build(&d, with, 0, &m, &err) != 0) {
        fprintf(stderr, "scitrace: %s: %s\n", d.path, err.msg);
        trace_dir_free(&d);
        return 1;
    }
    int rc = 0;
    if (phase && strcmp(phase, "all"))
        printf("phase %s only\n", phase);
    print_ranks(&d);
    char why[4400];
    int inc = trace_dir_incomplete(&d, why, sizeof why);
    if (inc) {   /* described, not refused: summary is how one looks at a failed run */
        printf("incomplete: %d of %d ranks (first: %s); what follows holds only what they "
               "recorded\n", inc, d.nranks, why);
        fprintf(stderr, "scitrace: summary: incomplete trace, %d of %d ranks: %s\n", inc,
                d.nranks, why);
    }
    print_phases_comms(&d);
    print_calls(&d);
    print_histogram(&m);
    if (print_pairs(&m, top) != 0 || match_trace(&d, &mr) != 0) {
        fprintf(stderr, "scitrace: %s: out of memory\n", d.path);
        rc = 1;
    } else {
        print_matching(&mr);
        match_free(&mr);
    }
    trace_matrix_free(&m);
    trace_dir_free(&d);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("scitrace: summary: standard output");
        rc = 1;
    }
    return rc;
}
