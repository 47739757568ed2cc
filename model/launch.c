/* launch: Open MPI 4.1's placement of ranks on nodes (hostfile, --map-by,
 * --rank-by, rankfile), reproduced so that projection and replay see the
 * nodes mpirun would use; tests/test_launch.c checks it against mpirun's
 * own --display-map. */
#include "model/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_error.h"
#include "util/parse.h"

int launch_parse_map_by(const char *s, launch_policy *p)
{
    static const struct { const char *name; launch_map_kind kind; } table[] = {
        {"slot", LAUNCH_MAP_SLOT}, {"node", LAUNCH_MAP_NODE},
        {"core", LAUNCH_MAP_CORE}, {"socket", LAUNCH_MAP_SOCKET},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            p->map = table[i].kind;
            return 0;
        }
    const char *tail = strrchr(s, ':');
    if (strncmp(s, "ppr:", 4) || !tail || tail == s + 3 || strcmp(tail, ":node"))
        return -1;
    char num[32];
    size_t len = (size_t)(tail - (s + 4));
    if (len == 0 || len >= sizeof num)
        return -1;
    memcpy(num, s + 4, len);
    num[len] = '\0';
    long n;
    if (parse_long(num, 1, LAUNCH_MAX_SLOTS, &n) != PARSE_OK)
        return -1;
    p->map = LAUNCH_MAP_PPR;
    p->ppr = n;
    return 0;
}

int launch_parse_rank_by(const char *s, launch_policy *p)
{
    static const struct { const char *name; launch_rank_kind kind; } table[] = {
        {"slot", LAUNCH_RANK_SLOT}, {"node", LAUNCH_RANK_NODE},
        {"core", LAUNCH_RANK_CORE}, {"socket", LAUNCH_RANK_SOCKET},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            p->rank = table[i].kind;
            return 0;
        }
    return -1;
}

long launch_total_slots(const launch_hosts *h)
{
    long s = 0;
    for (long i = 0; i < h->count; i++)
        s += h->host[i].slots;
    return s;
}

long launch_default_ranks(const launch_hosts *h, const launch_policy *p)
{
    return p->map == LAUNCH_MAP_PPR ? p->ppr * h->count : launch_total_slots(h);
}

/* mpirun's node list for a new job: from the first host with a slot, the
 * hosts before it moved to the end (its starting point skips full nodes). */
static void node_order(const launch_hosts *h, long *order)
{
    long start = 0;
    while (start < h->count && h->host[start].slots <= 0)
        start++;
    if (start == h->count)
        start = 0;
    for (long k = 0; k < h->count; k++)
        order[k] = (start + k) % h->count;
}

/* By slot: every node takes its free slots in turn; ranks left over (an
 * oversubscribed job) are spread evenly, the first nodes taking one more. */
static void count_by_slot(const launch_hosts *h, const long *order, long ranks, long *count)
{
    long left = ranks;
    for (long k = 0; k < h->count && left > 0; k++) {
        long i = order[k];
        count[i] = h->host[i].slots < left ? h->host[i].slots : left;
        left -= count[i];
    }
    long each = left / h->count, extra = left % h->count;
    for (long k = 0; k < h->count && left > 0; k++)
        count[order[k]] += each + (k < extra);
}

/* By node: the ranks still to place are shared out evenly over the nodes
 * that had room in the last pass (at least one a node, the first nodes one
 * more), a node taking no more than its free slots unless the job is
 * oversubscribed; then, if any are left, one a node in turn. */
static void count_by_node(const launch_hosts *h, const long *order, long ranks, long *count)
{
    int over = launch_total_slots(h) < ranks;
    long mapped = 0, open = h->count;
    while (mapped < ranks && open > 0) {
        long left = ranks - mapped;
        long avg = left / open > 0 ? left / open : 1;
        long rest = left - avg * open;           /* may be negative */
        long extra = rest / open, xnodes = 0;    /* truncates toward 0 */
        int add_one = rest - extra * open > 0;
        if (add_one) {
            xnodes = left - (avg + extra) * open;
            extra++;
        }
        open = 0;
        for (long k = 0; k < h->count && mapped < ranks; k++) {
            long i = order[k];
            long free_slots = h->host[i].slots - count[i];
            if (!over && free_slots <= 0)
                continue;
            if (add_one && xnodes == 0)
                extra--, add_one = 0;
            else if (add_one)
                xnodes--;
            long take = avg + extra;
            if (!over && free_slots < take)
                take = free_slots;
            open++;
            if (take > ranks - mapped)
                take = ranks - mapped;
            count[i] += take;
            mapped += take;
        }
    }
    for (long k = 0; mapped < ranks; k = (k + 1) % h->count, mapped++)
        count[order[k]]++;
}

