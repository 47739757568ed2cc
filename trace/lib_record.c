/* lib_record: the recorder of libscitrace.so.  Aggregates every recorded
 * call by (kind, peer, communicator, tag, size) in an open-addressing table
 * of fixed capacity, numbers communicators so that all ranks agree, keeps
 * the optional event log, and writes the rank file (format:
 * trace/tracefile.h) atomically at MPI_Finalize. */
#include "trace/lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/atomicfile.h"

/* Table capacity: 2^16 entries of 48 bytes = 3 MiB per rank, whatever the
 * number of messages.  Past half full, new keys are folded (tag dropped,
 * size rounded down to a power of two) so that the number of keys is bounded
 * by kinds x peers x communicators x 65 size classes; past 7/8 full they
 * are counted in `dropped` only.  Messages and bytes are never lost.  Half:
 * a key not in a linearly probed table costs about 2.5 probes at load 1/2
 * (Knuth, TAOCP vol. 3, 6.4), 8.5 at 3/4 -- each a likely cache miss once
 * the table has grown past the caches (measured with 10^7 distinct calls:
 * 134 ns a call at fold-at-3/4 without the recent-key cache below). */
#define TABLE_BITS 16
#define TABLE_CAP (1u << TABLE_BITS)
#define TABLE_FOLD_AT (TABLE_CAP / 2)
#define TABLE_DROP_AT (TABLE_CAP / 8 * 7)
/* Recently recorded keys -> their entry (exact or folded), direct-mapped by
 * the key's hash: a repeated call costs one hash and one compare, also when
 * its key was folded. */
#define RECENT 256
/* Persistent requests remembered at once (MPI_Send_init ...); more are
 * started untraced and counted. */
#define PERSIST_CAP 1024
/* Event log write buffer. */
#define EVENT_BUF_BYTES (1u << 20)

typedef struct entry {
    uint64_t size_bytes, messages, bytes;
    int32_t peer, comm, tag;
    uint8_t kind, used, folded;
} entry;

typedef struct recent_key {
    uint64_t size_bytes;
    int32_t peer, comm, tag;
    int32_t kind_plus1;   /* 0: empty slot */
    entry *e;
} recent_key;

typedef struct comm_rec {
    int n, seq;
    uint64_t hash;
    int *world;        /* world rank of each comm rank (remote group if inter) */
} comm_rec;

typedef struct persist {
    MPI_Request req;
    int kind, peer, comm, tag;
    uint64_t size_bytes;
} persist;

static struct {
    entry table[TABLE_CAP];
    recent_key recent[RECENT];
    recent_key last[TRACE_NKINDS];   /* each kind's last key: no hash at all */
    MPI_Datatype last_type;
    int last_type_size;
    unsigned used;
    uint64_t dropped_messages, dropped_bytes, untraced_starts;
    comm_rec *comms;
    int ncomms, comm_keyval;
    int rank, size;
    atomic_file out, events;
    int events_on, finished;
    char *event_buf;
    persist persist[PERSIST_CAP];
} st;

int trace_enabled;

/* --- aggregates -------------------------------------------------------- */

static uint32_t key_hash(int kind, int peer, int comm, int tag, uint64_t size)
{
    uint64_t h = size * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)peer << 32 | (uint32_t)tag) * 0xC2B2AE3D27D4EB4Full;
    h ^= ((uint64_t)kind << 32 | (uint32_t)comm) * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (uint32_t)(h >> (64 - TABLE_BITS));
}

static int key_eq(const entry *e, int kind, int peer, int comm, int tag, uint64_t size)
{
    return e->size_bytes == size && e->peer == peer && e->tag == tag && e->comm == comm &&
           e->kind == kind;
}

/* Finds or (if fewer than limit entries are used) inserts the key; NULL
 * when the table is too full to insert. */
