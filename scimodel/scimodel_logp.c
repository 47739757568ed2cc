/* scimodel_logp: --logp, a params file's LogP parameters (docs/model.md,
 * 'LogP parameters') evaluated at --size, beside the model's o(m). */
#include <stdlib.h>

#include "scimodel/scimodel.h"

int scimodel_logp(const scimodel_options *o)
{
    const model_params *p = &o->params;
    double m = (double)o->size_bytes;
    if (!p->logp.present) {
        fprintf(stderr, "scimodel: --logp: %s has no LogP parameters (calibrate --logp writes"
                        " them)\n", o->params_path ? o->params_path : p->name);
        return EXIT_FAILURE;
    }
    double v[4] = {model_logp_ns(p, MODEL_LOGP_OS, m), model_logp_ns(p, MODEL_LOGP_OR, m),
                   model_logp_ns(p, MODEL_LOGP_G, m), p->logp.L_ns};
    if (o->tsv)
        printf("size_bytes\to_ns\tos_ns\tor_ns\tg_ns\tL_ns\n%ld\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\n",
               o->size_bytes, model_overhead_ns(p, m), v[0], v[1], v[2], v[3]);
    else
        printf("%s, %ld-byte messages:\n  o(m)  %.9g ns\n  os(m) %.9g ns\n  or(m) %.9g ns\n"
               "  g(m)  %.9g ns\n  L     %.9g ns\n", p->name, o->size_bytes,
               model_overhead_ns(p, m), v[0], v[1], v[2], v[3]);
    return 0;
}
