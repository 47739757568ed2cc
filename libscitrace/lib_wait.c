/* lib_wait: PMPI wrappers of the Wait and Test families.  On entry:
 * N ID1 .. IDN, the requests (ids from the calls that made them); on
 * return: K (I SRC TAG BYTES)... for the K requests that completed, I the
 * index in the list and SRC TAG BYTES the status (a world rank; meaningful
 * for receives; SRC TRACE_CANCELLED when the request was cancelled).  The ids are looked up before the call: MPI sets the
 * handles of completed requests to MPI_REQUEST_NULL. */
#include <stdlib.h>

#include "libscitrace/lib.h"

#define ON_STACK 64

typedef struct wait_ctx {
    int64_t ids_small[ON_STACK];
    int comms_small[ON_STACK], slots_small[ON_STACK];
    MPI_Status st_small[ON_STACK];
    MPI_Request h_small[ON_STACK];
    int64_t *ids;
    int *comms, *slots;       /* slots: where each request is kept (trace_req_id) */
    MPI_Status *st;
    MPI_Request *h;           /* the handles as they were before the call */
} wait_ctx;

static void ctx_free(wait_ctx *w)
{
    if (w->ids != w->ids_small)
        free(w->ids), free(w->comms), free(w->slots), free(w->st), free(w->h);
    w->ids = NULL;
}

static int ctx_alloc(wait_ctx *w, int n)
{
    w->ids = w->ids_small, w->comms = w->comms_small, w->slots = w->slots_small;
    w->st = w->st_small, w->h = w->h_small;
    if (n <= ON_STACK)
        return 0;
    w->ids = malloc((size_t)n * sizeof *w->ids);
    w->comms = malloc((size_t)n * sizeof *w->comms);
    w->slots = malloc((size_t)n * sizeof *w->slots);
    w->st = malloc((size_t)n * sizeof *w->st);
    w->h = malloc((size_t)n * sizeof *w->h);
    if (!w->ids || !w->comms || !w->slots || !w->st || !w->h) {
        ctx_free(w);
        return -1;
    }
    return 0;
}

typedef struct hpos {
    MPI_Request h;
    int i;
} hpos;

static int hpos_cmp(const void *a, const void *b)
{
    const hpos *x = a, *y = b;
    if (x->h != y->h)
        return (uintptr_t)x->h < (uintptr_t)y->h ? -1 : 1;
    return x->i - y->i;
}

/* nth[i]: how many times reqs[i]'s handle comes earlier in the array (an
 * MPI may give one handle to several live requests: each is a later one);
 * by sorting when the array is long.  -1 when out of memory. */
static int nth_of(int n, const MPI_Request reqs[], int nth[])
{
    if (n <= ON_STACK) {
        for (int i = 0; i < n; i++) {
            nth[i] = 0;
            for (int j = 0; j < i; j++)
                nth[i] += reqs[j] == reqs[i];
        }
        return 0;
    }
    hpos *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (int i = 0; i < n; i++)
        v[i] = (hpos){reqs[i], i};
    qsort(v, (size_t)n, sizeof *v, hpos_cmp);
    for (int k = 0; k < n; k++)
        nth[v[k].i] = k > 0 && v[k - 1].h == v[k].h ? nth[v[k - 1].i] + 1 : 0;
    free(v);
    return 0;
}

/* Records the entry and remembers the ids; returns the status array to
 * pass to MPI (ours when the caller ignores statuses), or NULL when out of
 * memory (then nothing is recorded).  A request is found where the program
 * keeps it; only a handle moved since its call made it needs the handles'
 * order in the array (nth_of), computed then, once. */
static MPI_Status *enter(wait_ctx *w, enum trace_kind kind, const void *caller, int n,
                         const MPI_Request reqs[], MPI_Status *user)
{
    int nth_small[ON_STACK], *nth = NULL;
    if (ctx_alloc(w, n) != 0)
        return NULL;
    trace_words a = trace_enter(kind, caller, 1 + (size_t)n);
    tw(&a, n);
    for (int i = 0; i < n; i++) {
        w->h[i] = reqs[i];
        w->ids[i] = trace_req_id(reqs[i], &reqs[i], -1, &w->comms[i], &w->slots[i]);
        if (!w->ids[i] && reqs[i] != MPI_REQUEST_NULL) {
            if (!nth && (nth = n <= ON_STACK ? nth_small : malloc((size_t)n * sizeof *nth)) != NULL &&
                nth_of(n, reqs, nth) != 0) {
                if (nth != nth_small)
                    free(nth);
                nth = NULL;
            }
            if (!nth) {
                ctx_free(w);
                return NULL;
            }
            w->ids[i] = trace_req_id(reqs[i], NULL, nth[i], &w->comms[i], &w->slots[i]);
        }
        tw_req(&a, w->ids[i]);
    }
    if (nth && nth != nth_small)
        free(nth);
    trace_enter_done(&a);
    return user == MPI_STATUSES_IGNORE ? w->st : user;
}

/* The return: the k completed requests idx[0..k-1] with statuses
 * st[0..k-1] (stride 1) or st[idx[j]] (indexed). */
/* "I SRC TAG BYTES" of request i, completed with status x. */
static inline void tw_completed(trace_words *r, int i, int comm_id, const MPI_Status *x)
{
#ifdef OPEN_MPI
    int cancelled = x->_cancelled;   /* what PMPI_Test_cancelled reads, without the call */
#else
    int cancelled = 0;
    PMPI_Test_cancelled(x, &cancelled);
#endif
    tw(r, i);
    if (cancelled) {
        tw(r, TRACE_CANCELLED), tw(r, 0), tw(r, 0);
    } else {
        tw_status(r, comm_id, x);
    }
}

