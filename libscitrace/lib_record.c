/* lib_record: what the wrappers of libscitrace.so need besides the log:
 * communicator ids and their members, request ids and phases. */
#include "libscitrace/lib.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscitrace/scitrace.h"

#define MAX_PHASES 4096
#define PHASE_NAME_MAX 63

typedef struct req_slot {
    MPI_Request req;
    const MPI_Request *home;   /* where the call that made it stored it */
    int id, comm;
} req_slot;

static struct {
    int keyval;
    uint64_t *hashes;
    req_slot *reqs;
    size_t req_cap, req_used;
    char phases[MAX_PHASES][PHASE_NAME_MAX + 1];
    int nphases;
} st;

int trace_phase;
trace_comm_rec *trace_comms;
int trace_ncomms;
int trace_next_req;

/* --- communicators ----------------------------------------------------- */

/* A communicator is named across rank files by a hash of its members (world
 * ranks; an intercommunicator's two groups, the one holding the lower world
 * rank first, so both sides agree) and seq, the number of communicators with
 * the same hash this rank registered before: creation is collective, so all
 * members count alike. */
static uint64_t members_hash(uint64_t h, const int *w, int n)
{
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)w[i];
        h *= 0x100000001b3ull;   /* FNV-1a 64 prime */
    }
    return h;
}

static int *group_world(MPI_Group g, int n)
{
    MPI_Group wg;
    int *ranks = malloc((size_t)n * sizeof *ranks), *world = malloc((size_t)n * sizeof *world);
    if (!ranks || !world) {
        free(ranks);
        free(world);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, ranks, wg, world);
    PMPI_Group_free(&wg);
    free(ranks);
    return world;
}

static int min_of(const int *w, int n)
{
    int m = 1 << 30;
    for (int i = 0; i < n; i++)
        m = w[i] < m ? w[i] : m;
    return m;
}

int trace_comm_created(MPI_Comm comm)
{
    int inter = 0, n = 0, ln = 0;
    MPI_Group g, lg;
    trace_comm_forget();
    if (!trace_enabled || comm == MPI_COMM_NULL)
        return -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_size(comm, &n);
        PMPI_Comm_remote_group(comm, &g);
    } else {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_group(comm, &g);
    }
    int *world = group_world(g, n), *local = NULL;
    PMPI_Group_free(&g);
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a 64 offset basis */
    if (inter && world) {
        PMPI_Comm_size(comm, &ln);
        PMPI_Comm_group(comm, &lg);
        local = group_world(lg, ln);
        PMPI_Group_free(&lg);
        if (local && min_of(local, ln) < min_of(world, n))
            h = members_hash(members_hash(h, local, ln), world, n);
        else if (local)
            h = members_hash(members_hash(h, world, n), local, ln);
        free(local);
    } else if (world) {
        h = members_hash(h, world, n);
    }
    trace_comm_rec *grown = realloc(trace_comms, (size_t)(trace_ncomms + 1) * sizeof *grown);
    uint64_t *hg = realloc(st.hashes, (size_t)(trace_ncomms + 1) * sizeof *hg);
    if (grown)
        trace_comms = grown;
    if (hg)
        st.hashes = hg;
    if (!grown || !hg || !world || (inter && !local)) {
        free(world);
        return -1;
    }
    int id = trace_ncomms++, seq = 0;
    trace_comms[id] = (trace_comm_rec){n, inter, world};
    st.hashes[id] = h;
    for (int i = 0; i < id; i++)
        seq += st.hashes[i] == h;
    if (id == 0)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &st.keyval, NULL);
    else
        PMPI_Comm_set_attr(comm, st.keyval, (void *)(intptr_t)(id + 1));
    /* "comm ID HASH SEQ N W0 .. WN-1" ("icomm": the remote group) */
    char *p = trace_line(64 + (size_t)n * 12);
    if (p) {
        memcpy(p, inter ? "icomm" : "comm", inter ? 5 : 4);
        p += inter ? 5 : 4;
        p = tl_u(p, (uint64_t)id);
        p = tl_x(p, h);
        p = tl_u(p, (uint64_t)seq);
        p = tl_u(p, (uint64_t)n);
        for (int i = 0; i < n; i++)
            p = tl_i(p, world[i]);
        trace_end(p);
    }
    return id;
}

