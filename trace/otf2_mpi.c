/* otf2_mpi: an OTF2 archive from another writer (Score-P, the OTF2 tools,
 * python3-otf2), its ranks' calls rebuilt from OTF2's MPI events: a call
 * is an MPI region's Enter and Leave; MpiSend, MpiIsend, MpiRecv and
 * MpiIrecv give its peers, tags and bytes (as matched: OTF2 keeps no posted
 * wildcard), MpiIsendComplete and MpiIrecv the requests a Wait or Test
 * completed, MpiCollectiveEnd a collective's communicator, root and bytes
 * per block (sizeSent; the v variants keep no per-peer blocks).  Regions
 * and events it does not use are skipped; calls it cannot rebuild (probes,
 * persistent requests, communicator making) are left out, and a rank
 * without MPI_Finalize reads as no-finalize. */
#include "trace/tracefile.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/otf2_names.h"

#ifdef SCITORUS_OTF2

#include <otf2/otf2.h>

#include "trace/otf2_defs.h"

typedef struct comp {
    int64_t id;
    int src, tag;
    uint64_t bytes;
} comp;

typedef struct fcall {
    int kind;
    uint64_t t_in, t_out;
    int done, peer, tag, r_src, r_tag, has_status;
    int64_t comm, made;          /* OTF2 comm ref (-1 unknown); our request id */
    uint64_t bytes, r_bytes;
    size_t lo, n;                /* completions */
} fcall;

typedef struct loc {
    OTF2_LocationRef ref;
    int rank, open, finalized, started;
    uint64_t zero;
    fcall *calls;
    size_t ncalls, cap;
    comp *comps;
    size_t ncomps, capc;
    uint64_t *req_otf2;          /* OTF2 request id -> call index + 1 */
    size_t *req_call;
    size_t nreq, capr;
    int64_t next_id;
} loc;

typedef struct grp {
    int type;
    uint32_t n;
    uint64_t *m;
} grp;

typedef struct mr {
    otf2_defs d;                 /* first: the shared callbacks' user data */
    int *region_kind;            /* -1 none, -2 MPI_Init */
    size_t nregion;
    grp *groups;
    size_t ngroups;
    int64_t *comm_group;
    size_t ncomms;
    loc *locs;                   /* those of d.locs, in their order */
    size_t nlocs;
} mr;

#define GROW(arr, n, want)                                                        \
    do {                                                                          \
        if ((size_t)(want) >= (n)) {                                              \
            size_t nn_ = (size_t)(want) + 1;                                      \
            void *g_ = realloc((arr), nn_ * sizeof *(arr));                       \
            if (!g_)                                                              \
                return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;                     \
            memset((char *)g_ + (n) * sizeof *(arr), 0, (nn_ - (n)) * sizeof *(arr)); \
            (arr) = g_, (n) = nn_;                                                \
        }                                                                         \
    } while (0)

static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef cname, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm par, OTF2_RegionFlag fl, OTF2_StringRef file,
                                  uint32_t b, uint32_t e)
{
    mr *r = ud;
    (void)cname, (void)desc, (void)role, (void)par, (void)fl, (void)file, (void)b, (void)e;
    size_t old = r->nregion;
    GROW(r->region_kind, r->nregion, self);
    for (size_t i = old; i < r->nregion; i++)
        r->region_kind[i] = -1;
    const char *n = otf2_str(&r->d, name);
    r->region_kind[self] = strncmp(n, "MPI_Init", 8) == 0 ? -2 : otf2_kind_of(n);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm par, OTF2_GroupFlag fl,
                                 uint32_t n, const uint64_t *m)
{
    mr *r = ud;
    (void)name, (void)par, (void)fl;
    GROW(r->groups, r->ngroups, self);
    grp *g = &r->groups[self];
    free(g->m);
    g->type = type, g->n = n, g->m = malloc((n ? n : 1) * sizeof *m);
    if (!g->m)
        return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
    memcpy(g->m, m, n * sizeof *m);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag fl)
{
    mr *r = ud;
    (void)name, (void)parent, (void)fl;
    size_t old = r->ncomms;
    GROW(r->comm_group, r->ncomms, self);
    for (size_t i = old; i < r->ncomms; i++)
        r->comm_group[i] = -1;
    r->comm_group[self] = group;
    return OTF2_CALLBACK_SUCCESS;
}