static void leave(wait_ctx *w, int k, const int idx[], const MPI_Status st[], int indexed,
                  const MPI_Request reqs_after[])
{
    trace_words r = trace_exit(1 + 4 * (size_t)(k > 0 ? k : 0));
    tw(&r, k > 0 ? k : 0);
    for (int j = 0; r.w && j < k; j++) {
        int i = idx ? idx[j] : j;
        tw_completed(&r, i, w->comms[i], &st[indexed ? i : j]);
    }
    trace_exit_done(&r);
    for (int j = 0; j < k; j++) {   /* inactive persistent requests keep their handle */
        int i = idx ? idx[j] : j;
        if (reqs_after[i] == MPI_REQUEST_NULL)
            trace_req_done(w->h[i], w->ids[i], w->slots[i]);
    }
    ctx_free(w);
}

/* Wait and Test: one request, the words of enter() and leave() without
 * their arrays, and through the call site when the request's place among
 * the requests made (its encoded id) repeats (lib.h, trace_enter_site). */
typedef struct one_req {
    MPI_Request h;
    int64_t id;
    int comm, slot;
} one_req;

static void one_enter(one_req *o, enum trace_kind kind, const void *caller, const MPI_Request *req)
{
    int64_t t = trace_now();
    o->h = *req;
    o->id = trace_req_id(o->h, req, 0, &o->comm, &o->slot);
    int64_t enc = trace_id_encode((uint64_t)o->id, trace_req_made());
    int64_t key[TRACE_KEY_N] = {1, enc, 0, 0, 0};
    int unused;
    if (trace_enter_site(kind, caller, key, &unused, t))
        return;
    trace_words a = trace_enter(kind, caller, 2);
    tw(&a, 1);
    tw(&a, enc);
    trace_enter_site_done(&a, key, -1, t);
}

static void one_leave(const one_req *o, int done, const MPI_Status *s, MPI_Request after)
{
    trace_words r = trace_exit(5);
    tw(&r, done);
    if (done)
        tw_completed(&r, 0, o->comm, s);
    trace_exit_done(&r);
    if (done && after == MPI_REQUEST_NULL)   /* inactive persistent requests keep their handle */
        trace_req_done(o->h, o->id, o->slot);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Wait(req, status);
    one_req o;
    MPI_Status own, *s = status == MPI_STATUS_IGNORE ? &own : status;
    one_enter(&o, TRACE_K_WAIT, CALLER, req);
    int rc = PMPI_Wait(req, s);
    one_leave(&o, rc == MPI_SUCCESS, s, *req);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Test(req, flag, status);
    one_req o;
    MPI_Status own, *s = status == MPI_STATUS_IGNORE ? &own : status;
    one_enter(&o, TRACE_K_TEST, CALLER, req);
    int rc = PMPI_Test(req, flag, s);
    one_leave(&o, rc == MPI_SUCCESS && *flag, s, *req);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    wait_ctx w;
    MPI_Status *s = trace_enabled && n >= 0 ? enter(&w, TRACE_K_WAITALL, CALLER, n, reqs, sts) : NULL;
    if (!s)
        return PMPI_Waitall(n, reqs, sts);
    int rc = PMPI_Waitall(n, reqs, s);
    leave(&w, rc == MPI_SUCCESS ? n : 0, NULL, s, 0, reqs);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    wait_ctx w;
    MPI_Status *s = trace_enabled && n >= 0 ? enter(&w, TRACE_K_TESTALL, CALLER, n, reqs, sts) : NULL;
    if (!s)
        return PMPI_Testall(n, reqs, flag, sts);
    int rc = PMPI_Testall(n, reqs, flag, s);
    leave(&w, rc == MPI_SUCCESS && *flag ? n : 0, NULL, s, 0, reqs);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    wait_ctx w;
    MPI_Status one, *s = trace_enabled && n >= 0
        ? enter(&w, TRACE_K_WAITANY, CALLER, n, reqs, MPI_STATUSES_IGNORE) : NULL;
    if (!s)
        return PMPI_Waitany(n, reqs, index, status);
    MPI_Status *use = status == MPI_STATUS_IGNORE ? &one : status;
    int rc = PMPI_Waitany(n, reqs, index, use);
    leave(&w, rc == MPI_SUCCESS && *index != MPI_UNDEFINED, index, use, 0, reqs);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    wait_ctx w;
    MPI_Status one, *s = trace_enabled && n >= 0
        ? enter(&w, TRACE_K_TESTANY, CALLER, n, reqs, MPI_STATUSES_IGNORE) : NULL;
    if (!s)
        return PMPI_Testany(n, reqs, index, flag, status);
    MPI_Status *use = status == MPI_STATUS_IGNORE ? &one : status;
    int rc = PMPI_Testany(n, reqs, index, flag, use);
    leave(&w, rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED, index, use, 0, reqs);
    return rc;
}

/* Waitsome and Testsome take the same arguments and complete alike. */
#define SOME(NAME, KIND)                                                                      \
    int MPI_##NAME(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])     \
    {                                                                                         \
        wait_ctx w;                                                                           \
        MPI_Status *s = trace_enabled && n >= 0 ? enter(&w, KIND, CALLER, n, reqs, sts) : NULL; \
        if (!s)                                                                               \
            return PMPI_##NAME(n, reqs, outcount, idx, sts);                                  \
        int rc = PMPI_##NAME(n, reqs, outcount, idx, s);                                      \
        leave(&w, rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0, idx, s, 0, \
              reqs);                                                                          \
        return rc;                                                                            \
    }

SOME(Waitsome, TRACE_K_WAITSOME)
SOME(Testsome, TRACE_K_TESTSOME)
