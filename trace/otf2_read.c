/* otf2_read: an OTF2 archive that `scitrace otf2` wrote, read back as the
 * text lines of its rank files: each event carries the lines before it
 * (scitrace::lines) and its own line's words (scitrace::w0..), its time the
 * event's, counted from the location's first event (MPI_Init's end, the
 * rank's time zero).  An archive without those attributes (another
 * writer's) is read from its MPI events (trace/otf2_mpi.c). */
#include "trace/tracefile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/otf2_names.h"

int trace_otf2_anchor(const char *path, char *anchor, size_t cap)
{
    struct stat sb;
    size_t n = strlen(path);
    if (n > 5 && strcmp(path + n - 5, ".otf2") == 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        snprintf(anchor, cap, "%s", path);
        return 1;
    }
    snprintf(anchor, cap, "%s/traces.otf2", path);
    return stat(anchor, &sb) == 0 && S_ISREG(sb.st_mode);
}

#ifndef SCITORUS_OTF2

int trace_otf2_read(const char *anchor, trace_otf2_text *t, trace_error *err)
{
    memset(t, 0, sizeof *t);
    return trace_error_set(err, anchor, 0, "an OTF2 archive: %s", TRACE_OTF2_MISSING);
}

#else

#include <otf2/otf2.h>

#include "trace/otf2_defs.h"

/* --- the definitions both readers share (trace/otf2_defs.h) --- */

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    otf2_defs *d = ud;
    if (self >= d->nstr) {
        size_t n = (size_t)self + 1;
        char **g = realloc(d->str, n * sizeof *g);
        if (!g)
            return d->oom = 1, OTF2_CALLBACK_INTERRUPT;
        memset(g + d->nstr, 0, (n - d->nstr) * sizeof *g);
        d->str = g, d->nstr = n;
    }
    free(d->str[self]);
    if (!(d->str[self] = strdup(s)))
        return d->oom = 1, OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    (void)off, (void)len, (void)rt;
    ((otf2_defs *)ud)->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef g)
{
    otf2_defs *d = ud;
    (void)name, (void)type, (void)nev, (void)g;
    OTF2_LocationRef *l = realloc(d->locs, (d->nlocs + 1) * sizeof *l);
    if (!l)
        return d->oom = 1, OTF2_CALLBACK_INTERRUPT;
    d->locs = l;
    d->locs[d->nlocs++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_Reader *otf2_read_defs(const char *anchor, void (*more)(OTF2_GlobalDefReaderCallbacks *),
                            otf2_defs *d, trace_error *err)
{
    OTF2_Reader *rdr = OTF2_Reader_Open(anchor);
    if (!rdr) {
        trace_error_set(err, anchor, 0, "not a readable OTF2 archive");
        return NULL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rdr);
    OTF2_GlobalDefReaderCallbacks *gdc = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t n = 0;
    if (gdc) {
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(gdc, def_string);
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gdc, def_clock);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gdc, def_location);
        more(gdc);
    }
    int ok = gdr && gdc && OTF2_Reader_RegisterGlobalDefCallbacks(rdr, gdr, gdc, d) == OTF2_SUCCESS &&
             OTF2_Reader_ReadAllGlobalDefinitions(rdr, gdr, &n) == OTF2_SUCCESS && !d->oom;
    if (gdc)
        OTF2_GlobalDefReaderCallbacks_Delete(gdc);
    if (ok)
        return rdr;
    trace_error_set(err, anchor, 0, d->oom || !gdc ? "out of memory" : "unreadable OTF2 definitions");
    OTF2_Reader_Close(rdr);
    return NULL;
}

int otf2_read_events(OTF2_Reader *rdr, OTF2_GlobalEvtReaderCallbacks *gec, otf2_defs *d,
                     const char *anchor, trace_error *err)
{
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rdr);
    uint64_t n = 0;
    int ok = ger && OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ger, gec, d) == OTF2_SUCCESS &&
             OTF2_Reader_ReadAllGlobalEvents(rdr, ger, &n) == OTF2_SUCCESS && !d->oom;
    if (ger)
        OTF2_Reader_CloseGlobalEvtReader(rdr, ger);
    OTF2_Reader_CloseEvtFiles(rdr);
    return ok ? 0 : trace_error_set(err, anchor, 0, d->oom ? "out of memory" : "unreadable OTF2 events");
}

