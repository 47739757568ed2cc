/* turns: the order in which interleaved points take their batches (turns.h). */
#include "bench/turns.h"

#include <stdlib.h>

#include <gsl/gsl_randist.h>

int bench_turns_init(bench_turns *t, long n)
{
    t->n = n;
    t->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *t->order);
    t->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!t->order || !t->rng) {
        bench_turns_free(t);
        return -1;
    }
    for (long i = 0; i < n; i++)
        t->order[i] = i;
    return 0;
}

const long *bench_turns_next(bench_turns *t)
{
    if (t->n > 1) {
        long last = t->order[t->n - 1];
        gsl_ran_shuffle(t->rng, t->order, (size_t)t->n, sizeof *t->order);
        if (t->order[0] == last) {   /* never a point's batch right after its own */
            long k = 1 + (long)gsl_rng_uniform_int(t->rng, (unsigned long)(t->n - 1));
            t->order[0] = t->order[k];
            t->order[k] = last;
        }
    }
    return t->order;
}

void bench_turns_free(bench_turns *t)
{
    free(t->order);
    if (t->rng)
        gsl_rng_free(t->rng);
    t->order = NULL;
    t->rng = NULL;
}