/* The communicator asked about last (a loop uses one): its handle names
 * another once freed, so registering or freeing one forgets it. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static int last_comm_id;

void trace_comm_forget(void)
{
    last_comm = MPI_COMM_NULL;
    trace_epoch++;
}

int trace_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return 0;
    if (comm == last_comm && comm != MPI_COMM_NULL)
        return last_comm_id;
    void *v = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, st.keyval, &v, &found) == MPI_SUCCESS && found) {
        last_comm = comm, last_comm_id = (int)(intptr_t)v - 1;
        return last_comm_id;
    }
    return trace_comm_created(comm);   /* made by a call not wrapped here */
}

/* --- requests ---------------------------------------------------------- */

/* MPI_Request handle -> our ids, linear probing: a slot per live request, oldest first (Open MPI
 * shares one handle among Isends), emptied by shifting its cluster back, which keeps that order
 * (tombstones would pile up under a long run's Isend/Wait traffic and lengthen every lookup). */
static size_t slot_of(MPI_Request req, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)req * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

/* The newest request made at each address the program stored one at
 * (direct-mapped; forgotten when it is done): a Wait finds the request its
 * program holds there with one probe. */
#define HOMES 256
static struct home {
    const MPI_Request *at;
    MPI_Request req;
    int id, comm, slot;
} homes[HOMES];

static inline struct home *home_of(const MPI_Request *at)
{
    return &homes[((uintptr_t)at / sizeof *at) & (HOMES - 1)];
}

/* Out of line: the insertion that calls it then needs fewer registers. */
static __attribute__((noinline)) int req_grow(void)
{
    size_t cap = st.req_cap ? st.req_cap * 2 : 64;
    req_slot *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    /* reinsert cluster by cluster from an empty slot, so each handle's slots
     * keep their order */
    size_t start = 0;
    while (start < st.req_cap && st.reqs[start].id)
        start++;
    for (size_t n = 0; n < st.req_cap; n++) {
        req_slot *x = &st.reqs[(start + n) & (st.req_cap - 1)];
        if (!x->id)
            continue;
        size_t j = slot_of(x->req, cap);
        while (t[j].id)
            j = (j + 1) & (cap - 1);
        t[j] = *x;
    }
    free(st.reqs);
    st.reqs = t, st.req_cap = cap;
    return 0;
}

int trace_req_new(MPI_Request req, int comm_id, const MPI_Request *home)
{
    int id = ++trace_next_req;
    if (req == MPI_REQUEST_NULL || ((st.req_used + 1) * 2 > st.req_cap && req_grow() != 0))
        return id;
    size_t j = slot_of(req, st.req_cap);
    while (st.reqs[j].id)
        j = (j + 1) & (st.req_cap - 1);
    st.req_used++;
    st.reqs[j] = (req_slot){req, home, id, comm_id};
    *home_of(home) = (struct home){home, req, id, comm_id, (int)j};
    return id;
}

/* The slot of the k-th live request (k = 0: oldest) with handle req. */
static req_slot *find(MPI_Request req, int k)
{
    if (req == MPI_REQUEST_NULL || !st.req_cap)
        return NULL;
    for (size_t j = slot_of(req, st.req_cap); st.reqs[j].id; j = (j + 1) & (st.req_cap - 1))
        if (st.reqs[j].req == req && k-- == 0)
            return &st.reqs[j];
    return NULL;
}

int64_t trace_req_id(MPI_Request req, const MPI_Request *at, int nth, int *comm_id, int *slot)
{
    /* the newest live request stored where the handle is now: the one the
     * program holds there (an older one was overwritten); else the nth.
     * One pass over the handle's slots, oldest first. */
    const struct home *e = at ? home_of(at) : NULL;
    if (e && e->at == at && e->req == req && e->id) {
        *comm_id = e->comm, *slot = e->slot;
        return e->id;
    }
    req_slot *x = NULL, *nth_slot = NULL;
    for (size_t j = st.req_cap && req != MPI_REQUEST_NULL ? slot_of(req, st.req_cap) : 0;
         st.req_cap && req != MPI_REQUEST_NULL && st.reqs[j].id; j = (j + 1) & (st.req_cap - 1)) {
        if (st.reqs[j].req != req)
            continue;
        if (at && st.reqs[j].home == at)
            x = &st.reqs[j];
        if (nth-- == 0)
            nth_slot = &st.reqs[j];
    }
    x = x ? x : nth_slot;
    *comm_id = x ? x->comm : -1;
    *slot = x ? (int)(x - st.reqs) : -1;
    return x ? x->id : 0;
}

