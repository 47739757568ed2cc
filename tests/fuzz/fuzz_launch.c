/* libFuzzer target: the launcher's readers (model/launch_read.c) -- a
 * hostfile, then, after a line "%%", a rankfile -- and the mappings of
 * every --map-by/--rank-by pair over the hosts a hostfile gives; every
 * placement must name one of the hosts for every rank. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/launch.h"
#include "tests/fuzz/fuzz_input.h"

/* More ranks are valid too, but cost time, not code. */
#define FUZZ_MAX_RANKS 4096

/* A placement names a host of h for every rank: anything else is a bug. */
static void check_nodes(const launch_hosts *h, const long *node, long n)
{
    for (long r = 0; r < n; r++)
        if (node[r] < 0 || node[r] >= h->count)
            abort();
}

static void map_all(const launch_hosts *h, long *node)
{
    static const char *const maps[] = {"slot", "node", "core", "socket", "ppr:1:node",
                                       "ppr:3:node"};
    static const char *const ranks[] = {"slot", "node", "core", "socket"};
    char why[128];
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        for (size_t j = 0; j < sizeof ranks / sizeof ranks[0]; j++) {
            launch_policy p = {0};
            if (launch_parse_map_by(maps[i], &p) || launch_parse_rank_by(ranks[j], &p))
                abort();   /* the table's own names must parse */
            long n = launch_default_ranks(h, &p);
            if (n > 0 && n <= FUZZ_MAX_RANKS && launch_map(h, &p, n, node, why, sizeof why) == 0)
                check_nodes(h, node, n);
            if (launch_map(h, &p, 7, node, why, sizeof why) == 0)
                check_nodes(h, node, 7);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char hpath[64], rpath[64];
    size_t split = size;
    for (size_t i = 0; i + 3 <= size; i++)
        if (!memcmp(data + i, "%%\n", 3) && (i == 0 || data[i - 1] == '\n')) {
            split = i;
            break;
        }
    size_t rest = split < size ? size - split - 3 : 0;
    int hfd = fuzz_memfd(data, split, hpath, sizeof hpath);
    if (hfd < 0)
        return 0;
    int rfd = fuzz_memfd(data + size - rest, rest, rpath, sizeof rpath);
    if (rfd < 0) {
        close(hfd);
        return 0;
    }
    launch_hosts h = {0};
    file_error err;
    static long node[FUZZ_MAX_RANKS];
    if (launch_hostfile_read(hpath, &h, &err) == 0) {
        map_all(&h, node);
        long total = launch_total_slots(&h);
        long n = total > 0 && total <= FUZZ_MAX_RANKS ? total : 4;
        if (launch_rankfile_read(rpath, &h, n, node, &err) == 0)
            check_nodes(&h, node, n);
        launch_hosts_free(&h);
    }
    close(rfd);
    close(hfd);
    return 0;
}
