/* pattern: the destinations of the traffic patterns (docs/model.md, 'Patterns') (the
 * thesis's chapter 7 names them as missing): neighbor (halo exchange),
 * tornado, complement, transpose; uniform is every other node. */
#include "topo/topo.h"

#include <string.h>

static const char *const pattern_names[TOPO_PATTERN_COUNT] = {
    "uniform", "neighbor", "tornado", "complement", "transpose",
};

const char *topo_pattern_name(topo_pattern pattern)
{
    return pattern < TOPO_PATTERN_COUNT ? pattern_names[pattern] : "?";
}

int topo_pattern_parse(const char *text, topo_pattern *pattern)
{
    for (int i = 0; i < TOPO_PATTERN_COUNT; i++)
        if (strcmp(text, pattern_names[i]) == 0)
            return *pattern = (topo_pattern)i, 0;
    /* BookSim's name: its bit complement of the node number is this
     * complement when every n_i is a power of two */
    if (strcmp(text, "bitcomp") == 0)
        return *pattern = TOPO_PATTERN_COMPLEMENT, 0;
    return -1;
}

const char *topo_pattern_check(const topo_shape *shape, topo_pattern pattern)
{
    if (pattern == TOPO_PATTERN_TRANSPOSE &&
        (shape->dims != 2 || shape->n[0] != shape->n[1]))
        return "transpose needs a square 2D shape (n x n)";
    return NULL;
}

int topo_pattern_dests(const topo_shape *shape, topo_pattern pattern, long src, long *dst)
{
    long s[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
    int count = 0, same = 1;
    if (pattern == TOPO_PATTERN_UNIFORM || pattern >= TOPO_PATTERN_COUNT ||
        topo_pattern_check(shape, pattern))
        return -1;
    topo_rank_to_coords(shape, src, s);
    if (pattern == TOPO_PATTERN_NEIGHBOR) {
        for (int i = 0; i < shape->dims; i++) {
            long n = shape->n[i], keep = s[i];
            s[i] = (keep + 1) % n;
            dst[count++] = topo_coords_to_rank(shape, s);
            if (n > 2) {   /* s - e_i coincides with s + e_i when n = 2 */
                s[i] = (keep + n - 1) % n;
                dst[count++] = topo_coords_to_rank(shape, s);
            }
            s[i] = keep;
        }
        return count;
    }
    for (int i = 0; i < shape->dims; i++) {
        long n = shape->n[i];
        if (pattern == TOPO_PATTERN_TORNADO)
            d[i] = (s[i] + (n + 1) / 2 - 1) % n;   /* ceil(n/2) - 1 further */
        else if (pattern == TOPO_PATTERN_COMPLEMENT)
            d[i] = n - 1 - s[i];
        else
            d[i] = s[shape->dims - 1 - i];         /* transpose: (x, y) -> (y, x) */
        same &= d[i] == s[i];
    }
    if (same)
        return 0;
    dst[0] = topo_coords_to_rank(shape, d);
    return 1;
}
