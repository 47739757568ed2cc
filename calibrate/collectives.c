/* collectives: calibrate --collectives FILE --logp FILE, a measured
 * collectives file (mpibench --op) against the LogGP replay of the
 * operation's schedule on the LogP parameters, size by size and per
 * process count, printed as the LogP identity is (sim/collpredict.h). */
#include "calibrate/calibrate.h"

#include <math.h>
#include <stdio.h>

#include "benchdata/logpdata.h"
#include "coll/colldata.h"
#include "sim/collpredict.h"
#include "util/file_error.h"

/* Measured against predicted for every row of d ("size procs measured
 * predicted diff").  Returns 0, 1 when a prediction cannot be made, or 3
 * when a row differs by more than max_pct (max_pct <= 0: no check). */
static int compare(const coll_data *d, const char *dpath, const logp_data *lp, const char *lpath,
                   const char *alg, double max_pct)
{
    coll_compare_plan p;
    if (coll_compare_plan_of(d, alg, &p)) {
        fprintf(stderr, "calibrate: %s: no known '# op:' header ('%s')\n", dpath, d->op);
        return 1;
    }
    printf("%s (%s) measured (%s-synchronised, %s) against the LogGP"
           " replay of its schedule on %s%s:\n  %8s %6s %14s %14s %8s\n",
           d->op, p.alg ? p.alg : "default algorithm", d->sync[0] ? d->sync : "?",
           p.nodes ? "the largest rank's median" : "slowest rank, median", lpath,
           p.barrier ? ", each rank timed from its exit of the barrier before" : ", a common start",
           "size", "procs", "measured (ns)", "predicted (ns)", "diff");
    long worse = 0;
    for (long i = 0; i < d->count; i++) {
        const coll_row *r = &d->rows[i];
        double got, ns;
        char why[400];
        if (coll_compare_row(&p, r, lp, lpath, &got, &ns, why, sizeof why)) {
            fprintf(stderr, "calibrate: %s\n", why);
            return 1;
        }
        double diff = got > 0 ? 100 * (ns - got) / got : 0;
        int bad = max_pct > 0 && fabs(diff) > max_pct;
        worse += bad;
        printf("  %8ld %6ld %14.1f %14.1f %7.1f%%%s\n", r->size, r->procs, got, ns, diff,
               bad ? "  beyond --max-error" : "");
    }
    if (max_pct > 0)
        printf("  within %g%%: %ld of %ld rows\n", max_pct, d->count - worse, d->count);
    return worse ? 3 : 0;
}

int calibrate_collectives(const options *o)
{
    coll_data d;
    logp_data lp;
    file_error err;
    if (coll_data_read(o->collectives, &d, &err))
        return file_error_report(1, "calibrate", o->collectives, &err);
    if (logp_data_read(o->logp, &lp, &err)) {
        coll_data_free(&d);
        return file_error_report(1, "calibrate", o->logp, &err);
    }
    /* --max-error is a fraction once parsed; the comparison prints percent */
    int rc = compare(&d, o->collectives, &lp, o->logp, o->algorithm,
                     o->max_error_given ? 100 * o->max_error : 0);
    coll_data_free(&d);
    logp_data_free(&lp);
    return rc;
}
