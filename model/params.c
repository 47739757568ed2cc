/* params: the keys, the presets (thesis Table 1, §6.2) and the evaluation
 * of o(m), the relays' cost and the LogP quantities (docs/model.md,
 * 'Parameters').  Reader: params_read.c; writer: params_write.c. */
#include "model/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const model_param_key[MODEL_P_ALL] = {
    [MODEL_P_O0] = "o0_ns", [MODEL_P_O1] = "o1_ns_per_byte",
    [MODEL_P_LP] = "lp_ns", [MODEL_P_LF] = "lf_ns", [MODEL_P_LS] = "ls_ns",
    [MODEL_P_LB] = "lb_ns_per_byte",
};

const char *const model_logp_key[MODEL_LOGP_COUNT] = {"os", "or", "g"};

const char *const model_regime_key[3] = {"regime_floor_ns", "regime_floor_q1_ns",
                                         "regime_floor_q3_ns"};

const char *const model_launch_key[MODEL_LAUNCH_COUNT] = {"o64_ns", "lf_ns", "ls_ns",
                                                          "lb_ns_per_byte"};
static const char *const launch_suffix[3] = {"median", "lo", "hi"};

void model_launch_key_name(int q, int which, char *buf, size_t size)
{
    snprintf(buf, size, "%s_launch_%s", model_launch_key[q], launch_suffix[which]);
}

int model_params_regime_text(const model_params *p, char *buf, size_t size)
{
    const double *r = p->regime_floor_ns;
    if (isnan(r[0]))
        return 0;
    snprintf(buf, size, "regime: measured at a floor of %.1f ns (quartiles %.1f..%.1f ns over"
             " its points); it projects that regime", r[0], isnan(r[1]) ? r[0] : r[1],
             isnan(r[2]) ? r[0] : r[2]);
    return 1;
}

/* thesis Table 1 (o at 64 B and its slope, lp for 1 m of cable, lf, ls) and
 * §6.2 (the "enhanced" switch halves ls). */
static const struct preset {
    const char *name;
    double o0_ns, o1_ns_per_byte, mref_bytes, lp_ns, lf_ns, ls_ns;
} presets[] = {
    {"current", 2085, 11.6, 64, 7, 60, 670},
    {"enhanced", 2085, 11.6, 64, 7, 60, 335},
};

void model_params_clear_optional(model_params *p)
{
    p->o_segments = 0;
    p->lb_segments = 0;
    for (int i = 0; i < MODEL_P_ALL; i++) {
        p->err[i] = NAN;
        p->source[i][0] = '\0';
        for (int j = 0; j < MODEL_P_ALL; j++)
            p->cov[i][j] = NAN;
    }
    for (int i = 0; i < MODEL_MAX_OSEG; i++)
        for (int j = 0; j < 2; j++)
            p->oseg_err[i][j] = p->lbseg_err[i][j] = NAN;
    p->link_bw_err = NAN;
    p->link_bw_source[0] = '\0';
    p->fitted_at[0] = '\0';
    p->fit_r2 = NAN;
    p->fit_statistic[0] = '\0';
    p->fit_chi2_dof = NAN;
    for (int i = 0; i < 3; i++)
        p->regime_floor_ns[i] = NAN;
    p->launches = 0;
    p->launch_coverage = NAN;
    for (int q = 0; q < MODEL_LAUNCH_COUNT; q++)
        for (int i = 0; i < 3; i++)
            p->launch[q][i] = NAN;
    p->fit_residual_rms = NAN;
    p->links = TOPO_LINKS_UNI;
    p->link_bw_bytes_per_ns = MODEL_DEFAULT_LINK_BW_BYTES_PER_NS;
    memset(&p->logp, 0, sizeof p->logp);
}

int model_params_preset(const char *name, model_params *p)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const struct preset *s = &presets[i];
        if (strcmp(name, s->name) != 0)
            continue;
        memset(p, 0, sizeof *p);
        p->o0_ns = s->o0_ns;
        p->o1_ns_per_byte = s->o1_ns_per_byte;
        p->mref_bytes = s->mref_bytes;
        p->lp_ns = s->lp_ns;
        p->lf_ns = s->lf_ns;
        p->ls_ns = s->ls_ns;
        model_params_clear_optional(p);
        snprintf(p->name, sizeof p->name, "preset %s", s->name);
        return 0;
    }
    return -1;
}

/* What a parameter's source says, in words: "measured in FILE (fitted
 * DATE)", "assumed: preset P", "fixed", or "stated in FILE". */
