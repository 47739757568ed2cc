/* predict: a collective's time from a LogP file (mpibench --pattern logp,
 * the parameters calibrate --logp fits) through its schedule
 * (sched/collgen.h), and the comparison with a measured collectives file. */
#ifndef SCITORUS_PREDICT_H
#define SCITORUS_PREDICT_H

#include <stdio.h>

#include "benchdata/logpdata.h"
#include "coll/colldata.h"

/* The prediction in *ns of op/alg (NULL: default) on ranks processes,
 * root, size bytes, from lp (read from path, for messages): from a common
 * start, or (barrier) as --sync barrier times it, the largest of the ranks'
 * times from their own exit of the barrier before.  Sizes between
 * the file's rows are interpolated linearly; a message size outside the
 * file's rows (0 bytes: its smallest row) is refused.  stop (may be NULL)
 * is polled while the schedule is built and replayed.  Returns 0, 1 with a
 * one-line message in why, or -1 when stop said stop. */
int coll_predict_logp(const logp_data *lp, const char *path, int op, const char *alg, int ranks,
                      int root, long size, int barrier, int (*stop)(void), double *ns,
                      char *why, size_t len);

/* Prints measured against predicted for every row of d, size by size and
 * per process count ("size procs measured predicted diff").  Returns 0, 1
 * when a prediction cannot be made (message on stderr naming the file),
 * or 3 when a row differs by more than max_pct (max_pct <= 0: no check).
 * prog starts the messages. */
int coll_compare(const char *prog, FILE *fp, const coll_data *d, const char *dpath, const logp_data *lp,
                 const char *lpath, const char *alg, double max_pct);

#endif
