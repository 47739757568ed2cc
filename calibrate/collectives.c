/* collectives: calibrate --collectives FILE --logp FILE, a measured
 * collectives file (mpibench --op) against the LogGP replay of the
 * operation's schedule on the LogP parameters, size by size and per
 * process count, printed as the LogP identity is (coll/predict.h). */
#include "calibrate/collectives.h"

#include <stddef.h>
#include <string.h>

#include "bench/logpdata.h"
#include "coll/colldata.h"
#include "coll/predict.h"
#include "util/file_error.h"
#include "util/opt.h"

typedef struct copts {
    const char *collectives, *logp, *algorithm;
    double max_error;
} copts;

#define F(f) offsetof(copts, f)
static const opt_spec specs[] = {
    {.name = "collectives", .kind = OPT_PATH, .field = F(collectives), .arg = "FILE",
     .help = "a collectives file (mpibench --op)"},
    {.name = "logp", .kind = OPT_PATH, .field = F(logp), .arg = "FILE",
     .help = "the LogP file the prediction uses (mpibench --pattern logp)"},
    {.name = "algorithm", .kind = OPT_STRING, .field = F(algorithm), .arg = "ALG",
     .help = "the algorithm predicted (default: the file's, else scicoll --list's first)"},
    {.name = "max-error", .kind = OPT_DOUBLE, .field = F(max_error), .min = 0, .max = 1e6,
     .def = "0", .range = "0..1e6", .arg = "PCT",
     .help = "exit 3 when a size differs by more (0: print only)"},
};
static const opt_program prog = {
    .name = "calibrate",
    .synopsis = "Usage: calibrate --collectives FILE --logp FILE [--max-error PCT]\n"
                "A measured collective against its prediction from LogP parameters.\n",
    .epilog = "Exit status: 0 success, 1 runtime failure, 2 usage error, 3 a size beyond\n"
              "--max-error.  Rules of the prediction: docs/coll-notes.md.\n",
    .specs = specs,
    .nspecs = (int)(sizeof specs / sizeof *specs),
};

int calibrate_collectives_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--collectives") || !strncmp(argv[i], "--collectives=", 14))
            return 1;
    return 0;
}

int calibrate_collectives(int argc, char **argv)
{
    copts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int rc = opt_parse(&prog, argc, argv, &o, &st);
    if (rc)
        return rc == OPT_DONE ? 0 : rc;
    if (!o.logp)
        return opt_usage_error(&prog, "--collectives '%s': needs --logp FILE", o.collectives);
    coll_data d;
    logp_data lp;
    file_error err;
    if (coll_data_read(o.collectives, &d, &err))
        return file_error_report(1, "calibrate", o.collectives, &err);
    if (logp_data_read(o.logp, &lp, &err)) {
        coll_data_free(&d);
        return file_error_report(1, "calibrate", o.logp, &err);
    }
    rc = coll_compare("calibrate", stdout, &d, o.collectives, &lp, o.logp, o.algorithm,
                      o.max_error);
    coll_data_free(&d);
    logp_data_free(&lp);
    return rc;
}
