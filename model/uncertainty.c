/* uncertainty: first-order intervals of a projection from the parameters'
 * covariance, and the best-or-tie verdict (docs/model.md, 'Intervals'). */
#include "model/uncertainty.h"

#include <math.h>
#include <string.h>

static int has_err(const model_params *p, int k)
{
    return !isnan(p->err[k]) && p->err[k] > 0;
}

static int has_bw_err(const model_params *p)
{
    return !isnan(p->link_bw_err) && p->link_bw_err > 0 &&
           p->link_bw_err < p->link_bw_bytes_per_ns;
}

int unc_has_errors(const model_params *p)
{
    for (int k = 0; k < MODEL_P_ALL; k++)
        if (has_err(p, k))
            return 1;
    return has_bw_err(p);
}

int unc_has_cov(const model_params *p)
{
    int pairs = 0;
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = i + 1; j < MODEL_P_ALL; j++)
            if (has_err(p, i) && has_err(p, j)) {
                if (isnan(p->cov[i][j]))
                    return 0;
                pairs++;
            }
    return pairs > 0;
}

/* Moves a piecewise-linear quantity by a + b m at every size m. */
static void shift_segments(model_oseg *seg, int n, double a, double b)
{
    for (int i = 0; i < n; i++) {
        seg[i].ns += a + b * seg[i].from_bytes;
        seg[i].ns_per_byte += b;
    }
}

/* Moves every segment by t of its own standard errors (part 0: start
 * values, 1: slopes).  Returns 0, or -1 when a segment's error is not
 * stated (a file from before calibrate wrote them). */
static int move_segments(model_oseg *seg, int n, const double (*err)[2], int part, double t)
{
    for (int i = 0; i < n; i++)
        if (isnan(err[i][part]))
            return -1;
    for (int i = 0; i < n; i++) {
        if (part)
            seg[i].ns_per_byte += t * err[i][1];
        else
            seg[i].ns += t * err[i][0];
    }
    return 0;
}

/* Without the segments' errors: each slope, or all of the relay cost,
 * moved by the fraction f (the mref segment's relative error). */
static void scale_segments(model_oseg *seg, int n, double f, int whole)
{
    for (int i = 0; i < n; i++) {
        seg[i].ns_per_byte *= f;
        if (whole)
            seg[i].ns *= f;
    }
}

void unc_shift(const model_params *p, model_param_id k, double delta, model_params *out)
{
    *out = *p;
    /* a segmented quantity moves every segment by the same number of its
     * own errors: the mref segment's by delta (docs/model.md, 'Intervals') */
    double t = has_err(p, k) ? delta / p->err[k] : 0;
    switch (k) {
    case MODEL_P_O0:
        out->o0_ns += delta;
        if (move_segments(out->oseg, out->o_segments, p->oseg_err, 0, t))
            shift_segments(out->oseg, out->o_segments, delta, 0);
        break;
    case MODEL_P_O1:
        out->o1_ns_per_byte += delta;
        if (!move_segments(out->oseg, out->o_segments, p->oseg_err, 1, t))
            break;
        if (out->o_segments && p->o1_ns_per_byte > 0)
            scale_segments(out->oseg, out->o_segments, 1 + delta / p->o1_ns_per_byte, 0);
        else
            shift_segments(out->oseg, out->o_segments, -delta * p->mref_bytes, delta);
        break;
    case MODEL_P_LP:
        out->lp_ns += delta;
        break;
    case MODEL_P_LF:
        out->lf_ns += delta;
        break;
    case MODEL_P_LS:
        out->ls_ns += delta;
        break;
    case MODEL_P_LB:
        out->lb_ns_per_byte += delta;
        if (!move_segments(out->lbseg, out->lb_segments, p->lbseg_err, 0, t) &&
            !move_segments(out->lbseg, out->lb_segments, p->lbseg_err, 1, t))
            break;
        *out = *p;   /* (a half-moved relay cost is undone) */
        out->lb_ns_per_byte += delta;
        if (out->lb_segments && p->lb_ns_per_byte > 0)
            scale_segments(out->lbseg, out->lb_segments, 1 + delta / p->lb_ns_per_byte, 1);
        else
            shift_segments(out->lbseg, out->lb_segments, 0, delta);
        break;
    default:
        break;
    }
}

int unc_eval(const model_params *p, unc_fn f, void *arg, double *value, double *sigma)
{
    double grad[MODEL_P_ALL] = {0};
    int rc = f(p, arg, value);
    *sigma = NAN;
    if (rc || !unc_has_errors(p))
        return rc;
    for (int k = 0; k < MODEL_P_ALL; k++) {
        if (!has_err(p, k))
            continue;
        model_params q;
        double v;
        unc_shift(p, (model_param_id)k, p->err[k], &q);
        if ((rc = f(&q, arg, &v)))
            return rc;
        grad[k] = (v - *value) / p->err[k];
    }
    double var = 0;
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = 0; j < MODEL_P_ALL; j++) {
            if (!has_err(p, i) || !has_err(p, j))
                continue;
            double c = i == j ? p->err[i] * p->err[i] : isnan(p->cov[i][j]) ? 0 : p->cov[i][j];
            var += grad[i] * c * grad[j];
        }
    if (has_bw_err(p)) {   /* measured apart from the rest: independent of them */
        model_params q = *p;
        double v;
        q.link_bw_bytes_per_ns += p->link_bw_err;
        if ((rc = f(&q, arg, &v)))
            return rc;
        var += (v - *value) * (v - *value);
    }
    *sigma = sqrt(var > 0 ? var : 0);
    return 0;
}

