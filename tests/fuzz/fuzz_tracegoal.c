/* libFuzzer target: the GOAL writer's input, a trace directory.  The input
 * is split at "\n--\n" into rank files (rank i the i-th part, at most
 * FUZZ_RANKS), `scitrace goal --partial` reads them, and a schedule it
 * writes must be one scisim reads (goal_parse): anything else aborts. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/goal.h"
#include "scitrace/modes.h"

#define FUZZ_RANKS 8

static char dir[64], out[96];

static void clean(void)
{
    char path[128];
    for (int i = 0; i < FUZZ_RANKS; i++) {
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, i);
        unlink(path);
    }
    unlink(out);
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
    snprintf(out, sizeof out, "%s.goal", dir);
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
    /* the messages are one line each: not what is fuzzed */
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    char *argv[] = {"goal", "--partial", "-o", out, dir, NULL};
    int rc = scitrace_goal(5, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved), close(null);
    if (rc != 0)
        return 0;
    FILE *fp = fopen(out, "r");
    if (!fp)
        abort();
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int ch;
    while ((ch = getc(fp)) != EOF)
        putc(ch, mem);
    fclose(fp);
    fclose(mem);
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
