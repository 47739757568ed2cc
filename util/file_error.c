/* file_error: one error record for every file reader, one formatter. */
#include "util/file_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util/atomicfile.h"

int file_error_set(file_error *e, long line, const char *fmt, ...)
{
    va_list ap;
    e->line = line;
    e->sys_errno = 0;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -2;
}

int file_error_sys(file_error *e, int err)
{
    e->line = 0;
    e->sys_errno = err ? err : EIO;
    snprintf(e->msg, sizeof e->msg, "%s", file_strerror(e->sys_errno));
    return -1;
}

const char *file_error_text(const file_error *e, const char *path, char *buf, size_t len)
{
    if (e->line > 0)
        snprintf(buf, len, "%s:%ld: %s", path, e->line, e->msg);
    else
        snprintf(buf, len, "%s: %s", path, e->msg);
    return buf;
}

int file_error_report(int status, const char *prog, const char *path, const file_error *e)
{
    char buf[4352];
    fprintf(stderr, "%s: %s\n", prog, file_error_text(e, path, buf, sizeof buf));
    return status;
}
