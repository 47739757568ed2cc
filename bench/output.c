/* output: a data file's header, opening an output, and its end -- a
 * complete run replaces the file; an interrupted one never destroys one. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli.h"
#include "benchdata/regime.h"
#include "benchdata/stats.h"
#include "util/grow.h"

void bench_cli_header_start(const bench_cli *c, bench_data *h)
{
    char host[256] = "unknown", when[64];
    time_t now = time(NULL);
    struct tm tm;
    gethostname(host, sizeof host - 1);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    memset(h, 0, sizeof *h);
    bench_data_set_header(h, "backend", "%s", c->be->name);
    bench_data_set_header(h, "host", "%s", host);
    bench_data_set_header(h, "date", "%s", when);
    bench_data_set_header(h, "command", "%s", c->command);
    bench_data_set_header(h, "timer", "%s", c->be->timer_name);   /* completed by the run */
    c->bc->header(&c->setup, h);
}

void bench_cli_header_shape(const topo_shape *sh, bench_data *h)
{
    char shape[TOPO_MAX_DIMS * 21];
    topo_shape_format(sh, shape, sizeof shape);
    bench_data_set_header(h, "topology", "%s %s", sh->dims == 1 ? "ring" : "torus", shape);
}

const char *bench_cli_error_text(int rc)
{
    switch (rc) {
    case BENCH_ERR_PEER: return "a peer process died";
    case BENCH_ERR_TIMEOUT: return "no progress within --timeout";
    case BENCH_ERR_INTERRUPT: return "interrupted";
    case BENCH_ERR_OUTPUT: return "writing the output failed (a full disk?)";
    case BENCH_ERR_OVERRUN: return "a message was overwritten before it was read (internal"
                                   " error: please report it)";
    case BENCH_ERR_TAGS: return "the networks need more MPI tags than this MPI allows (fewer"
                                " nodes or fewer --interleave networks)";
    default: return strerror(errno ? errno : EIO);
    }
}

int bench_cli_status(int rc)
{
    if (!rc)
        return 0;
    return rc == BENCH_ERR_INTERRUPT ? EXIT_INTERRUPTED : rc == BENCH_ERR_TAGS ? EXIT_USAGE
                                                                                : EXIT_FAILURE;
}

int bench_cli_open(const bench_cli *c, const char *opt, const char *path, atomic_file *af,
                   FILE **out)
{
    *af = (atomic_file){NULL, NULL, NULL, 0, NULL};
    *out = stdout;
    if (!path) {
        FILE *fp = c->bc->open_stdout ? c->bc->open_stdout() : NULL;
        if (fp) {
            fflush(stdout);
            *out = fp;
        }
        return 0;
    }
    /* journaled: whatever ends the run (a SIGKILL after a peer died), the
     * rows written so far stay in PATH.incomplete, marked incomplete */
    if (atomic_file_open_journal(af, path, BENCH_DATA_INCOMPLETE, c->resume_path)) {
        fprintf(stderr, "%s: %s '%s': %s\n", c->prog, opt, path, file_strerror(errno));
        return -1;
    }
    *out = af->fp;
    return 0;
}

int bench_cli_commit(const bench_cli *c, atomic_file *af, FILE *out, const char *path, int rc,
                     const char *what)
{
    char where[PATH_MAX + 16];
    const char *prog = c->prog;
    int resumed = c->resume_path && path && file_same(path, c->resume_path);
    if (rc)
        bench_data_write_incomplete(out);
    if (af->fp && (fflush(af->fp) != 0 || ferror(af->fp))) {
        /* rows were lost on the way (a full disk): keep nothing, as the
         * file could end in the middle of a row */
        int e = errno;
        atomic_file_abort(af);
        fprintf(stderr, "%s: '%s': writing failed (%s); nothing written, any previous file"
                        " left as it was\n", prog, path, file_strerror(e ? e : EIO));
        return -1;
    }
    if (!af->fp && out != stdout) {   /* the launcher's standard output */
        int bad = fflush(out) != 0 || ferror(out), e = errno;
        if (fclose(out) != 0 && !bad)
            bad = 1, e = errno;
        if (bad) {
            fprintf(stderr, "%s: standard output: %s\n", prog, file_strerror(e ? e : EIO));
            return -1;
        }
    }
    if (!af->fp) {
        if (rc)
            fprintf(stderr, "%s: %s%s\n", prog, bench_cli_error_text(rc),
                    rc == BENCH_ERR_OUTPUT ? "" : "; output marked '# incomplete'");
        return 0;
    }
    if (rc && !resumed ? atomic_file_commit_partial(af, where, sizeof where)
                       : atomic_file_commit(af)) {
        fprintf(stderr, "%s: '%s': %s\n", prog, path, file_strerror(errno));
        return -1;
    }
    if (rc && !resumed && strcmp(where, path) != 0)
        fprintf(stderr, "%s: %s; finished %s kept in '%s', marked '# incomplete' ('%s'"
                        " exists and is left as it was; continue with --resume %s)\n",
                prog, bench_cli_error_text(rc), what, where, path, where);
    else if (rc)
        fprintf(stderr, "%s: %s; finished %s kept in '%s', marked '# incomplete'\n",
                prog, bench_cli_error_text(rc), what, path);
    return 0;
}

