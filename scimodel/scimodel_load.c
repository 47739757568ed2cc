/* scimodel_load: --load, latency against offered load (docs/model.md, 'Load') per D at
 * the nearest integer torus to --nodes, or for one --shape: saturation
 * rate, bottleneck links, and one row per rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/uncertainty.h"
#include "scimodel/scimodel.h"

/* Names a directed link: "(2,0,1) -> dim 2 +" for the table. */
static void link_name(const topo_shape *s, long index, char *buf, size_t len)
{
    long c[TOPO_MAX_DIMS];
    int way = (int)(index % 2), dim = (int)((index / 2) % s->dims);
    long node = index / 2 / s->dims;
    int k = 0;
    topo_rank_to_coords(s, node, c);
    k += snprintf(buf + k, len - (size_t)k, "(");
    for (int i = 0; i < s->dims && (size_t)k < len; i++)
        k += snprintf(buf + k, len - (size_t)k, i ? ",%ld" : "%ld", c[i]);
    if ((size_t)k < len)
        snprintf(buf + k, len - (size_t)k, ") dim %d %s", dim + 1, way ? "-" : "+");
}

/* Every requested rate must lie below this shape's saturation rate:
 * a usage error otherwise (the table never shows a NaN or infinity). */
static int check_rates(const scimodel_options *o, const model_load *ld, const char *name,
                       double sat)
{
    for (size_t i = 0; !o->rates_are_util && i < o->nrates; i++)
        if (o->rates[i] >= sat)
            return scimodel_usage_error("--rates '%s': %g messages/ns/node is at or beyond the "
                                        "saturation rate %.6g of %s (%s traffic, %s links)",
                                        o->rates_text, o->rates[i], sat, name,
                                        topo_pattern_name(ld->pattern),
                                        topo_links_name(ld->links));
    return 0;
}

/* The latency at a fixed rate as a function of the parameters (its
 * interval); a shift that saturates the network has none. */
typedef struct load_arg {
    const model_load *ld;
    double m, rate;
} load_arg;

static int load_fn(const model_params *p, void *arg, double *v)
{
    const load_arg *a = arg;
    return model_load_latency(p, a->ld, a->m, a->rate, v, NULL, NULL) ? -1 : 0;
}

