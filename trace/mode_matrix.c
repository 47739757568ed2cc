/* mode_matrix: `scitrace matrix -o FILE DIR`, the traffic matrix of a trace
 * directory (docs/formats.md, 'Traffic matrix'). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/build_matrix.h"
#include "trace/modes.h"
#include "trace/tracekinds.h"

static const char help[] =
"Usage: scitrace matrix [OPTIONS] -o FILE DIR\n"
"Write the traffic matrix of the trace in DIR to FILE (docs/formats.md,\n"
"'Traffic matrix'):\n"
"\n"
"  # scitorus-traffic 1\n"
"  # ranks: P\n"
"  # source: trace of `mpirun -np P COMMAND` (host, date)\n"
"  # collectives: the algorithms they were expanded with\n"
"  # columns: src dst size_bytes messages\n"
"  0<TAB>1<TAB>4096<TAB>1200\n"
"\n"
"one row per (sender, receiver, message size) of MPI_COMM_WORLD ranks, sorted\n"
"by src, dst, size.  Messages a rank sends to itself are rows too.\n"
"\n"
"  -o, --output FILE     where to write (temporary name, then renamed; - is\n"
"                        standard output); never one of DIR's rank files\n"
"  --collectives C       expand (default): collectives as the point-to-point\n"
"                        messages of the algorithms in `scitrace --help`;\n"
"                        p2p-only: leave every collective out\n"
"  --calls LIST          only these calls, by the names `scitrace summary`\n"
"                        prints (e.g. alltoall or isend,irecv); default all\n"
"  --phase NAME|all      only the calls of phase NAME (`scitrace summary`\n"
"                        lists them); default all\n"
"  --allow-missing       write the matrix even when ranks left no rank file\n"
"                        (their sends are then absent); default: refuse\n"
"  -h, --help            this text;  --version  the version\n"
"\n"
"Exit status: 0 written, 1 a rank file is malformed or missing or FILE\n"
"cannot be written, 2 usage error.\n";

/* --calls a,b,c: a bit per kind named. */
static int parse_calls(const char *arg, uint64_t *calls)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = trace_kind_from_name(t);
        if (k < 0)
            return scitrace_usage_error("matrix: --calls '%s': '%s' is not a call scitrace "
                                        "records", arg, t);
        *calls |= (uint64_t)1 << k;
    }
    return *calls ? 0 : scitrace_usage_error("matrix: --calls '%s': no call named", arg);
}

/* 1 when path is one of the trace's rank files (same device and inode). */
static int is_rank_file(const trace_dir *d, const char *path)
{
    struct stat a, b;
    if (strcmp(path, "-") == 0 || stat(path, &a) != 0)
        return 0;
    for (int r = 0; r < d->nranks; r++)
        if (d->loaded[r] && stat(d->ranks[r].path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            fprintf(stderr, "scitrace: matrix: -o '%s' is the same file as %s, an input\n",
                    path, d->ranks[r].path);
            return 1;
        }
    return 0;
}

int scitrace_matrix(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"collectives", required_argument, NULL, 'c'},
        {"allow-missing", no_argument, NULL, 'm'},
        {"calls", required_argument, NULL, 'k'},
        {"phase", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *phase = NULL;
    int with = 1, allow_missing = 0, c, status = 0;
    uint64_t calls = 0;
    unsigned long long seen = 0;
    optind = 1;
    while ((c = scitrace_getopt("matrix", help, argc, argv, "o:h", opts, &seen, &status)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'c':
            if (scitrace_parse_collectives(optarg, &with))
                return EXIT_USAGE;
            break;
        case 'm': allow_missing = 1; break;
        case 'k':
            if (parse_calls(optarg, &calls))
                return EXIT_USAGE;
            break;
        case 'p': phase = optarg; break;
        default: return status;
        }
    }
    if (optind != argc - 1)
        return scitrace_usage_error("matrix: expected one trace directory, got %d arguments",
                                    argc - optind);
    if (!out)
        return scitrace_usage_error("matrix: -o FILE is required");
    const char *dir = argv[optind];
    trace_dir d;
    trace_error err;
    if (trace_dir_load(dir, phase, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    int missing = d.nranks - d.nloaded, rc = 1;
    if (is_rank_file(&d, out))
        goto out;
    for (int r = 0; r < d.nranks && missing; r++)
        if (!d.loaded[r]) {
            fprintf(stderr, "scitrace: %s: rank %d left no rank file (rank-%05d.trace)%s\n", dir,
                    r, r, allow_missing ? "; its sends are not in the matrix" : "");
            if (!allow_missing)
                goto out;
        }
    trace_matrix m;
    if (trace_matrix_build(&d, with, calls, &m, &err) != 0) {
        fprintf(stderr, "scitrace: %s: %s\n", dir, err.msg);
        goto out;
    }
    int r0 = 0;
    while (!d.loaded[r0])
        r0++;
    if (trace_matrix_write(&m, out, d.ranks[r0].command, d.ranks[r0].host, d.date, with,
                           phase && strcmp(phase, "all") ? phase : NULL) != 0)
        fprintf(stderr, "scitrace: cannot write '%s': %s\n", out, strerror(errno));
    else
        rc = 0;
    trace_matrix_free(&m);
out:
    trace_dir_free(&d);
    return rc;
}
