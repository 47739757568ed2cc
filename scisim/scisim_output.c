/* scisim_output: where the results go (-o FILE atomically, else standard
 * output), per-rank rows, progress on stderr and Ctrl-C. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/signals.h"
#include "scisim/scisim.h"
#include "util/atomicfile.h"

struct scisim_out {
    atomic_file af;
    int file;
    const char *path;
};

scisim_out *scisim_out_open(const scisim_opts *o)
{
    scisim_out *out = calloc(1, sizeof *out);
    if (!out) {
        scisim_runtime_error("out of memory");
        return NULL;
    }
    if (o->out_path && strcmp(o->out_path, "-")) {
        if (atomic_file_open(&out->af, o->out_path)) {
            scisim_runtime_error("-o %s: %s", o->out_path, file_strerror(errno));
            free(out);
            return NULL;
        }
        out->file = 1;
        out->path = o->out_path;
    }
    return out;
}

int scisim_interrupted_reading(const scisim_opts *o)
{
    fprintf(stderr, "scisim: interrupted while reading %s: nothing replayed, nothing written\n",
            o->goal_path);
    return 130;
}

FILE *scisim_out_fp(scisim_out *out)
{
    return out->file ? out->af.fp : stdout;
}

int scisim_out_close(scisim_out *out, int partial, long finished)
{
    int rc = partial ? 130 : 0;
    if (partial && finished == 0 && out->file) {
        /* a file of headers alone would pass for results: keep what was there */
        atomic_file_abort(&out->af);
        fprintf(stderr, "scisim: interrupted before any result was finished: nothing written "
                        "to %s\n", out->path);
    } else if (out->file) {
        char where[4096];
        if (partial)
            fputs(SCISIM_INCOMPLETE, out->af.fp);
        int bad = partial ? atomic_file_commit_partial(&out->af, where, sizeof where)
                          : atomic_file_commit(&out->af);
        if (bad)
            rc = scisim_runtime_error("-o %s: %s", out->path, file_strerror(errno));
        else if (partial)
            fprintf(stderr, "scisim: interrupted: the %ld finished result%s in %s, which ends "
                            "'%.12s'\n", finished, finished == 1 ? " is" : "s are", where,
                    SCISIM_INCOMPLETE);
    } else if (partial) {
        fputs(SCISIM_INCOMPLETE, stdout);
        if (finished)
            fprintf(stderr, "scisim: interrupted: only the %ld finished result%s above\n",
                    finished, finished == 1 ? " is" : "s are");
        else
            fprintf(stderr, "scisim: interrupted before any result was finished\n");
    }
    free(out);
    if (file_close_stdout("scisim"))
        rc = 1;
    return rc;
}

void scisim_print_ranks(FILE *fp, const sim_result *r)
{
    fputs("rank\tfinish_ns\n", fp);
    for (uint32_t i = 0; i < r->ranks; i++)
        fprintf(fp, "%u\t%.17g\n", i, r->finish[i]);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* arg: a const char * naming the replay ("4x4x4"); at a replay's first
 * call, so that its start shows, then every 2 s at most. */
void scisim_progress(void *arg, uint64_t events, uint64_t done, uint64_t ops)
{
    static double start, last;
    static char current[64];
    double t = now_s();
    if (strncmp(current, (const char *)arg, sizeof current - 1) != 0) {
        snprintf(current, sizeof current, "%s", (const char *)arg);
        start = last = t;
    } else if (t - last < 2.0) {
        return;
    }
    last = t;
    fprintf(stderr, "scisim: %s: %llu of %llu operations, %llu events (%.0f s)\n",
            (const char *)arg, (unsigned long long)done, (unsigned long long)ops,
            (unsigned long long)events, t - start);
}

int scisim_stop(void)
{
    return bench_interrupted();
}
