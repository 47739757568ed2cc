/* Tests for fit_link_rate (fit/fit.h): a known rate recovered from
 * one-way times with Gaussian noise, its error covering the truth as often
 * as a standard error should, and the data that give no rate refused. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "fit/fit.h"

Test(linkrate, recovers_a_known_rate_within_its_error)
{
    /* 1 Gbit/s = 0.125 B/ns behind a 20 us floor, 1% noise, 5 sizes x 4 */
    const double sizes[5] = {16384, 32768, 65536, 131072, 262144}, bw = 0.125, floor = 20000;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int inside = 0, trials = 400;
    for (int k = 0; k < trials; k++) {
        double m[20], t[20], s[20], got, err;
        for (int i = 0; i < 20; i++) {
            m[i] = sizes[i % 5];
            double truth = floor + m[i] / bw;
            s[i] = 0.01 * truth;
            t[i] = truth + gsl_ran_gaussian(r, s[i]);
        }
        cr_assert_eq(fit_link_rate(m, t, s, 20, &got, &err), 0);
        cr_assert_gt(err, 0);
        cr_assert_lt(fabs(got - bw) / bw, 0.05, "trial %d: %g", k, got);
        inside += fabs(got - bw) <= 1.96 * err;
    }
    gsl_rng_free(r);
    /* 95% nominal; 400 trials: 380 +- 9 (binomial sd 4.4) */
    cr_assert(inside >= 366 && inside <= 394, "%d of %d within 1.96 standard errors", inside,
              trials);
}

Test(linkrate, data_without_a_rate_are_refused)
{
    double m[4] = {1, 2, 3, 4}, t[4] = {10, 9, 8, 7}, s[4] = {1, 1, 1, 1}, bw, err;
    cr_assert_eq(fit_link_rate(m, t, s, 4, &bw, &err), -1, "time falling with size");
    double m2[4] = {8, 8, 16, 16}, t2[4] = {1, 2, 3, 4};
    cr_assert_eq(fit_link_rate(m2, t2, s, 4, &bw, &err), -1, "two sizes");
    double s0[4] = {1, 0, 1, 1}, t3[4] = {1, 2, 3, 4};
    cr_assert_eq(fit_link_rate(m, t3, s0, 4, &bw, &err), -1, "a zero error");
    cr_assert_eq(fit_link_rate(m, t3, s, 2, &bw, &err), -1, "two points");
    cr_assert_eq(fit_link_rate(m, t3, s, 4, &bw, &err), 0);
    cr_assert_float_eq(bw, 1, 1e-12);
}
