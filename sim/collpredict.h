/* collpredict: a collective's time from a LogP file (mpibench --pattern
 * logp, the parameters calibrate --logp fits) through its schedule
 * (sched/collgen.h), replayed by the engine (sim/engine.h), and the
 * comparison with a measured collectives file. */
#ifndef SCITORUS_COLLPREDICT_H
#define SCITORUS_COLLPREDICT_H

#include <stddef.h>

#include "benchdata/logpdata.h"
#include "coll/colldata.h"
#include "sched/goal.h"
#include "sim/engine.h"

/* The engine's replay of g on per-size parameters p, rank r starting at
 * t0[r] (NULL: all at 0): the last rank's end (ns), each rank's in
 * per_rank (may be NULL).  -1 when the schedule deadlocks, -2 out of
 * memory, -3 when stop (may be NULL) said stop. */
double coll_predict_sized(const goal_schedule *g, const sim_sized *p, const double *t0,
                          double *per_rank, int (*stop)(void));

/* The prediction in *ns of op/alg (NULL: default) on ranks processes,
 * root, size bytes, from lp (read from path, for messages): from a common
 * start, or behind a barrier, each rank timed from its own exit of the
 * barrier before: (barrier 1) the largest of the ranks' times, as --sync
 * barrier times it, or (barrier 2) their mean, --sync osu's.  Sizes between
 * the file's rows are interpolated linearly; a message size outside the
 * file's rows (0 bytes: its smallest row) is refused.  stop (may be NULL)
 * is polled while the schedule is built and replayed.  Returns 0, 1 with a
 * one-line message in why, or -1 when stop said stop. */
int coll_predict_logp(const logp_data *lp, const char *path, int op, const char *alg, int ranks,
                      int root, long size, int barrier, int (*stop)(void), double *ns,
                      char *why, size_t len);

/* What comparing a measured collectives file with its replay compares:
 * the operation, the algorithm (NULL: the default), whether the file was
 * timed behind a barrier (1; 2: --sync osu, each repetition the mean over
 * ranks), and whether its like figure is then the largest rank's median
 * (nodes) rather than the file's median. */
typedef struct coll_compare_plan {
    int op;
    const char *alg;
    int barrier, nodes;
} coll_compare_plan;

/* The plan for d with algorithm alg (NULL: the file's, else the default).
 * Returns 0, or -1 when d's '# op:' names no known collective. */
int coll_compare_plan_of(const coll_data *d, const char *alg, coll_compare_plan *p);

/* Row r's measured figure and its prediction from lp (read from lpath).
 * Returns 0, or 1 with a one-line message in why. */
int coll_compare_row(const coll_compare_plan *p, const coll_row *r, const logp_data *lp,
                     const char *lpath, double *measured, double *predicted, char *why, size_t len);

#endif