int launch_map(const launch_hosts *h, const launch_policy *p, long ranks, long *rank_node,
               char *why, size_t why_len)
{
    if (h->count <= 0) {
        snprintf(why, why_len, "no host to place ranks on");
        return -1;
    }
    if (p->map == LAUNCH_MAP_PPR && ranks > p->ppr * h->count) {
        snprintf(why, why_len, "ppr:%ld:node places %ld ranks on %ld hosts, not %ld",
                 p->ppr, p->ppr * h->count, h->count, ranks);
        return -1;
    }
    long *count = calloc((size_t)h->count, sizeof *count);
    long *order = malloc((size_t)h->count * sizeof *order);
    long *seq = malloc((size_t)h->count * sizeof *seq);
    if (!count || !order || !seq) {
        free(count), free(order), free(seq);
        snprintf(why, why_len, "out of memory for %ld hosts", h->count);
        return -1;
    }
    node_order(h, order);
    /* the job map lists nodes as they are first given ranks: by slot, the
     * nodes with slots first, and those without only when oversubscribed */
    memcpy(seq, order, (size_t)h->count * sizeof *seq);
    if (p->map == LAUNCH_MAP_NODE)
        count_by_node(h, order, ranks, count);
    else if (p->map == LAUNCH_MAP_PPR)
        for (long k = 0, left = ranks; k < h->count; left -= count[order[k]], k++)
            count[order[k]] = p->ppr < left ? p->ppr : left;
    else {
        count_by_slot(h, order, ranks, count);
        long n = 0;
        for (int pass = 0; pass < 2; pass++)
            for (long k = 0; k < h->count; k++)
                if ((h->host[order[k]].slots > 0) == (pass == 0))
                    seq[n++] = order[k];
    }
    launch_rank_kind rk = p->rank;
    if (rk == LAUNCH_RANK_DEFAULT)
        rk = p->map == LAUNCH_MAP_NODE ? LAUNCH_RANK_NODE : LAUNCH_RANK_SLOT;
    long r = 0;
    if (rk == LAUNCH_RANK_NODE) {
        /* round-robin over the map's nodes, each giving its next rank */
        long *left = count;
        while (r < ranks)
            for (long k = 0; k < h->count && r < ranks; k++)
                if (left[seq[k]] > 0) {
                    left[seq[k]]--;
                    rank_node[r++] = seq[k];
                }
    } else {
        for (long k = 0; k < h->count; k++)
            for (long c = 0; c < count[seq[k]]; c++)
                rank_node[r++] = seq[k];
    }
    free(count), free(order), free(seq);
    return 0;
}

int launch_place(const launch_request *rq, long ranks, long *rank_node, long *nodes,
                 file_error *err, const char **which)
{
    if (!rq->hostfile) {
        for (long r = 0; r < ranks; r++)
            rank_node[r] = r / rq->slots;
        *nodes = (ranks + rq->slots - 1) / rq->slots;
        return 0;
    }
    launch_hosts h;
    int rc;
    *which = "--hostfile";
    if ((rc = launch_hostfile_read(rq->hostfile, &h, err)))
        return rc;
    if (rq->rankfile) {
        *which = "--rankfile";
        rc = launch_rankfile_read(rq->rankfile, &h, ranks, rank_node, err);
    } else if (launch_map(&h, &rq->policy, ranks, rank_node, err->msg, sizeof err->msg)) {
        err->line = 0;
        err->sys_errno = 0;
        rc = -3;
    }
    *nodes = h.count;
    launch_hosts_free(&h);
    return rc;
}

int launch_request_finish(launch_request *rq, const char *map_by, const char *rank_by,
                          char *why, size_t why_len)
{
    const char *need = map_by ? "--map-by" : rank_by ? "--rank-by" : rq->rankfile ? "--rankfile" : NULL;
    if (need && !rq->hostfile)
        return snprintf(why, why_len, "%s needs --hostfile", need), -1;
    if (map_by && launch_parse_map_by(map_by, &rq->policy))
        return snprintf(why, why_len, "--map-by '%s': expected slot, node, core, socket or "
                        "ppr:N:node", map_by), -1;
    if (rank_by && launch_parse_rank_by(rank_by, &rq->policy))
        return snprintf(why, why_len, "--rank-by '%s': expected slot, node, core or socket",
                        rank_by), -1;
    return 0;
}
