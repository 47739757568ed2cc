/* cli: the one-line messages for people that every command prints. */
#include "util/cli.h"

#include <stdarg.h>
#include <stdio.h>

int cli_message(int status, const char *prog, const char *suffix, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", suffix);
    return status;
}
