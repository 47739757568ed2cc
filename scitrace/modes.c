/* modes: what the scitrace modes share beyond util/opt. */
#include "scitrace/modes.h"

#include "util/opt.h"

void scitrace_version(void)
{
    printf("scitrace (scitorus) %s\n", opt_version());
}
