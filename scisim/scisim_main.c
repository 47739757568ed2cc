/* scisim: replays an application's schedule (GOAL) on a LogGP network or
 * on candidate tori, or a named collective's (--collective); docs/replay.md,
 * 'Replay' and 'Collectives'.  The main only dispatches. */
#include <stdlib.h>

#include "util/signals.h"
#include "scisim/scisim.h"

int main(int argc, char **argv)
{
    scisim_opts o;
    goal_schedule s;
    int done, rc = scisim_parse_options(argc, argv, &o, &done);
    if (rc || done)
        return rc;
    bench_signals_install_stop();
    if (o.collective_given || o.collective_list)
        return scisim_collective(&o);
    if (o.traffic_given)
        return scisim_traffic(&o);
    if ((rc = scisim_read_goal(&o, &s)))
        return rc;
    if (scisim_stop()) {
        goal_free(&s);
        return scisim_interrupted_reading(&o);
    }
    rc = o.loggp_given ? scisim_loggp(&o, &s) : scisim_torus(&o, &s);
    goal_free(&s);
    return rc;
}
