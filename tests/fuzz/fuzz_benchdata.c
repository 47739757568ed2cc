/* libFuzzer target: the bench TSV reader (bench_data_read). */
#include <stdint.h>

#include "bench/benchdata.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    bench_data d;
    bench_read_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (bench_data_read(path, &d, &err) == 0) {
        (void)bench_data_header(&d, "topology");
        bench_data_free(&d);
    }
    close(fd);
    return 0;
}