void trace_req_done(MPI_Request req, int64_t id, int slot)
{
    /* the slot it was found in, unless a removal since moved it */
    req_slot *x = slot >= 0 && (size_t)slot < st.req_cap && st.reqs[slot].id == id &&
                  st.reqs[slot].req == req ? &st.reqs[slot] : NULL;
    for (int k = 0; !x; k++) {
        if ((x = find(req, k)) == NULL)
            return;
        x = x->id == id ? x : NULL;
    }
    struct home *e = home_of(x->home);
    if (e->id == id)
        e->id = 0;
    size_t mask = st.req_cap - 1, hole = (size_t)(x - st.reqs);
    st.reqs[hole].id = 0;
    st.req_used--;
    /* backward shift: a later slot whose home is not in (hole, i] moves in */
    for (size_t i = (hole + 1) & mask; st.reqs[i].id; i = (i + 1) & mask) {
        size_t home = slot_of(st.reqs[i].req, st.req_cap);
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            st.reqs[hole] = st.reqs[i];
            st.reqs[i].id = 0;
            hole = i;
        }
    }
}

/* --- phases ------------------------------------------------------------ */

/* The id of phase `name` (cleaned: white space becomes '_', 63 characters
 * kept), registered with its line when new; -1 when not recorded. */
static int phase_id(const char *name)
{
    char clean[PHASE_NAME_MAX + 1];
    size_t n = 0;
    for (; name && name[n] && n < PHASE_NAME_MAX; n++)
        clean[n] = (unsigned char)name[n] <= ' ' ? '_' : name[n];
    clean[n] = '\0';
    if (!trace_enabled || n == 0)
        return -1;
    for (int i = 0; i < st.nphases; i++)
        if (strcmp(st.phases[i], clean) == 0)
            return i;
    if (st.nphases == MAX_PHASES)
        return -1;
    memcpy(st.phases[st.nphases], clean, n + 1);
    char *p = trace_line(96);
    if (p) {
        memcpy(p, "phase", 5);
        p = tl_u(p + 5, (uint64_t)st.nphases);
        trace_end(tl_s(p, clean));
    }
    return st.nphases++;
}

void scitrace_phase(const char *name)
{
    int id = phase_id(name);
    if (id >= 0)
        trace_phase = id;
}

/* Phases with an end: begin pushes the current phase and starts NAME
 * inside it ("outer/NAME"); end returns to the phase it was begun in. */
#define PHASE_DEPTH 64
static int phase_stack[PHASE_DEPTH], phase_depth;

void scitrace_phase_begin(const char *name)
{
    char path[2 * (PHASE_NAME_MAX + 1)];
    if (!trace_enabled || !name || !name[0] || phase_depth == PHASE_DEPTH)
        return;
    if (phase_depth)
        snprintf(path, sizeof path, "%s/%s", st.phases[trace_phase], name);
    else
        snprintf(path, sizeof path, "%s", name);
    int id = phase_id(path);
    if (id < 0)
        return;
    phase_stack[phase_depth++] = trace_phase;
    trace_phase = id;
}

void scitrace_phase_end(void)
{
    if (trace_enabled && phase_depth > 0)
        trace_phase = phase_stack[--phase_depth];
}

/* The MPI standard's hook for profiling tools: level N starts phase
 * "pcontrol-N". */
int MPI_Pcontrol(const int level, ...)
{
    char name[32];
    snprintf(name, sizeof name, "pcontrol-%d", level);
    scitrace_phase(name);
    return MPI_SUCCESS;
}

/* The first phase, before any mark. */
void trace_phases_start(void)
{
    st.nphases = 0, phase_depth = 0;
    scitrace_phase("main");
}
