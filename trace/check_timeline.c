/* check_timeline: the data of the timeline figure (scitrace/timeline.gp):
 * ranks by time, their calls, the messages the replay matched, and the
 * deadlock's cycle of waits.  Format: docs/formats.md, 'scitrace check
 * --timeline'. */
#include "trace/check.h"

#include <stdio.h>

#include "trace/tracekinds.h"

/* A call's times on one clock for every rank: seconds since the earliest
 * MPI_Init (each rank's times count from its own). */
static double at(const trace_dir *d, int r, int64_t t, int64_t t0)
{
    return (double)(d->ranks[r].start_ns - t0 + t) * 1e-9;
}

int check_timeline_write(const trace_dir *d, const check_result *res, FILE *fp)
{
    int64_t t0 = INT64_MAX, end = 0;
    for (int r = 0; r < d->nranks; r++)
        if (d->loaded[r] && d->ranks[r].start_ns < t0)
            t0 = d->ranks[r].start_ns;
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        for (size_t i = 0; d->loaded[r] && i < t->ncalls; i++) {
            int64_t e = t->start_ns - t0 + (t->calls[i].done ? t->calls[i].t_out : t->calls[i].t_in);
            end = e > end ? e : end;
        }
    }
    fprintf(fp, "# scitrace check timeline: %s\n# calls: rank\tstart_s\tend_s\tcall\tstate\n",
            d->path);
    for (int r = 0; r < d->nranks; r++) {
        const trace_rank *t = &d->ranks[r];
        for (size_t i = 0; d->loaded[r] && i < t->ncalls; i++) {
            const trace_call *c = &t->calls[i];
            int blocked = 0;   /* 1: blocked in the deadlock; 2: completed only by buffering */
            for (size_t k = 0; k < res->n && !blocked; k++)
                if (res->f[k].rank == r && res->f[k].call == i)
                    blocked = res->f[k].kind == CHECK_DEADLOCK    ? 1
                              : res->f[k].kind == CHECK_POTENTIAL ? 2 : 0;
            /* a call that never returned lasts to the end of the trace */
            double out = c->done ? at(d, r, c->t_out, t0) : (double)end * 1e-9;
            fprintf(fp, "%d\t%.9f\t%.9f\t%s\t%d\n", r, at(d, r, c->t_in, t0), out,
                    trace_kind_name(c->kind), blocked);
        }
    }
    fprintf(fp, "\n\n# messages: src\tsent_s\tdst\treceived_s\n");
    for (size_t i = 0; i < res->npairs; i++) {
        const check_pair *p = &res->pairs[i];
        const trace_call *s = &d->ranks[p->src].calls[p->send_call];
        const trace_call *rc = &d->ranks[p->dst].calls[p->recv_call];
        fprintf(fp, "%d\t%.9f\t%d\t%.9f\n", p->src, at(d, p->src, s->t_in, t0), p->dst,
                at(d, p->dst, rc->done ? rc->t_out : rc->t_in, t0));
    }
    if (!res->npairs)   /* gnuplot wants a point in every block: one off the plot */
        fprintf(fp, "-1\t0\t-1\t0\n");
    fprintf(fp, "\n\n# cycle of waits: rank\tat_s\twaits_for\n");
    int arrows = 0;
    for (int i = 0; i < res->ncycle; i++) {
        int r = res->cycle[i], next = i + 1 < res->ncycle ? res->cycle[i + 1]
                                      : res->cycle_closed ? res->cycle[0] : -1;
        if (next >= 0 && ++arrows)
            fprintf(fp, "%d\t%.9f\t%d\n", r, (double)end * 1e-9, next);
    }
    if (!arrows)
        fprintf(fp, "-1\t0\t-1\n");
    return ferror(fp) ? -1 : 0;
}
