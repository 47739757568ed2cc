/* check_events: the replay's events as Zhang's analyzer gives them (check.h):
 * the completed message pairs, then each rank's last state.  Format:
 * docs/formats.md, 'scitrace check --events'. */
#include "trace/check.h"

#include <inttypes.h>
#include <stdio.h>

#include "trace/tracekinds.h"

static const char *kind_of(const trace_rank *t, size_t call)
{
    return call < t->ncalls ? trace_kind_name(t->calls[call].kind) : "-";
}

static long line_of(const trace_rank *t, size_t call)
{
    return call < t->ncalls ? t->calls[call].line : 0;
}

int check_events_write(const trace_dir *d, const check_result *res, FILE *fp)
{
    fprintf(fp, "# scitrace check events: %s\n# pair\tsrc\tcall\tkind\tline\tdst\tcall\tkind\t"
            "line\ttag\tbytes\n", d->path);
    for (size_t i = 0; i < res->npairs; i++) {
        const check_pair *p = &res->pairs[i];
        const trace_rank *s = &d->ranks[p->src], *r = &d->ranks[p->dst];
        const trace_call *c = &s->calls[p->send_call];
        fprintf(fp, "pair\t%d\t%zu\t%s\t%ld\t%d\t%zu\t%s\t%ld\t%d\t%" PRIu64 "\n", p->src,
                p->send_call + 1, kind_of(s, p->send_call), line_of(s, p->send_call), p->dst,
                p->recv_call + 1, kind_of(r, p->recv_call), line_of(r, p->recv_call), c->tag,
                c->bytes);
    }
    fprintf(fp, "# state\trank\tstate\tcall\tkind\tline\twaits_for\tstatus\n");
    for (int r = 0; r < d->nranks; r++) {
        const check_finding *blocked = NULL;
        for (size_t i = 0; i < res->n && !blocked; i++)
            if (res->f[i].kind == CHECK_DEADLOCK && res->f[i].rank == r)
                blocked = &res->f[i];
        if (!d->loaded[r]) {
            fprintf(fp, "state\t%d\tmissing\t0\t-\t0\t-\tno-file\n", r);
            continue;
        }
        const trace_rank *t = &d->ranks[r];
        size_t call = blocked ? blocked->call : t->ncalls ? t->ncalls - 1 : SIZE_MAX;
        char waits[16] = "-";
        if (blocked && blocked->waits_for >= 0)
            snprintf(waits, sizeof waits, "%d", blocked->waits_for);
        else if (blocked)
            snprintf(waits, sizeof waits, "several");
        fprintf(fp, "state\t%d\t%s\t%zu\t%s\t%ld\t%s\t%s\n", r, blocked ? "blocked" : "finished",
                call == SIZE_MAX ? 0 : call + 1, kind_of(t, call), line_of(t, call), waits,
                t->status ? t->status : "-");
    }
    return ferror(fp) ? -1 : 0;
}
