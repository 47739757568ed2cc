/* libFuzzer target: the binary rank file decoder (trace/tracebin.c) behind
 * trace_rank_read.  The input follows the 16-byte magic, so every input is
 * records; what the reader accepts is aggregated and, for a one-rank
 * trace, replayed as `scitrace check` would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_input.h"
#include "trace/check.h"
#include "trace/tracebin.h"
#include "trace/tracefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    trace_rank r;
    trace_error err;
    uint8_t *file = malloc(TRACEBIN_MAGIC_LEN + size);
    if (!file)
        return 0;
    memcpy(file, TRACEBIN_MAGIC, TRACEBIN_MAGIC_LEN);
    if (size)
        memcpy(file + TRACEBIN_MAGIC_LEN, data, size);
    int fd = fuzz_memfd(file, TRACEBIN_MAGIC_LEN + size, path, sizeof path);
    free(file);
    if (fd < 0)
        return 0;
    if (trace_rank_read(path, &r, &err) == 0) {
        if (trace_rank_aggregate(&r, NULL, &err) == 0 && r.ranks == 1 && r.rank == 0) {
            unsigned char loaded = 1;
            trace_dir d = {.path = path, .nranks = 1, .ranks = &r, .loaded = &loaded, .nloaded = 1};
            char why[4400];
            trace_dir_incomplete(&d, why, sizeof why);
            check_result res;
            if (check_replay(&d, 4096, &res) == 0)
                check_free(&res);
        }
        trace_rank_free(&r);
    }
    close(fd);
    return 0;
}
