/* fit_linkrate: a link's rate from one-way bursts (docs/model.md,
 * 'Calibration'): the time per message t(m) = a + m / bw over sizes well
 * above a packet, weighted least squares (gsl_fit_wlinear); bw is the
 * inverse of the slope, its error the slope's through d(1/b) = db / b^2. */
#include "fit/fit.h"

#include <gsl/gsl_fit.h>
#include <math.h>

int fit_link_rate(const double *size_bytes, const double *ns, const double *sigma_ns, size_t n,
                  double *bw, double *err)
{
    double w[FIT_LINK_RATE_MAX_POINTS];
    size_t sizes = 0;
    if (n < 3 || n > FIT_LINK_RATE_MAX_POINTS)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!(sigma_ns[i] > 0) || !isfinite(ns[i]) || !isfinite(size_bytes[i]))
            return -1;
        w[i] = 1 / (sigma_ns[i] * sigma_ns[i]);
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= size_bytes[j] == size_bytes[i];
        sizes += !seen;
    }
    if (sizes < 3)
        return -1;
    double c0, c1, cov00, cov01, cov11, chi2;
    if (gsl_fit_wlinear(size_bytes, 1, w, 1, ns, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &chi2))
        return -1;
    /* scatter beyond the points' own errors widens the slope's, as in fit_run */
    double dof = (double)n - 2, scale = dof > 0 && chi2 / dof > 1 ? chi2 / dof : 1;
    if (!(c1 > 0))
        return -1;
    *bw = 1 / c1;
    *err = sqrt(scale * cov11) / (c1 * c1);
    return 0;
}
