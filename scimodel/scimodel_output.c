/* scimodel_output: printing helpers every scimodel mode shares (the
 * parameters block, fast fixed-point numbers for long sweeps, params files
 * and their errors, -o). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/uncertainty.h"
#include "scimodel/scimodel.h"
#include "util/atomicfile.h"
#include "util/fs.h"
#include "util/opt.h"

int scimodel_file_error(const char *opt, const char *path, int rc, long line, const char *msg)
{
    if (rc == -1)
        return cli_message(EXIT_FAILURE, "scimodel", "", "%s '%s': %s", opt, path, msg);
    file_error e = { .line = line };
    snprintf(e.msg, sizeof e.msg, "%s", msg);
    return file_error_report(EXIT_FAILURE, "scimodel", path, &e);
}

int scimodel_load_params(const char *opt, const char *path, model_params *p)
{
    model_params_error err;
    int rc = model_params_read(path, p, &err);
    return rc ? scimodel_file_error(opt, path, rc, err.line, err.msg) : 0;
}

void scimodel_print_params(const model_params *p, double size_bytes, int with_link_bw)
{
    printf("parameters: %s\n", p->name);
    printf("  o(%g B) = %.1f ns   o0 %g ns at %g B, o1 %g ns/B%s\n", size_bytes,
           model_overhead_ns(p, size_bytes), p->o0_ns, p->mref_bytes, p->o1_ns_per_byte,
           p->o_segments ? " (piecewise o(m) from the file used)" : "");
    printf("  lp %g ns (per link)   lf %g ns (forward)   ls %g ns (switch)\n",
           p->lp_ns, p->lf_ns, p->ls_ns);
    if (p->lb_ns_per_byte != 0 || p->lb_segments)   /* store and forward; cut-through as before */
        printf("  lb %g ns/B (store and forward: m lb at each of the H - 1 relays)%s\n",
               p->lb_ns_per_byte, p->lb_segments ? " (piecewise from the file used)" : "");
    if (p->links == TOPO_LINKS_BI)
        printf("  links: bi (a pair of opposite rings per dimension, shortest way)\n");
    char text[UNC_TEXT];
    printf("  %s\n", model_params_sources_text(text, sizeof text, p, with_link_bw));
    printf("  %s\n", unc_describe_text(text, sizeof text, p));
    char regime[200];
    if (model_params_regime_text(p, regime, sizeof regime))
        printf("  %s\n", regime);
}

/* A million-line sweep prints eight million numbers; printf("%.3f") alone
 * took ~2 s of the 3 s that run took, so values below 2^53/1000 are
 * formatted from a rounded integer (exact to the printed digit); larger
 * ones fall back to snprintf. */
char *scimodel_format_3f(char *buf, double v)
{
    if (isnan(v)) {
        *buf++ = '-';
        return buf;
    }
    if (!(v >= 0 && v < 9.0e12))
        return buf + sprintf(buf, "%.3f", v);
    unsigned long long milli = (unsigned long long)llround(v * 1000);
    char tmp[24];
    int n = 0;
    for (int i = 0; i < 3; i++, milli /= 10)
        tmp[n++] = (char)('0' + milli % 10);
    tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + milli % 10);
        milli /= 10;
    } while (milli);
    while (n)
        *buf++ = tmp[--n];
    return buf;
}

int scimodel_output_begin(const char *path, const fs_file *in, int nin, atomic_file *af,
                          int *active)
{
    fs_file out = {"-o", path};
    *active = 0;
    if (!path || opt_is_stdio(path))
        return 0;
    int rc = fs_refuse_same("scimodel", in, nin, &out, 1);
    if (rc)
        return rc;
    if (atomic_file_open(af, path)) {
        fprintf(stderr, "scimodel: -o '%s': %s\n", path, file_strerror(errno));
        return EXIT_FAILURE;
    }
    fflush(stdout);
    if (dup2(fileno(af->fp), STDOUT_FILENO) < 0) {
        fprintf(stderr, "scimodel: -o '%s': %s\n", path, strerror(errno));
        atomic_file_abort(af);
        return EXIT_FAILURE;
    }
    char name[PATH_MAX + 16];
    snprintf(name, sizeof name, "-o '%s'", path);
    fs_stdout_name(name);
    *active = 1;
    return 0;
}

int scimodel_output_end(atomic_file *af, int active, int rc)
{
    if (!active)
        return rc;
    if (fflush(stdout) || ferror(stdout))
        rc = rc ? rc : EXIT_FAILURE;
    if (rc) {
        atomic_file_abort(af);
        return rc;
    }
    const char *path = af->path;
    char name[4096];
    snprintf(name, sizeof name, "%s", path);
    if (atomic_file_commit(af)) {
        fprintf(stderr, "scimodel: -o '%s': %s\n", name, strerror(errno));
        return EXIT_FAILURE;
    }
    return 0;
}
