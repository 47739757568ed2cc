/* mode_otf2: `scitrace otf2 -o DIR TRACE`, the trace as an OTF2 archive
 * (DIR/traces.otf2) for Vampir, Scalasca and the OTF2 tools: a location per
 * rank, a region per MPI call and per phase, OTF2's point-to-point events
 * and completions, collective begin and end, communicators.  Each call's
 * events carry its recorded words as attributes (scitrace::w0..), and the
 * other lines of the rank file (header, comm, phase, status) as the string
 * attribute scitrace::lines, so `scitrace` reads the archive back exactly
 * (trace/otf2_read.c). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/opt.h"
#include "scitrace/modes.h"
#include "trace/otf2_names.h"
#include "trace/tracebin.h"
#include "trace/tracefile.h"
#include "trace/tracekinds.h"

typedef struct otf2_opts {
    const char *out;
    int partial;
} otf2_opts;

static const opt_spec otf2_specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(otf2_opts, out),
     .arg = "DIR", .help = "the archive's directory (must not exist; written under\na temporary name, then renamed)"},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(otf2_opts, partial),
     .help = "write an incomplete trace (calls that never returned\nare entered and never left)"},
};

static const opt_program otf2_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace otf2 [--partial] -o DIR TRACE\n"
"Write the trace directory TRACE as an OTF2 archive, DIR/traces.otf2, for\n"
"Vampir, Scalasca and the OTF2 tools (otf2-print): one location per rank,\n"
"a region per MPI call and per phase, MpiSend, MpiIsend, MpiRecv,\n"
"MpiIrecv and their completions, collective begin and end, communicators.\n"
"Every call's recorded arguments and results go along as attributes, so\n"
"summary, matrix, check and goal read DIR as they read TRACE.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 written, 1 a rank file is malformed or missing, DIR exists\n"
"or cannot be written, or scitrace was built without the OTF2 library,\n"
"2 usage error, 3 an incomplete trace without --partial.\n",
    .specs = otf2_specs,
    .nspecs = sizeof otf2_specs / sizeof otf2_specs[0],
    .args_min = 1,
    .args_max = 1,
};

#ifndef SCITORUS_OTF2

int scitrace_otf2(int argc, char **argv)
{
    otf2_opts o = {0};
    opt_state st;
    int prc = opt_parse(&otf2_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    fprintf(stderr, "scitrace: otf2: %s\n", TRACE_OTF2_MISSING);
    return 1;
}

#else

#include <ftw.h>
#include <otf2/otf2.h>

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(path);
}

/* A half-written archive: removed, files first. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct ow {
    OTF2_Archive *ar;
    OTF2_GlobalDefWriter *gd;
    char **strings;
    size_t nstrings, capstrings;
    uint32_t nwords_attr;        /* scitrace::w0 .. defined */
    uint32_t region[TRACE_NKINDS + 1];   /* +1; [TRACE_NKINDS]: MPI_Init */
    uint32_t nregions;
    char (*phases)[64];          /* phase regions, by name */
    uint32_t *phase_region;
    size_t nphases;
    trace_comm *comms;           /* intracommunicators of every rank, once */
    size_t ncomms;
} ow;

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
                                              .otf2_post_flush = post_flush};

/* The id of string s, defining it when new (-1: out of memory). */
static int64_t str(ow *w, const char *s)
{
    for (size_t i = 0; i < w->nstrings; i++)
        if (strcmp(w->strings[i], s) == 0)
            return (int64_t)i;
    if (w->nstrings == w->capstrings) {
        size_t c = w->capstrings ? 2 * w->capstrings : 256;
        char **g = realloc(w->strings, c * sizeof *g);
        if (!g)
            return -1;
        w->strings = g, w->capstrings = c;
    }
    if (!(w->strings[w->nstrings] = strdup(s)))
        return -1;
    OTF2_GlobalDefWriter_WriteString(w->gd, (OTF2_StringRef)w->nstrings, s);
    return (int64_t)w->nstrings++;
}

static uint32_t region(ow *w, const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
    OTF2_StringRef n = (OTF2_StringRef)str(w, name);
    OTF2_GlobalDefWriter_WriteRegion(w->gd, w->nregions, n, n, n, role, paradigm,
                                     OTF2_REGION_FLAG_NONE, n, 0, 0);
    return w->nregions++;
}

