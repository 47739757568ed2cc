/* scisim_loggp: --loggp, LogGOPSim's LogGP network: the makespan, or with
 * --ranks every rank's finishing time (LogGOPSim's "Host i: t" lines). */
#include <stdio.h>

#include "scisim/scisim.h"

int scisim_loggp(const scisim_opts *o, const goal_schedule *s)
{
    sim_config c = {0};
    sim_result r;
    c.lg = o->lg;
    c.S = o->S;
    c.stop = scisim_stop;
    if (!o->quiet) {
        c.progress = scisim_progress;
        c.progress_arg = (void *)"LogGP";
    }
    if (sim_run(s, &c, &r))
        return scisim_runtime_error("%s: out of memory for the replay", o->goal_path);
    if (r.stuck[0]) {
        sim_result_free(&r);
        return scisim_runtime_error("%s: %s", o->goal_path, r.stuck);
    }
    scisim_out *out = scisim_out_open(o);
    if (!out) {
        sim_result_free(&r);
        return 1;
    }
    FILE *fp = scisim_out_fp(out);
    if (r.interrupted)
        ;   /* the makespan of half a replay is no result */
    else if (o->ranks)
        scisim_print_ranks(fp, &r);
    else if (o->tsv)
        fprintf(fp, "makespan_ns\tmean_finish_ns\tmessages\tbytes\tevents\n"
                "%.17g\t%.17g\t%llu\t%llu\t%llu\n", r.makespan, r.mean_finish,
                (unsigned long long)r.messages, (unsigned long long)r.bytes,
                (unsigned long long)r.events);
    else
        fprintf(fp,
                "LogGP replay of %s: %u ranks, L=%g o=%g g=%g G=%g O=%g S=%llu\n"
                "  makespan %.0f ns, mean finishing time %.1f ns, %llu messages, %llu bytes\n",
                o->goal_path, r.ranks, o->lg.L, o->lg.o, o->lg.g, o->lg.G, o->lg.O,
                (unsigned long long)o->S, r.makespan, r.mean_finish,
                (unsigned long long)r.messages, (unsigned long long)r.bytes);
    int partial = r.interrupted;
    sim_result_free(&r);
    return scisim_out_close(out, partial, !partial);
}
