/* scisim_collective: --collective OP, the point-to-point schedule of a named
 * algorithm (sched/collgen.h) written as GOAL (--emit-goal), or replayed as
 * any schedule: on a LogP file's per-size parameters (--logp), on
 * LogGOPSim's constants (--loggp) or on candidate tori. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchdata/logpdata.h"
#include "sched/collgen.h"
#include "sim/collpredict.h"
#include "scisim/scisim.h"
#include "util/file_error.h"

/* Builds the schedule of (P, M) (s NULL: only checks the options for it);
 * 0 or the exit status (130: Ctrl-C), message printed. */
static int generate(const scisim_opts *o, long procs, long size, coll_sched *s)
{
    char why[400];
    if (o->root >= procs)
        return scisim_usage_error("--root %ld: outside the %ld processes (0..%ld)", o->root,
                                  procs, procs - 1);
    if (!s)
        return coll_validate(o->collective, o->algorithm, (int)procs, why, sizeof why)
                   ? scisim_usage_error("--algorithm: %s", why) : 0;
    int rc = coll_generate_until(s, o->collective, o->algorithm, (int)procs, (int)o->root, size,
                                 scisim_stop, why, sizeof why);
    if (rc == -3)
        return 130;
    if (rc == -1)
        return scisim_runtime_error("out of memory for the schedule");
    return rc ? scisim_usage_error("--algorithm: %s", why) : 0;
}

static int list(const scisim_opts *o)
{
    scisim_out *out = scisim_out_open(o);
    if (!out)
        return 1;
    for (int i = 0; coll_op_names[i]; i++)
        fprintf(scisim_out_fp(out), "%-10s %s\n", coll_op_names[i], coll_algorithms(i));
    return scisim_out_close(out, 0, 0);
}

/* --emit-goal and --logp: every P of --procs and size of --size; Ctrl-C, inside a point
 * too, keeps the finished rows (exit 130).  From 1024 processes a point can take seconds
 * (an alltoall: a million messages), so each is announced. */
#define TABLE_PROGRESS_PROCS 1024
static int table(const scisim_opts *o)
{
    logp_data lp;
    file_error err;
    char def[64];
    int rc = 0;
    if (o->logp_path && logp_data_read(o->logp_path, &lp, &err))
        return file_error_report(1, "scisim", o->logp_path, &err);
    scisim_out *out = scisim_out_open(o);
    FILE *fp = out ? scisim_out_fp(out) : NULL;
    if (!out)
        rc = 1;
    if (fp && o->logp_path)
        fprintf(fp, "collective\talgorithm\tprocs\tsize\tpredicted_ns\n");
    int partial = 0;
    long written = 0;
    for (size_t i = 0; i < o->nprocs && !rc && !partial; i++)
        for (size_t j = 0; j < o->nsizes && !rc && !(partial = scisim_stop()); j++) {
            coll_sched s;
            if (!o->quiet && o->procs[i] >= TABLE_PROGRESS_PROCS)
                fprintf(stderr, "scisim: %s on %ld processes, %ld bytes\n",
                        coll_op_names[o->collective], o->procs[i], o->sizes[j]);
            if ((rc = generate(o, o->procs[i], o->sizes[j], o->emit_goal ? &s : NULL)))
                break;
            if (o->emit_goal) {
                int wrc = coll_write_goal(fp, &s);
                coll_sched_free(&s);
                if (wrc == -3)
                    partial = 1;
                else if (wrc)
                    rc = scisim_runtime_error("out of memory for the schedule");
                else
                    written++;
            } else {
                char why[400];
                double ns;
                int got = coll_predict_logp(&lp, o->logp_path, o->collective, o->algorithm,
                                            (int)o->procs[i], (int)o->root, o->sizes[j], 0,
                                            scisim_stop, &ns, why, sizeof why);
                if (got < 0)
                    partial = 1;
                else if (got)
                    rc = scisim_runtime_error("%s", why);
                else if (++written)
                    fprintf(fp, "%s\t%s\t%ld\t%ld\t%.1f\n", coll_op_names[o->collective],
                            coll_algorithm(o->collective, o->algorithm, (int)o->procs[i],
                                           o->sizes[j], def, sizeof def),
                            o->procs[i], o->sizes[j], ns);
            }
        }
    if (rc == 130)
        partial = 1, rc = 0;
    if (o->logp_path)
        logp_data_free(&lp);
    if (out) {
        int crc = scisim_out_close(out, rc != 0 || partial, written);
        rc = rc ? rc : crc;
    }
    return rc;
}

/* One P, one size: the schedule, as the GOAL reader makes it, replayed by
 * the modes a schedule file gets (scisim_loggp.c, scisim_torus.c). */
static int replay(const scisim_opts *o)
{
    if (o->nprocs != 1 || o->nsizes != 1)
        return scisim_usage_error("--procs, --size: one of each for a replay on --loggp or tori"
                                  " (lists with --logp FILE or --emit-goal)");
    coll_sched cs;
    int rc = generate(o, o->procs[0], o->sizes[0], &cs);
    if (rc)
        return rc;
    char name[160], def[64];
    goal_schedule s;
    scisim_opts named = *o;
    snprintf(name, sizeof name, "%s %s on %ld processes, %ld B", coll_op_names[o->collective],
             coll_algorithm(o->collective, o->algorithm, (int)o->procs[0], o->sizes[0], def,
                            sizeof def),
             o->procs[0], o->sizes[0]);
    named.goal_path = name;
    rc = coll_goal(&cs, &s);
    coll_sched_free(&cs);
    if (rc == -3)
        return 130;
    if (rc)
        return scisim_runtime_error("%s: out of memory", name);
    rc = o->loggp_given ? scisim_loggp(&named, &s) : scisim_torus(&named, &s);
    goal_free(&s);
    return rc;
}

int scisim_collective(const scisim_opts *o)
{
    if (o->collective_list)
        return list(o);
    return o->emit_goal || o->logp_path ? table(o) : replay(o);
}
