/* calibrate: measure (scibench or mpibench), fit o(m), lp, lf, ls, lb with
 * GSL and write a params file scimodel reads (docs/formats.md, 'Params
 * file').  The main dispatches: options.c parses, then one mode runs --
 * --collectives (collectives.c), --logp alone (output.c), --full
 * (full_run.c) or the plain fit (run.c). */
#include "calibrate/calibrate.h"
#include "util/fs.h"
#include "util/opt.h"

int main(int argc, char **argv)
{
    options o;
    fs_check_stdout_at_exit("calibrate");
    int rc = options_parse(argc, argv, &o);
    if (rc)
        return rc == OPT_DONE ? fs_close_stdout("calibrate") : rc;
    if (o.collectives)
        rc = calibrate_collectives(&o);
    else if (o.logp && !o.ndata)   /* LogP alone: nothing measured, nothing else fitted */
        rc = logp_only(&o);
    else if (o.full)
        rc = full_run(&o);
    else
        rc = calibrate_run(&o);
    /* a full disk or a closed pipe on standard output is a failure too */
    int wrc = fs_close_stdout("calibrate");
    return rc ? rc : wrc;
}