static entry *lookup(uint32_t i, int kind, int peer, int comm, int tag, uint64_t size,
                     unsigned limit)
{
    for (;; i = (i + 1) & (TABLE_CAP - 1)) {
        entry *e = &st.table[i];
        if (!e->used) {
            if (st.used >= limit)
                return NULL;
            *e = (entry){.size_bytes = size, .peer = peer, .comm = comm, .tag = tag,
                         .kind = (uint8_t)kind, .used = 1};
            st.used++;
            return e;
        }
        if (key_eq(e, kind, peer, comm, tag, size))
            return e;
    }
}

/* Largest power of two <= size (0 for 0): the folded size class. */
static uint64_t size_class(uint64_t size)
{
    return size ? (uint64_t)1 << (63 - __builtin_clzll(size)) : 0;
}

static void write_event(int kind, int peer, int comm, int tag, uint64_t size, uint64_t count)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(st.events.fp, "%lld%09ld %s %d %d %d %llu %llu\n", (long long)ts.tv_sec, ts.tv_nsec,
            trace_kind_name(kind), peer, comm, tag, (unsigned long long)size,
            (unsigned long long)count);
}

/* A key not found among the last ones: the table (kept out of the fast
 * path so that a repeated call saves no registers it does not use). */
static __attribute__((noinline)) entry *slow_entry(enum trace_kind kind, int peer, int comm,
                                                   int tag, uint64_t size)
{
    uint32_t h = key_hash(kind, peer, comm, tag, size);
    recent_key *r = &st.recent[h & (RECENT - 1)];
    entry *e;
    if (r->kind_plus1 == (int)kind + 1 && r->size_bytes == size && r->peer == peer &&
        r->tag == tag && r->comm == comm) {
        e = r->e;
    } else {
        e = lookup(h, kind, peer, comm, tag, size, TABLE_FOLD_AT);
        if (!e) {
            uint64_t cls = size_class(size);
            e = lookup(key_hash(kind, peer, comm, TRACE_TAG_FOLDED, cls), kind, peer, comm,
                       TRACE_TAG_FOLDED, cls, TABLE_DROP_AT);
            if (e)
                e->folded = 1;
        }
        if (e)
            *r = (recent_key){size, peer, comm, tag, (int)kind + 1, e};
    }
    if (e)
        st.last[kind] = (recent_key){size, peer, comm, tag, (int)kind + 1, e};
    return e;
}

void trace_record(enum trace_kind kind, int peer, int comm, int tag, uint64_t size,
                  uint64_t count)
{
    recent_key *l = &st.last[kind];
    entry *e;
    if (l->kind_plus1 && l->size_bytes == size && l->peer == peer && l->tag == tag &&
        l->comm == comm)
        e = l->e;
    else
        e = slow_entry(kind, peer, comm, tag, size);
    if (e) {
        e->messages += count;
        e->bytes += size * count;
    } else {
        st.dropped_messages += count;
        st.dropped_bytes += size * count;
    }
    if (st.events_on)
        write_event(kind, peer, comm, tag, size, count);
}

trace_type_cache trace_last_type;

uint64_t trace_bytes_slow(int count, MPI_Datatype dt)
{
    int sz = 0;
    if (count <= 0 || PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0)
        return 0;
    trace_last_type = (trace_type_cache){dt, sz};
    return (uint64_t)count * (uint64_t)sz;
}

void trace_type_freed(void)
{
    trace_last_type.type = NULL;
}

/* --- communicators ----------------------------------------------------- */

/* Communicators are named in rank files by their members (world ranks) and
 * by seq, the number of communicators with the same members this rank had
 * registered before.  Creation is collective over the members, so every
 * member registers them in the same order and the pair (members, seq) names
 * the same communicator in every rank file (MPI_Comm_dup of the world gets
 * seq 1 everywhere).  A communicator made by a call not wrapped here is
 * registered at its first use, where that agreement is not guaranteed. */
static uint64_t members_hash(const int *w, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a 64 offset basis */
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)w[i];
        h *= 0x100000001b3ull;            /* FNV-1a 64 prime */
    }
    return h;
}

