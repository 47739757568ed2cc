/* output: the params file -- checked against the reader's rules, then
 * written (or to standard output); and --logp's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calibrate/calibrate.h"
#include "calibrate/logp_fit.h"
#include "util/atomicfile.h"

/* The reader's own range table and rules, before anything is written: a
 * params file that scimodel would refuse is no result, and neither is
 * what calibrate derives from it (the held-out table; the LogGOPSim export
 * checks the same in calibrate_logp). */
int params_refused(const options *o, const model_params *p, const char *path)
{
    model_params_error perr;
    int crc = model_params_check(p, &perr);
    if (crc == -2)
        return fail("'%s' not written: the fit gave a value the params reader refuses: %s%s%s",
                    path, perr.msg, o->ndata ? "; the data is kept in " : "",
                    o->ndata ? o->data[0] : "");
    if (crc)
        return fail("-o '%s': %s", path, strerror(perr.sys_errno));
    return 0;
}

/* Writes the params file (params_refused first); "-" is standard output.
 * backend: the one that measured the data (the files' own header when
 * fitting --data). */
int write_params(const options *o, const fit_result *r, const char *path, const char *backend)
{
    char comments[4096], when[32];
    time_t now = time(NULL);
    struct tm tm;
    size_t len = 0;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    len += (size_t)snprintf(comments + len, sizeof comments - len,
                            "fitted by calibrate on %s, backend %s, %s\ncommand: %s\ndata:",
                            o->host, backend, when, o->command);
    for (int i = 0; i < o->ndata && len < sizeof comments; i++)
        len += (size_t)snprintf(comments + len, sizeof comments - len, " %s", o->data[i]);
    model_params p = r->params;
    snprintf(p.fitted_at, sizeof p.fitted_at, "%s", when);
    if (!strcmp(path, "-")) {
        if (model_params_write_stream(stdout, &p, comments))
            return fail("-o -: %s", file_strerror(errno));
        return 0;
    }
    if (model_params_write(path, &p, comments))
        return fail("-o '%s': %s", path, file_strerror(errno));
    return 0;
}

/* --loggopsim-unit ps given */
static int loggopsim_ps(const options *o)
{
    return o->loggopsim_unit && !strcmp(o->loggopsim_unit, "ps");
}

/* --logp: the LogP fit into p (calibrate/logp_fit.c), checked against
 * the --data files. */
int with_logp(const options *o, model_params *p)
{
    calibrate_logp_options lo = {o->logp, o->data, o->ndata, o->loggopsim,
                                 loggopsim_ps(o), o->fit.max_segments, o->report};
    fprintf(o->report, "\n");
    return calibrate_logp(&lo, p);
}

/* --logp without --data: o, lp, lf, ls from the preset, marked so. */
int logp_only(options *o)
{
    char path[PATH_MAX];
    fit_result r;
    memset(&r, 0, sizeof r);
    r.params = o->fit.preset;
    for (int k = 0; k < MODEL_P_COUNT; k++)
        snprintf(r.params.source[k], sizeof r.params.source[k], "preset %s",
                 o->fit.preset_name);
    int rc = calibrate_logp(&(calibrate_logp_options){o->logp, NULL, 0, o->loggopsim,
                                                      loggopsim_ps(o), o->fit.max_segments,
                                                      o->report},
                            &r.params);
    const char *out = options_params_path(o, path, sizeof path);
    if (!rc && (rc = params_refused(o, &r.params, out)) == 0 &&
        (rc = write_params(o, &r, out, "(none: a LogP file)")) == 0 && strcmp(out, "-"))
        fprintf(o->report, "\nwrote %s (o, lp, lf, ls: preset %s, not measured; give --data"
                           " PP.tsv to fit them)\n", out, o->fit.preset_name);
    return rc;
}
