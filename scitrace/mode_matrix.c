/* mode_matrix: `scitrace matrix -o FILE DIR`, the traffic matrix of a trace
 * directory (docs/formats.md, 'Traffic matrix'). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/build_matrix.h"
#include "scitrace/modes.h"
#include "trace/tracekinds.h"
#include "util/opt.h"

typedef struct matrix_opts {
    const char *out, *phase;
    int collectives, allow_missing, partial;
    uint64_t calls;
    expand_choice choice;
} matrix_opts;

static int parse_algorithm(void *dest, const char *arg, char *why, size_t len)
{
    return expand_choice_add(&((matrix_opts *)dest)->choice, arg, why, len);
}

/* --calls a,b,c: a bit per kind named. */
static int parse_calls(void *dest, const char *arg, char *why, size_t len)
{
    char buf[512], *save = NULL;
    uint64_t *calls = &((matrix_opts *)dest)->calls;
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = trace_kind_from_name(t);
        if (k < 0) {
            snprintf(why, len, "'%s' is not a call scitrace records", t);
            return -1;
        }
        *calls |= (uint64_t)1 << k;
    }
    if (!*calls)
        snprintf(why, len, "no call named");
    return *calls ? 0 : -1;
}

static const opt_spec matrix_specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(matrix_opts, out),
     .arg = "FILE", .help = "where to write (temporary name, then renamed; - is\nstandard output); "
     "never one of DIR's rank files"},
    {.name = "collectives", .kind = OPT_ENUM, .field = offsetof(matrix_opts, collectives),
     .choices = (const char *const[]){"expand", "p2p-only", NULL}, .def = "expand", .arg = "C",
     .help = "expand: collectives as the point-to-point messages of\nthe algorithm the MPI "
     "runs (--algorithm); p2p-only: leave\nthem out"},
    {.name = "algorithm", .kind = OPT_CUSTOM, .parse = parse_algorithm, .arg = "ALG",
     .repeat = 1, .bad = "allreduce=foo", .help = EXPAND_ALGORITHM_HELP},
    {.name = "calls", .kind = OPT_CUSTOM, .parse = parse_calls, .arg = "LIST", .bad = "foo",
     .help = "only these calls, by the names `scitrace summary`\nprints (e.g. alltoall or "
     "isend,irecv); default all"},
    {.name = "phase", .kind = OPT_STRING, .field = offsetof(matrix_opts, phase), .arg = "NAME",
     .help = "only the calls of phase NAME (`scitrace summary`\nlists them; all: every phase)"},
    {.name = "allow-missing", .kind = OPT_FLAG, .field = offsetof(matrix_opts, allow_missing),
     .help = "write the matrix even when ranks left no rank file\n(their sends are then absent)"},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(matrix_opts, partial),
     .help = "write the matrix of an incomplete trace (killed,\ncrashed, cut short or missing ranks)"},
};

static const opt_program matrix_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace matrix [OPTIONS] -o FILE DIR\n"
"Write the traffic matrix of the trace in DIR to FILE (docs/formats.md,\n"
"'Traffic matrix'):\n"
"\n"
"  # scitorus-traffic 1\n"
"  # ranks: P\n"
"  # source: trace of `mpirun -np P COMMAND` (host, date)\n"
"  # collectives: how they were expanded, then per collective\n"
"  # collective: OP on N ranks, M B: ALGORITHM (why)\n"
"  # columns: src dst size_bytes messages\n"
"  0<TAB>1<TAB>4096<TAB>1200\n"
"\n"
"one row per (sender, receiver, message size) of MPI_COMM_WORLD ranks, sorted\n"
"by src, dst, size.  Messages a rank sends to itself are rows too.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 written, 1 a rank file is malformed or FILE cannot be\n"
"written, 2 usage error, 3 an incomplete trace (a rank killed, crashed or\n"
"cut short, a call that never returned, a missing rank file) without\n"
"--partial.\n",
    .specs = matrix_specs,
    .nspecs = sizeof matrix_specs / sizeof matrix_specs[0],
    .args_min = 1,
    .args_max = 1,
};

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
    matrix_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&matrix_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    if (!o.out)
        return opt_usage_error(&matrix_program, "matrix: -o FILE is required");
    const char *out = o.out, *phase = o.phase;
    int with = o.collectives == 0, allow_missing = o.allow_missing || o.partial, rc = 1;
    uint64_t calls = o.calls;
    const char *dir = argv[st.first_arg];
    trace_dir d;
    trace_error err;
    if (trace_dir_load(dir, phase, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    if (!o.choice.lib)   /* as the traced library chooses */
        o.choice.lib = expand_library_of(&d);
    int missing = d.nranks - d.nloaded;
    if (is_rank_file(&d, out))
        goto out;
    if (trace_dir_incomplete(&d, err.msg, sizeof err.msg) > missing || !allow_missing) {
        if ((rc = scitrace_require_whole(&d, "matrix", o.partial)) != 0)
            goto out;
        rc = 1;
    }
    for (int r = 0; r < d.nranks && missing; r++)
        if (!d.loaded[r]) {
            fprintf(stderr, "scitrace: %s: rank %d left no rank file (rank-%05d.trace)%s\n", dir,
                    r, r, allow_missing ? "; its sends are not in the matrix" : "");
            if (!allow_missing)
                goto out;
        }
    trace_matrix m;
    const expand_choice *choice = with ? &o.choice : NULL;
    if (trace_matrix_build_with(&d, choice, calls, &m, &err) != 0) {
        fprintf(stderr, "scitrace: %s: %s\n", dir, err.msg);
        goto out;
    }
    int r0 = 0;
    while (!d.loaded[r0])
        r0++;
    phase = phase && strcmp(phase, "all") ? phase : NULL;
    if (trace_matrix_write(&m, out, d.ranks[r0].command, d.ranks[r0].host, d.date, &d, choice,
                           phase) != 0) {
        fprintf(stderr, "scitrace: cannot write '%s': %s\n", out, strerror(errno));
    } else {
        rc = 0;
        if (choice)
            expand_report(stderr, "scitrace: matrix: ", &d, phase, choice);
    }
    trace_matrix_free(&m);
out:
    trace_dir_free(&d);
    return rc;
}
