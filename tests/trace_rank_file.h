/* trace_rank_file: a made-up rank file of a 2-rank trace, for the tests
 * of the trace readers (header-only, tests only). */
#ifndef SCITORUS_TESTS_TRACE_RANK_FILE_H
#define SCITORUS_TESTS_TRACE_RANK_FILE_H

#include <stdio.h>

static const char rank_head[] =
    "# scitrace-rank 2\nrun %s\nrank %d\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
    "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n";

/* Rank `rank` of a 2-rank run in dir: `sends` sends of `bytes` to the other. */
static inline void write_rank(const char *dir, int rank, const char *run, int sends, const char *bytes)
{
    char path[600];
    snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, rank);
    FILE *fp = fopen(path, "w");
    fprintf(fp, rank_head, run, rank);
    for (int i = 0; i < sends; i++)
        fprintf(fp, "> %d 0 send 1 0 %d 5 %s\n< %d\n", i, 1 - rank, bytes, i);
    fprintf(fp, "status finalized\nend %d\n", 10 + 2 * sends);
    fclose(fp);
}

#endif