/* A data row's place: destination (column 3), then size (column 10), then
 * the order it was written in, so that repeated runs keep theirs. */
typedef struct row_key {
    long dst, size, seq;
    char *line;
} row_key;

static int by_point(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->dst != y->dst)
        return (x->dst > y->dst) - (x->dst < y->dst);
    if (x->size != y->size)
        return (x->size > y->size) - (x->size < y->size);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static long column(const char *line, int k)
{
    for (int i = 1; i < k && line; i++)
        if ((line = strchr(line, '\t')))
            line++;
    return line ? strtol(line, NULL, 10) : 0;
}

/* Writes rows[0..n) after the header lines head[0..nh), atomically. */
static int write_sorted(const char *path, char **head, size_t nh, row_key *rows, size_t n)
{
    atomic_file af;
    if (atomic_file_open(&af, path))
        return -1;
    for (size_t i = 0; i < nh; i++)
        fputs(head[i], af.fp);
    for (size_t i = 0; i < n; i++)
        fputs(rows[i].line, af.fp);
    if (fflush(af.fp) != 0 || ferror(af.fp)) {
        int e = errno;
        atomic_file_abort(&af);
        errno = e ? e : EIO;
        return -1;
    }
    return atomic_file_commit(&af);
}

int bench_sort_rows(const char *prog, const char *path)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;   /* a device or a pipe takes the rows as they came */
    FILE *fp = file_open_input(path);
    char *line = NULL, **head = NULL;
    size_t len = 0, nh = 0, caph = 0, n = 0, cap = 0;
    row_key *rows = NULL;
    int rc = fp ? 0 : -1;
    while (!rc && getline(&line, &len, fp) > 0) {
        if (line[0] == '#' && n == 0) {
            if ((rc = UTIL_GROW(head, nh, caph, 16)) == 0)
                head[nh++] = line;
            else
                free(line);
        } else if (line[0] == '#' || (rc = UTIL_GROW(rows, n, cap, 64)) != 0) {
            rc = -1;   /* a comment after the rows: not a file of ours to reorder */
            free(line);
        } else {
            rows[n] = (row_key){column(line, 3), column(line, 10), (long)n, line};
            n++;
        }
        line = NULL, len = 0;
    }
    free(line);
    if (fp)
        fclose(fp);
    if (!rc) {
        qsort(rows, n, sizeof *rows, by_point);
        if (write_sorted(path, head, nh, rows, n))
            fprintf(stderr, "%s: '%s': rows left in the order they were measured: %s\n", prog, path,
                    file_strerror(errno));
    }
    for (size_t i = 0; i < nh; i++)
        free(head[i]);
    for (size_t i = 0; i < n; i++)
        free(rows[i].line);
    free(head);
    free(rows);
    return 0;
}

/* The median, the figure calibrate fits (its default --stat), and its own interval: a mean
 * that one descheduled batch pulls up says little about it. */
void bench_progress(const bench_config *cfg, const bench_point *pt, const bench_stats *st,
                    long index, long total)
{
    double lo = NAN, hi = NAN;
    if (cfg->quiet)
        return;
    bench_stats_median_ci95(st, &lo, &hi);
    fprintf(stderr, "%s: [%ld/%ld] %s %ld->%ld (%ld hops) %7ld B: median %.1f ns (95%% CI %.1f"
                    "..%.1f), %ld x %ld reps%s", cfg->prog, index, total, pt->pattern, pt->src,
            pt->dst, pt->hops, pt->size_bytes, pt->median_ns, lo, hi, pt->samples, pt->reps,
            pt->noisy ? ", noisy" : "");
    if (pt->floor_ns > 0)
        fprintf(stderr, ", floor %.1f ns (%.1f..%.1f)%s", pt->floor_ns, pt->floor_q1_ns,
                pt->floor_q3_ns, bench_regime_spans(pt->floor_q1_ns, pt->floor_q3_ns)
                                      ? ", spans regimes" : "");
    for (int i = 0; i < pt->nodes; i++)
        fprintf(stderr, "%s%.1f", i ? "," : ", node times ", pt->node_ns[i]);
    fputc('\n', stderr);
}

/* The share of the run's points flagged noisy, said after every run but a
 * quiet one (-q: the rows' flags say it), as a warning over a tenth. */
#define NOISY_WARN_SHARE 0.10
void bench_noisy_report(const bench_config *cfg, long measured, long noisy, long spanning)
{
    int many = (double)noisy > NOISY_WARN_SHARE * (double)measured;
    if (measured && !cfg->quiet && spanning >= 0)
        fprintf(stderr, "%s: %ld of %ld points spanned regimes (their floors' quartiles over %gx"
                        " apart)\n", cfg->prog, spanning, measured, BENCH_REGIME_RATIO);
    if (measured && !cfg->quiet)
        fprintf(stderr, "%s: %s%ld of %ld points noisy (their median's %.0f%% interval reaches"
                        " beyond +-%.3g%% of it, %.2f x --rel-error %g)%s\n", cfg->prog,
                many ? "warning: " : "", noisy, measured, 100 * BENCH_NOISY_LEVEL,
                100 * BENCH_NOISY_Z * cfg->rel_error, BENCH_NOISY_Z, cfg->rel_error,
                many ? ": they reached --max-time or --max-samples first (a busy machine, or too"
                " short a run)" : "");
}
