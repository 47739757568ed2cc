/* libFuzzer target: the traffic matrix reader (traffic_read) and, for a
 * matrix it accepts with few ranks, the projection onto a 2D torus. */
#include <stdint.h>

#include "model/projection.h"
#include "model/traffic.h"
#include "tests/fuzz/fuzz_input.h"

/* Larger matrices are valid too, but their tori take memory, not code. */
#define FUZZ_MAX_RANKS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    traffic_matrix t;
    traffic_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (traffic_read(path, &t, &err) == 0) {
        model_params p;
        model_params_preset("current", &p);
        proj_config c = {&p, &p, TOPO_LINKS_BI, 2, NULL, NULL};
        topo_shape s;
        long pos[FUZZ_MAX_RANKS];
        proj_result r;
        if (t.ranks <= FUZZ_MAX_RANKS &&
            proj_smallest_torus(2, proj_nodes_needed(&t, 2), &s) == 0) {
            proj_row_major(proj_nodes_needed(&t, 2), pos);
            (void)proj_project(&c, &t, &s, pos, &r);
        }
        traffic_free(&t);
    }
    close(fd);
    return 0;
}