const char *otf2_str(const otf2_defs *d, OTF2_StringRef s)
{
    return s < d->nstr && d->str[s] ? d->str[s] : "";
}

long otf2_loc_index(const otf2_defs *d, OTF2_LocationRef ref)
{
    for (size_t i = 0; i < d->nlocs; i++)
        if (d->locs[i] == ref)
            return (long)i;
    return -1;
}

uint64_t otf2_ns(const otf2_defs *d, uint64_t ticks)
{
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / (d->resolution ? d->resolution : 1000000000u));
}

void otf2_defs_free(otf2_defs *d)
{
    for (size_t i = 0; i < d->nstr; i++)
        free(d->str[i]);
    free(d->str), free(d->locs);
    memset(d, 0, sizeof *d);
}

/* --- an archive scitrace wrote --- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

typedef struct rd {
    otf2_defs d;                 /* first: the shared callbacks' user data */
    int64_t lines_attr;          /* scitrace::lines, or -1 */
    int64_t words_attr;          /* scitrace::words, or -1 */
    int64_t *w_attr;             /* scitrace::wK -> attribute ref */
    size_t nw;
    text *out;                   /* per location, in the order of d.locs */
    uint64_t *zero;
    int *started;
} rd;

static int put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        size_t c = (t->n + n + 1) * 2;
        char *g = realloc(t->s, c);
        if (!g)
            return -1;
        t->s = g, t->cap = c;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 0;
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef desc, OTF2_Type type)
{
    rd *r = ud;
    (void)desc;
    const char *n = otf2_str(&r->d, name);
    unsigned k;
    char tail;
    if (strcmp(n, TRACE_OTF2_ATTR_LINES_NAME) == 0 && type == OTF2_TYPE_STRING)
        r->lines_attr = self;
    else if (strcmp(n, TRACE_OTF2_ATTR_WORDS_NAME) == 0 && type == OTF2_TYPE_INT64)
        r->words_attr = self;
    else if (sscanf(n, "scitrace::w%u%c", &k, &tail) == 1 && type == OTF2_TYPE_INT64 && k < (1u << 24)) {
        if (k >= r->nw) {
            int64_t *g = realloc(r->w_attr, ((size_t)k + 1) * sizeof *g);
            if (!g)
                return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
            for (size_t i = r->nw; i <= k; i++)
                g[i] = -1;
            r->w_attr = g, r->nw = (size_t)k + 1;
        }
        r->w_attr[k] = self;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The event's lines: those before it, then its own ('>' or '<'). */
static OTF2_CallbackCode event(rd *r, OTF2_LocationRef loc, OTF2_TimeStamp time,
                               OTF2_AttributeList *al, char mark)
{
    long i = otf2_loc_index(&r->d, loc);
    if (i < 0)
        return OTF2_CALLBACK_SUCCESS;
    if (!r->started[i])
        r->started[i] = 1, r->zero[i] = time;
    text *t = &r->out[i];
    OTF2_StringRef sref;
    if (al && OTF2_AttributeList_TestAttributeByID(al, (OTF2_AttributeRef)r->lines_attr) &&
        OTF2_AttributeList_GetStringRef(al, (OTF2_AttributeRef)r->lines_attr, &sref) == OTF2_SUCCESS) {
        const char *s = otf2_str(&r->d, sref);
        if (put(t, s, strlen(s)))
            return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
    }
    int64_t v, nwords;
    if (!al || !OTF2_AttributeList_TestAttributeByID(al, (OTF2_AttributeRef)r->words_attr) ||
        OTF2_AttributeList_GetInt64(al, (OTF2_AttributeRef)r->words_attr, &nwords) != OTF2_SUCCESS)
        return OTF2_CALLBACK_SUCCESS;
    char buf[64];
    uint64_t ns = otf2_ns(&r->d, time >= r->zero[i] ? time - r->zero[i] : 0);
    int n = snprintf(buf, sizeof buf, "%c %" PRIu64, mark, ns);
    if (put(t, buf, (size_t)n))
        return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
    int hex_next = 0;
    for (size_t k = 0; (int64_t)k < nwords; k++) {
        if (k >= r->nw || r->w_attr[k] < 0 ||
            !OTF2_AttributeList_TestAttributeByID(al, (OTF2_AttributeRef)r->w_attr[k]) ||
            OTF2_AttributeList_GetInt64(al, (OTF2_AttributeRef)r->w_attr[k], &v) != OTF2_SUCCESS)
            break;   /* the line is short: the parser names it */
        if (v == INT64_MIN && !(mark == '>' && k < 3)) {
            hex_next = 1;
            continue;
        }
        if (mark == '>' && k == 1)
            n = snprintf(buf, sizeof buf, " %s", trace_kind_name((int)(v >= 0 && v < TRACE_NKINDS ? v : -1)));
        else if ((mark == '>' && k == 2) || hex_next)
            n = snprintf(buf, sizeof buf, " %" PRIx64, (uint64_t)v);
        else
            n = snprintf(buf, sizeof buf, " %" PRId64, v);
        hex_next = 0;
        if (put(t, buf, (size_t)n))
            return r->d.oom = 1, OTF2_CALLBACK_INTERRUPT;
    }
    return put(t, "\n", 1) ? (r->d.oom = 1, OTF2_CALLBACK_INTERRUPT) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)region;
    return event(ud, loc, time, al, '>');
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)region;
    return event(ud, loc, time, al, '<');
}

