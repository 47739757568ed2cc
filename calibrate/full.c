/* full: calibrate --full's plan of networks and its validation file. */
#include "calibrate/full.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"

int full_plan_make(full_plan *plan, const char *prefix, const char *ring)
{
    static const char *const name[FULL_NETS] = {"ring2", NULL, "torus" FULL_TORUS, "ring6"};
    if (strcmp(ring, "4") != 0 && strcmp(ring, "8") != 0)
        return -1;
    plan->shape[0] = "2";
    plan->shape[1] = ring;
    plan->shape[2] = FULL_TORUS;
    plan->shape[FULL_HELD_OUT] = "6";
    for (int k = 0; k < FULL_NETS; k++) {
        char buf[PATH_MAX];   /* prefix may not alias plan */
        const char *net = name[k] ? name[k] : strcmp(ring, "4") ? "ring8" : "ring4";
        int len = snprintf(buf, sizeof buf, "%s-%s.tsv", prefix, net);
        if (len < 0 || (size_t)len >= sizeof plan->path[k])
            return -1;
        memcpy(plan->path[k], buf, (size_t)len + 1);
        snprintf(plan->interleave[k], sizeof plan->interleave[k], "%s=%s", plan->shape[k], buf);
    }
    char buf[PATH_MAX];
    int len = snprintf(buf, sizeof buf, "%s-validation.tsv", prefix);
    if (len < 0 || (size_t)len >= sizeof plan->validation)
        return -1;
    memcpy(plan->validation, buf, (size_t)len + 1);
    len = snprintf(buf, sizeof buf, "%s-linkrate.tsv", prefix);
    if (len < 0 || (size_t)len >= sizeof plan->linkrate)
        return -1;
    memcpy(plan->linkrate, buf, (size_t)len + 1);
    return 0;
}

static int by_size(const void *a, const void *b)
{
    const full_row *x = a, *y = b;
    return (x->size_bytes > y->size_bytes) - (x->size_bytes < y->size_bytes);
}

int full_write_validation(const char *path, const char *held_out, const char *fitted_on,
                          full_row *rows, size_t n)
{
    atomic_file af;
    qsort(rows, n, sizeof *rows, by_size);
    if (atomic_file_open(&af, path) != 0)
        return -1;
    fprintf(af.fp, "# scitorus-validation 1\n# held-out: %s\n# fitted on: %s\n"
                   "# columns: size_bytes hm fm sm measured_ns predicted_ns error_pct\n",
            held_out, fitted_on);
    for (size_t i = 0; i < n; i++)
        fprintf(af.fp, "%.0f\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.3f\n", rows[i].size_bytes,
                rows[i].hm, rows[i].fm, rows[i].sm, rows[i].measured_ns, rows[i].predicted_ns,
                100 * (rows[i].predicted_ns - rows[i].measured_ns) / rows[i].measured_ns);
    return atomic_file_commit(&af);
}
