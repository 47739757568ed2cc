/* goal_write: GOAL text -- its lines (sched/goal.h), and a collective
 * schedule in them (sched/collgen.h). */
#include "sched/collgen.h"
#include "sched/goal.h"

#include <stdlib.h>
#include <string.h>

void goal_put_num_ranks(FILE *fp, long ranks) { fprintf(fp, "num_ranks %ld\n", ranks); }
void goal_put_rank_open(FILE *fp, long rank) { fprintf(fp, "rank %ld {\n", rank); }
void goal_put_rank_close(FILE *fp) { fputs("}\n", fp); }

void goal_put_send(FILE *fp, long label, uint64_t bytes, long long to, long long tag)
{
    fprintf(fp, "l%ld: send %llub to %lld tag %lld\n", label, (unsigned long long)bytes, to, tag);
}

void goal_put_recv(FILE *fp, long label, uint64_t bytes, long long from, long long tag)
{
    fprintf(fp, "l%ld: recv %llub from %lld tag %lld\n", label, (unsigned long long)bytes, from,
            tag);
}

void goal_put_calc(FILE *fp, long label, uint64_t ns)
{
    fprintf(fp, "l%ld: calc %llu\n", label, (unsigned long long)ns);
}

void goal_put_requires(FILE *fp, long label, long on)
{
    fprintf(fp, "l%ld requires l%ld\n", label, on);
}

/* The tag of each message: its index among the messages of its pair and
 * direction, so that the k-th send from a to b meets b's k-th receive
 * from a (MPI's order).  Counted per rank (next: 2 entries a peer). */
void coll_write_goal(FILE *fp, const coll_sched *s)
{
    long *next = calloc((size_t)s->ranks * 2, sizeof *next);
    fprintf(fp, "// %s (%s) of %ld bytes on %d ranks, root %d (scitorus collgen)\n",
            coll_op_names[s->op], s->alg, s->size, s->ranks, s->root);
    goal_put_num_ranks(fp, s->ranks);
    long i = 0;
    for (int r = 0; r < s->ranks; r++) {
        fputc('\n', fp);
        goal_put_rank_open(fp, r);
        long prev_lo = -1, prev_hi = -1;
        if (next)
            memset(next, 0, (size_t)s->ranks * 2 * sizeof *next);
        while (i < s->count && s->msgs[i].rank == r) {
            long lo = i;
            while (i < s->count && s->msgs[i].rank == r && s->msgs[i].step == s->msgs[lo].step)
                i++;
            for (long k = lo; k < i; k++) {
                const coll_msg *m = &s->msgs[k];
                long tag = next ? next[(size_t)m->peer * 2 + (size_t)m->send]++ : 0;
                (m->send ? goal_put_send : goal_put_recv)(fp, k, (uint64_t)m->bytes, m->peer, tag);
                for (long d = prev_lo; d >= 0 && d < prev_hi; d++)
                    goal_put_requires(fp, k, d);
            }
            prev_lo = lo, prev_hi = i;
        }
        goal_put_rank_close(fp);
    }
    free(next);
}

