/* modes: option handling that every scitrace mode shares. */
#include <errno.h>
#include <string.h>

#include "trace/modes.h"

#ifndef SCITORUS_VERSION
#define SCITORUS_VERSION "unknown"
#endif

void scitrace_version(void)
{
    printf("scitrace (scitorus) %s\n", SCITORUS_VERSION);
}

int scitrace_getopt(const char *mode, const char *help, int argc, char **argv,
                    const char *shortopts, const struct option *opts, unsigned long long *seen,
                    int *status)
{
    int idx = -1;
    opterr = 0;
    int c = getopt_long(argc, argv, shortopts, opts, &idx);
    if (c == -1)
        return -1;
    if (c == '?' || c == ':') {
        const char *arg = argv[optind - 1];
        if (optopt && strchr(shortopts, optopt) && strchr(shortopts, optopt)[1] == ':')
            *status = scitrace_usage_error("%s: option '-%c' needs a value", mode, optopt);
        else
            *status = scitrace_usage_error("%s: unknown option or missing value '%s'", mode, arg);
        return 'E';
    }
    if (c == 'h') {
        fputs(help, stdout);
        *status = 0;
        return 'Q';
    }
    if (c == 'V') {
        scitrace_version();
        *status = 0;
        return 'Q';
    }
    /* the option's slot: its index in opts (long or short spelling) */
    if (idx < 0)
        for (int i = 0; opts[i].name; i++)
            if (opts[i].val == c)
                idx = i;
    if (idx >= 0 && idx < 64) {
        if (*seen & (1ull << idx)) {
            *status = scitrace_usage_error("%s: --%s given twice", mode, opts[idx].name);
            return 'E';
        }
        *seen |= 1ull << idx;
    }
    return c;
}

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

FILE *scitrace_open_output(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

int scitrace_close_output(FILE *fp)
{
    if (fp == stdout)
        return fflush(stdout) != 0 || ferror(stdout) ? -1 : 0;
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad)
        return errno ? -1 : (errno = EIO, -1);
    return 0;
}