static double half(double sigma)
{
    return isnan(sigma) ? 0 : UNC_Z95 * sigma;
}

int unc_verdict(const double *value, const double *sigma, size_t n, size_t *best, int *tie,
                double *margin)
{
    size_t b = n, ru = n;
    for (size_t i = 0; i < n; i++)
        if (!isnan(value[i]) && (b == n || value[i] < value[b]))
            b = i;
    *best = b;
    *margin = NAN;
    if (b == n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (i != b && !isnan(value[i]) && (ru == n || value[i] < value[ru]))
            ru = i;
    for (size_t i = 0; i < n; i++)
        tie[i] = 0;
    if (ru == n)
        return 1;
    *margin = value[ru] - value[b];
    double top = value[b] + half(sigma[b]);
    /* equal values (a shape and its transpose on symmetric traffic) tie
     * even without errors */
    double same = 1e-9 * fabs(value[b]);
    int named = 1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(value[i]))
            continue;
        if (i == b || value[i] - half(sigma[i]) <= top + same) {
            tie[i] = 1;
            named &= i == b;
        }
    }
    if (named)
        tie[b] = 0;
    return named;
}

static void describe(FILE *fp, const model_params *p)
{
    if (!unc_has_errors(p)) {
        fprintf(fp, "interval: none (%s carries no standard errors)", p->name);
        return;
    }
    fprintf(fp, "interval: 95%%, first order, from the errors of");
    const char *sep = " ";
    for (int k = 0; k < MODEL_P_ALL; k++)
        if (has_err(p, k)) {
            fprintf(fp, "%s%s", sep, model_param_key[k]);
            sep = ", ";
        }
    fprintf(fp, "%s", unc_has_cov(p) ? " and their covariance" : " alone (no covariance in the file)");
    if (has_bw_err(p))
        fprintf(fp, ", and of link_bw_bytes_per_ns (measured apart)");
    char list[400];
    if (unc_uncovered(p, list, sizeof list))
        fprintf(fp, "; not covered: %s", list);
}

char *unc_describe_text(char *buf, size_t len, const model_params *p)
{
    FILE *fp = fmemopen(buf, len, "w");
    buf[0] = '\0';
    if (fp) {
        describe(fp, p);
        fclose(fp);
    }
    return buf;
}

int unc_uncovered(const model_params *p, char *buf, size_t len)
{
    int n = 0;
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < MODEL_P_ALL && at < len; k++)
        if (!has_err(p, k) && (k != MODEL_P_LB || p->lb_ns_per_byte != 0 || p->source[k][0]))
            at += (size_t)snprintf(buf + at, len - at, "%s%s (%s)", n++ ? ", " : "",
                                   model_param_key[k],
                                   p->source[k][0] ? p->source[k] : "no error stated");
    return n;
}

char *unc_format(char *buf, size_t len, double value, double sigma, double scale, int digits)
{
    double h = UNC_Z95 * sigma * scale;
    /* enough decimals that the interval's width shows */
    while (h > 0 && digits < 9 && h < 5 * pow(10, -digits - 1))
        digits++;
    if (isnan(sigma) || isnan(value))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f .. %.*f", digits, value * scale - h, digits, value * scale + h);
    return buf;
}

static void tie_line(FILE *fp, const char *const *names, const double *value,
                     const double *sigma, size_t n, size_t best, const int *tie, double margin,
                     double scale, const char *unit)
{
    fprintf(fp, "tie:");
    const char *sep = " ";
    for (size_t i = 0; i < n; i++)
        if (tie[i]) {
            fprintf(fp, "%s%s", sep, names[i]);
            sep = ", ";
        }
    double b = value[best];
    size_t ru = n;
    for (size_t i = 0; i < n; i++)
        if (i != best && !isnan(value[i]) && (ru == n || value[i] < value[ru]))
            ru = i;
    if (!(margin > 1e-9 * fabs(b)))
        fprintf(fp, " within the 95%% intervals: the lowest, %s, equals %s", names[best],
                ru < n ? names[ru] : "the others");
    else
        fprintf(fp, " within the 95%% intervals: the lowest, %s, is %.3g%% (%.6g %s) below %s",
                names[best], b > 0 ? 100 * margin / b : 0, margin * scale, unit,
                ru < n ? names[ru] : "the others");
    if (!isnan(sigma[best]))
        fprintf(fp, ", and its interval is +-%.3g%%", b > 0 ? 100 * UNC_Z95 * sigma[best] / b : 0);
    else
        fputs(", and has no interval (the parameters carry no errors)", fp);
}

char *unc_tie_text(char *buf, size_t len, const char *const *names, const double *value,
                   const double *sigma, size_t n, size_t best, const int *tie, double margin,
                   double scale, const char *unit)
{
    FILE *fp = fmemopen(buf, len, "w");
    buf[0] = '\0';
    if (fp) {
        tie_line(fp, names, value, sigma, n, best, tie, margin, scale, unit);
        fclose(fp);
    }
    return buf;
}