static uint32_t kind_region(ow *w, int kind)
{
    if (!w->region[kind]) {
        char name[64];
        otf2_mpi_name(kind, name, sizeof name);
        int cls = trace_kind_class(kind);
        OTF2_RegionRole role = cls == TRACE_COLL || cls == TRACE_COLL_DIRECT
                                   ? (kind == TRACE_K_BARRIER ? OTF2_REGION_ROLE_BARRIER
                                                              : OTF2_REGION_ROLE_COLL_OTHER)
                                   : cls == TRACE_LIFE || cls == TRACE_COMM
                                   ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_POINT2POINT;
        w->region[kind] = region(w, name, role, OTF2_PARADIGM_MPI) + 1;
    }
    return w->region[kind] - 1;
}

static uint32_t phase_region(ow *w, const char *phase)
{
    for (size_t i = 0; i < w->nphases; i++)
        if (strcmp(w->phases[i], phase) == 0)
            return w->phase_region[i];
    char name[80];
    snprintf(name, sizeof name, "phase %s", phase);
    uint32_t id = region(w, name, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
    char (*g)[64] = realloc(w->phases, (w->nphases + 1) * sizeof *g);
    uint32_t *h = realloc(w->phase_region, (w->nphases + 1) * sizeof *h);
    if (g)
        w->phases = g;
    if (h)
        w->phase_region = h;
    if (g && h) {
        snprintf(w->phases[w->nphases], 64, "%s", phase);
        w->phase_region[w->nphases++] = id;
    }
    return id;
}

/* The archive's id of rank r's communicator c (intracommunicators only). */
static OTF2_CommRef comm_ref(const ow *w, const trace_rank *r, int c)
{
    if (c < 0 || c >= r->ncomms || r->comms[c].inter)
        return OTF2_UNDEFINED_COMM;
    for (size_t i = 0; i < w->ncomms; i++)
        if (w->comms[i].hash == r->comms[c].hash && w->comms[i].seq == r->comms[c].seq)
            return (OTF2_CommRef)i;
    return OTF2_UNDEFINED_COMM;
}

/* A world rank's rank in rank r's communicator c (what OTF2 records). */
static uint32_t in_comm(const trace_rank *r, int c, int world)
{
    int i = c >= 0 && c < r->ncomms && world >= 0 ? trace_comm_index(&r->comms[c], world) : -1;
    return i < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)i;
}

/* Word k of an event's line, as attribute scitrace::wK (defined when new). */
static void add_word(ow *w, OTF2_AttributeList *al, uint32_t k, int64_t v)
{
    while (w->nwords_attr <= k) {
        char name[32];
        snprintf(name, sizeof name, "scitrace::w%u", w->nwords_attr);
        OTF2_GlobalDefWriter_WriteAttribute(w->gd, TRACE_OTF2_ATTR_W0 + w->nwords_attr,
                                            (OTF2_StringRef)str(w, name),
                                            (OTF2_StringRef)str(w, "a recorded word"),
                                            OTF2_TYPE_INT64);
        w->nwords_attr++;
    }
    OTF2_AttributeList_AddInt64(al, TRACE_OTF2_ATTR_W0 + k, v);
}

/* The attribute list of a line: its words after the time (w0..), and the
 * lines before it (`before`, '\n'-separated). */
static void attrs(ow *w, OTF2_AttributeList *al, const char *line, const char *before)
{
    OTF2_AttributeList_RemoveAllAttributes(al);
    if (before && *before)
        OTF2_AttributeList_AddStringRef(al, TRACE_OTF2_ATTR_LINES, (OTF2_StringRef)str(w, before));
    if (!line)
        return;
    const char *s = line + 1;   /* past '>' or '<' */
    strtoll(s, (char **)&s, 10);   /* the time: the event's */
    uint32_t k = 0;
    while (*s == ' ') {
        char *end;
        s++;
        int64_t v;
        size_t n = strcspn(s, " \n");
        if (line[0] == '>' && k == 1) {   /* the call's name */
            char name[40];
            snprintf(name, sizeof name, "%.*s", (int)(n < 39 ? n : 39), s);
            v = trace_kind_from_name(name);
            end = (char *)s + n;
        } else if (line[0] == '>' && k == 2) {   /* the caller, in hex */
            v = (int64_t)strtoull(s, &end, 16);
        } else if (strspn(s, "-0123456789") < n) {   /* a hex token: marked */
            add_word(w, al, k++, TRACEBIN_HEX_NEXT);
            v = (int64_t)strtoull(s, &end, 16);
        } else {
            v = strtoll(s, &end, 10);
        }
        if (end == s)
            break;
        add_word(w, al, k++, v);
        s = end;
    }
    OTF2_AttributeList_AddInt64(al, TRACE_OTF2_ATTR_WORDS, k);
}

