/* libFuzzer target: the command-line parsers -- shapes (topo_shape_parse),
 * size lists, dims lists and hop vectors (parse_list), numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    long out[4096];
    size_t n, pos;
    double d;
    topo_shape shape;
    topo_parse_error err;
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    if (topo_shape_parse(s, &shape, &err) == 0) {
        /* what a parsed shape prints must parse back to the same shape */
        char buf[16 * 21];
        topo_shape again;
        topo_shape_format(&shape, buf, sizeof buf);
        if (topo_shape_parse(buf, &again, &err) != 0 || again.dims != shape.dims ||
            again.nodes != shape.nodes ||
            memcmp(again.n, shape.n, (size_t)shape.dims * sizeof shape.n[0]) != 0)
            __builtin_trap();
    }
    (void)parse_list(s, PARSE_RANGE_POW2, 0, 1L << 30, out, 4096, &n, &pos);
    (void)parse_list(s, PARSE_RANGE_STEP1, 1, 16, out, 16, &n, &pos);
    (void)parse_list(s, PARSE_RANGE_STEP1, 0, 1000000, out, 16, &n, &pos);
    (void)parse_double(s, -1e300, 1e300, &d);
    (void)parse_long(s, -1000, 1L << 50, out);
    free(s);
    return 0;
}