static void attribute_callback(OTF2_GlobalDefReaderCallbacks *gdc)
{
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gdc, def_attribute);
}

int trace_otf2_read(const char *anchor, trace_otf2_text *out, trace_error *err)
{
    rd r = {.lines_attr = -1, .words_attr = -1};
    memset(out, 0, sizeof *out);
    int rc = -1;
    OTF2_Reader *rdr = otf2_read_defs(anchor, attribute_callback, &r.d, err);
    if (!rdr)
        goto done;
    if (r.lines_attr < 0 || r.words_attr < 0) {   /* another writer's: its MPI events */
        OTF2_Reader_Close(rdr);
        otf2_defs_free(&r.d);
        free(r.w_attr);
        return trace_otf2_read_mpi(anchor, out, err);
    }
    r.out = calloc(r.d.nlocs ? r.d.nlocs : 1, sizeof *r.out);
    r.zero = calloc(r.d.nlocs ? r.d.nlocs : 1, sizeof *r.zero);
    r.started = calloc(r.d.nlocs ? r.d.nlocs : 1, sizeof *r.started);
    if (!r.out || !r.zero || !r.started) {
        trace_error_set(err, anchor, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r.d.nlocs; i++)
        OTF2_Reader_SelectLocation(rdr, r.d.locs[i]);
    int defs = OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(rdr);
    for (size_t i = 0; i < r.d.nlocs; i++) {
        if (defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rdr, r.d.locs[i]);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(rdr, dr, &n);
                OTF2_Reader_CloseDefReader(rdr, dr);
            }
        }
        OTF2_Reader_GetEvtReader(rdr, r.d.locs[i]);
    }
    if (defs)
        OTF2_Reader_CloseDefFiles(rdr);
    OTF2_GlobalEvtReaderCallbacks *gec = OTF2_GlobalEvtReaderCallbacks_New();
    if (!gec) {
        trace_error_set(err, anchor, 0, "out of memory");
        goto done;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(gec, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(gec, on_leave);
    int bad = otf2_read_events(rdr, gec, &r.d, anchor, err);
    OTF2_GlobalEvtReaderCallbacks_Delete(gec);
    if (bad)
        goto done;
    out->n = (int)r.d.nlocs;
    out->text = calloc(r.d.nlocs ? r.d.nlocs : 1, sizeof *out->text);
    if (!out->text) {
        trace_error_set(err, anchor, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r.d.nlocs; i++) {
        out->text[i] = r.out[i].s ? r.out[i].s : strdup("");
        r.out[i].s = NULL;
    }
    rc = 0;
done:
    if (rdr)
        OTF2_Reader_Close(rdr);
    for (size_t i = 0; r.out && i < r.d.nlocs; i++)
        free(r.out[i].s);
    free(r.w_attr), free(r.out), free(r.zero), free(r.started);
    otf2_defs_free(&r.d);
    if (rc)
        trace_otf2_free(out);
    return rc;
}

#endif

void trace_otf2_free(trace_otf2_text *t)
{
    for (int i = 0; t->text && i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    memset(t, 0, sizeof *t);
}
