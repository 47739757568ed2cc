/* scimerge: merges runs' bench data files into one, as SKaMPI merges its
 * result files (benchmerge.h).  The main reads, merges, writes. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchdata/benchmerge.h"
#include "util/atomicfile.h"
#include "util/exit.h"
#include "util/file_error.h"
#include "util/fs.h"
#include "util/opt.h"

#define MAX_FILES 64

typedef struct merge_opts {
    const char *output;
    int quiet;
} merge_opts;

static const opt_spec specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(merge_opts, output),
     .def = "-", .arg = "FILE",
     .help = "write the merged file there, atomically (default and -: standard output)"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = offsetof(merge_opts, quiet),
     .help = "no summary line on stderr"},
};

static const opt_program prog = {
    .name = "scimerge",
    .synopsis =
"Usage: scimerge [OPTIONS] FILE...\n"
"Merge runs of the same measurement (scibench or mpibench bench files, up to\n"
"64) into one bench file, as SKaMPI merges result files: for every point\n"
"(pattern, source, destination, hop counts, size) of any run, the weighted\n"
"median of the runs' medians, each run weighted by its batches, and the\n"
"merged row is that run's whole row (its statistics and interval).  A run\n"
"that lacks the point's size but measured sizes on both sides of it takes\n"
"part with a point interpolated linearly between them; none is\n"
"extrapolated.  The header is the first file's, with 'merged:' added.\n"
"\n",
    .epilog =
"\n"
"Every FILE must have the same backend, topology and pattern header lines\n"
"as the first (runs of one measurement).  A summary line goes to stderr:\n"
"points written, candidates interpolated, points whose median is one.\n"
"Exit status: 0 success, 1 a file cannot be read or written or is not a\n"
"bench file (the message names the file and line), or the runs differ in\n"
"backend, topology or pattern, 2 usage error.\n"
"\n"
"Examples:\n"
"  scimerge -o ring2.tsv run1.tsv run2.tsv run3.tsv\n"
"  scimerge -q day1/ring6.tsv day2/ring6.tsv > ring6.tsv\n",
    .specs = specs,
    .nspecs = sizeof specs / sizeof specs[0],
    .args_min = 1,
    .args_max = MAX_FILES,
};

/* The header lines that make runs one measurement. */
static const char *const same_keys[] = {"backend", "topology", "pattern"};

static int write_merged(const char *path, const bench_data *d)
{
    if (opt_is_stdio(path)) {
        bench_data_write_header(stdout, d);
        for (long i = 0; i < d->count; i++)
            bench_data_write_point(stdout, &d->points[i]);
        return fs_close_stdout("scimerge");
    }
    if (bench_data_write_file(path, d) != 0) {
        fprintf(stderr, "scimerge: -o '%s': %s\n", path, file_strerror(errno ? errno : EIO));
        return EXIT_FAILURE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("scimerge");
    merge_opts o;
    opt_state st;
    int rc = opt_parse(&prog, argc, argv, &o, &st);
    if (rc)
        return rc == OPT_DONE ? 0 : rc;
    int nin = st.nargs;
    char **files = &argv[st.first_arg];
    fs_file in[MAX_FILES], out = {"-o", o.output};
    for (int i = 0; i < nin; i++)
        in[i] = (fs_file){"FILE", files[i]};
    if ((rc = fs_refuse_same("scimerge", in, nin, &out, 1)) != 0)
        return rc;
    if (fs_refuse_missing_dir("scimerge", &out, 1))
        return EXIT_FAILURE;
    bench_data *d = calloc((size_t)nin, sizeof *d);
    if (!d)
        return fprintf(stderr, "scimerge: out of memory\n"), EXIT_FAILURE;
    int nread = 0;
    rc = 0;
    for (; nread < nin && rc == 0; nread++) {
        bench_read_error err;
        if (bench_data_read(files[nread], &d[nread], &err) != 0) {
            rc = file_error_report(EXIT_FAILURE, "scimerge", files[nread], &err);
            break;
        }
        if (d[nread].incomplete && !o.quiet)
            fprintf(stderr, "scimerge: note: %s is marked incomplete; merging its %ld points\n",
                    files[nread], d[nread].count);
        for (size_t k = 0; k < sizeof same_keys / sizeof same_keys[0] && nread > 0; k++) {
            const char *a = bench_data_header(&d[0], same_keys[k]);
            const char *b = bench_data_header(&d[nread], same_keys[k]);
            if (strcmp(a ? a : "", b ? b : "") != 0) {
                fprintf(stderr, "scimerge: %s:%ld: %s '%s' differs from %s's '%s': not a run of the"
                                " same measurement\n", files[nread],
                        bench_data_header_line(&d[nread], same_keys[k]), same_keys[k],
                        b ? b : "", files[0], a ? a : "");
                rc = EXIT_FAILURE;
            }
        }
    }
    bench_data merged;
    bench_merge_stats ms;
    if (rc == 0 && bench_merge(d, nin, &merged, &ms) != 0) {
        fprintf(stderr, "scimerge: out of memory\n");
        rc = EXIT_FAILURE;
    }
    if (rc == 0) {
        char list[512] = "";
        for (int i = 0; i < nin; i++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "", files[i]);
        }
        bench_data_set_header(&merged, "merged", "%d runs (weighted median, SKaMPI): %s", nin,
                              list);
        rc = write_merged(o.output, &merged);
        if (rc == 0 && !o.quiet)
            fprintf(stderr, "scimerge: %ld points from %d runs; %ld of %ld candidates interpolated,"
                            " %ld points their weighted median\n", ms.points, nin,
                    ms.interpolated, ms.candidates, ms.chosen_interp);
        bench_data_free(&merged);
    }
    for (int i = 0; i < nread && i < nin; i++)
        bench_data_free(&d[i]);
    free(d);
    return rc;
}
