/* modes: what the scitrace modes share beyond util/opt. */
#include "scitrace/modes.h"

#include <stdio.h>

#include "trace/tracefile.h"
#include "util/opt.h"

int scitrace_require_whole(const trace_dir *d, const char *mode, int partial)
{
    char why[4400];
    int n = trace_dir_incomplete(d, why, sizeof why);
    if (n == 0)
        return 0;
    fprintf(stderr, "scitrace: %s: incomplete trace, %d of %d ranks: %s%s\n", mode, n, d->nranks,
            why, partial ? "; going on (--partial)" : "; --partial to go on");
    return partial ? 0 : TRACE_EXIT_INCOMPLETE;
}

void scitrace_version(void)
{
    printf("scitrace (scitorus) %s\n", opt_version());
}
