/* goal_write: a collective schedule as GOAL text (sched/collgen.h). */
#include "sched/collgen.h"

#include <stdlib.h>
#include <string.h>

/* The tag of each message: its index among the messages of its pair and
 * direction, so that the k-th send from a to b meets b's k-th receive
 * from a (MPI's order).  Counted per rank (next: 2 entries a peer). */
void coll_write_goal(FILE *fp, const coll_sched *s)
{
    long *next = calloc((size_t)s->ranks * 2, sizeof *next);
    fprintf(fp, "// %s (%s) of %ld bytes on %d ranks, root %d (scitorus collgen)\n",
            coll_op_names[s->op], s->alg, s->size, s->ranks, s->root);
    fprintf(fp, "num_ranks %d\n", s->ranks);
    long i = 0;
    for (int r = 0; r < s->ranks; r++) {
        fprintf(fp, "\nrank %d {\n", r);
        long prev_lo = -1, prev_hi = -1;
        if (next)
            memset(next, 0, (size_t)s->ranks * 2 * sizeof *next);
        while (i < s->count && s->msgs[i].rank == r) {
            long lo = i;
            while (i < s->count && s->msgs[i].rank == r && s->msgs[i].step == s->msgs[lo].step)
                i++;
            for (long k = lo; k < i; k++) {
                const coll_msg *m = &s->msgs[k];
                fprintf(fp, "l%ld: %s %ldb %s %d tag %ld\n", k, m->send ? "send" : "recv",
                        m->bytes, m->send ? "to" : "from", m->peer,
                        next ? next[(size_t)m->peer * 2 + (size_t)m->send]++ : 0);
                for (long d = prev_lo; d >= 0 && d < prev_hi; d++)
                    fprintf(fp, "l%ld requires l%ld\n", k, d);
            }
            prev_lo = lo, prev_hi = i;
        }
        fprintf(fp, "}\n");
    }
    free(next);
}

