/* libFuzzer target: the params file reader (model_params_read). */
#include <stdint.h>

#include "model/params.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    model_params p;
    model_params_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (model_params_read(path, &p, &err) == 0)
        (void)model_overhead_ns(&p, 1000);   /* exercise the segments read */
    close(fd);
    return 0;
}