static int comm_register(MPI_Comm comm)
{
    int inter = 0, n = 0;
    MPI_Group g, wg;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_size(comm, &n);
        PMPI_Comm_remote_group(comm, &g);
    } else {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_group(comm, &g);
    }
    comm_rec *grown = realloc(st.comms, (size_t)(st.ncomms + 1) * sizeof *grown);
    int *ranks = malloc((size_t)n * sizeof *ranks), *world = malloc((size_t)n * sizeof *world);
    if (grown)
        st.comms = grown;
    if (!grown || !ranks || !world) {
        free(ranks);
        free(world);
        PMPI_Group_free(&g);
        return -2;
    }
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, ranks, wg, world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(ranks);
    comm_rec *c = &st.comms[st.ncomms];
    *c = (comm_rec){.n = n, .world = world, .hash = members_hash(world, n)};
    for (int i = 0; i < st.ncomms; i++)
        c->seq += st.comms[i].hash == c->hash && st.comms[i].n == n;
    int id = st.ncomms++;
    if (comm != MPI_COMM_WORLD)
        PMPI_Comm_set_attr(comm, st.comm_keyval, (void *)(intptr_t)(id + 1));
    return id;
}

void trace_comm_created(MPI_Comm comm)
{
    if (trace_enabled && comm != MPI_COMM_NULL)
        comm_register(comm);
}

static int comm_id_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return 0;
    void *v = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, st.comm_keyval, &v, &found) == MPI_SUCCESS && found)
        return (int)(intptr_t)v - 1;
    return comm_register(comm);
}

int trace_world_rank(MPI_Comm comm, int r, int *comm_id)
{
    int id = *comm_id = comm_id_of(comm);
    if (id < 0)
        return -2;
    if (r < 0)
        return r == MPI_ANY_SOURCE ? -1 : -2;
    return r < st.comms[id].n ? st.comms[id].world[r] : -2;
}

int trace_comm_info(MPI_Comm comm, int *comm_id, int *n, int *me)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    *comm_id = comm_id_of(comm);
    if (inter || *comm_id < 0)
        return -1;
    *n = st.comms[*comm_id].n;
    PMPI_Comm_rank(comm, me);
    return 0;
}

/* --- persistent requests ----------------------------------------------- */

void trace_persistent_add(MPI_Request req, enum trace_kind kind, MPI_Comm comm, int r, int tag,
                          int count, MPI_Datatype dt)
{
    if (!trace_enabled || r == MPI_PROC_NULL || req == MPI_REQUEST_NULL)
        return;
    int id, w = trace_world_rank(comm, r, &id);
    for (int i = 0; i < PERSIST_CAP && w != -2; i++)
        if (st.persist[i].req == MPI_REQUEST_NULL || st.persist[i].req == NULL) {
            st.persist[i] = (persist){req, kind, w, id, tag, trace_bytes(count, dt)};
            return;
        }
}

void trace_persistent_start(MPI_Request req)
{
    if (!trace_enabled)
        return;
    for (int i = 0; i < PERSIST_CAP; i++)
        if (st.persist[i].req == req && req) {
            persist *p = &st.persist[i];
            trace_record(p->kind, p->peer, p->comm, p->tag, p->size_bytes, 1);
            return;
        }
    st.untraced_starts++;
}

void trace_persistent_free(MPI_Request req)
{
    for (int i = 0; i < PERSIST_CAP; i++)
        if (st.persist[i].req == req && req)
            st.persist[i].req = NULL;
}

/* --- start and finish -------------------------------------------------- */

static void warn(const char *what, const char *path)
{
    fprintf(stderr, "scitrace: rank %d: %s '%s': %s; this rank is not traced\n", st.rank, what,
            path, strerror(errno));
}

static void at_exit(void)
{
    if (trace_enabled && !st.finished)
        trace_finish("no-finalize");
}