static OTF2_CollectiveOp coll_op(int kind)
{
    switch (kind) {
    case TRACE_K_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case TRACE_K_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case TRACE_K_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case TRACE_K_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case TRACE_K_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case TRACE_K_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
    case TRACE_K_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
    case TRACE_K_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case TRACE_K_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case TRACE_K_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case TRACE_K_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
    case TRACE_K_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
    case TRACE_K_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    default: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
    }
}

/* One rank's events, in program order. */
typedef struct rank_ctx {
    ow *w;
    OTF2_EvtWriter *ev;
    OTF2_AttributeList *al;
    const trace_rank *r;
    uint64_t off;              /* the rank's time zero in the archive */
    size_t *made_by;           /* request id -> 1 + the call that made it */
    int64_t nmade;
    uint32_t open_region;      /* of the call entered last */
} rank_ctx;

static uint64_t ts(const rank_ctx *x, int64_t t)
{
    return x->off + (uint64_t)t;
}

static void entry_events(rank_ctx *x, const trace_call *c)
{
    OTF2_CommRef cm = comm_ref(x->w, x->r, c->comm);
    int cls = trace_kind_class(c->kind);
    if ((cls == TRACE_SEND && c->kind != TRACE_K_PSEND && c->made == 0 && c->kind != TRACE_K_ISEND &&
         c->kind != TRACE_K_IBSEND && c->kind != TRACE_K_ISSEND && c->kind != TRACE_K_IRSEND) &&
        c->peer >= 0)
        OTF2_EvtWriter_MpiSend(x->ev, NULL, ts(x, c->t_in), in_comm(x->r, c->comm, c->peer), cm,
                               (uint32_t)c->tag, c->bytes);
    if (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT)
        OTF2_EvtWriter_MpiCollectiveBegin(x->ev, NULL, ts(x, c->t_in));
}

static void start_event(rank_ctx *x, int64_t id, uint64_t t)
{
    if (id <= 0 || id >= x->nmade || !x->made_by[id])
        return;
    const trace_call *m = &x->r->calls[x->made_by[id] - 1];
    if (m->kind == TRACE_K_RECV_INIT)
        OTF2_EvtWriter_MpiIrecvRequest(x->ev, NULL, t, (uint64_t)id);
    else if (m->peer >= 0)
        OTF2_EvtWriter_MpiIsend(x->ev, NULL, t, in_comm(x->r, m->comm, m->peer),
                                comm_ref(x->w, x->r, m->comm), (uint32_t)m->tag, m->bytes,
                                (uint64_t)id);
}

static void exit_events(rank_ctx *x, const trace_call *c)
{
    const trace_rank *r = x->r;
    OTF2_CommRef cm = comm_ref(x->w, r, c->comm);
    uint64_t t = ts(x, c->t_out);
    int cls = trace_kind_class(c->kind);
    if ((c->kind == TRACE_K_RECV || c->kind == TRACE_K_SENDRECV) && c->r_src >= 0)
        OTF2_EvtWriter_MpiRecv(x->ev, NULL, t, in_comm(r, c->comm, c->r_src), cm,
                               (uint32_t)c->r_tag, c->r_bytes);
    else if (c->kind == TRACE_K_IRECV && c->made > 0)
        OTF2_EvtWriter_MpiIrecvRequest(x->ev, NULL, t, (uint64_t)c->made);
    else if (cls == TRACE_SEND && c->made > 0)
        start_event(x, c->made, t);
    else if (c->kind == TRACE_K_START)
        for (size_t j = 0; j < c->nlist; j++)
            start_event(x, r->ids[c->list + j], t);
    else if (cls == TRACE_COLL || cls == TRACE_COLL_DIRECT) {
        uint64_t sent = c->bytes;
        for (size_t j = 0; cls == TRACE_COLL_DIRECT && j < c->nlist; j++)
            sent += (uint64_t)r->ids[c->list + 2 * j + 1];
        OTF2_EvtWriter_MpiCollectiveEnd(x->ev, NULL, t, coll_op(c->kind), cm,
                                        c->peer >= 0 ? in_comm(r, c->comm, c->peer)
                                                     : OTF2_UNDEFINED_UINT32, sent, sent);
    } else if (cls == TRACE_WAIT) {
        for (size_t j = 0; j < c->ncomp; j++) {
            const trace_completion *k = &r->comps[c->comp + j];
            int64_t id = r->ids[c->list + (size_t)k->index];
            if (id <= 0 || id >= x->nmade || !x->made_by[id])
                continue;
            const trace_call *m = &r->calls[x->made_by[id] - 1];
            if (m->cancelled)
                OTF2_EvtWriter_MpiRequestCancelled(x->ev, NULL, t, (uint64_t)id);
            else if (trace_kind_class(m->kind) == TRACE_RECV || m->kind == TRACE_K_RECV_INIT) {
                if (k->src >= 0)
                    OTF2_EvtWriter_MpiIrecv(x->ev, NULL, t, in_comm(r, m->comm, k->src),
                                            comm_ref(x->w, r, m->comm), (uint32_t)k->tag,
                                            k->bytes, (uint64_t)id);
            } else {
                OTF2_EvtWriter_MpiIsendComplete(x->ev, NULL, t, (uint64_t)id);
            }
        }
    }
}

