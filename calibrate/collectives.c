/* collectives: calibrate --collectives FILE --logp FILE, a measured
 * collectives file (mpibench --op) against the LogGP replay of the
 * operation's schedule on the LogP parameters, size by size and per
 * process count, printed as the LogP identity is (coll/predict.h). */
#include "calibrate/calibrate.h"

#include "benchdata/logpdata.h"
#include "coll/colldata.h"
#include "coll/predict.h"
#include "util/file_error.h"

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
    /* --max-error is a fraction once parsed; the comparison takes percent */
    int rc = coll_compare("calibrate", stdout, &d, o->collectives, &lp, o->logp, o->algorithm,
                          o->max_error_given ? 100 * o->max_error : 0);
    coll_data_free(&d);
    logp_data_free(&lp);
    return rc;
}
