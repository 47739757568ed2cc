/* scimodel: projects latency parameters through the closed-form torus
 * model (docs/model.md).  This file only dispatches: options are
 * parsed in scimodel_options.c, each mode lives in scimodel_<mode>.c. */
#include <stdio.h>
#include <stdlib.h>

#include "scimodel/scimodel.h"
#include "util/atomicfile.h"
#include "util/fs.h"
#include "util/opt.h"

int main(int argc, char **argv)
{
    static int (*const modes[])(const scimodel_options *) = {
        [MODE_REPORT] = scimodel_report,     [MODE_CROSSOVER] = scimodel_crossover,
        [MODE_SWEEP] = scimodel_sweep,       [MODE_SHAPE] = scimodel_shape,
        [MODE_P2P] = scimodel_p2p,           [MODE_LOAD] = scimodel_load,
        [MODE_LOGP] = scimodel_logp,         [MODE_TRAFFIC] = scimodel_traffic,
        [MODE_ROUTES] = scimodel_routes,
    };
    scimodel_options o;
    fs_check_stdout_at_exit("scimodel");
    int rc = scimodel_parse_options(argc, argv, &o);
    if (rc)
        return rc == OPT_DONE ? EXIT_SUCCESS : rc;
    atomic_file out;
    int active;
    const fs_file in[] = {{"--params", o.params_path}, {"--traffic", o.traffic_path},
                          {"--intra-params", o.intra_path}, {"--hostfile", o.hostfile},
                          {"--rankfile", o.rankfile}, {"--placement", o.placement}};
    if ((rc = scimodel_output_begin(o.out_path, in, sizeof in / sizeof in[0], &out, &active)))
        return rc;
    if (o.bcast_given && (o.mode == MODE_REPORT || o.mode == MODE_SHAPE))
        rc = scimodel_broadcast(&o);
    else
        rc = modes[o.mode](&o);
    rc = scimodel_output_end(&out, active, rc);
    int wrc = file_close_stdout("scimodel");   /* a full disk is a failure too */
    return rc ? rc : wrc;
}
