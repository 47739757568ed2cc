/* options_check: the option combinations calibrate refuses (one table),
 * the default file names, and no output over an input. */
#include <stdio.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "util/fs.h"

static int is(const char *s, const char *t)
{
    return s && !strcmp(s, t);
}

int options_check(options *o)
{
    const int meas = o->measure_opt[0] != 0;
    char launches[24];
    snprintf(launches, sizeof launches, "%ld", o->launches);
    /* Each row: the combination, its message (with the one argument shown). */
    const struct {
        int bad;
        const char *fmt, *arg;
    } rule[] = {
        {o->collectives && !o->logp,
         "--collectives '%s': the prediction needs the LogP parameters; give --logp FILE",
         o->collectives},
        {o->collectives && (o->ndata || o->nvalidate || o->full || o->measure_opt[0] ||
                            o->loggopsim || o->out_params),
         "--collectives '%s': compares a measured file with its prediction and writes nothing;"
         " give only --logp, --algorithm and --max-error beside it", o->collectives},
        {o->algorithm && !o->collectives,
         "--algorithm '%s': the schedule --collectives FILE is predicted with; give"
         " --collectives", o->algorithm},
        {o->ring && o->torus, "--ring '%s': give only one of --ring and --torus", o->ring},
        {o->ndata && meas, "--data and %1$s: --data fits existing files (they say which backend"
                           " measured them); %1$s is for measuring", o->measure_opt},
        {o->logp && !o->ndata && meas, "--logp and %1$s: without --data, --logp fits the LogP"
                                       " file alone; %1$s is for measuring", o->measure_opt},
        {o->loggopsim && !o->logp,
         "--loggopsim '%s': exports the fit of --logp FILE; give --logp", o->loggopsim},
        {o->loggopsim_unit && !o->loggopsim,
         "--loggopsim-unit '%s': the unit of --loggopsim FILE; give --loggopsim",
         o->loggopsim_unit},
        {o->full && (o->nvalidate || o->torus || o->out_bench),
         "--full: measures its own networks and validates on the 6-node ring;"
         " not with --validate, --torus or --bench-out%s", ""},
        /* the 2-node ring has 2 nodes: its ranks; the other networks host
         * their virtual nodes on those two (mpibench --interleave) */
        {o->full && o->np && !is(o->np, "2"),
         "--np '%s': --full measures on 2 ranks (the 2-node ring's; the other networks' nodes"
         " are hosted on them)", o->np},
        {o->full && o->ring && !is(o->ring, "4") && !is(o->ring, "8"),
         "--ring '%s': --full fits on the 2-node ring, a 4- or 8-node ring and the 4x4 torus;"
         " expected 4 or 8", o->ring},
        {o->validation_out && !o->nvalidate && !o->full,
         "--validation-out '%s': there is no held-out data to tabulate; give --validate FILE"
         " or --full", o->validation_out},
        {o->launches > 1 && (o->logp || o->nvalidate),
         "--launches: for a plain measurement, --data or --full; not with --logp or"
         " --validate%s", ""},
        {o->full && o->launches > FULL_MAX_RUNS,
         "--launches %s: --full takes at most " FULL_MAX_RUNS_TEXT " runs, re-measurements"
         " included", launches},
        {o->launches > 1 && o->ndata && o->ndata != o->launches,
         "--launches %s: with --data, each file is one launch; give as many files", launches},
        {o->hostfile && !is(o->backend, "mpi"),
         "--hostfile '%s': for --backend mpi", o->hostfile},
        {o->mpirun && !is(o->backend, "mpi"), "--mpirun '%s': for --backend mpi", o->mpirun},
    };
    for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++)
        if (rule[i].bad)
            return usage_error(rule[i].fmt, rule[i].arg);
    return options_check_files(o, NULL, 0);
}

void options_stem(const char *path, const char *def, char *buf, size_t len)
{
    if (is(path, "-")) {
        snprintf(buf, len, "%s", def);
        return;
    }
    snprintf(buf, len, "%s", path);
    char *dot = strrchr(buf, '.'), *slash = strrchr(buf, '/');
    if (dot && (!slash || dot > slash) && dot != buf && (!slash || dot > slash + 1))
        *dot = '\0';
}

const char *options_params_path(const options *o, char *buf, size_t len)
{
    char stem[PATH_MAX];
    if (o->out_params)
        return o->out_params;
    if (o->ndata || o->logp) {   /* beside the data the params come from */
        options_stem(o->ndata ? o->data[0] : o->logp, "", stem, sizeof stem);
        snprintf(buf, len, "%s.params", stem);
    } else {
        snprintf(buf, len, "%s-%s%s.params", o->host, o->backend, o->full ? "-full" : "");
    }
    return buf;
}

int options_check_files(const options *o, const fs_file *extra, int nextra)
{
    char params[PATH_MAX];
    fs_file in[2 * MAX_FILES + 1], out[8 + FULL_NETS + 1];
    int nin = 0, nout = 0;
    for (int i = 0; i < o->ndata; i++)
        in[nin++] = (fs_file){"--data", o->data[i]};
    for (int i = 0; i < o->nvalidate; i++)
        in[nin++] = (fs_file){"--validate", o->validate[i]};
    in[nin++] = (fs_file){"--logp", o->logp};
    out[nout++] = (fs_file){o->out_params ? "-o" : "the params file",
                            options_params_path(o, params, sizeof params)};
    out[nout++] = (fs_file){"--validation-out", o->validation_out};
    out[nout++] = (fs_file){"--loggopsim", o->loggopsim};
    out[nout++] = (fs_file){"--bench-out", o->out_bench};
    for (int i = 0; i < nextra && nout < (int)(sizeof out / sizeof out[0]); i++)
        out[nout++] = extra[i];
    int rc = fs_refuse_same("calibrate", in, nin, out, nout);
    return rc ? rc : fs_refuse_missing_dir("calibrate", out, nout);
}
