/* cli: the one-line messages for people that every command prints. */
#include "util/cli.h"

#include <stdarg.h>
#include <stdio.h>

int cli_vmessage(int status, const char *prog, const char *suffix, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", suffix);
    return status;
}

int cli_message(int status, const char *prog, const char *suffix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vmessage(status, prog, suffix, fmt, ap);
    va_end(ap);
    return status;
}
