/* colldata: the collectives data file (coll/colldata.h). */
#include "coll/colldata.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/grow.h"

void coll_data_write_row(FILE *fp, const coll_row *r, int node_times)
{
    fprintf(fp, "coll\t%s\t%ld\t%ld\t%ld\t%s\t%ld\t%ld\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s",
            r->op, r->procs, r->root, r->size, r->sync, r->reps, r->dropped, r->min_ns,
            r->median_ns, r->mean_ns, r->sd_ns, r->ci95_ns, r->max_ns, r->noisy ? "noisy" : "ok");
    if (node_times)
        fprintf(fp, "\t%s\t%s", r->node_ns, r->node_mean_ns[0] ? r->node_mean_ns : "-");
    fputc('\n', fp);
}

static int header(coll_data *d, const char *line, long ln, file_error *err, int *columns)
{
    const char *v = strchr(line, ':');
    if (!v)
        return 0;
    size_t k = (size_t)(v - line);
    for (v++; *v == ' '; v++)
        ;
#define KEY(s) (k == strlen(s) && !strncmp(line, s, k))
    if (KEY("pattern") && strcmp(v, "coll"))
        return file_error_set(err, ln, "pattern '%s', not a collectives file (pattern coll)", v);
    if (KEY("op"))
        snprintf(d->op, sizeof d->op, "%s", v);
    if (KEY("sync"))
        snprintf(d->sync, sizeof d->sync, "%s", v);
    if (KEY("algorithm"))
        snprintf(d->algorithm, sizeof d->algorithm, "%s", v);
    if (KEY("columns")) {
        size_t n = strlen(COLL_COLUMNS);
        /* files written before node_mean_ns have node_ns alone */
        if (strncmp(v, COLL_COLUMNS, n) ||
            (v[n] && strcmp(v + n, " node_ns") && strcmp(v + n, " " COLL_NODE_COLUMN)))
            return file_error_set(err, ln, "columns are not '%s [node_ns [node_mean_ns]]'",
                                  COLL_COLUMNS);
        *columns = !v[n] ? 1 : strcmp(v + n, " node_ns") ? 3 : 2;
    }
    return 0;
#undef KEY
}

static int row(coll_data *d, char *line, long ln, file_error *err, int columns)
{
    coll_row r;
    memset(&r, 0, sizeof r);
    char flag[16], pat[16];
    int used = 0, used2 = 0;
    int n = sscanf(line, "%15s %15s %ld %ld %ld %15s %ld %ld %lf %lf %lf %lf %lf %lf %15s%n", pat,
                   r.op, &r.procs, &r.root, &r.size, r.sync, &r.reps, &r.dropped, &r.min_ns,
                   &r.median_ns, &r.mean_ns, &r.sd_ns, &r.ci95_ns, &r.max_ns, flag, &used);
    if (n != 15 || strcmp(pat, "coll") || r.procs < 1 || r.size < 0 || r.median_ns < 0 ||
        (strcmp(flag, "ok") && strcmp(flag, "noisy")))
        return file_error_set(err, ln, "malformed row (want %d columns: %s%s)",
                              15 + (columns - 1), COLL_COLUMNS,
                              columns == 3 ? " " COLL_NODE_COLUMN : columns == 2 ? " node_ns" : "");
    r.noisy = !strcmp(flag, "noisy");
    if (columns >= 2 && sscanf(line + used, " %511s%n", r.node_ns, &used2) != 1)
        return file_error_set(err, ln, "row without its node_ns column");
    if (columns == 3 && sscanf(line + used + used2, " %511s", r.node_mean_ns) != 1)
        return file_error_set(err, ln, "row without its node_mean_ns column");
    if (UTIL_GROW(d->rows, d->count, d->cap, 32))
        return file_error_set(err, ln, "out of memory");
    d->rows[d->count++] = r;
    return 0;
}

int coll_data_read(const char *path, coll_data *d, file_error *err)
{
    memset(d, 0, sizeof *d);
    memset(err, 0, sizeof *err);
    FILE *fp = file_open_input(path);
    if (!fp)
        return file_error_sys(err, errno);
    char line[4096];
    long ln = 0;
    int rc = 0, columns = 0;
    while (!rc && fgets(line, sizeof line, fp)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        if (ln == 1 && strcmp(line, "# scitorus-bench 1"))
            rc = file_error_set(err, 1, "not a scitorus bench file (first line '# scitorus-bench 1')");
        else if (!strcmp(line, "# incomplete"))
            d->incomplete = 1;
        else if (line[0] == '#')
            rc = header(d, line + 2 * (line[1] == ' '), ln, err, &columns);
        else if (line[0] && !columns)
            rc = file_error_set(err, ln, "a row before the '# columns:' line");
        else if (line[0])
            rc = row(d, line, ln, err, columns);
    }
    if (!rc && ferror(fp))
        rc = file_error_sys(err, EIO);
    if (!rc && !columns)
        rc = file_error_set(err, 0, "no '# columns:' line (not a collectives file)");
    fclose(fp);
    if (rc)
        coll_data_free(d);
    return rc;
}

void coll_data_free(coll_data *d)
{
    free(d->rows);
    d->rows = NULL;
    d->count = d->cap = 0;
}

const coll_row *coll_data_find(const coll_data *d, long procs, long size)
{
    for (long i = 0; i < d->count; i++)
        if (d->rows[i].procs == procs && d->rows[i].size == size)
            return &d->rows[i];
    return NULL;
}
