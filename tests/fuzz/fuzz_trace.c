/* libFuzzer target: the rank file reader (trace_rank_read), the aggregates
 * built from what it accepts, and, for a one-rank trace, the rule for
 * incomplete records and the replay of `scitrace check`. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_input.h"
#include "trace/check.h"
#include "trace/tracefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    trace_rank r;
    trace_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
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
