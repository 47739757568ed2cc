/* campaign: a campaign file (docs/formats.md, 'Campaign file') -- the
 * measurements of one result set, each a benchmark and its options -- and
 * running them with resume. */
#ifndef SCITORUS_CAMPAIGN_H
#define SCITORUS_CAMPAIGN_H

#include <stddef.h>

#include "util/file_error.h"

#define CAMPAIGN_MAX 64        /* measurements */
#define CAMPAIGN_MAX_ARGS 48   /* option words of one measurement */

typedef struct measurement {
    char name[64];             /* its file: DIR/<name>.tsv */
    long line;                 /* where its [name] stands */
    int mpi;                   /* 0 scibench, 1 mpibench */
    long np;                   /* mpibench: ranks (mpirun -np) */
    int nargs;
    char *args[CAMPAIGN_MAX_ARGS];   /* "--sizes", "1..4096", ... (malloc'ed) */
} measurement;

typedef struct campaign {
    int count;
    measurement m[CAMPAIGN_MAX];
    char *text;                /* the file as read (malloc'ed) */
} campaign;

/* Reads path.  Returns 0, -1 unreadable, -2 malformed (err: the line). */
int campaign_read(const char *path, campaign *c, file_error *err);
void campaign_free(campaign *c);

typedef struct campaign_run {
    const char *dir;           /* the result set */
    const char *bin;           /* where scibench and mpibench are */
    int list;                  /* only print each measurement's state and command */
    int quiet;
} campaign_run;

/* Runs every measurement not finished in r->dir, in order: a complete file
 * is kept, an interrupted one resumed (--resume), a missing one measured.
 * Returns 0, 1 a measurement failed, 130 stopped (resumable). */
int campaign_run_all(const campaign *c, const campaign_run *r);

#endif