/* Appends line to the text before the next event. */
static int add_line(char **before, size_t *n, size_t *cap, const char *line, size_t len)
{
    if (*n + len + 1 > *cap) {
        size_t c = (*n + len + 1) * 2;
        char *g = realloc(*before, c);
        if (!g)
            return -1;
        *before = g, *cap = c;
    }
    memcpy(*before + *n, line, len);
    *n += len;
    (*before)[*n] = '\0';
    return 0;
}

static int write_rank(rank_ctx *x, trace_error *err)
{
    const trace_rank *r = x->r;
    trace_lines l;
    if (trace_lines_open(&l, r->path, err) != 0)
        return -1;
    char *buf = NULL, *before = NULL;
    size_t cap = 0, nb = 0, capb = 0, ci = 0;
    ssize_t len;
    int phase = -1, rc = 0, started = 0;
    uint64_t last = x->off;
    uint32_t init = x->w->region[TRACE_NKINDS] - 1;
    while (rc == 0 && (len = trace_lines_next(&l, &buf, &cap, err)) > 0) {
        if ((buf[0] != '>' && buf[0] != '<') || buf[1] != ' ') {
            rc = add_line(&before, &nb, &capb, buf, (size_t)len);
            continue;
        }
        buf[len - 1] = '\0';
        if (buf[0] == '>') {
            if (ci >= r->ncalls)
                break;   /* a call the reader left out: the file's end */
            const trace_call *c = &r->calls[ci++];
            if (!started) {   /* MPI_Init: the rank's time zero, with the header */
                started = 1;
                OTF2_EvtWriter_Enter(x->ev, NULL, x->off, init);
                attrs(x->w, x->al, NULL, before);
                OTF2_EvtWriter_Leave(x->ev, x->al, x->off, init);
                nb = 0;
            }
            if (c->phase != phase) {
                if (phase >= 0)
                    OTF2_EvtWriter_Leave(x->ev, NULL, ts(x, c->t_in),
                                         phase_region(x->w, r->phases[phase]));
                phase = c->phase;
                OTF2_EvtWriter_Enter(x->ev, NULL, ts(x, c->t_in), phase_region(x->w, r->phases[phase]));
            }
            char name[40];
            sscanf(buf, "> %*s %*s %39s", name);
            attrs(x->w, x->al, buf, nb ? before : NULL);
            nb = 0;
            int kind = trace_kind_from_name(name);
            x->open_region = kind_region(x->w, kind >= 0 ? kind : c->kind);
            OTF2_EvtWriter_Enter(x->ev, x->al, ts(x, c->t_in), x->open_region);
            entry_events(x, c);
            last = ts(x, c->t_in);
        } else if (ci > 0 && r->calls[ci - 1].done) {
            const trace_call *c = &r->calls[ci - 1];
            exit_events(x, c);
            attrs(x->w, x->al, buf, nb ? before : NULL);
            nb = 0;
            OTF2_EvtWriter_Leave(x->ev, x->al, ts(x, c->t_out), x->open_region);
            last = ts(x, c->t_out);
        }
    }
    if (len < 0)
        rc = -1;
    if (rc == 0) {   /* status and end, on the last event */
        if (!started) {
            OTF2_EvtWriter_Enter(x->ev, NULL, x->off, init);
            attrs(x->w, x->al, NULL, before);
            OTF2_EvtWriter_Leave(x->ev, x->al, x->off, init);
        } else if (phase >= 0) {
            attrs(x->w, x->al, NULL, nb ? before : NULL);
            OTF2_EvtWriter_Leave(x->ev, x->al, last, phase_region(x->w, r->phases[phase]));
        }
    }
    free(buf), free(before);
    trace_lines_close(&l);
    return rc;
}

