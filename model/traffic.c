/* traffic: strict readers for traffic matrices and placement files
 * (docs/formats.md, 'Traffic matrix'); every rejection names the line and what is wrong. */
#include "model/traffic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/grow.h"
#include "util/parse.h"

#define TRAFFIC_MAGIC "# scitorus-traffic 1"
#define TRAFFIC_COLUMNS "src dst size_bytes messages"

/* Opens a regular file for reading through the project's one input
 * helper (util/atomicfile.h): a FIFO or a device is refused without ever
 * blocking on it, a directory too. */
static FILE *open_regular(const char *path, traffic_error *err, int *rc)
{
    FILE *fp = file_open_input(path);
    if (!fp) {
        *rc = file_error_sys(err, errno);
    }
    return fp;
}

/* Reads one line (without its end, CR of a CRLF dropped) into buf of
 * TRAFFIC_MAX_LINE + 1 bytes.  Returns 1, 0 at end of file, -2 on a line
 * too long or binary data (err filled), -1 on a read error. */
static int read_line(FILE *fp, char *buf, long line, traffic_error *err)
{
    size_t n = 0;
    int c;
    while ((c = getc(fp)) != EOF && c != '\n') {
        if (c == '\0')
            return file_error_set(err, line, "binary data (a NUL byte)");
        if (n == TRAFFIC_MAX_LINE)
            return file_error_set(err, line, "line longer than %d characters", TRAFFIC_MAX_LINE);
        buf[n++] = (char)c;
    }
    if (ferror(fp))
        return file_error_sys(err, errno ? errno : EIO);
    if (c == EOF && n == 0)
        return 0;
    if (n && buf[n - 1] == '\r')
        n--;
    buf[n] = '\0';
    return 1;
}

/* Splits s at tabs into exactly `want` fields; returns the count found (up
 * to want + 1). */
static int split_tabs(char *s, char **field, int want)
{
    int n = 0;
    for (;;) {
        if (n <= want)
            field[n] = s;
        n++;
        char *t = strchr(s, '\t');
        if (!t || n > want)
            return n;
        *t = '\0';
        s = t + 1;
    }
}

typedef struct field_spec {
    const char *name;
    long min, max;
} field_spec;

/* src and dst maxima are set from the ranks header. */
static int parse_row(char *text, long line, long ranks, traffic_row *row, traffic_error *err)
{
    const field_spec spec[4] = {
        {"src", 0, ranks - 1},
        {"dst", 0, ranks - 1},
        {"size_bytes", 0, TRAFFIC_MAX_SIZE_BYTES},
        {"messages", 1, TRAFFIC_MAX_MESSAGES},
    };
    char *field[5];
    long v[4];
    int n = split_tabs(text, field, 4);
    if (n != 4)
        return file_error_set(err, line, "expected 4 tab-separated fields (%s), got %d",
                    TRAFFIC_COLUMNS, n > 4 ? 5 : n);
    for (int i = 0; i < 4; i++) {
        parse_status st = parse_long(field[i], spec[i].min, spec[i].max, &v[i]);
        if (st == PARSE_RANGE && i < 2)
            return file_error_set(err, line, "%s '%.40s': rank out of range 0..%ld (# ranks: %ld)",
                        spec[i].name, field[i], ranks - 1, ranks);
        if (st)
            return file_error_set(err, line, "%s '%.40s': %s, expected %ld..%ld", spec[i].name,
                        field[i], parse_status_text(st), spec[i].min, spec[i].max);
    }
    row->src = (int32_t)v[0];
    row->dst = (int32_t)v[1];
    row->size_bytes = v[2];
    row->messages = v[3];
    return 0;
}

/* "# grid: SHAPE (how it was found)": 1..4 dimensions. */
static int parse_grid(const char *v, long line, topo_shape *grid, traffic_error *err)
{
    char text[64];
    topo_parse_error perr;
    size_t n = strcspn(v, " ");
    if (n == 0 || n >= sizeof text)
        return file_error_set(err, line, "grid '%.40s': expected a shape such as 3x2", v);
    memcpy(text, v, n);
    text[n] = '\0';
    if (topo_shape_parse(text, grid, &perr) || grid->dims > 4)
        return file_error_set(err, line, "grid '%.40s': expected a shape of 1..4 dimensions", text);
    return 0;
}

/* A "# key: value" header line; only ranks, columns and grid mean anything. */
static int parse_header(const char *text, long line, int have_rows, long *ranks,
                        topo_shape *grid, traffic_error *err)
{
    const char *v;
    if (strncmp(text, "# grid:", 7) == 0) {
        if (grid->dims)
            return file_error_set(err, line, "duplicate '# grid:' line");
        return parse_grid(text + 7 + strspn(text + 7, " "), line, grid, err);
    }
    if (strncmp(text, "# ranks:", 8) == 0) {
        if (*ranks)
            return file_error_set(err, line, "duplicate '# ranks:' line");
        if (have_rows)
            return file_error_set(err, line, "'# ranks:' after the first row");
        v = text + 8 + strspn(text + 8, " ");
        parse_status st = parse_long(v, 1, TRAFFIC_MAX_RANKS, ranks);
        if (st)
            return file_error_set(err, line, "ranks '%.40s': %s, expected 1..%ld", v,
                        parse_status_text(st), TRAFFIC_MAX_RANKS);
    } else if (strncmp(text, "# columns:", 10) == 0) {
        v = text + 10 + strspn(text + 10, " ");
        if (strcmp(v, TRAFFIC_COLUMNS) != 0)
            return file_error_set(err, line, "columns '%.60s': expected '%s'", v, TRAFFIC_COLUMNS);
    }
    return 0;
}

