/* report: what calibrate prints about a fit -- the parameters, what the
 * data determines, the residuals (-q: a summary of a few lines). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"

/* -q: three lines -- the fit, o(m), the network parameters. */
static void report_summary(const options *o, const pointset *ps, const fit_result *r)
{
    const model_params *p = &r->params;
    const double v[MODEL_P_ALL] = {p->o0_ns, p->o1_ns_per_byte, p->lp_ns, p->lf_ns, p->ls_ns,
                                   p->lb_ns_per_byte};
    FILE *out = o->report;
    fprintf(out, "calibrate: %zu points, statistic %s, ", ps->n, stat_name(o->stat));
    if (isnan(r->r2))
        fprintf(out, "R^2 undefined (every point has the same value)\n");
    else
        fprintf(out, "R^2 = %.6f\n", r->r2);
    fprintf(out, "  o(%g B) = %.4g ns +- %.2g, o1 = %.4g ns/B, %d segment%s\n  ", p->mref_bytes,
            p->o0_ns, p->err[MODEL_P_O0], p->o1_ns_per_byte, r->segments,
            r->segments > 1 ? "s" : "");
    for (int k = MODEL_P_LP; k < MODEL_P_ALL; k++)
        fprintf(out, "%s%s = %.4g (%s)", k > MODEL_P_LP ? ", " : "", model_param_key[k], v[k],
                r->measured[k] ? "measured" : p->source[k]);
    fputc('\n', out);
}

static int all_zero(const pointset *ps, int which)
{
    for (size_t i = 0; i < ps->n; i++)
        if ((which ? ps->pts[i].sm : ps->pts[i].fm) != 0)
            return 0;
    return 1;
}

static void explain(const options *o, const pointset *ps, const fit_result *r)
{
    FILE *out = o->report;
    const char *preset = o->fit.preset_name;
    int lf_missing = !r->measured[MODEL_P_LF] && !o->fit.fixed[MODEL_P_LF];
    int ls_missing = !r->measured[MODEL_P_LS] && !o->fit.fixed[MODEL_P_LS];
    fprintf(out, "\nwhat the data determines:\n");
    if (lf_missing && ls_missing && all_zero(ps, 0) && all_zero(ps, 1))
        fprintf(out, "  lf, ls: not measured by a 2-node ring (no node forwards or switches on its"
               " paths); taken from preset %s\n", preset);
    else {
        if (lf_missing)
            fprintf(out, "  lf: not measured (%s); taken from preset %s\n",
                   all_zero(ps, 0) ? "no forwarding node on any path" : "not separable here",
                   preset);
        if (ls_missing)
            fprintf(out, "  ls: not measured (%s); taken from preset %s\n",
                   all_zero(ps, 1) ? "no path switches dimension: measure a torus"
                                   : "not separable here", preset);
    }
    if (!r->measured[MODEL_P_LB] && !o->fit.fixed[MODEL_P_LB])
        fprintf(out, "  lb: needs multi-hop data at two or more sizes; taken as %g (cut-through, as"
               " preset %s)\n", r->params.lb_ns_per_byte, preset);
    else if (r->lb_dropped)
        fprintf(out, "  lb: 0 within %.2g ns/B: a free lb (%.3g ns/B) does not improve the fit enough"
               " (BIC); cut-through\n", r->lb_free_err, r->lb_free_value);
    else if (r->measured[MODEL_P_LB])
        fprintf(out, "  lb: measured (the relays' cost per byte, store and forward)\n");
    else
        fprintf(out, "  lb: fixed at %g ns/B (--fix)\n", r->params.lb_ns_per_byte);
    if (r->lp_lf_collinear && r->measured[MODEL_P_LF])
        fprintf(out, "  lp and lf are collinear in this data (on a ring F = H - 1): lp is fixed at"
               " %.3g ns, so lf absorbs any error in lp\n", r->params.lp_ns);
    if (!r->measured[MODEL_P_LP] && !o->lp_given && !o->fit.fixed[MODEL_P_LP])
        fprintf(out, "  lp: taken from preset %s\n", preset);
    else if (!o->lp_given)
        fprintf(out, "  lp: fixed from %.3g m of cable at c/2 (too small to measure against o)\n",
               o->cable_m);
    fprintf(out, "  o(m): measured (%d segment%s)\n", r->segments, r->segments > 1 ? "s" : "");
}

/* One line of the residual table, "(x N)" after it when N points print
 * alike; nothing for N = 0. */
static void print_residual_line(FILE *out, const char *line, size_t n)
{
    if (n == 1)
        fprintf(out, "%s\n", line);
    else if (n > 1)
        fprintf(out, "%s  (x %zu)\n", line, n);
}

/* chi^2/dof in a reader's words: sqrt of it is the typical distance of a
 * point from the fit in units of the error the fit weighted it by. */
static const char *chi2_words(double chi2_dof, int weights, char *buf, size_t len)
{
    const char *err = weights == WEIGHT_RELATIVE ? "their nominal errors (--weights relative)"
                                                 : "their own standard errors";
    if (isnan(chi2_dof))
        snprintf(buf, len, "no degrees of freedom left to judge the fit");
    else if (chi2_dof <= 2)
        snprintf(buf, len, "the points lie within about %s of the fit", err);
    else
        snprintf(buf, len, "the points lie about %.*f times %s from the fit (1 would be within "
                 "them)", sqrt(chi2_dof) < 10 ? 1 : 0, sqrt(chi2_dof), err);
    return buf;
}