static int one_shape(const scimodel_options *o, const topo_shape *s, int check_only)
{
    const model_params *p = &o->params;
    double m = (double)o->size_bytes;
    char name[TOPO_MAX_DIMS * 21], bn[TOPO_MAX_DIMS * 21 + 32];
    model_load ld;
    topo_shape_format(s, name, sizeof name);
    int st = model_load_init(&ld, s, p->links, o->pattern);
    if (st == MODEL_LOAD_NO_MEMORY) {
        fprintf(stderr, "scimodel: --load on %s: out of memory (the channel loads take %.3g "
                "MiB, 2 D N doubles, and their input streams more)\n", name,
                2.0 * s->dims * (double)s->nodes * sizeof(double) / 1048576);
        return EXIT_FAILURE;
    }
    if (st) {
        fprintf(stderr, "scimodel: --load on %s: %s\n", name,
                st == MODEL_LOAD_TOO_BIG
                    ? "too many links for the load model (at most 2^26 link entries)"
                    : "the pattern sends no message on this shape, or is not defined there");
        return EXIT_FAILURE;
    }
    double sat = model_load_saturation(p, &ld, m);
    int errs = unc_has_errors(p);
    int rc = check_rates(o, &ld, name, sat);
    if (rc || check_only) {
        model_load_free(&ld);
        return rc;
    }
    if (!o->tsv) {
        if (ld.bottleneck >= 0) {
            link_name(s, ld.bottleneck, bn, sizeof bn);
            printf("\n%s (%ld nodes): saturation %.6g messages/ns/node (%.4g bytes/ns/node); "
                   "bottleneck: %ld links at c = %.4f, e.g. %s\n", name, s->nodes, sat, sat * m,
                   ld.bottlenecks, ld.c_max, bn);
        } else
            printf("\n%s (%ld nodes): saturation %.6g messages/ns/node (%.4g bytes/ns/node); "
                   "bottleneck: the injection and ejection channels (every link carries "
                   "c <= 1)\n", name, s->nodes, sat, sat * m);
        printf("  %14s %12s %14s %14s %16s%s\n", "rate/ns/node", "utilisation", "bytes/ns/node",
               "latency (ns)", "independent (ns)", errs ? "    latency 95% (ns)" : "");
    }
    for (size_t i = 0; i < o->nrates; i++) {
        double rate = o->rates_are_util ? o->rates[i] * sat : o->rates[i], lat, ind;
        int lr = model_load_latency(p, &ld, m, rate, &lat, NULL, &ind);
        if (lr == -2) {
            fprintf(stderr, "scimodel: --load on %s: out of memory\n", name);
            model_load_free(&ld);
            return EXIT_FAILURE;
        }
        if (lr)
            continue;   /* not reached: rates were checked */
        double v, sigma = NAN;
        load_arg la = {&ld, m, rate};
        if (errs && unc_eval(p, load_fn, &la, &v, &sigma))
            sigma = NAN;
        if (o->tsv) {
            printf("%d\t%s\t%s\t%s\t%.6g\t%.4f\t%.3f\t%.6g\t%.3f", s->dims, name,
                   topo_pattern_name(o->pattern), topo_links_name(p->links), rate, rate / sat,
                   lat, rate * m, ind);
            if (errs && !isnan(sigma))
                printf("\t%.3f\t%.3f", lat - UNC_Z95 * sigma, lat + UNC_Z95 * sigma);
            else if (errs)
                fputs("\t-\t-", stdout);
            putchar('\n');
        } else {
            char iv[64];
            printf("  %14.6g %12.4f %14.6g %14.3f %16.3f", rate, rate / sat, rate * m, lat, ind);
            if (errs)
                printf("  %18s", unc_format(iv, sizeof iv, lat, sigma, 1, 3));
            putchar('\n');
        }
    }
    model_load_free(&ld);
    return 0;
}

/* The shapes --load reports: --shape, or the nearest torus per D. */
static size_t load_shapes(const scimodel_options *o, topo_shape *shapes)
{
    size_t k = 0;
    if (o->shape_given)
        shapes[k++] = o->shape;
    for (size_t i = 0; !o->shape_given && i < o->ndims; i++)
        if (model_nearest_torus((int)o->dims[i], (double)o->nodes, &shapes[k]) == 0)
            k++;
    return k;
}

int scimodel_load(const scimodel_options *o)
{
    topo_shape shapes[TOPO_MAX_DIMS];
    size_t count = load_shapes(o, shapes);
    int rc = 0;
    /* every rate is checked against every shape before anything is printed */
    for (size_t i = 0; !rc && !o->rates_are_util && i < count; i++)
        rc = one_shape(o, &shapes[i], 1);
    if (rc)
        return rc;
    if (o->tsv)
        fputs(unc_has_errors(&o->params)
                  ? "dims\tshape\tpattern\tlinks\trate_per_ns\tutilisation\tlatency_ns"
                    "\tbytes_per_ns_per_node\tindependent_ns\tlatency_ns_lo\tlatency_ns_hi\n"
                  : "dims\tshape\tpattern\tlinks\trate_per_ns\tutilisation\tlatency_ns"
                    "\tbytes_per_ns_per_node\tindependent_ns\n", stdout);
    else {
        printf("scimodel: latency under load, %ld-byte messages, %s traffic, %s links, "
               "link %g bytes/ns\n", o->size_bytes, topo_pattern_name(o->pattern),
               topo_links_name(o->params.links), o->params.link_bw_bytes_per_ns);
        scimodel_print_params(&o->params, (double)o->size_bytes, 1);
    }
    for (size_t i = 0; !rc && i < count; i++)
        rc = one_shape(o, &shapes[i], 0);
    if (!rc && !o->tsv)
        printf("\n(FIFO channels of service time m/bw: the merge identity of deterministic "
               "servers, each input taken as its own server's departures, shares of busier "
               "links credited part of their smoothing, flows smoothed further with every "
               "shared link they cross; 'independent' treats every link as its own "
               "M/D/1 queue; no flow control)\n");
    return rc;
}
