/* scilogp: the library's calls over the model layer (params files) and
 * the benchdata layer (LogP files). */
#include "scilogp/scilogp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchdata/logpdata.h"
#include "model/model.h"
#include "model/params.h"
#include "topo/topo.h"
#include "util/file_error.h"

struct scilogp {
    int is_params;
    model_params p;
    logp_data d;
};

static int first_line_is(const char *path, const char *prefix)
{
    char line[128] = "";
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    int yes = fgets(line, sizeof line, fp) && !strncmp(line, prefix, strlen(prefix));
    fclose(fp);
    return yes;
}

scilogp *scilogp_open(const char *path, char *err, size_t errlen)
{
    scilogp *l = calloc(1, sizeof *l);
    file_error e;
    int rc;
    if (!l) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    l->is_params = first_line_is(path, "# scitorus params");
    if (l->is_params)
        rc = model_params_read(path, &l->p, &e);
    else
        rc = logp_data_read(path, &l->d, &e);
    if (rc != 0) {
        file_error_text(&e, path, err, errlen);
        free(l);
        return NULL;
    }
    if (!l->is_params && l->d.count == 0) {
        snprintf(err, errlen, "%s: no LogP rows", path);
        logp_data_free(&l->d);
        free(l);
        return NULL;
    }
    return l;
}

void scilogp_close(scilogp *l)
{
    if (!l)
        return;
    if (!l->is_params)
        logp_data_free(&l->d);
    free(l);
}

/* A LogP file's column q (0 os, 1 or, 2 g) at m: linear between the rows
 * of the nearest sizes below and above, the end row's value beyond. */
static double row_value(const logp_row *r, int q)
{
    return q == 0 ? r->os_ns : q == 1 ? r->or_ns : r->g_ns;
}

static double logp_file_at(const logp_data *d, int q, double m)
{
    const logp_row *lo = NULL, *hi = NULL;
    for (long i = 0; i < d->count; i++) {
        const logp_row *r = &d->rows[i];
        if ((double)r->size_bytes <= m && (!lo || r->size_bytes > lo->size_bytes))
            lo = r;
        if ((double)r->size_bytes >= m && (!hi || r->size_bytes < hi->size_bytes))
            hi = r;
    }
    if (!lo)
        return row_value(hi, q);
    if (!hi || hi->size_bytes == lo->size_bytes)
        return row_value(lo, q);
    double t = (m - (double)lo->size_bytes) / (double)(hi->size_bytes - lo->size_bytes);
    return row_value(lo, q) + t * (row_value(hi, q) - row_value(lo, q));
}

static double quantity(const scilogp *l, model_logp_q q, double m)
{
    if (!l || !(m >= 0))
        return NAN;
    if (!l->is_params)
        return logp_file_at(&l->d, (int)q, m);
    return l->p.logp.present ? model_logp_ns(&l->p, q, m) : NAN;
}

double scilogp_os(const scilogp *l, double m) { return quantity(l, MODEL_LOGP_OS, m); }
double scilogp_or(const scilogp *l, double m) { return quantity(l, MODEL_LOGP_OR, m); }
double scilogp_g(const scilogp *l, double m) { return quantity(l, MODEL_LOGP_G, m); }

double scilogp_L(const scilogp *l)
{
    if (!l)
        return NAN;
    if (!l->is_params)
        return l->d.L_ns;
    return l->p.logp.present ? l->p.logp.L_ns : NAN;
}

double scilogp_o(const scilogp *l, double m)
{
    return l && l->is_params && m >= 0 ? model_overhead_ns(&l->p, m) : NAN;
}

double scilogp_route_ns(const scilogp *l, const char *shape, const long *hops, double m)
{
    topo_shape s;
    topo_parse_error pe;
    if (!l || !l->is_params || !shape || !hops || !(m >= 0) || topo_shape_parse(shape, &s, &pe))
        return NAN;
    int moved = 0;
    for (int i = 0; i < s.dims; i++) {
        if (hops[i] < 0 || hops[i] >= s.n[i])
            return NAN;
        moved |= hops[i] != 0;
    }
    if (!moved)
        return NAN;
    model_p2p r;
    model_point_to_point(&l->p, &s, hops, m, &r);
    return r.request_ns;
}