static void source_words(const model_params *p, const char *src, char *buf, size_t len)
{
    int preset = strncmp(p->name, "preset ", 7) == 0;
    if (preset)
        snprintf(buf, len, "assumed: %s (the thesis's SCI hardware, not measured)", p->name);
    else if (!strcmp(src, "measured"))
        snprintf(buf, len, "measured in %s%s%s%s", p->name, p->fitted_at[0] ? " (fitted " : "",
                 p->fitted_at, p->fitted_at[0] ? ")" : "");
    else if (!strncmp(src, "preset ", 7))
        snprintf(buf, len, "assumed: %s (not measured)", src);
    else if (src[0])
        snprintf(buf, len, "%s (in %s)", src, p->name);
    else
        snprintf(buf, len, "stated in %s (no source given)", p->name);
}

static void print_sources(FILE *fp, const model_params *p, int with_link_bw)
{
    int done[MODEL_P_ALL] = {0};
    const char *sep = "";
    fprintf(fp, "sources: ");
    for (int k = 0; k < MODEL_P_ALL; k++) {
        if (done[k] || (k == MODEL_P_LB && p->lb_ns_per_byte == 0 && !p->lb_segments &&
                        !p->source[k][0]))
            continue;
        char words[400];
        fprintf(fp, "%s", sep);
        for (int j = k; j < MODEL_P_ALL; j++)
            if (!done[j] && !strcmp(p->source[j], p->source[k]) &&
                (j != MODEL_P_LB || p->lb_ns_per_byte != 0 || p->lb_segments || p->source[j][0])) {
                fprintf(fp, "%s%s", j == k ? "" : ", ", model_param_key[j]);
                done[j] = 1;
            }
        source_words(p, p->source[k], words, sizeof words);
        fprintf(fp, " %s", words);
        sep = "; ";
    }
    if (with_link_bw) {
        if (p->link_bw_source[0] && strcmp(p->link_bw_source, "measured") == 0)
            fprintf(fp, "; link_bw_bytes_per_ns %g measured in %s", p->link_bw_bytes_per_ns,
                    p->name);
        else if (p->link_bw_bytes_per_ns != MODEL_DEFAULT_LINK_BW_BYTES_PER_NS)
            fprintf(fp, "; link_bw_bytes_per_ns %g stated in %s (not measured)",
                    p->link_bw_bytes_per_ns, p->name);
        else
            fprintf(fp, "; link_bw_bytes_per_ns %g default (the IEEE 1596 SCI link, not measured)",
                    p->link_bw_bytes_per_ns);
    }
}

char *model_params_sources_text(char *buf, size_t len, const model_params *p, int with_link_bw)
{
    FILE *fp = fmemopen(buf, len, "w");
    buf[0] = '\0';
    if (fp) {
        print_sources(fp, p, with_link_bw);
        fclose(fp);   /* (a line cut at len - 1 characters) */
    }
    return buf;
}

/* Segment i of segs holding size_bytes (sizes below the first: the first). */
static const model_oseg *segment_at(const model_oseg *segs, int n, double size_bytes)
{
    int i = 0;
    while (i + 1 < n && size_bytes >= segs[i + 1].from_bytes)
        i++;
    return &segs[i];
}

double model_relay_bytes_ns(const model_params *p, double size_bytes)
{
    if (p->lb_segments <= 0)
        return size_bytes * p->lb_ns_per_byte;
    const model_oseg *s = segment_at(p->lbseg, p->lb_segments, size_bytes);
    return s->ns + s->ns_per_byte * (size_bytes - s->from_bytes);
}

double model_overhead_ns(const model_params *p, double size_bytes)
{
    if (p->o_segments <= 0)
        return p->o0_ns + p->o1_ns_per_byte * (size_bytes - p->mref_bytes);
    int i = 0;
    while (i + 1 < p->o_segments && size_bytes >= p->oseg[i + 1].from_bytes)
        i++;
    const model_oseg *s = &p->oseg[i];
    return s->ns + s->ns_per_byte * (size_bytes - s->from_bytes);
}

/* Piecewise linear, as o(m): segment i covers [from_i, from_{i+1}). */
static double segments_ns(const model_oseg *seg, int n, double size_bytes)
{
    int i = 0;
    while (i + 1 < n && size_bytes >= seg[i + 1].from_bytes)
        i++;
    return seg[i].ns + seg[i].ns_per_byte * (size_bytes - seg[i].from_bytes);
}

double model_logp_ns(const model_params *p, model_logp_q q, double size_bytes)
{
    if (!p->logp.present || p->logp.segments[q] < 1)
        return NAN;
    return segments_ns(p->logp.seg[q], p->logp.segments[q], size_bytes);
}