void report_fit(const options *o, const pointset *ps, const fit_result *r)
{
    FILE *out = o->report;
    char words[200];
    if (o->quiet) {
        report_summary(o, ps, r);
        return;
    }
    const model_params *p = &r->params;
    const double v[MODEL_P_ALL] = {p->o0_ns, p->o1_ns_per_byte, p->lp_ns, p->lf_ns, p->ls_ns,
                                   p->lb_ns_per_byte};
    fprintf(out, "calibrate: %zu points, statistic %s, %s fit\n\n", ps->n, stat_name(o->stat),
           o->fit.robust ? "robust (bisquare)" : "weighted least-squares");
    fprintf(out, "  %-16s %12s  %-12s %s\n", "parameter", "value", "std. error", "source");
    for (int k = 0; k < MODEL_P_ALL; k++) {
        char err[32] = "";
        if (!isnan(p->err[k]))
            snprintf(err, sizeof err, "+- %.3g", p->err[k]);
        fprintf(out, "  %-16s %12.4g  %-12s %s%s\n", model_param_key[k], v[k], err, p->source[k],
               r->measured[k] ? "" : "  (assumed, not measured)");
    }
    fprintf(out, "  o(%g B) relative standard error: %.2f%%\n", p->mref_bytes,
           100 * p->err[MODEL_P_O0] / p->o0_ns);
    for (int i = 0; i < p->o_segments; i++)
        fprintf(out, "  o(m) segment %d from %g B: %.1f ns + %.4g ns/B (m - %g)\n", i + 1,
               p->oseg[i].from_bytes, p->oseg[i].ns, p->oseg[i].ns_per_byte, p->oseg[i].from_bytes);
    char r2[64];
    if (isnan(r->r2))   /* SST = 0: R^2 = 1 - chi^2/SST has no value */
        snprintf(r2, sizeof r2, "R^2 undefined (every point has the same value)");
    else
        snprintf(r2, sizeof r2, "R^2 = %.6f", r->r2);
    fprintf(out, "  fit: %s, chi^2/dof = %.3g: %s\n", r2, r->chi2_dof,
            chi2_words(r->chi2_dof, (int)ps->weights, words, sizeof words));
    explain(o, ps, r);
    fprintf(out, "\nresiduals (measured - model):\n  %8s %5s %5s %5s %12s %12s %8s\n", "size", "Hm",
           "Fm", "Sm", "measured", "model", "resid");
    double ss = 0, worst = 0;
    size_t at = 0, *order = points_by_path_then_size(ps->pts, ps->n);  /* NULL: file order */
    /* Neighbouring rows that print alike are one line with their count: a
     * torus's destinations share (size, Hm, Fm, Sm), and a 100x100 torus
     * measured to every destination printed 5 x 10^5 lines, most of them
     * copies (now 100 distinct ones). */
    char line[128], last[128] = "";
    size_t same = 0;
    for (size_t k = 0; k < ps->n; k++) {
        size_t i = order ? order[k] : k;
        double rel = r->residual_ns[i] / ps->pts[i].y_ns;
        snprintf(line, sizeof line, "  %8.0f %5.1f %5.1f %5.1f %12.1f %12.1f %7.2f%%",
                 ps->pts[i].size_bytes, ps->pts[i].hm, ps->pts[i].fm, ps->pts[i].sm,
                 ps->pts[i].y_ns, r->predicted_ns[i], 100 * rel);
        if (same && strcmp(line, last) == 0)
            same++;
        else {
            print_residual_line(out, last, same);
            memcpy(last, line, sizeof line);
            same = 1;
        }
        ss += rel * rel;
        if (fabs(rel) > worst)
            worst = fabs(rel), at = i;
    }
    print_residual_line(out, last, same);
    free(order);
    if (ps->n)
        fprintf(out, "  RMS %.2f%%, largest %.2f%% (%g B)\n", 100 * sqrt(ss / (double)ps->n),
               100 * worst, ps->pts[at].size_bytes);
}

/* One sentence on what lf and ls stand for in this calibration: the
 * preset's when not measured, else the relays of the network measured. */
static void report_measured(const options *o, const fit_result *r)
{
    const char *lead = o->quiet ? "  " : "\n";
    if (!r->measured[MODEL_P_LF] && !r->measured[MODEL_P_LS])
        fprintf(o->report, "%slf and ls are the preset's (assumed, not measured): crossovers "
                "projected from this file are the preset's, whatever o is measured\n", lead);
    else if (o->ndata)
        fprintf(o->report, "%slf and ls measured here are the relays of the network the data "
                "measured: on one machine the benchmark's own software relay, on the testbed a "
                "kernel router, on a cluster the switch or NIC; not SCI hardware\n", lead);
    else if (o->hostfile)
        fprintf(o->report, "%slf and ls measured here are the relaying ranks' hosts and the "
                "network between them (the switch or NIC on a cluster, a kernel router on the "
                "testbed), not SCI hardware\n", lead);
    else
        fprintf(o->report, "%slf and ls measured here are the benchmark's own software relay "
                "(a process copying each message on, on this one machine), not a network's "
                "hardware: a projection from them answers for a network of such relays\n", lead);
}

void report_notes(const options *o, const fit_result *r)
{
    report_measured(o, r);
    if (r->clamped[0])
        fprintf(o->report, "%snote: negative within 2 standard errors of zero, held at 0 and the"
                " rest refitted (a time or a slope cannot be negative): %s\n",
                o->quiet ? "  " : "\n", r->clamped);
    if (r->falling[0])
        fprintf(o->report, "%swarning: o(m) (or lb, the relays' cost) falls with the message size"
                " in this data, more than 2 standard errors below 0: %s; held at 0 and the rest"
                " refitted (see the residuals; small messages often take another code path)\n",
                o->quiet ? "  " : "\n", r->falling);
}