/* Every rank's intracommunicators, once each. */
static int collect_comms(ow *w, const trace_dir *d)
{
    for (int k = 0; k < d->nranks; k++)
        for (int c = 0; d->loaded[k] && c < d->ranks[k].ncomms; c++) {
            const trace_comm *m = &d->ranks[k].comms[c];
            if (m->inter || comm_ref(w, &d->ranks[k], c) != OTF2_UNDEFINED_COMM)
                continue;
            trace_comm *g = realloc(w->comms, (w->ncomms + 1) * sizeof *g);
            if (!g)
                return -1;
            w->comms = g;
            w->comms[w->ncomms++] = *m;   /* world[] stays the rank's */
        }
    return 0;
}

/* The communicators as OTF2 groups and comms (after the locations, which
 * their members name). */
static int define_comms(ow *w, const trace_dir *d)
{
    uint64_t *members = malloc(((size_t)d->nranks + 1) * sizeof *members);
    if (!members)
        return -1;
    for (int i = 0; i < d->nranks; i++)
        members[i] = (uint64_t)i;
    OTF2_GlobalDefWriter_WriteGroup(w->gd, 0, (OTF2_StringRef)str(w, "MPI_COMM_WORLD locations"),
                                    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)d->nranks, members);
    for (size_t i = 0; i < w->ncomms; i++) {
        const trace_comm *m = &w->comms[i];
        char name[64];
        snprintf(name, sizeof name, i == 0 ? "MPI_COMM_WORLD" : "comm %016llx/%d",
                 (unsigned long long)m->hash, m->seq);
        uint64_t *mm = malloc((size_t)m->n * sizeof *mm);
        if (!mm) {
            free(members);
            return -1;
        }
        for (int j = 0; j < m->n; j++)
            mm[j] = (uint64_t)m->world[j];
        OTF2_GlobalDefWriter_WriteGroup(w->gd, (OTF2_GroupRef)(i + 1), (OTF2_StringRef)str(w, name),
                                        OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)m->n, mm);
        OTF2_GlobalDefWriter_WriteComm(w->gd, (OTF2_CommRef)i, (OTF2_StringRef)str(w, name),
                                       (OTF2_GroupRef)(i + 1), OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
        free(mm);
    }
    free(members);
    return 0;
}

