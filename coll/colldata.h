/* colldata: a collectives data file (mpibench --op): the bench header
 * conventions ("# scitorus-bench 1", "# key: value", "pattern: coll") and
 * one row per (processes, size); columns in docs/formats.md, 'Collective
 * TSV'.  Writer and strict reader in one place. */
#ifndef SCITORUS_COLLDATA_H
#define SCITORUS_COLLDATA_H

#include <stdio.h>

#include "util/file_error.h"

#define COLL_COLUMNS "pattern op procs root size sync reps dropped min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag"
#define COLL_NODE_COLUMN "node_ns node_mean_ns"

typedef struct coll_row {
    char op[16], sync[16];
    long procs, root, size, reps, dropped;
    double min_ns, median_ns, mean_ns, sd_ns, ci95_ns, max_ns;
    int noisy;
    char node_ns[512];    /* per-rank medians, comma-separated ("" without --node-times) */
    char node_mean_ns[512];   /* per-rank means, osu_* -f's per-rank figure ("-": not recorded) */
} coll_row;

typedef struct coll_data {
    char op[16], sync[16], algorithm[40];
    int incomplete;
    long count;
    size_t cap;
    coll_row *rows;
} coll_data;

void coll_data_write_row(FILE *fp, const coll_row *r, int node_times);

/* Reads a collectives file.  Returns 0; -1 it cannot be read; -2 it is not
 * a collectives file or a line is malformed (err->line, err->msg). */
int coll_data_read(const char *path, coll_data *d, file_error *err);
void coll_data_free(coll_data *d);

/* The row of (procs, size), or NULL. */
const coll_row *coll_data_find(const coll_data *d, long procs, long size);

#endif