void trace_start(void)
{
    char dir[4096], path[4200];
    const char *env = getenv("SCITRACE_DIR"), *ns = getenv("PMIX_NAMESPACE");
    PMPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &st.size);
    if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else if (ns && *ns)
        snprintf(dir, sizeof dir, "scitrace-%s", ns);
    else
        snprintf(dir, sizeof dir, "scitrace-%ld", (long)getpid());
    struct stat sb;
    if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))) {
        if (errno == EEXIST)
            errno = ENOTDIR;
        warn("cannot create trace directory", dir);
        return;
    }
    snprintf(path, sizeof path, TRACE_FILE_PATTERN, dir, st.rank);
    if (atomic_file_open(&st.out, path) != 0) {
        warn("cannot create", path);
        return;
    }
    const char *ev = getenv("SCITRACE_EVENTS");
    if (ev && strcmp(ev, "1") == 0) {
        snprintf(path, sizeof path, TRACE_EVENTS_PATTERN, dir, st.rank);
        if (atomic_file_open(&st.events, path) != 0) {
            warn("cannot create", path);
            atomic_file_abort(&st.out);
            return;
        }
        st.event_buf = malloc(EVENT_BUF_BYTES);
        if (st.event_buf)
            setvbuf(st.events.fp, st.event_buf, _IOFBF, EVENT_BUF_BYTES);
        fprintf(st.events.fp, "# scitrace-events 1\n# columns: t_ns call peer comm tag size_bytes count\n");
        st.events_on = 1;
    }
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &st.comm_keyval, NULL);
    comm_register(MPI_COMM_WORLD);
    atexit(at_exit);
    trace_enabled = 1;
}

static void write_command(FILE *fp)
{
    char buf[2048];
    FILE *cl = fopen("/proc/self/cmdline", "r");
    size_t n = cl ? fread(buf, 1, sizeof buf - 1, cl) : 0;
    if (cl)
        fclose(cl);
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0' || buf[i] == '\n')
            buf[i] = ' ';
    buf[n] = '\0';
    fprintf(fp, "command %s\n", n ? buf : "?");
}

void trace_finish(const char *status)
{
    if (!trace_enabled || st.finished)
        return;
    st.finished = 1;
    trace_enabled = 0;
    FILE *fp = st.out.fp;
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    long lines = 0;
    fprintf(fp, "%s\nrank %d\nranks %d\nstatus %s\nhost %s\n", TRACE_FILE_MAGIC, st.rank, st.size,
            status, host);
    write_command(fp);
    fprintf(fp, "table %u %u\ndropped %llu %llu\nuntraced_starts %llu\n", st.used, TABLE_CAP,
            (unsigned long long)st.dropped_messages, (unsigned long long)st.dropped_bytes,
            (unsigned long long)st.untraced_starts);
    lines = 9;   /* the header lines above */
    for (int i = 0; i < st.ncomms; i++, lines++) {
        comm_rec *c = &st.comms[i];
        fprintf(fp, "comm %d %016llx %d %d", i, (unsigned long long)c->hash, c->seq, c->n);
        for (int j = 0; j < c->n; j++)
            fprintf(fp, " %d", c->world[j]);
        fputc('\n', fp);
    }
    for (unsigned i = 0; i < TABLE_CAP; i++) {
        entry *e = &st.table[i];
        if (!e->used)
            continue;
        fprintf(fp, "rec %s %d %d %d %llu %llu %llu %d\n", trace_kind_name(e->kind), e->peer,
                e->comm, e->tag, (unsigned long long)e->size_bytes,
                (unsigned long long)e->messages, (unsigned long long)e->bytes, e->folded);
        lines++;
    }
    fprintf(fp, "end %ld\n", lines);
    char *path = strdup(st.out.path);
    if (atomic_file_commit(&st.out) != 0)
        fprintf(stderr, "scitrace: rank %d: cannot write '%s': %s\n", st.rank,
                path ? path : "rank file", strerror(errno));
    free(path);
    if (st.events_on) {
        path = strdup(st.events.path);
        if (atomic_file_commit(&st.events) != 0)
            fprintf(stderr, "scitrace: rank %d: cannot write '%s': %s\n", st.rank,
                    path ? path : "event log", strerror(errno));
        free(path);
        free(st.event_buf);
        st.events_on = 0;
    }
}
