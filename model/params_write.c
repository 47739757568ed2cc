/* params_write: the params file writer, and model_params_check, which
 * reads the writer's text back so that both obey one set of rules. */
#include "model/params_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"

static void write_comments(FILE *fp, const char *comments)
{
    while (comments && *comments) {
        size_t n = strcspn(comments, "\n");
        fprintf(fp, "# %.*s\n", (int)n, comments);
        comments += n + (comments[n] == '\n');
    }
}

/* PREFIX_segments, then each segment's three keys. */
static void write_segments(FILE *fp, const char *k, int n, const model_oseg *seg)
{
    fprintf(fp, "%s_segments = %d\n", k, n);
    for (int i = 0; i < n; i++)
        fprintf(fp, "%s_seg%d_from_bytes = %.10g\n%s_seg%d_ns = %.10g\n"
                    "%s_seg%d_ns_per_byte = %.10g\n",
                k, i + 1, seg[i].from_bytes, k, i + 1, seg[i].ns, k, i + 1, seg[i].ns_per_byte);
}

/* PREFIX_seg<i>_ns_err and _ns_per_byte_err where stated. */
static void write_segment_errors(FILE *fp, const char *k, int n, const double (*err)[2])
{
    for (int i = 0; i < n; i++) {
        if (!isnan(err[i][0]))
            fprintf(fp, "%s_seg%d_ns_err = %.6g\n", k, i + 1, err[i][0]);
        if (!isnan(err[i][1]))
            fprintf(fp, "%s_seg%d_ns_per_byte_err = %.6g\n", k, i + 1, err[i][1]);
    }
}

/* LogP keys (docs/model.md, 'LogP parameters'), when present. */
static void write_logp(FILE *fp, const model_logp *l)
{
    if (!l->present)
        return;
    fprintf(fp, "# LogP (calibrate --logp): os(m), or(m), g(m) piecewise linear like o(m)\n"
                "L_ns = %.10g\n", l->L_ns);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        write_segments(fp, model_logp_key[q], l->segments[q], l->seg[q]);
}

/* The file's text for p, as model_params_write writes it. */
static void write_stream(FILE *fp, const model_params *p, const char *comments)
{
    const double value[MODEL_P_ALL] = {p->o0_ns, p->o1_ns_per_byte, p->lp_ns,
                                         p->lf_ns, p->ls_ns, p->lb_ns_per_byte};
    fprintf(fp, "# scitorus params (docs/formats.md, 'Params file'); gnuplot: load \"<this file>\"\n");
    write_comments(fp, comments);
    for (int i = 0; i < MODEL_P_ALL; i++) {
        /* lb is optional: a cut-through file nobody fitted stays as it was */
        if (i == MODEL_P_LB && value[i] == 0 && !p->source[i][0] && isnan(p->err[i]))
            continue;
        fprintf(fp, "%s = %.10g\n", model_param_key[i], value[i]);
        if (i == MODEL_P_O1)
            fprintf(fp, "mref_bytes = %.10g\n", p->mref_bytes);
    }
    for (int i = 0; i < MODEL_P_ALL; i++) {
        if (!isnan(p->err[i]))
            fprintf(fp, "%s_err = %.6g\n", model_param_key[i], p->err[i]);
        if (p->source[i][0])
            fprintf(fp, "%s_source = \"%s\"\n", model_param_key[i], p->source[i]);
    }
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = i + 1; j < MODEL_P_ALL; j++)
            if (!isnan(p->cov[i][j]) && !isnan(p->err[i]) && !isnan(p->err[j]))
                fprintf(fp, "cov_%s_%s = %.6g\n", model_param_key[i], model_param_key[j],
                        p->cov[i][j]);
    if (p->fitted_at[0])
        fprintf(fp, "fitted_at = \"%s\"\n", p->fitted_at);
    if (p->o_segments > 0)
        write_segments(fp, "o", p->o_segments, p->oseg);
    if (p->lb_segments > 0)
        write_segments(fp, "lb", p->lb_segments, p->lbseg);
    write_segment_errors(fp, "o", p->o_segments, p->oseg_err);
    write_segment_errors(fp, "lb", p->lb_segments, p->lbseg_err);
    if (p->links != TOPO_LINKS_UNI)
        fprintf(fp, "links = \"%s\"\n", topo_links_name(p->links));
    if (p->link_bw_bytes_per_ns != MODEL_DEFAULT_LINK_BW_BYTES_PER_NS)
        fprintf(fp, "link_bw_bytes_per_ns = %.10g\n", p->link_bw_bytes_per_ns);
    if (!isnan(p->link_bw_err))
        fprintf(fp, "link_bw_bytes_per_ns_err = %.6g\n", p->link_bw_err);
    if (p->link_bw_source[0])
        fprintf(fp, "link_bw_bytes_per_ns_source = \"%s\"\n", p->link_bw_source);
    if (!isnan(p->fit_r2))
        fprintf(fp, "fit_r2 = %.8g\n", p->fit_r2);
    if (!isnan(p->fit_chi2_dof))
        fprintf(fp, "fit_chi2_dof = %.8g\n", p->fit_chi2_dof);
    if (!isnan(p->fit_residual_rms))
        fprintf(fp, "fit_residual_rms = %.6g\n", p->fit_residual_rms);
    if (p->fit_statistic[0])
        fprintf(fp, "fit_statistic = \"%s\"\n", p->fit_statistic);
    for (int i = 0; i < 3; i++)
        if (!isnan(p->regime_floor_ns[i]))
            fprintf(fp, "%s = %.1f\n", model_regime_key[i], p->regime_floor_ns[i]);
    if (p->launches > 0) {
        char name[48];
        fprintf(fp, "launches = %g\nlaunch_coverage = %.6g\n", p->launches, p->launch_coverage);
        for (int q = 0; q < MODEL_LAUNCH_COUNT; q++)
            for (int i = 0; i < 3 && !isnan(p->launch[q][i]); i++) {
                model_launch_key_name(q, i, name, sizeof name);
                fprintf(fp, "%s = %.8g\n", name, p->launch[q][i]);
            }
    }
    write_logp(fp, &p->logp);
}

/* The writer's text read back by the reader, in memory: one range table
 * and one set of rules for both (a writer-side copy of the checks would
 * drift from the reader's). */
int model_params_check(const model_params *p, model_params_error *err)
{
    char *text = NULL;
    size_t len = 0;
    model_params back;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        goto sys;
    write_stream(out, p, NULL);
    if (fclose(out) != 0)
        goto sys;
    FILE *in = fmemopen(text, len, "r");
    if (!in)
        goto sys;
    int rc = params_read_stream(in, &back, err);
    free(text);
    return rc;
sys:
    err->line = 0;
    err->sys_errno = errno ? errno : ENOMEM;
    snprintf(err->msg, sizeof err->msg, "%s", strerror(err->sys_errno));
    free(text);
    return -1;
}

int model_params_write(const char *path, const model_params *p, const char *comments)
{
    atomic_file af;
    model_params_error err;
    int rc = model_params_check(p, &err);
    if (rc) {
        errno = rc == -2 ? EINVAL : err.sys_errno;
        return -1;
    }
    if (atomic_file_open(&af, path) != 0)
        return -1;
    write_stream(af.fp, p, comments);
    return atomic_file_commit(&af);
}

int model_params_write_stream(FILE *fp, const model_params *p, const char *comments)
{
    model_params_error err;
    int rc = model_params_check(p, &err);
    if (rc) {
        errno = rc == -2 ? EINVAL : err.sys_errno;
        return -1;
    }
    write_stream(fp, p, comments);
    return ferror(fp) ? -1 : 0;
}
