/* scicoll: a collective algorithm's schedule as GOAL text, its time
 * predicted from a LogP file, or a measured collectives file compared
 * with the prediction.  Mains only dispatch: coll/collgen.c, predict.c. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/logpdata.h"
#include "coll/collgen.h"
#include "coll/colldata.h"
#include "coll/predict.h"
#include "util/atomicfile.h"
#include "util/file_error.h"
#include "util/fs.h"
#include "util/opt.h"

typedef struct sc_opts {
    int op, emit_goal, list;
    const char *algorithm, *logp, *compare, *out;
    long ranks[64];
    size_t nranks;
    long sizes[256];
    size_t nsizes;
    long root;
    double max_error;
} sc_opts;

#define F(f) offsetof(sc_opts, f)
static const opt_spec specs[] = {
    {.name = "collective", .kind = OPT_ENUM, .field = F(op), .choices = coll_op_names,
     .arg = "OP", .help = "barrier, bcast, reduce, allreduce, allgather, alltoall, gather, scatter"},
    {.name = "algorithm", .kind = OPT_STRING, .field = F(algorithm), .arg = "ALG",
     .help = "the algorithm (--list; default: Open MPI tuned's pick for small P)"},
    {.name = "ranks", .kind = OPT_LIST, .field = F(ranks), .count_field = F(nranks), .cap = 64,
     .min = 1, .max = 4096, .def = "2", .range = "1..4096", .arg = "LIST", .help = "processes"},
    {.name = "size", .kind = OPT_LIST, .field = F(sizes), .count_field = F(nsizes), .cap = 256,
     .min = 0, .max = 1L << 30, .def = "8", .range = "0..1 GiB", .arg = "LIST",
     .help = "message sizes in bytes", .alias = "sizes"},
    {.name = "root", .kind = OPT_LONG, .field = F(root), .min = 0, .max = 4095, .def = "0",
     .range = "0..ranks-1", .arg = "R", .help = "root of a rooted collective"},
    {.name = "emit-goal", .kind = OPT_FLAG, .field = F(emit_goal), .help = "write the schedule as GOAL"},
    {.name = "logp", .kind = OPT_PATH, .field = F(logp), .arg = "FILE",
     .help = "predict from this LogP file (mpibench --pattern logp)"},
    {.name = "compare", .kind = OPT_PATH, .field = F(compare), .arg = "FILE",
     .help = "a collectives file (mpibench --op) against the prediction"},
    {.name = "max-error", .kind = OPT_DOUBLE, .field = F(max_error), .min = 0, .max = 1e6,
     .def = "0", .range = "0..1e6", .arg = "PCT",
     .help = "with --compare: exit 3 when a row differs by more (0: no check)"},
    {.name = "list", .kind = OPT_FLAG, .field = F(list), .help = "the algorithms of each collective"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = F(out), .def = "-",
     .arg = "FILE", .help = "output (written atomically; - standard output)"},
};
static const opt_program prog = {
    .name = "scicoll",
    .synopsis = "Usage: scicoll --collective OP [--algorithm ALG] --ranks P --size M"
                " (--emit-goal | --logp FILE)\n"
                "       scicoll --compare FILE --logp FILE\n"
                "A collective's point-to-point schedule: GOAL text (LogGOPSim's input), or\n"
                "its time replayed in LogGP on the per-size LogP parameters of a LogP file.\n",
    .epilog = "Exit status: 0 success, 1 runtime failure, 2 usage error, 3 --compare beyond\n"
              "--max-error.\n\nExamples:\n"
              "  scicoll --collective bcast --ranks 8 --size 1024 --emit-goal\n"
              "  scicoll --collective allreduce --ranks 2..8 --size 8,4096 --logp logp.tsv\n"
              "  scicoll --compare allreduce.tsv --logp logp.tsv\n",
    .specs = specs,
    .nspecs = (int)(sizeof specs / sizeof *specs),
};

static int run(const sc_opts *o, const opt_state *st, FILE *fp)
{
    if (o->list) {
        for (int i = 0; coll_op_names[i]; i++)
            fprintf(fp, "%-10s %s\n", coll_op_names[i], coll_algorithms(i));
        return 0;
    }
    logp_data lp;
    file_error err;
    if (o->logp && logp_data_read(o->logp, &lp, &err))
        return file_error_report(1, "scicoll", o->logp, &err);
    int rc = 0;
    if (o->compare) {
        coll_data d;
        if (coll_data_read(o->compare, &d, &err))
            rc = file_error_report(1, "scicoll", o->compare, &err);
        else
            rc = coll_compare("scicoll", fp, &d, o->compare, &lp, o->logp, o->algorithm, o->max_error);
        coll_data_free(&d);
        logp_data_free(&lp);
        return rc;
    }
    if (o->logp)
        fprintf(fp, "# collective algorithm ranks size predicted_ns\n");
    for (size_t i = 0; i < o->nranks && !rc; i++)
        for (size_t j = 0; j < o->nsizes && !rc; j++) {
            char why[400];
            int ranks = (int)o->ranks[i];
            if (o->root >= ranks) {
                rc = opt_usage_error(&prog, "--root %ld: outside the %d ranks", o->root, ranks);
                break;
            }
            if (o->emit_goal) {
                coll_sched s;
                int g = coll_generate(&s, o->op, o->algorithm, ranks, (int)o->root, o->sizes[j],
                                      why, sizeof why);
                if (g)
                    rc = g == -1 ? (fprintf(stderr, "scicoll: out of memory\n"), 1)
                                 : opt_usage_error(&prog, "--algorithm: %s", why);
                else
                    coll_write_goal(fp, &s);
                coll_sched_free(&s);
                continue;
            }
            double ns;
            if (coll_predict_logp(&lp, o->logp, o->op, o->algorithm, ranks, (int)o->root,
                                  o->sizes[j], &ns, why, sizeof why)) {
                fprintf(stderr, "scicoll: %s\n", why);
                rc = strstr(why, "no algorithm") ? EXIT_USAGE : 1;
                break;
            }
            char def[40];
            snprintf(def, sizeof def, "%s", coll_algorithms(o->op));
            *strchrnul(def, ',') = 0;
            fprintf(fp, "%s\t%s\t%d\t%ld\t%.1f\n", coll_op_names[o->op],
                    o->algorithm ? o->algorithm : def, ranks, o->sizes[j], ns);
        }
    (void)st;
    if (o->logp)
        logp_data_free(&lp);
    return rc;
}

int main(int argc, char **argv)
{
    sc_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    fs_check_stdout_at_exit("scicoll");
    int rc = opt_parse(&prog, argc, argv, &o, &st);
    if (rc)
        return rc == OPT_DONE ? 0 : rc;
    if (!o.list && !o.compare && !opt_given(&st, "collective"))
        return opt_usage_error(&prog, "--collective: which operation (or --compare FILE, --list)");
    if (!o.list && !o.emit_goal && !o.logp)
        return opt_usage_error(&prog, "give --emit-goal or --logp FILE");
    if (o.compare && !o.logp)
        return opt_usage_error(&prog, "--compare '%s': needs --logp FILE", o.compare);
    atomic_file af = {0};
    FILE *fp = stdout;
    if (!opt_is_stdio(o.out)) {
        if (atomic_file_open(&af, o.out)) {
            fprintf(stderr, "scicoll: -o '%s': %s\n", o.out, file_strerror(errno));
            return 1;
        }
        fp = af.fp;
    }
    rc = run(&o, &st, fp);
    if (af.fp) {
        if ((rc == 0 || rc == 3) ? atomic_file_commit(&af) : (atomic_file_abort(&af), 0)) {
            fprintf(stderr, "scicoll: '%s': %s\n", o.out, file_strerror(errno));
            return 1;
        }
    }
    return rc;
}
