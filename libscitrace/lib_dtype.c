/* lib_dtype: what a call's datatype is, for the record: its size, its type
 * signature as a short code and whether it is contiguous; and a reduction's
 * operation as a code.  The codes are defined in trace/tracekinds.h and
 * docs/formats.md ("Datatype signature codes"). */
#include "libscitrace/lib.h"

#include <stdlib.h>
#include <string.h>

/* A predefined type's code: integers and floats by class and size, so
 * aliases (MPI_INT, MPI_INT32_T) have one code, as MPI lets them match. */
typedef struct named {
    MPI_Datatype dt;
    uint32_t code;
} named;

#define SINT(n) (TRACE_DT_SIGNED | (n))
#define UINT(n) (TRACE_DT_UNSIGNED | (n))
#define FLT(n) (TRACE_DT_FLOAT | (n))
#define CPLX(n) (TRACE_DT_COMPLEX | (n))

static uint32_t named_code(MPI_Datatype dt)
{
    const named table[] = {
        {MPI_BYTE, TRACE_DT_BYTE}, {MPI_PACKED, TRACE_DT_PACKED}, {MPI_CHAR, TRACE_DT_CHAR},
        {MPI_WCHAR, TRACE_DT_WCHAR}, {MPI_C_BOOL, TRACE_DT_BOOL},
        {MPI_SIGNED_CHAR, SINT(1)}, {MPI_INT8_T, SINT(1)}, {MPI_UNSIGNED_CHAR, UINT(1)},
        {MPI_UINT8_T, UINT(1)}, {MPI_SHORT, SINT(sizeof(short))}, {MPI_INT16_T, SINT(2)},
        {MPI_UNSIGNED_SHORT, UINT(sizeof(short))}, {MPI_UINT16_T, UINT(2)},
        {MPI_INT, SINT(sizeof(int))}, {MPI_INT32_T, SINT(4)}, {MPI_UNSIGNED, UINT(sizeof(int))},
        {MPI_UINT32_T, UINT(4)}, {MPI_LONG, SINT(sizeof(long))},
        {MPI_UNSIGNED_LONG, UINT(sizeof(long))}, {MPI_LONG_LONG, SINT(sizeof(long long))},
        {MPI_LONG_LONG_INT, SINT(sizeof(long long))}, {MPI_INT64_T, SINT(8)},
        {MPI_UNSIGNED_LONG_LONG, UINT(sizeof(long long))}, {MPI_UINT64_T, UINT(8)},
        {MPI_AINT, SINT(sizeof(MPI_Aint))}, {MPI_OFFSET, SINT(sizeof(MPI_Offset))},
        {MPI_COUNT, SINT(sizeof(MPI_Count))}, {MPI_FLOAT, FLT(sizeof(float))},
        {MPI_DOUBLE, FLT(sizeof(double))}, {MPI_LONG_DOUBLE, FLT(sizeof(long double))},
        {MPI_C_FLOAT_COMPLEX, CPLX(2 * sizeof(float))},
        {MPI_C_DOUBLE_COMPLEX, CPLX(2 * sizeof(double))},
        {MPI_C_LONG_DOUBLE_COMPLEX, CPLX(2 * sizeof(long double))},
        {MPI_FLOAT_INT, TRACE_DT_PAIR | 1}, {MPI_DOUBLE_INT, TRACE_DT_PAIR | 2},
        {MPI_LONG_INT, TRACE_DT_PAIR | 3}, {MPI_2INT, TRACE_DT_PAIR | 4},
        {MPI_SHORT_INT, TRACE_DT_PAIR | 5}, {MPI_LONG_DOUBLE_INT, TRACE_DT_PAIR | 6},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].dt == dt && dt != MPI_DATATYPE_NULL)
            return table[i].code;
    return TRACE_DT_UNKNOWN;   /* Fortran types and the like: not checked */
}

/* One item's signature, expanded: a basic code per element, at most
 * SIG_MAX of them (a longer one is not coded). */
#define SIG_MAX 4096

typedef struct sig {
    uint32_t v[SIG_MAX];
    int n, too_long;
} sig;

static void sig_add(sig *s, uint32_t code, long long times)
{
    for (long long i = 0; i < times && !s->too_long; i++) {
        if (s->n == SIG_MAX)
            s->too_long = 1;
        else
            s->v[s->n++] = code;
    }
}

static int sig_of(MPI_Datatype dt, sig *s, long long times, int depth);

/* Appends `times` copies of dt's signature (each one expanded again). */
static int sig_repeat(MPI_Datatype dt, sig *s, long long times, int depth)
{
    for (long long i = 0; i < times && !s->too_long; i++) {
        int before = s->n;
        if (sig_of(dt, s, 1, depth) != 0)
            return -1;
        if (s->n == before)   /* an empty type: its copies add nothing */
            break;
    }
    return 0;
}

/* dt's signature, `times` times, appended to s; -1 when a combiner is not
 * understood (then the type is not coded). */