/* The archive in dir (which does not exist yet); 0, or -1 (err). */
static int write_archive(const trace_dir *d, const char *dir, trace_error *err)
{
    ow w = {0};
    int rc = -1;
    w.ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                             OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w.ar)
        return trace_error_set(err, dir, 0, "cannot create the OTF2 archive");
    OTF2_Archive_SetFlushCallbacks(w.ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(w.ar);
    OTF2_Archive_SetCreator(w.ar, "scitrace (scitorus)");
    OTF2_Archive_OpenEvtFiles(w.ar);
    w.gd = OTF2_Archive_GetGlobalDefWriter(w.ar);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    int64_t min_start = INT64_MAX;
    uint64_t end = 0;
    for (int k = 0; k < d->nranks; k++)
        if (d->loaded[k] && d->ranks[k].start_ns < min_start)
            min_start = d->ranks[k].start_ns;
    str(&w, "");
    OTF2_GlobalDefWriter_WriteAttribute(w.gd, TRACE_OTF2_ATTR_LINES,
                                        (OTF2_StringRef)str(&w, TRACE_OTF2_ATTR_LINES_NAME),
                                        (OTF2_StringRef)str(&w, "the rank file's lines before the event"),
                                        OTF2_TYPE_STRING);
    OTF2_GlobalDefWriter_WriteAttribute(w.gd, TRACE_OTF2_ATTR_WORDS,
                                        (OTF2_StringRef)str(&w, TRACE_OTF2_ATTR_WORDS_NAME),
                                        (OTF2_StringRef)str(&w, "the number of words of the event's line"),
                                        OTF2_TYPE_INT64);
    w.region[TRACE_NKINDS] = region(&w, "MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI) + 1;
    if (!al || collect_comms(&w, d) != 0) {
        trace_error_set(err, dir, 0, "out of memory");
        goto done;
    }
    for (int k = 0; k < d->nranks; k++) {
        const trace_rank *r = &d->ranks[k];
        if (!d->loaded[k])
            continue;
        rank_ctx x = {.w = &w, .ev = OTF2_Archive_GetEvtWriter(w.ar, (OTF2_LocationRef)k), .al = al,
                      .r = r, .off = (uint64_t)(r->start_ns - min_start), .nmade = 1};
        for (size_t i = 0; i < r->ncalls; i++)
            if (trace_kind_class(r->calls[i].kind) != TRACE_COMM && r->calls[i].made >= x.nmade)
                x.nmade = r->calls[i].made + 1;
        x.made_by = calloc((size_t)x.nmade, sizeof *x.made_by);
        if (!x.made_by) {
            trace_error_set(err, r->path, 0, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < r->ncalls; i++)
            if (trace_kind_class(r->calls[i].kind) != TRACE_COMM && r->calls[i].made > 0)
                x.made_by[r->calls[i].made] = i + 1;
        int bad = write_rank(&x, err);
        free(x.made_by);
        uint64_t n = 0;
        OTF2_EvtWriter_GetNumberOfEvents(x.ev, &n);
        OTF2_Archive_CloseEvtWriter(w.ar, x.ev);
        if (bad)
            goto done;
        for (size_t i = 0; i < r->ncalls; i++) {
            uint64_t t = x.off + (uint64_t)(r->calls[i].done ? r->calls[i].t_out : r->calls[i].t_in);
            end = t > end ? t : end;
        }
        char name[64];
        snprintf(name, sizeof name, "rank %d", k);
        OTF2_GlobalDefWriter_WriteLocationGroup(w.gd, (OTF2_LocationGroupRef)k,
                                                (OTF2_StringRef)str(&w, name),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(w.gd, (OTF2_LocationRef)k, (OTF2_StringRef)str(&w, name),
                                           OTF2_LOCATION_TYPE_CPU_THREAD, n,
                                           (OTF2_LocationGroupRef)k);
    }
    if (define_comms(&w, d) != 0) {
        trace_error_set(err, dir, 0, "out of memory");
        goto done;
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w.gd, 0, (OTF2_StringRef)str(&w, d->ranks[0].host ? d->ranks[0].host : "host"),
                                             (OTF2_StringRef)str(&w, "node"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteClockProperties(w.gd, 1000000000, (uint64_t)min_start, end + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    rc = 0;
done:
    OTF2_Archive_CloseEvtFiles(w.ar);
    if (rc == 0) {
        OTF2_Archive_OpenDefFiles(w.ar);
        for (int k = 0; k < d->nranks; k++)
            if (d->loaded[k]) {
                OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w.ar, (OTF2_LocationRef)k);
                OTF2_Archive_CloseDefWriter(w.ar, dw);
            }
        OTF2_Archive_CloseDefFiles(w.ar);
    }
    if (OTF2_Archive_Close(w.ar) != OTF2_SUCCESS && rc == 0)
        rc = trace_error_set(err, dir, 0, "cannot write the OTF2 archive");
    if (al)
        OTF2_AttributeList_Delete(al);
    for (size_t i = 0; i < w.nstrings; i++)
        free(w.strings[i]);
    free(w.strings), free(w.phases), free(w.phase_region), free(w.comms);
    return rc;
}

int scitrace_otf2(int argc, char **argv)
{
    otf2_opts o = {0};
    opt_state st;
    int prc = opt_parse(&otf2_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    if (!o.out)
        return opt_usage_error(&otf2_program, "otf2: -o DIR is required");
    struct stat sb;
    if (lstat(o.out, &sb) == 0) {
        fprintf(stderr, "scitrace: otf2: -o '%s' exists: name a new directory\n", o.out);
        return 1;
    }
    trace_dir d;
    trace_error err;
    if (trace_dir_load(argv[st.first_arg], NULL, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    int whole = scitrace_require_whole(&d, "otf2", o.partial);
    if (whole) {
        trace_dir_free(&d);
        return whole;
    }
    /* written beside DIR, then renamed: no half archive under DIR's name */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", o.out, (long)getpid());
    int rc = write_archive(&d, tmp, &err);
    if (rc == 0 && rename(tmp, o.out) != 0) {
        trace_error_set(&err, o.out, 0, "cannot rename '%s' to it: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "scitrace: otf2: %s\n", err.msg);
        remove_tree(tmp);
    } else {
        fprintf(stderr, "scitrace: otf2: %d ranks into %s/traces.otf2 (otf2-print %s/traces.otf2)\n",
                d.nranks, o.out, o.out);
    }
    trace_dir_free(&d);
    return rc ? 1 : 0;
}

#endif
