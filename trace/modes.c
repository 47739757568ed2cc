/* modes: option parsing that more than one scitrace mode shares. */
#include <string.h>

#include "trace/modes.h"

int scitrace_parse_collectives(const char *arg, int *with)
{
    if (strcmp(arg, "expand") == 0)
        *with = 1;
    else if (strcmp(arg, "p2p-only") == 0)
        *with = 0;
    else
        return scitrace_usage_error("--collectives '%s': expected expand or p2p-only", arg);
    return 0;
}