static int sig_of(MPI_Datatype dt, sig *s, long long times, int depth)
{
    int ni = 0, na = 0, nd = 0, comb = 0;
    if (depth > 16 || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return -1;
    if (comb == MPI_COMBINER_NAMED) {
        uint32_t c = named_code(dt);
        if (c == TRACE_DT_UNKNOWN)
            return -1;
        sig_add(s, c, times);
        return 0;
    }
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    int rc = -1, got = 0;
    if (!ints || !addrs || !types ||
        PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) != MPI_SUCCESS)
        goto out;
    got = nd;
    long long each = 0;
    rc = 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: each = 1; break;
    case MPI_COMBINER_CONTIGUOUS: each = ints[0]; break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: each = (long long)ints[0] * ints[1]; break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < ints[0]; i++)
            each += ints[1 + i];
        break;
    case MPI_COMBINER_SUBARRAY:
        each = 1;
        for (int i = 0; i < ints[0]; i++)
            each *= ints[1 + ints[0] + i];
        break;
    case MPI_COMBINER_STRUCT:
        for (long long t = 0; t < times && !s->too_long && rc == 0; t++)
            for (int i = 0; i < ints[0] && rc == 0; i++)
                rc = sig_repeat(types[i], s, ints[1 + i], depth + 1);
        goto out;
    default: rc = -1; goto out;
    }
    /* a named element type appends at once; a derived one item by item */
    int ni2, na2, nd2, comb2;
    PMPI_Type_get_envelope(types[0], &ni2, &na2, &nd2, &comb2);
    if (comb2 == MPI_COMBINER_NAMED) {
        uint32_t c = named_code(types[0]);
        if (c == TRACE_DT_UNKNOWN)
            rc = -1;
        else
            sig_add(s, c, each * times);
    } else {
        rc = sig_repeat(types[0], s, each * times, depth + 1);
    }
out:
    for (int i = 0; i < got; i++) {   /* the derived ones are copies */
        int a, b, c, k = 0;
        if (PMPI_Type_get_envelope(types[i], &a, &b, &c, &k) == MPI_SUCCESS &&
            k != MPI_COMBINER_NAMED)
            PMPI_Type_free(&types[i]);
    }
    free(ints), free(addrs), free(types);
    return rc;
}

/* The code of an item's expanded signature: its element's code when every
 * element is alike, else a hash of its primitive root (the shortest prefix
 * it repeats), so that a type and a type of k copies of it code alike. */
static uint32_t sig_code(const sig *s)
{
    if (s->too_long || s->n == 0)
        return TRACE_DT_UNKNOWN;
    int p = 1;
    for (; p < s->n; p++) {
        if (s->n % p)
            continue;
        int i = p;
        while (i < s->n && s->v[i] == s->v[i % p])
            i++;
        if (i == s->n)
            break;
    }
    if (p == 1)
        return s->v[0];
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a 64 */
    for (int i = 0; i < p; i++) {
        h ^= s->v[i];
        h *= 0x100000001b3ull;
    }
    return TRACE_DT_MIXED | (uint32_t)((h ^ (h >> 32)) & 0x7fffffffu & ~TRACE_DT_MIXED);
}

/* The last few types asked about: a loop sends one type, found first;
 * MPI_Type_free forgets them, since a new type may reuse a handle. */
#define CACHE 8

static struct {
    trace_dt_info e[CACHE];
    int next, last;
    sig scratch;
} cache;

const trace_dt_info *trace_dt(MPI_Datatype dt)
{
    if (cache.e[cache.last].dt == dt && dt)
        return &cache.e[cache.last];
    for (int i = 0; i < CACHE; i++)
        if (cache.e[i].dt == dt && dt) {
            cache.last = i;
            return &cache.e[i];
        }
    trace_dt_info x = {dt, 0, 0, TRACE_DT_UNKNOWN};
    int sz = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0)
        return NULL;
    x.size = sz;
    if (PMPI_Type_get_extent(dt, &lb, &extent) == MPI_SUCCESS &&
        PMPI_Type_get_true_extent(dt, &tlb, &textent) == MPI_SUCCESS)
        x.contig = textent == sz && extent == sz;   /* no holes, and items abut */
    cache.scratch.n = 0, cache.scratch.too_long = 0;
    if (sig_of(dt, &cache.scratch, 1, 0) == 0)
        x.code = sig_code(&cache.scratch);
    cache.last = cache.next;
    cache.e[cache.next] = x;
    cache.next = (cache.next + 1) % CACHE;
    return &cache.e[cache.last];
}

uint64_t trace_bytes(int count, MPI_Datatype dt)
{
    const trace_dt_info *x = count > 0 ? trace_dt(dt) : NULL;
    return x ? (uint64_t)count * (uint64_t)x->size : 0;
}

void tw_dtype(trace_words *a, int count, MPI_Datatype dt, int contig)
{
    const trace_dt_info *x = trace_dt(dt);
    tw(a, count > 0 ? count : 0);
    tw_x(a, x ? x->code : TRACE_DT_UNKNOWN);
    if (contig)
        tw(a, x ? x->contig != 0 : 0);
}

uint32_t trace_op_code(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                          MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE,
                          MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] == op)
            return (uint32_t)i + 1;
    return op == MPI_OP_NULL ? 0 : TRACE_OP_USER;
}

int MPI_Type_free(MPI_Datatype *type)
{
    for (int i = 0; i < CACHE; i++)
        cache.e[i].dt = MPI_DATATYPE_NULL;
    trace_epoch++;
    return PMPI_Type_free(type);
}
