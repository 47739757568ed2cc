/* linkrate: calibrate --full's link rate, measured (measure_stream) and
 * fitted (fit_link_rate) into the params (docs/model.md, 'Calibration'):
 * on one machine the relay's copy bandwidth, on the testbed the kernel
 * link's, on a cluster the NIC's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchdata/benchdata.h"
#include "calibrate/calibrate.h"

/* A rate known to worse than this fraction would only move every
 * contention figure by its noise: not written. */
#define LINK_RATE_MAX_REL_ERR 0.25

int linkrate_measure(const options *o, model_params *p)
{
    bench_data d;
    bench_read_error err;
    double m[FIT_LINK_RATE_MAX_POINTS], t[FIT_LINK_RATE_MAX_POINTS], s[FIT_LINK_RATE_MAX_POINTS];
    double bw, e;
    size_t n = 0;
    int rc = measure_stream(o, o->plan.linkrate);
    if (rc == EXIT_INTERRUPTED)
        return rc;
    if (rc) {
        fprintf(o->report, "calibrate: link rate not measured; link_bw_bytes_per_ns stays the "
                           "default (the SCI link's, not this network's)\n");
        return 0;
    }
    if (bench_data_read(o->plan.linkrate, &d, &err)) {
        fprintf(o->report, "calibrate: %s: %s; link rate not measured\n", o->plan.linkrate,
                err.msg);
        return 0;
    }
    for (long i = 0; i < d.count && n < FIT_LINK_RATE_MAX_POINTS; i++) {
        const bench_point *q = &d.points[i];
        double sigma = q->ci95_ns > 0 ? q->ci95_ns / 1.96 : q->sd_ns;
        if (strcmp(q->pattern, "ow") || !(sigma > 0))
            continue;
        m[n] = (double)q->size_bytes;
        t[n] = q->median_ns;
        s[n++] = sigma;
    }
    bench_data_free(&d);
    if (fit_link_rate(m, t, s, n, &bw, &e) || bw < 1e-6 || bw > 1e6) {
        fprintf(o->report, "calibrate: the one-way bursts of %s give no rate (the time per "
                           "message does not grow with its size); link rate not measured\n",
                o->plan.linkrate);
        return 0;
    }
    if (e > LINK_RATE_MAX_REL_ERR * bw) {
        fprintf(o->report, "calibrate: link rate %.4g +- %.2g bytes/ns is too noisy to use "
                           "(error over %.0f%% of it; %s); link_bw_bytes_per_ns stays the default, "
                           "the SCI link's\n", bw, e, 100 * LINK_RATE_MAX_REL_ERR,
                o->plan.linkrate);
        return 0;
    }
    p->link_bw_bytes_per_ns = bw;
    p->link_bw_err = e;
    snprintf(p->link_bw_source, sizeof p->link_bw_source, "measured");
    fprintf(o->report, "%slink rate: %.4g +- %.2g bytes/ns (one-way bursts of %s B over one "
                       "link, %s: on one machine the relay's copy bandwidth, on the testbed the "
                       "kernel link's, on a cluster the NIC's)\n", o->quiet ? "  " : "\n", bw, e,
            LINK_RATE_SIZES, o->plan.linkrate);
    return 0;
}
