/* libFuzzer target: the GOAL writer's input, a trace directory.  The input
 * is split at "\n--\n" into rank files (rank i the i-th part, at most
 * FUZZ_RANKS), read as `scitrace goal --partial` reads them, and a schedule
 * trace_goal_write writes of them must be one scisim reads (goal_parse):
 * anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/goal.h"
#include "trace/tracegoal.h"

#define FUZZ_RANKS 8

static char dir[64];

static void clean(void)
{
    char path[128];
    for (int i = 0; i < FUZZ_RANKS; i++) {
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, i);
        unlink(path);
    }
}

static void remove_dir(void)
{
    clean();
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "/dev/shm/fuzz-tracegoal-%ld", (long)getpid());
    mkdir(dir, 0700);
    atexit(remove_dir);
    return 0;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        abort();
    if (n && fwrite(p, 1, n, fp) != n)
        abort();
    fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    clean();
    size_t at = 0;
    for (int i = 0; i < FUZZ_RANKS && at <= size; i++) {
        const uint8_t *sep = size - at >= 4 ? memmem(data + at, size - at, "\n--\n", 4) : NULL;
        size_t end = sep ? (size_t)(sep - data) + 1 : size;
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, i);
        write_file(path, data + at, end - at);
        if (!sep)
            break;
        at = end + 3;
    }
    /* what scitrace goal refuses before writing: an unreadable or
     * oversized trace, a rank without its file */
    trace_dir d;
    trace_error terr;
    if (trace_dir_load(dir, NULL, &d, &terr) != 0)
        return 0;
    int ok = trace_dir_within(&d, GOAL_MAX_SIZE, &terr) == 0;
    for (int r = 0; r < d.nranks; r++)
        ok &= d.loaded[r] != 0;
    char *text = NULL, why[600];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    expand_choice choice = {.lib = expand_library_of(&d)};
    int rc = ok ? trace_goal_write(mem, &d, NULL, &choice, why, sizeof why) : 1;
    fclose(mem);
    trace_dir_free(&d);
    if (rc != 0) {
        free(text);
        return 0;
    }
    goal_schedule s;
    goal_error err;
    int prc = goal_parse(text, len, &s, &err);
    if (prc == -2) {
        fprintf(stderr, "fuzz_tracegoal: scisim refuses the schedule: line %ld: %s\n%s\n",
                err.line, err.msg, text);
        abort();
    }
    if (prc == 0)
        goal_free(&s);
    free(text);
    return 0;
}
