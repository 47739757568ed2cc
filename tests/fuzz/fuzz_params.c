/* libFuzzer target: the params file reader (model_params_read).  What it
 * accepts must be within the physical ranges it promises:
 * times 0..1e9 ns, slopes 0..1e6 ns/B, sizes 0..2^40 B, so o(m) is finite
 * at every size up to 2^40 B.  A violation traps. */
#include <math.h>
#include <stdint.h>

#include "model/params.h"
#include "tests/fuzz/fuzz_input.h"

static void check(const model_params *p)
{
    const double t[] = {p->o0_ns, p->lp_ns, p->lf_ns, p->ls_ns};
    for (int i = 0; i < 4; i++)
        if (!(t[i] >= 0 && t[i] <= 1e9))
            __builtin_trap();
    if (!(p->o1_ns_per_byte >= 0 && p->o1_ns_per_byte <= 1e6) ||
        !(p->mref_bytes >= 0 && p->mref_bytes <= 1099511627776.0))
        __builtin_trap();
    for (int i = 0; i < p->o_segments; i++)
        if (!(p->oseg[i].ns >= 0 && p->oseg[i].ns <= 1e9 && p->oseg[i].ns_per_byte >= 0 &&
              p->oseg[i].ns_per_byte <= 1e6 && p->oseg[i].from_bytes >= 0 &&
              p->oseg[i].from_bytes <= 1099511627776.0))
            __builtin_trap();
    if (!isfinite(model_overhead_ns(p, 1099511627776.0)) || !isfinite(model_overhead_ns(p, 0)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    model_params p;
    model_params_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (model_params_read(path, &p, &err) == 0)
        check(&p);
    close(fd);
    return 0;
}
