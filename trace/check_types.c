/* check_types: type matching of the messages the replay matched (check.h).
 * MPI requires a send's type signature to be a prefix of its receive's.
 * From the signature codes (docs/formats.md): two codes of one basic type
 * each that differ can never match; codes of mixed types that differ are
 * a mismatch only when both sides have the same size (the signatures must
 * then be equal), since a shorter one may be a prefix of a longer one. */
#include "trace/check.h"

#include <inttypes.h>
#include <stdio.h>

#include "trace/tracekinds.h"

/* The count and code the call gives its message: a sendrecv's receive part
 * has its own. */
static void side(const trace_call *c, int recv, int64_t *count, uint32_t *code)
{
    if (recv && c->kind == TRACE_K_SENDRECV) {
        *count = c->count2, *code = c->dtype2;
    } else {
        *count = c->count, *code = c->dtype;
    }
}

static int wildcard(uint32_t code)
{
    return code == TRACE_DT_UNKNOWN || code == TRACE_DT_BYTE || code == TRACE_DT_PACKED;
}

static uint64_t recv_bytes(const trace_call *c)
{
    return c->kind == TRACE_K_SENDRECV ? c->bytes2 : c->bytes;
}

int check_types(const trace_dir *d, check_result *res)
{
    for (size_t i = 0; i < res->npairs; i++) {
        const check_pair *p = &res->pairs[i];
        const trace_call *s = &d->ranks[p->src].calls[p->send_call];
        const trace_call *r = &d->ranks[p->dst].calls[p->recv_call];
        int64_t sn, rn;
        uint32_t sc, rc;
        side(s, 0, &sn, &sc);
        side(r, 1, &rn, &rc);
        if (sn <= 0 || rn < 0 || s->bytes == 0 || wildcard(sc) || wildcard(rc) || sc == rc)
            continue;
        int mixed = (sc & TRACE_DT_MIXED) || (rc & TRACE_DT_MIXED);
        if (mixed && s->bytes != recv_bytes(r))
            continue;
        if (check_add(res, (check_finding){CHECK_TYPE_MISMATCH, p->src, p->send_call, -1, p->dst,
                                           p->recv_call}) != 0)
            return -1;
    }
    return 0;
}

void check_type_text(int64_t count, uint32_t code, char *out, size_t cap)
{
    static const char *const pairs[] = {"?", "float_int", "double_int", "long_int", "2int",
                                        "short_int", "long_double_int"};
    static const char *const named[] = {"?", "byte", "packed", "char", "wchar", "bool"};
    unsigned cls = code & 0xff00u, sz = code & 0xffu;
    char name[40];
    if (count < 0 || code == TRACE_DT_UNKNOWN) {
        if (cap)
            out[0] = '\0';
        return;
    }
    if (code & TRACE_DT_MIXED)
        snprintf(name, sizeof name, "mixed %08" PRIx32, code);
    else if (code <= TRACE_DT_BOOL)
        snprintf(name, sizeof name, "%s", named[code]);
    else if (cls == TRACE_DT_SIGNED || cls == TRACE_DT_UNSIGNED)
        snprintf(name, sizeof name, "%sint%u", cls == TRACE_DT_UNSIGNED ? "u" : "", 8 * sz);
    else if (cls == TRACE_DT_FLOAT)
        snprintf(name, sizeof name, "%s", sz == 4 ? "float" : sz == 8 ? "double" : "long double");
    else if (cls == TRACE_DT_COMPLEX)
        snprintf(name, sizeof name, "complex%u", 8 * sz);
    else if (cls == TRACE_DT_PAIR && sz <= 6)
        snprintf(name, sizeof name, "%s", pairs[sz]);
    else
        snprintf(name, sizeof name, "code %" PRIx32, code);
    snprintf(out, cap, "%" PRId64 " x %s", count, name);
}
