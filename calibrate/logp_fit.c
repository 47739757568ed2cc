/* logp_fit: calibrate --logp, the LogP fit, identity check and export
 * (docs/model.md, 'LogP parameters'). */
#include "calibrate/logp_fit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "benchdata/benchdata.h"
#include "benchdata/logpdata.h"
#include "fit/fit.h"
#include "util/atomicfile.h"

/* A standard error is never taken below 0.1% of the value or 0.01 ns (as
 * calibrate's ping-pong points): no point gets an infinite weight. */
#define SIGMA_FLOOR_FRACTION 1e-3
#define SIGMA_FLOOR_NS 0.01

/* Where the fit and the checks are printed (calibrate's report stream). */
static FILE *out;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    fputs("calibrate: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static double row_value(const logp_row *r, int q, double *ci)
{
    *ci = q == MODEL_LOGP_OS ? r->os_ci_ns : q == MODEL_LOGP_OR ? r->or_ci_ns : r->g_ci_ns;
    return q == MODEL_LOGP_OS ? r->os_ns : q == MODEL_LOGP_OR ? r->or_ns : r->g_ns;
}

/* One quantity as the o(m) fit sees it: y = 2 o(m) with o = the quantity,
 * no links, forwards or switches (their parameters fixed at 0), sigma
 * from the confidence half-width at level conf. */
static int fit_quantity(const logp_data *d, int q, double conf, int max_segments,
                        model_oseg *seg, int *nseg, char *held, size_t held_len)
{
    fit_point *pts = calloc((size_t)d->count, sizeof *pts);
    fit_options opt;
    fit_result res;
    double z = gsl_cdf_ugaussian_Pinv(0.5 + conf / 2), ci;
    if (!pts)
        return -1;
    for (long i = 0; i < d->count; i++) {
        double v = row_value(&d->rows[i], q, &ci);
        pts[i] = (fit_point){.size_bytes = (double)d->rows[i].size_bytes, .y_ns = 2 * v,
                             .sigma_ns = fmax(2 * ci / z, fmax(SIGMA_FLOOR_FRACTION * 2 * v,
                                                               SIGMA_FLOOR_NS))};
    }
    fit_options_default(&opt);
    for (int k = MODEL_P_LP; k <= MODEL_P_LS; k++) {
        opt.fixed[k] = 1;
        opt.fixed_value[k] = 0;
    }
    opt.max_segments = max_segments;
    int rc = fit_run(pts, (size_t)d->count, &opt, &res);
    if (rc == 0) {
        const model_params *f = &res.params;
        /* what the fit held at 0 (a negative time or slope), for the report,
         * in the quantity's own key names (the fit calls it o) */
        char both[520];
        size_t len = 0;
        snprintf(both, sizeof both, "%s%s%s", res.clamped,
                 res.clamped[0] && res.falling[0] ? ", " : "", res.falling);
        held[0] = '\0';
        for (const char *s = both; *s && len + 8 < held_len;) {
            int at_word = s == both || s[-1] == ' ';
            if (at_word && (!strncmp(s, "o_seg", 5) || !strncmp(s, "o0_", 3) ||
                            !strncmp(s, "o1_", 3))) {
                len += (size_t)snprintf(held + len, held_len - len, "%s", model_logp_key[q]);
                s += s[1] == '_' ? 1 : 2;   /* o_seg3_ns -> os_seg3_ns; o1_ns.. -> os_ns.. */
                continue;
            }
            held[len++] = *s++;
            held[len] = '\0';
        }
        if (f->o_segments > 0) {
            *nseg = f->o_segments;
            memcpy(seg, f->oseg, (size_t)f->o_segments * sizeof *seg);
        } else {   /* one line o0 + o1 (m - mref), from the smallest size */
            double m0 = pts[0].size_bytes;
            for (long i = 1; i < d->count; i++)
                m0 = fmin(m0, pts[i].size_bytes);
            *nseg = 1;
            seg[0] = (model_oseg){m0, f->o0_ns + f->o1_ns_per_byte * (m0 - f->mref_bytes),
                                  f->o1_ns_per_byte};
        }
    }
    fit_result_free(&res);
    free(pts);
    return rc;
}

static void print_fit(const logp_data *d, const char *path, const model_params *p, double raw_L)
{
    const char *v = bench_data_header(&d->hdr, "variant");
    const char *b = bench_data_header(&d->hdr, "backend");
    fprintf(out, "calibrate: LogP from %s (backend %s, variant %s, %ld sizes, confidence %s)\n\n", path,
           b ? b : "?", v ? v : "?", d->count,
           bench_data_header(&d->hdr, "confidence") ? bench_data_header(&d->hdr, "confidence")
                                                    : "?");
    fprintf(out, "  L = %.1f ns", p->logp.L_ns);
    if (raw_L < 0)
        fprintf(out, "  (the file's L_ns %.1f is negative: os + or exceed half the smallest round"
               " trip, the overheads overlap with the wire; held at 0)", raw_L);
    fprintf(out, "\n  %-4s %7s %10s %12s %12s\n", "", "segment", "from (B)", "ns at from", "ns/B");
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        for (int i = 0; i < p->logp.segments[q]; i++)
            fprintf(out, "  %-4s %7d %10.0f %12.1f %12.4f\n", model_logp_key[q], i + 1,
                   p->logp.seg[q][i].from_bytes, p->logp.seg[q][i].ns,
                   p->logp.seg[q][i].ns_per_byte);
}

/* The same run's round trip against os + L + or, size by size.  A send
 * call that lasts the one-way time (os + L >= 90% of RTT/2: a blocking
 * MPI_Send or MPI_Ssend handing the message over by rendezvous, which
 * returns once the receiver has it) contains L and the receiver's copy,
 * which or counts again: there the identity cannot hold, and the row says
 * so (docs/model.md, 'LogP parameters'). */
static void print_self_check(const logp_data *d, double L)
{
    int spans = 0;
    fprintf(out, "\nidentity RTT(m)/2 = os(m) + L + or(m), the LogP run's own m-byte round trips:\n"
           "  %8s %12s %14s %8s\n", "size", "rtt/2 (ns)", "os+L+or (ns)", "diff");
    for (long i = 0; i < d->count; i++) {
        const logp_row *r = &d->rows[i];
        double sum = r->os_ns + L + r->or_ns, half = r->rtt_ns / 2;
        int span = half > 0 && r->os_ns + L >= 0.9 * half;
        spans += span;
        fprintf(out, "  %8ld %12.1f %14.1f %7.1f%%%s\n", r->size_bytes, half, sum,
               half > 0 ? 100 * (sum - half) / half : 0, span ? "  os spans the delivery" : "");
    }
    if (spans)
        fprintf(out, "  (%d sizes: the send call lasted the one-way time, so or is counted twice;\n"
               "   LogP's os is the sender's part alone: mpibench --mpi-send isend)\n", spans);
}

/* With --os-fence: the drain, os_fence - os (the time the send's stores
 * took to reach the other core after the call returned), and the identity
 * with the drain beyond the smallest size's as a term of its own,
 * RTT(m)/2 = os(m) + L + or(m) + D(m), D(m) = drain(m) - drain(min): the
 * smallest size's drain is in L.  D is measured in the same turns, not
 * fitted.  The fenced round trip against the plain one says whether the
 * fence delayed the message (it should not: the stores drain before the
 * receiver can see the header either way). */
static void print_drain_check(const logp_data *d, double L)
{
    const logp_row *min = NULL;
    long within = 0, within_plain = 0;
    if (!bench_data_header(&d->hdr, "os_fence") || d->count == 0)
        return;
    for (long i = 0; i < d->count; i++)
        if (!min || d->rows[i].size_bytes < min->size_bytes)
            min = &d->rows[i];
    double drain0 = min->os_fence_ns - min->os_ns;
    fprintf(out, "\nthe send's stores drained after the call (--os-fence: drain = os_fence - os),"
           "\nand the identity RTT(m)/2 = os(m) + L + or(m) + D(m), D(m) = drain(m) - drain(%ld B):\n"
           "  %8s %12s %10s %10s %8s %16s %8s %14s\n", min->size_bytes, "size", "rtt/2 (ns)",
           "os (ns)", "drain (ns)", "D (ns)", "os+L+or+D (ns)", "diff", "fenced rtt");
    for (long i = 0; i < d->count; i++) {
        const logp_row *r = &d->rows[i];
        double half = r->rtt_ns / 2, drain = r->os_fence_ns - r->os_ns, D = drain - drain0;
        double plain = r->os_ns + L + r->or_ns, sum = plain + D;
        double diff = half > 0 ? 100 * (sum - half) / half : 0;
        /* a row without a round trip is within neither count */
        within += half > 0 && fabs(sum - half) <= 0.1 * half;
        within_plain += half > 0 && fabs(plain - half) <= 0.1 * half;
        fprintf(out, "  %8ld %12.1f %10.1f %10.1f %8.1f %16.1f %7.1f%% %+13.1f%%\n", r->size_bytes,
               half, r->os_ns, drain, D, sum, diff,
               r->rtt_ns > 0 ? 100 * (r->rtt_fence_ns - r->rtt_ns) / r->rtt_ns : 0);
    }
    fprintf(out, "  within 10%%: %ld of %ld sizes with D, %ld without\n", within, d->count,
           within_plain);
}

/* g(m) against the same run's one-way streams (the header's ow_ns,
 * "SIZE:MEAN:CI ...": --pattern ow's time per message, taken in the same
 * rounds as g's streams at the largest sizes). */
static void print_ow_check(const logp_data *d)
{
    const char *ow = bench_data_header(&d->hdr, "ow_ns");
    const char *reps = bench_data_header(&d->hdr, "ow_reps");
    char copy[512], *save = NULL;
    if (!ow)
        return;
    fprintf(out, "\ng(m) against the same run's one-way streams (--pattern ow: %s messages, one 0-byte"
           " acknowledgement, time / messages):\n  %8s %16s %16s %8s\n", reps ? reps : "?",
           "size", "g (ns)", "ow (ns)", "diff");
    snprintf(copy, sizeof copy, "%s", ow);
    long sizes[64];
    double means[64], cis[64];
    int n = 0;
    for (char *t = strtok_r(copy, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
        if (sscanf(t, "%ld:%lf:%lf", &sizes[n], &means[n], &cis[n]) == 3 && means[n] > 0)
            n++;
    for (long i = 0; i < d->count; i++)   /* in the rows' order: by size */
        for (int k = 0; k < n; k++) {
            const logp_row *r = &d->rows[i];
            if (sizes[k] == r->size_bytes)
                fprintf(out, "  %8ld %9.1f +-%5.1f %9.1f +-%5.1f %7.1f%%\n", sizes[k], r->g_ns,
                       r->g_ci_ns, means[k], cis[k], 100 * (r->g_ns - means[k]) / means[k]);
        }
}

/* Against ping-pong files: each 1-hop pp point (mean) whose size the LogP
 * file has. */
static int print_pp_check(const calibrate_logp_options *o, const logp_data *d, double L)
{
    for (int f = 0; f < o->npp; f++) {
        bench_data pp;
        bench_read_error err;
        int rc = bench_data_read(o->pp_paths[f], &pp, &err);
        char text[4352];
        if (rc && err.line > 0)
            return fail("%s", file_error_text(&err, o->pp_paths[f], text, sizeof text));
        if (rc)
            return fail("'%s': %s", o->pp_paths[f], err.msg);
        fprintf(out, "\nidentity PP(m)/2 = os(m) + L + or(m) against %s (ping-pong means, 1 hop):\n"
               "  %8s %12s %14s %8s\n", o->pp_paths[f], "size", "PP/2 (ns)", "os+L+or (ns)",
               "diff");
        long matched = 0;
        for (long i = 0; i < pp.count; i++) {
            const bench_point *pt = &pp.points[i];
            const logp_row *r = logp_data_find(d, pt->size_bytes);
            if (strcmp(pt->pattern, "pp") || pt->hops != 1 || pt->rhops != 1 || !r)
                continue;
            double sum = r->os_ns + L + r->or_ns;
            fprintf(out, "  %8ld %12.1f %14.1f %7.1f%%\n", pt->size_bytes, pt->mean_ns, sum,
                   100 * (sum - pt->mean_ns) / pt->mean_ns);
            matched++;
        }
        if (!matched)
            fprintf(out, "  (no 1-hop ping-pong point at a size of the LogP file)\n");
        bench_data_free(&pp);
    }
    return 0;
}

/* LogGOPSim (Hoefler et al.): -L -o -g -G -O, integers in one time unit
 * of the user's choosing (its defaults, L 2500, G 6, read as ns and ns/B;
 * the simulated times come out in the same unit): ns, or ps where per-byte
 * terms under 0.5 ns/B -- any link faster than 2 GB/s -- would round to 0.
 * o: the mean of os(0) and or(0) (LogGOPSim has one overhead); O: the mean
 * of their slopes on the last segment (large messages); g: g(0); G: g's
 * slope on its last segment. */
static int write_loggopsim(const char *path, const char *from, const model_params *p, int ps)
{
    const model_logp *l = &p->logp;
    const model_oseg *os = &l->seg[MODEL_LOGP_OS][l->segments[MODEL_LOGP_OS] - 1];
    const model_oseg *orr = &l->seg[MODEL_LOGP_OR][l->segments[MODEL_LOGP_OR] - 1];
    const model_oseg *g = &l->seg[MODEL_LOGP_G][l->segments[MODEL_LOGP_G] - 1];
    double o = (model_logp_ns(p, MODEL_LOGP_OS, 0) + model_logp_ns(p, MODEL_LOGP_OR, 0)) / 2;
    double O = (os->ns_per_byte + orr->ns_per_byte) / 2, g0 = model_logp_ns(p, MODEL_LOGP_G, 0);
    double k = ps ? 1000 : 1;
    const char *unit = ps ? "ps" : "ns";
    char line[256];
    snprintf(line, sizeof line, "-L %.0f -o %.0f -g %.0f -G %.0f -O %.0f", k * l->L_ns, k * o,
             k * g0, k * g->ns_per_byte, k * O);
    atomic_file af;
    if (atomic_file_open(&af, path))
        return fail("--loggopsim '%s': %s", path, strerror(errno));
    fprintf(af.fp, "# LogGOPSim parameters from %s (scitorus calibrate --logp)\n"
                   "# exact: L %.3f ns, o %.3f ns, g %.3f ns, G %.5f ns/B, O %.5f ns/B\n"
                   "# integers in %s (%s/B for G and O): LogGOPSim's times come out in %s%s\n"
                   "%s\n",
            from, l->L_ns, o, g0, g->ns_per_byte, O, unit, unit, unit,
            ps ? "" : "; per-byte terms under 0.5 ns/B round to 0 (--loggopsim-unit ps keeps them)",
            line);
    if (atomic_file_commit(&af))
        return fail("--loggopsim '%s': %s", path, strerror(errno));
    fprintf(out, "\nwrote %s (LogGOPSim, in %s: %s)\n", path, unit, line);
    if (!ps && ((g->ns_per_byte > 0 && g->ns_per_byte < 0.5) || (O > 0 && O < 0.5)))
        fprintf(out, "  (in ns, per-byte terms under 0.5 ns/B round to 0: G %.5f, O %.5f ns/B;"
               " --loggopsim-unit ps keeps them)\n", g->ns_per_byte, O);
    return 0;
}

int calibrate_logp(const calibrate_logp_options *o, model_params *p)
{
    logp_data d;
    bench_read_error err;
    out = o->out ? o->out : stdout;
    int rc = logp_data_read(o->logp_path, &d, &err);
    char text[4352];
    if (rc && err.line > 0)
        return fail("%s", file_error_text(&err, o->logp_path, text, sizeof text));
    if (rc)
        return fail("--logp '%s': %s", o->logp_path, err.msg);
    const char *conf_text = bench_data_header(&d.hdr, "confidence");
    double conf = conf_text ? atof(conf_text) : 0.9;
    if (!(conf > 0 && conf < 1))
        conf = 0.9;
    if (d.count < 2 || !isfinite(d.L_ns)) {
        /* the reason before the data is freed (it was read after, once) */
        const char *why = !isfinite(d.L_ns) ? "no L_ns header line (a LogP run writes one)"
                                            : "fewer than two sizes: nothing to fit";
        logp_data_free(&d);
        return fail("%s: %s", o->logp_path, why);
    }
    if (d.incomplete)
        fprintf(stderr, "calibrate: note: %s is marked incomplete; using its %ld finished"
                        " sizes\n", o->logp_path, d.count);
    memset(&p->logp, 0, sizeof p->logp);
    char held[MODEL_LOGP_COUNT][520];
    for (int q = 0; q < MODEL_LOGP_COUNT && !rc; q++)
        if (fit_quantity(&d, q, conf, o->max_segments, p->logp.seg[q], &p->logp.segments[q],
                         held[q], sizeof held[q]))
            rc = fail("%s: the least-squares fit of %s(m) failed", o->logp_path,
                      model_logp_key[q]);
    if (!rc) {
        p->logp.present = 1;
        p->logp.L_ns = fmax(d.L_ns, 0);
        print_fit(&d, o->logp_path, p, d.L_ns);
        for (int q = 0; q < MODEL_LOGP_COUNT; q++)
            if (held[q][0])
                fprintf(out, "  (%s(m): came out negative here, held at 0 -- a time or its"
                             " slope cannot be negative: %s)\n", model_logp_key[q], held[q]);
        print_self_check(&d, d.L_ns);
        print_drain_check(&d, d.L_ns);
        print_ow_check(&d);
        rc = print_pp_check(o, &d, d.L_ns);
    }
    model_params_error perr;
    if (!rc && o->loggopsim_path && model_params_check(p, &perr) == -2)
        rc = fail("--loggopsim '%s' not written: the fit gave a value the params reader "
                  "refuses: %s", o->loggopsim_path, perr.msg);
    if (!rc && o->loggopsim_path)
        rc = write_loggopsim(o->loggopsim_path, o->logp_path, p, o->loggopsim_ps);
    logp_data_free(&d);
    return rc;
}
