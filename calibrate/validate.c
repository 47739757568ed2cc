/* validate: the held-out check -- predict data the fit did not see, table
 * its errors, and the verdict: a fit that misses the bound is no result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calibrate/calibrate.h"
#include "util/atomicfile.h"

/* Reads the --validate files, before any measuring (a bad file must not
 * cost minutes of measurement first); each must hold ping-pong points. */
int load_validate(const options *o, pointset *vs)
{
    for (int f = 0; f < o->nvalidate; f++) {
        size_t before = vs->n;
        int rc = load_files(&o->validate[f], 1, o->stat, vs);
        if (rc)
            return rc;
        if (vs->n == before)
            return fail("--validate '%s': no ping-pong points to validate against",
                        o->validate[f]);
    }
    return 0;
}

/* Keeps the HELDOUT_WORST largest |errors| in h, largest first. */
static void note_worst(heldout *h, double size, double err)
{
    int k = h->nworst;
    if (k < HELDOUT_WORST)
        h->nworst++;
    else if (fabs(err) <= fabs(h->worst_err[HELDOUT_WORST - 1]))
        return;
    else
        k = HELDOUT_WORST - 1;
    for (; k > 0 && fabs(err) > fabs(h->worst_err[k - 1]); k--) {
        h->worst_err[k] = h->worst_err[k - 1];
        h->worst_size[k] = h->worst_size[k - 1];
    }
    h->worst_err[k] = err;
    h->worst_size[k] = size;
}

int validate(const options *o, pointset *vs0, const model_params *p, int print, heldout *h)
{
    pointset vs = *vs0;
    FILE *out = o->report;
    int rc = 0;
    memset(h, 0, sizeof *h);
    if (merge_repeats(&vs))   /* held-out runs repeated like --data's */
        return fail("out of memory");
    double *err = malloc((vs.n ? vs.n : 1) * sizeof *err);
    full_row *rows = malloc((vs.n ? vs.n : 1) * sizeof *rows);
    size_t *order = points_by_path_then_size(vs.pts, vs.n);   /* the table by size */
    if (!err || !rows || !order) {
        free(err), free(rows), free(order);
        return fail("out of memory");
    }
    if (print)
        fprintf(out, "\nvalidation (held-out data):\n  %8s %5s %5s %5s %12s %12s %8s\n", "size",
                "Hm", "Fm", "Sm", "measured", "predicted", "error");
    for (size_t k = 0; k < vs.n; k++) {
        size_t i = order[k];
        double pred = fit_predict_ns(p, &vs.pts[i]);
        double e = (pred - vs.pts[i].y_ns) / vs.pts[i].y_ns;
        err[i] = fabs(e);
        h->max = fmax(h->max, err[i]);
        note_worst(h, vs.pts[i].size_bytes, e);
        if (print)
            fprintf(out, "  %8.0f %5.1f %5.1f %5.1f %12.1f %12.1f %7.2f%%\n",
                    vs.pts[i].size_bytes, vs.pts[i].hm, vs.pts[i].fm, vs.pts[i].sm,
                    vs.pts[i].y_ns, pred, 100 * err[i]);
        rows[k] = (full_row){vs.pts[i].size_bytes, vs.pts[i].hm, vs.pts[i].fm, vs.pts[i].sm,
                             vs.pts[i].y_ns, pred};
    }
    h->n = vs.n;
    if (vs.n) {
        gsl_sort(err, 1, vs.n);
        h->median = gsl_stats_median_from_sorted_data(err, 1, vs.n);
        if (print)
            fprintf(out, "  median error %.2f%%, max error %.2f%% over %zu points\n",
                    100 * h->median, 100 * h->max, vs.n);
    }
    if (o->validation_out && vs.n) {
        char fitted[1024] = "";
        size_t len = 0;
        for (int i = 0; i < o->ndata && len < sizeof fitted; i++)
            len += (size_t)snprintf(fitted + len, sizeof fitted - len, "%s%s", i ? " " : "",
                                    o->data[i]);
        if (full_write_validation(o->validation_out, o->validate[0], fitted, rows, vs.n))
            rc = fail("--validation-out '%s': %s", o->validation_out, strerror(errno));
    }
    free(rows);
    free(err);
    free(order);
    *vs0 = vs;
    return rc;
}

int verdict(const options *o, const heldout *h, const char *params_path)
{
    if (h->n == 0) {
        fprintf(o->report, "%snot checked: no held-out data (give --validate FILE, or use"
                           " --full, to check the fit on data it did not see)\n",
                o->quiet ? "" : "\n");
        return 0;
    }
    if (h->max <= o->max_error) {
        fprintf(o->report, "%sheld-out check passed: max error %.2f%% <= %g%% over %zu points"
                           " (median %.2f%%)\n", o->quiet ? "" : "\n", 100 * h->max,
                100 * o->max_error, h->n, 100 * h->median);
        return 0;
    }
    fflush(stdout);
    fprintf(stderr, "calibrate: held-out check FAILED: max error %.2f%% > %g%% over %zu points"
                    " of %s (median %.2f%%)\ncalibrate: worst sizes:", 100 * h->max,
            100 * o->max_error, h->n, o->validate[0], 100 * h->median);
    for (int k = 0; k < h->nworst; k++)
        fprintf(stderr, "%s %.0f B %+.2f%%", k ? "," : "", h->worst_size[k],
                100 * h->worst_err[k]);
    fprintf(stderr, "\ncalibrate: no params file written ('%s' left as it was): a fit that"
                    " misses data it did not see is no result; the data and %s are kept"
                    " (exit status %d)\n", params_path,
            o->validation_out ? o->validation_out : "the held-out data", EXIT_CHECK);
    return EXIT_CHECK;
}