/* The members (world ranks) of comm c, or NULL. */
static const grp *members(const mr *r, int64_t c)
{
    if (c < 0 || (size_t)c >= r->ncomms || r->comm_group[c] < 0 ||
        (size_t)r->comm_group[c] >= r->ngroups)
        return NULL;
    return &r->groups[r->comm_group[c]];
}

static int world_of(const mr *r, int64_t c, uint32_t in_comm)
{
    const grp *g = members(r, c);
    if (in_comm == OTF2_UNDEFINED_UINT32)
        return TRACE_ANY;
    return g && in_comm < g->n ? (int)g->m[in_comm] : TRACE_NO_RANK;
}

static loc *loc_of(mr *r, OTF2_LocationRef ref)
{
    long i = otf2_loc_index(&r->d, ref);
    return i >= 0 && (size_t)i < r->nlocs ? &r->locs[i] : NULL;
}

static uint64_t ns(const mr *r, const loc *l, OTF2_TimeStamp t)
{
    return otf2_ns(&r->d, t >= l->zero ? t - l->zero : 0);
}

/* The call open on l (entered, not left), or NULL. */
static fcall *open_call(loc *l)
{
    return l->open >= 0 ? &l->calls[l->open] : NULL;
}

static void first_event(loc *l, OTF2_TimeStamp t)
{
    if (!l->started)
        l->started = 1, l->zero = t;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr *r = ud;
    (void)al;
    loc *l = loc_of(r, lr);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    first_event(l, t);
    int kind = region < r->nregion ? r->region_kind[region] : -1;
    if (kind < 0 || l->open >= 0)
        return OTF2_CALLBACK_SUCCESS;   /* not a call rebuilt here, or nested in one */
    if (l->ncalls == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 256;
        fcall *g = realloc(l->calls, c * sizeof *g);
        if (!g)
            return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
        l->calls = g, l->cap = c;
    }
    fcall *f = &l->calls[l->ncalls];
    memset(f, 0, sizeof *f);
    f->kind = kind, f->t_in = ns(r, l, t), f->comm = -1, f->peer = TRACE_ANY, f->tag = TRACE_ANY;
    f->lo = l->ncomps;
    l->open = (int)l->ncalls++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr *r = ud;
    (void)al;
    loc *l = loc_of(r, lr);
    if (l && region < r->nregion && r->region_kind[region] == -2)
        l->zero = t;   /* MPI_Init's end: the rank's time zero */
    fcall *f = l ? open_call(l) : NULL;
    if (!f || region >= r->nregion || r->region_kind[region] != f->kind)
        return OTF2_CALLBACK_SUCCESS;
    f->t_out = ns(r, l, t), f->done = 1;
    f->n = l->ncomps - f->lo;
    l->finalized |= f->kind == TRACE_K_FINALIZE;
    l->open = -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_send(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint32_t to, OTF2_CommRef c, uint32_t tag,
                                uint64_t len)
{
    mr *r = ud;
    (void)t, (void)al;
    loc *l = loc_of(r, lr);
    fcall *f = l ? open_call(l) : NULL;
    if (f)
        f->comm = c, f->peer = world_of(r, c, to), f->tag = (int)tag, f->bytes = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint32_t from, OTF2_CommRef c, uint32_t tag,
                                uint64_t len)
{
    mr *r = ud;
    (void)t, (void)al;
    loc *l = loc_of(r, lr);
    fcall *f = l ? open_call(l) : NULL;
    if (!f)
        return OTF2_CALLBACK_SUCCESS;
    int w = world_of(r, c, from);
    f->r_src = w, f->r_tag = (int)tag, f->r_bytes = len, f->has_status = 1;
    if (f->kind != TRACE_K_SENDRECV)   /* the posted receive, as matched */
        f->comm = c, f->peer = w, f->tag = (int)tag, f->bytes = len;
    return OTF2_CALLBACK_SUCCESS;
}

/* A request made by the open call: our id for it. */
static OTF2_CallbackCode made(mr *r, loc *l, uint64_t req)
{
    fcall *f = open_call(l);
    if (!f)
        return OTF2_CALLBACK_SUCCESS;
    if (l->nreq == l->capr) {
        size_t c = l->capr ? 2 * l->capr : 64;
        uint64_t *a = realloc(l->req_otf2, c * sizeof *a);
        if (a)
            l->req_otf2 = a;
        size_t *b = realloc(l->req_call, c * sizeof *b);
        if (b)
            l->req_call = b;
        if (!a || !b)
            return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
        l->capr = c;
    }
    f->made = ++l->next_id;
    l->req_otf2[l->nreq] = req, l->req_call[l->nreq++] = (size_t)l->open;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef c, uint32_t tag,
                                 uint64_t len, uint64_t req)
{
    mr *r = ud;
    loc *l = loc_of(r, lr);
    if (!l || !open_call(l))
        return OTF2_CALLBACK_SUCCESS;
    e_send(lr, t, ud, al, to, c, tag, len);
    return made(r, l, req);
}

static OTF2_CallbackCode e_irecv_request(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                         OTF2_AttributeList *al, uint64_t req)
{
    mr *r = ud;
    (void)t, (void)al;
    loc *l = loc_of(r, lr);
    return l ? made(r, l, req) : OTF2_CALLBACK_SUCCESS;
}

/* Request req of l completes in the open call (a Wait or Test). */
static OTF2_CallbackCode completed(mr *r, loc *l, uint64_t req, int src, int tag, uint64_t len,
                                   OTF2_CommRef c, int recv)
{
    fcall *f = open_call(l);
    size_t k = l->nreq;
    while (k > 0 && l->req_otf2[k - 1] != req)
        k--;
    if (!f || k == 0 || trace_kind_class(f->kind) != TRACE_WAIT)
        return OTF2_CALLBACK_SUCCESS;
    fcall *m = &l->calls[l->req_call[k - 1]];
    l->req_otf2[k - 1] = UINT64_MAX;   /* OTF2 may reuse the id */
    if (recv && m->kind == TRACE_K_IRECV)   /* what the Irecv posted, as matched */
        m->comm = c, m->peer = src, m->tag = tag, m->bytes = len;
    if (l->ncomps == l->capc) {
        size_t cc = l->capc ? 2 * l->capc : 256;
        comp *g = realloc(l->comps, cc * sizeof *g);
        if (!g)
            return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
        l->comps = g, l->capc = cc;
    }
    l->comps[l->ncomps++] = (comp){m->made, recv ? src : TRACE_ANY, recv ? tag : TRACE_ANY,
                                   recv ? len : 0};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend_complete(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                          OTF2_AttributeList *al, uint64_t req)
{
    mr *r = ud;
    (void)t, (void)al;
    loc *l = loc_of(r, lr);
    return l ? completed(r, l, req, 0, 0, 0, 0, 0) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len, uint64_t req)
{
    mr *r = ud;
    (void)t, (void)al;
    loc *l = loc_of(r, lr);
    return l ? completed(r, l, req, world_of(r, c, from), (int)tag, len, c, 1)
             : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_coll_end(OTF2_LocationRef lr, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef c,
                                    uint32_t root, uint64_t sent, uint64_t received)
{
    mr *r = ud;
    (void)t, (void)al, (void)op, (void)received;
    loc *l = loc_of(r, lr);
    fcall *f = l ? open_call(l) : NULL;
    if (f)
        f->comm = c, f->peer = world_of(r, c, root), f->bytes = sent;
    return OTF2_CALLBACK_SUCCESS;
}

typedef struct out {
    char *s;
    size_t n, cap;
    long lines;
    int oom;
} out;

static void add(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(out *o, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || o->oom)
        return;
    if (o->n + (size_t)n + 1 > o->cap) {
        size_t c = (o->n + (size_t)n + 1) * 2;
        char *g = realloc(o->s, c);
        if (!g) {
            o->oom = 1;
            return;
        }
        o->s = g, o->cap = c;
    }
    memcpy(o->s + o->n, buf, (size_t)n + 1);
    o->n += (size_t)n;
    for (int i = 0; i < n; i++)
        o->lines += buf[i] == '\n';
}

static int has(const grp *g, int w)
{
    for (uint32_t i = 0; g && i < g->n; i++)
        if (g->m[i] == (uint64_t)w)
            return 1;
    return 0;
}

/* Rank l's lines. */
static char *render(const mr *r, const loc *l, const char *anchor)
{
    out o = {0};
    int64_t *local = calloc(r->ncomms ? r->ncomms : 1, sizeof *local);   /* comm -> id + 1 */
    if (!local)
        return NULL;
    add(&o, "%s\nrun otf2\nrank %d\nranks %zu\nhost ?\ncommand %s\nstart_ns 0\n", TRACE_FILE_MAGIC,
        l->rank, r->nlocs, anchor);
    int64_t nlocal = 0;
    for (size_t c = 0; c < r->ncomms; c++) {
        const grp *g = members(r, (int64_t)c);
        if (!g || g->type != OTF2_GROUP_TYPE_COMM_GROUP || !has(g, l->rank))
            continue;
        uint64_t h = 0xcbf29ce484222325ull;   /* as libscitrace names a communicator */
        for (uint32_t i = 0; i < g->n; i++)
            h = (h ^ (uint32_t)g->m[i]) * 0x100000001b3ull;
        int seq = 0;
        for (size_t d = 0; d < c; d++) {
            const grp *e = members(r, (int64_t)d);
            if (e && e->type == OTF2_GROUP_TYPE_COMM_GROUP && e->n == g->n &&
                memcmp(e->m, g->m, g->n * sizeof *g->m) == 0)
                seq++;
        }
        local[c] = ++nlocal;
        add(&o, "comm %" PRId64 " %" PRIx64 " %d %u", nlocal - 1, h, seq, g->n);
        for (uint32_t i = 0; i < g->n; i++)
            add(&o, " %" PRIu64, g->m[i]);
        add(&o, "\n");
    }
    add(&o, "phase 0 main\n");
    for (size_t i = 0; i < l->ncalls; i++) {
        const fcall *f = &l->calls[i];
        int cls = trace_kind_class(f->kind);
        int64_t c = f->comm >= 0 && (size_t)f->comm < r->ncomms && local[f->comm] ? local[f->comm] - 1 : 0;
        if (cls != TRACE_SEND && cls != TRACE_RECV && cls != TRACE_WAIT && cls != TRACE_COLL &&
            cls != TRACE_COLL_DIRECT && f->kind != TRACE_K_FINALIZE)
            continue;
        add(&o, "> %" PRIu64 " 0 %s 0", f->t_in, trace_kind_name(f->kind));
        if (f->kind == TRACE_K_SENDRECV)
            add(&o, " %" PRId64 " %d %d %" PRIu64 " %d %d %" PRIu64, c, f->peer, f->tag, f->bytes,
                f->has_status ? f->r_src : TRACE_ANY, f->has_status ? f->r_tag : TRACE_ANY,
                f->r_bytes);
        else if (cls == TRACE_SEND || cls == TRACE_RECV)
            add(&o, " %" PRId64 " %d %d %" PRIu64, c, f->peer, f->tag, f->bytes);
        else if (cls == TRACE_WAIT) {
            add(&o, " %zu", f->n);
            for (size_t j = 0; j < f->n; j++)
                add(&o, " %" PRId64, l->comps[f->lo + j].id);
        } else if (cls == TRACE_COLL)
            add(&o, " %" PRId64 " %d %" PRIu64, c, f->peer >= 0 ? f->peer : -1, f->bytes);
        else if (cls == TRACE_COLL_DIRECT)
            add(&o, " %" PRId64 " %d 0", c, f->peer >= 0 ? f->peer : -1);
        add(&o, "\n");
        if (!f->done)
            continue;
        add(&o, "< %" PRIu64, f->t_out > f->t_in ? f->t_out : f->t_in);
        if (f->made)
            add(&o, " %" PRId64, f->made);
        else if ((f->kind == TRACE_K_RECV || f->kind == TRACE_K_SENDRECV) && f->has_status)
            add(&o, " %d %d %" PRIu64, f->r_src, f->r_tag, f->r_bytes);
        else if (cls == TRACE_WAIT) {
            add(&o, " %zu", f->n);
            for (size_t j = 0; j < f->n; j++) {
                const comp *k = &l->comps[f->lo + j];
                add(&o, " %zu %d %d %" PRIu64, j, k->src, k->tag, k->bytes);
            }
        }
        add(&o, "\n");
    }
    add(&o, "status %s\n", l->finalized ? "finalized" : "no-finalize");
    add(&o, "end %ld\n", o.lines);
    free(local);
    if (o.oom)
        free(o.s), o.s = NULL;
    return o.s;
}

static void mpi_callbacks(OTF2_GlobalDefReaderCallbacks *gdc)
{
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gdc, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gdc, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gdc, d_comm);
}

int trace_otf2_read_mpi(const char *anchor, trace_otf2_text *t, trace_error *err)
{
    mr r = {0};
    memset(t, 0, sizeof *t);
    int rc = -1;
    OTF2_GlobalEvtReaderCallbacks *gec = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_Reader *rdr = otf2_read_defs(anchor, mpi_callbacks, &r.d, err);
    if (!rdr || !gec) {
        if (rdr)
            trace_error_set(err, anchor, 0, "out of memory");
        goto done;
    }
    if (!(r.locs = calloc(r.d.nlocs ? r.d.nlocs : 1, sizeof *r.locs))) {
        trace_error_set(err, anchor, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r.d.nlocs; i++)   /* rank: the order defined, unless a group says */
        r.locs[i] = (loc){.ref = r.d.locs[i], .open = -1, .rank = (int)i};
    r.nlocs = r.d.nlocs;
    for (size_t g = 0; g < r.ngroups; g++)   /* a location's rank: its place in the world */
        if (r.groups[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            for (uint32_t i = 0; i < r.groups[g].n; i++) {
                loc *l = loc_of(&r, r.groups[g].m[i]);
                if (l)
                    l->rank = (int)i;
            }
    for (size_t i = 0; i < r.nlocs; i++)
        OTF2_Reader_SelectLocation(rdr, r.locs[i].ref);
    OTF2_Reader_OpenEvtFiles(rdr);
    for (size_t i = 0; i < r.nlocs; i++)
        OTF2_Reader_GetEvtReader(rdr, r.locs[i].ref);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(gec, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(gec, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(gec, e_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(gec, e_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(gec, e_isend_complete);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(gec, e_irecv_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(gec, e_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(gec, e_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(gec, e_coll_end);
    if (otf2_read_events(rdr, gec, &r.d, anchor, err) != 0)
        goto done;
    t->n = (int)r.nlocs;
    t->text = calloc(r.nlocs ? r.nlocs : 1, sizeof *t->text);
    for (size_t i = 0; t->text && i < r.nlocs; i++)
        if (!(t->text[i] = render(&r, &r.locs[i], anchor)))
            break;
    rc = t->text && (r.nlocs == 0 || t->text[r.nlocs - 1]) ? 0
                                                           : trace_error_set(err, anchor, 0, "out of memory");
done:
    if (gec)
        OTF2_GlobalEvtReaderCallbacks_Delete(gec);
    if (rdr)
        OTF2_Reader_Close(rdr);
    for (size_t i = 0; i < r.ngroups; i++)
        free(r.groups[i].m);
    for (size_t i = 0; i < r.nlocs; i++) {
        free(r.locs[i].calls), free(r.locs[i].comps);
        free(r.locs[i].req_otf2), free(r.locs[i].req_call);
    }
    free(r.region_kind), free(r.groups), free(r.comm_group), free(r.locs);
    otf2_defs_free(&r.d);
    if (rc)
        trace_otf2_free(t);
    return rc;
}

#endif