static int read_matrix(FILE *fp, traffic_matrix *t, traffic_error *err)
{
    char buf[TRAFFIC_MAX_LINE + 1];
    size_t cap = 0;
    long line = 0;
    int rc;
    while ((rc = read_line(fp, buf, ++line, err)) == 1) {
        if (line == 1) {
            if (strcmp(buf, TRAFFIC_MAGIC) != 0)
                return file_error_set(err, line, "not a traffic matrix: expected '%s' first",
                            TRAFFIC_MAGIC);
            continue;
        }
        if (buf[0] == '#') {
            if ((rc = parse_header(buf, line, t->rows > 0, &t->ranks, &t->grid, err)))
                return rc;
            continue;
        }
        if (buf[strspn(buf, " \t")] == '\0')
            continue;
        if (!t->ranks)
            return file_error_set(err, line, "a row before the '# ranks:' line");
        if (t->rows == (size_t)TRAFFIC_MAX_ROWS)
            return file_error_set(err, line, "more than %ld rows", TRAFFIC_MAX_ROWS);
        if (UTIL_GROW(t->row, t->rows, cap, 1024))
            return file_error_sys(err, ENOMEM);
        traffic_row *r = &t->row[t->rows];
        if ((rc = parse_row(buf, line, t->ranks, r, err)))
            return rc;
        t->rows++;
        t->messages += (double)r->messages;
        t->bytes += (double)r->messages * (double)r->size_bytes;
    }
    if (rc)
        return rc;
    if (line == 1)
        return file_error_set(err, 0, "empty file");
    if (!t->ranks)
        return file_error_set(err, 0, "no '# ranks:' line");
    if (!t->rows)
        return file_error_set(err, 0, "no rows (the application sent no message?)");
    if (t->grid.dims && t->grid.nodes != t->ranks)
        return file_error_set(err, 0, "'# grid:' has %ld nodes, the matrix %ld ranks",
                              t->grid.nodes, t->ranks);
    return 0;
}

int traffic_read(const char *path, traffic_matrix *t, traffic_error *err)
{
    int rc = 0;
    memset(t, 0, sizeof *t);
    FILE *fp = open_regular(path, err, &rc);
    if (!fp)
        return rc;
    rc = read_matrix(fp, t, err);
    fclose(fp);
    if (rc)
        traffic_free(t);
    return rc;
}

void traffic_free(traffic_matrix *t)
{
    free(t->row);
    memset(t, 0, sizeof *t);
}

static int read_placement(FILE *fp, long count, long max_node, long *pos, char *used,
                          traffic_error *err)
{
    char buf[TRAFFIC_MAX_LINE + 1];
    long line = 0, j = 0, v;
    int rc;
    while ((rc = read_line(fp, buf, ++line, err)) == 1) {
        char *s = buf + strspn(buf, " \t");
        s[strcspn(s, "#")] = '\0';
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            s[--n] = '\0';
        if (!n)
            continue;
        if (j == count)
            return file_error_set(err, line, "more lines than the %ld nodes placed", count);
        parse_status st = parse_long(s, 0, max_node - 1, &v);
        if (st)
            return file_error_set(err, line, "node '%.40s': %s, expected a torus node 0..%ld", s,
                        parse_status_text(st), max_node - 1);
        if (used[v])
            return file_error_set(err, line, "torus node %ld placed twice", v);
        used[v] = 1;
        pos[j++] = v;
    }
    if (rc)
        return rc;
    if (j < count)
        return file_error_set(err, line - 1, "%ld nodes placed, %ld needed (one line per node)", j,
                    count);
    return 0;
}

int traffic_placement_read(const char *path, long count, long max_node, long *pos,
                           traffic_error *err)
{
    int rc = 0;
    FILE *fp = open_regular(path, err, &rc);
    if (!fp)
        return rc;
    char *used = calloc((size_t)max_node, 1);
    if (!used)
        rc = file_error_sys(err, ENOMEM);
    else
        rc = read_placement(fp, count, max_node, pos, used, err);
    free(used);
    fclose(fp);
    return rc;
}

void traffic_to_nodes(traffic_matrix *t, const long *rank_node, long nodes)
{
    for (size_t k = 0; k < t->rows; k++) {
        t->row[k].src = (int32_t)rank_node[t->row[k].src];
        t->row[k].dst = (int32_t)rank_node[t->row[k].dst];
    }
    t->ranks = nodes;
}
